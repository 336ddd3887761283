"""The host process of a C team: loads the team's library and plays it over ``jsonl``.

``python -m lightcycle.hosts.cteam LIBRARY.so`` is a bot program like any other: the
referee starts it, writes `jsonl` messages to its stdin and reads its replies on stdout
(see `lightcycle.protocols.jsonl`). The student's C code runs in this process, never in
the referee's, so a crash in it is the ``crashed`` verdict of its seat and nothing more.

Per message:

- ``start``: fill a fresh `InitData` (the court, every wall, both teams' names and
  colours, the starting cycles), seed ``rand()`` (``srand``), call ``init``.
- ``turn``: fill a fresh `MoveData` with every cycle and each team's CPU time, link one
  `CycleMove` per live cycle of the team in name order, call ``move``, then walk the
  list the student left and reply ``{"moves": {"A": {"heading": "n", "jump": false},
  ...}}`` in the list's order (the order the cycles move in).
- ``out``: nothing to do; ``end``: the next ``start`` may follow.

The structures are poisoned (every byte ``0xA5``) right after each call and then
released, so a student who keeps a pointer to them reads garbage, as in the course.

A cycle whose node is missing from the list, or whose ``direction`` is not exactly one of
``NORTH``/``EAST``/``SOUTH``/``WEST``, is left out of the reply: the referee forfeits that
cycle alone (``illegal_move``: "no move for cycle N") and the host writes why to stderr,
the bot's log. (Sending a malformed heading instead would be a protocol error, which
costs the whole team.)

The C code's standard output would corrupt the protocol: before the library is loaded the
host keeps the real stdout for itself on a new descriptor, points descriptor 1 at stderr,
and makes C's ``stdout`` line-buffered and flushes it after every call, so ``printf``
debugging lands in the bot's log. Standard input is likewise kept for the protocol, and
descriptor 0 reads ``/dev/null``.

Standard library only (ctypes): this runs in every C team's process, and its CPU time is
part of the team's.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from lightcycle.hosts.cteam.errors import LibraryError
from lightcycle.hosts.cteam.symbols import TeamFunctions, find_team_functions

# -- tron.h, mirrored (tests/hosts/test_cteam.py checks every size and offset) ------------
NORTH, EAST, SOUTH, WEST = 1, 2, 4, 8
TEAM_COUNT = 2
CYCLE_COUNT = 10
MAX_CYCLES = TEAM_COUNT * CYCLE_COUNT
MAX_PLAYER_NAME_LEN = 64
MAX_COLOR_NAME_LEN = 15
MAX_GRID_WIDTH = 64
MAX_GRID_HEIGHT = 48
MAX_WALLS = MAX_GRID_WIDTH * MAX_GRID_HEIGHT

HEADINGS = {NORTH: "n", EAST: "e", SOUTH: "s", WEST: "w"}
TEAM_COLORS = (("cyan", 0x00FFFF), ("magenta", 0xFF00FF))
"""The colour of each team, as lightcycle's board renderer draws them."""

POISON = 0xA5
"""The byte every structure is filled with after the call that used it."""

MAX_LIST = 4096
"""The most nodes of ``myCycles`` read back (a list the student made circular ends)."""

EXIT_SETUP = 3
"""Exit status for a library or game the host cannot play (the referee says crashed)."""


class Point(ctypes.Structure):
    """``struct Point``."""

    _fields_ = (("x", ctypes.c_int), ("y", ctypes.c_int))


class Cycle(ctypes.Structure):
    """``struct Cycle``."""

    _fields_ = (
        ("name", ctypes.c_char),
        ("team", ctypes.c_int),
        ("x", ctypes.c_int),
        ("y", ctypes.c_int),
        ("alive", ctypes.c_int),
        ("jumpsLeft", ctypes.c_int),
    )


class TeamInfo(ctypes.Structure):
    """``struct TeamInfo``."""

    _fields_ = (
        ("name", ctypes.c_char * (MAX_PLAYER_NAME_LEN + 1)),
        ("color", ctypes.c_char * (MAX_COLOR_NAME_LEN + 1)),
        ("rgb", ctypes.c_uint),
    )


class InitData(ctypes.Structure):
    """``struct InitData``."""

    _fields_ = (
        ("width", ctypes.c_int),
        ("height", ctypes.c_int),
        ("wallCount", ctypes.c_int),
        ("walls", Point * MAX_WALLS),
        ("teams", TeamInfo * TEAM_COUNT),
        ("myTeam", ctypes.c_int),
        ("cyclesPerTeam", ctypes.c_int),
        ("cycleCount", ctypes.c_int),
        ("cycles", Cycle * MAX_CYCLES),
        ("jumps", ctypes.c_int),
        ("turnLimit", ctypes.c_int),
        ("seed", ctypes.c_uint),
    )


class CycleMove(ctypes.Structure):
    """``struct CycleMove`` (a node of ``MoveData.myCycles``)."""


CycleMove._fields_ = (
    ("name", ctypes.c_char),
    ("x", ctypes.c_int),
    ("y", ctypes.c_int),
    ("direction", ctypes.c_int),
    ("jump", ctypes.c_int),
    ("next", ctypes.POINTER(CycleMove)),
)


class MoveData(ctypes.Structure):
    """``struct MoveData``."""

    _fields_ = (
        ("turn", ctypes.c_int),
        ("myTeam", ctypes.c_int),
        ("cycleCount", ctypes.c_int),
        ("cycles", Cycle * MAX_CYCLES),
        ("cpuTime", ctypes.c_longlong * TEAM_COUNT),
        ("myCycles", ctypes.POINTER(CycleMove)),
    )


STRUCTS: dict[str, type[ctypes.Structure]] = {
    "Point": Point,
    "Cycle": Cycle,
    "TeamInfo": TeamInfo,
    "InitData": InitData,
    "CycleMove": CycleMove,
    "MoveData": MoveData,
}
"""Every structure of tron.h by its C name."""


class GameError(Exception):
    """A game this host cannot play (the referee records the message as a crash)."""


def c_text(text: str, size: int) -> bytes:
    """``text`` as UTF-8 cut to at most ``size`` bytes without splitting a character."""
    return text.encode("utf-8")[:size].decode("utf-8", "ignore").encode("utf-8")


def poison(obj: ctypes.Structure | ctypes.Array[Any]) -> None:
    """Overwrite ``obj``'s memory, so pointers a student kept see garbage."""
    ctypes.memset(ctypes.addressof(obj), POISON, ctypes.sizeof(obj))


def _xy(cycle: dict[str, Any]) -> tuple[int, int]:
    head = cycle.get("head")
    if not (isinstance(head, list) and len(head) == 2 and all(isinstance(v, int) for v in head)):
        raise GameError(f"cycle heads must be [x, y] on a grid, got {head!r}")
    return head[0], head[1]


def _fill_cycle(dst: Cycle, src: dict[str, Any]) -> None:
    name = str(src.get("name") or "?")
    dst.name = name.encode("ascii", "replace")[:1]
    dst.team = int(src.get("team", 0))
    dst.x, dst.y = _xy(src)
    dst.alive = 1 if src.get("alive") else 0
    dst.jumpsLeft = int(src.get("jumps_left") or 0)


def _cycles(message: dict[str, Any]) -> list[dict[str, Any]]:
    cycles = message.get("cycles")
    if not isinstance(cycles, list) or not all(isinstance(c, dict) for c in cycles):
        raise GameError('the message has no "cycles" list')
    if len(cycles) > MAX_CYCLES:
        raise GameError(f"{len(cycles)} cycles in the game; tron.h holds {MAX_CYCLES} at most")
    return sorted(cycles, key=lambda c: int(c.get("id", 0)))


def build_init(start: dict[str, Any], seed: int) -> InitData:
    """A fresh `InitData` for a ``start`` message.

    Raises:
        GameError: the game does not fit tron.h (not a grid, too large, too many cycles,
            not two teams).
    """
    board = start.get("board")
    if not isinstance(board, dict) or board.get("kind") != "grid":
        raise GameError("the C team interface plays grid boards only")
    width, height = int(board["width"]), int(board["height"])
    if not (0 < width <= MAX_GRID_WIDTH and 0 < height <= MAX_GRID_HEIGHT):
        raise GameError(
            f"a {width}x{height} court is larger than tron.h allows "
            f"({MAX_GRID_WIDTH}x{MAX_GRID_HEIGHT})"
        )
    if int(start.get("players", 0)) != TEAM_COUNT:
        raise GameError(f"the C team interface plays {TEAM_COUNT} teams, not {start['players']}")
    cycles = _cycles(start)
    if not all(isinstance(c.get("name"), str) and len(c["name"]) == 1 for c in cycles):
        raise GameError(
            "the C team interface plays rulesets whose cycles are named by letters (teams)"
        )
    per_team = len(cycles) // TEAM_COUNT
    if per_team > CYCLE_COUNT:
        raise GameError(f"{per_team} cycles per team; tron.h holds {CYCLE_COUNT} at most")
    data = InitData()
    data.width, data.height = width, height
    walls = board.get("walls") or []
    data.wallCount = len(walls)
    for k, (x, y) in enumerate(walls):
        data.walls[k].x, data.walls[k].y = x, y
    names = start.get("names") or []
    for t in range(TEAM_COUNT):
        team = data.teams[t]
        team.name = c_text(str(names[t]) if t < len(names) else f"team {t}", MAX_PLAYER_NAME_LEN)
        team.color = TEAM_COLORS[t][0].encode()
        team.rgb = TEAM_COLORS[t][1]
    data.myTeam = int(start.get("seat", 0))
    data.cyclesPerTeam = per_team
    data.cycleCount = len(cycles)
    for k, c in enumerate(cycles):
        _fill_cycle(data.cycles[k], c)
    settings = start.get("settings") or {}
    data.jumps = int(settings.get("jumps") or 0)
    data.turnLimit = int(settings.get("turn_limit") or 0)
    data.seed = seed & 0xFFFFFFFF
    return data


class TurnData:
    """A fresh `MoveData` for one ``turn`` message, with its list of `CycleMove` nodes.

    Attributes:
        data: the structure handed to ``move``.
        nodes: the nodes first linked into ``data.myCycles``, in name order.
        mine: the names of the team's cycles that must move, in name order.
    """

    def __init__(self, turn: dict[str, Any], team: int) -> None:
        cycles = _cycles(turn)
        data = MoveData()
        data.turn = int(turn.get("turn", 0))
        data.myTeam = team
        data.cycleCount = len(cycles)
        for k, c in enumerate(cycles):
            _fill_cycle(data.cycles[k], c)
        cpu = turn.get("cpu") or []
        for t in range(min(TEAM_COUNT, len(cpu))):
            data.cpuTime[t] = int(cpu[t])
        moving = [
            c
            for c in cycles
            if c.get("team") == team and c.get("alive") and c.get("moving", True) and c.get("name")
        ]
        nodes = (CycleMove * max(1, len(moving)))()
        for k, c in enumerate(moving):
            node = nodes[k]
            node.name = str(c["name"]).encode("ascii", "replace")[:1]
            node.x, node.y = _xy(c)
            if k + 1 < len(moving):
                node.next = ctypes.pointer(nodes[k + 1])
        if moving:
            data.myCycles = ctypes.pointer(nodes[0])
        self.data = data
        self.nodes = nodes
        self.mine = [str(c["name"]) for c in moving]

    def walk(self) -> Iterator[CycleMove]:
        """The nodes of ``myCycles`` as the student left the list (a loop ends it)."""
        seen: set[int] = set()
        p = self.data.myCycles
        while p and len(seen) < MAX_LIST:
            address = ctypes.addressof(p.contents)
            if address in seen:
                warn("myCycles loops back to an earlier node; the list ends there")
                return
            seen.add(address)
            node = p.contents
            yield node
            p = node.next

    def moves(self) -> dict[str, dict[str, Any]]:
        """The reply's moves, in the list's order; what cannot be sent is explained."""
        out: dict[str, dict[str, Any]] = {}
        wanted = set(self.mine)
        answered: set[str] = set()
        for node in self.walk():
            name = node.name.decode("latin-1")
            if name not in wanted:
                warn(f"myCycles holds a node named {name!r}, not one of your live cycles: ignored")
                continue
            if name in answered:
                warn(f"cycle {name} is in myCycles twice: its first node counts")
                continue
            answered.add(name)
            direction = int(node.direction)
            heading = HEADINGS.get(direction)
            if heading is None:
                warn(
                    f"cycle {name}: direction {direction} is not exactly one of NORTH (1), "
                    "EAST (2), SOUTH (4) or WEST (8); it makes no move and explodes"
                )
                continue
            out[name] = {"heading": heading, "jump": bool(node.jump)}
        for name in self.mine:
            if name not in answered:
                warn(f"cycle {name} is missing from myCycles; it makes no move and explodes")
        return out

    def release(self) -> None:
        """Poison the structures (call after reading the moves back)."""
        poison(self.data)
        poison(self.nodes)


def warn(text: str) -> None:
    """A line for the bot's log (stderr)."""
    sys.stderr.write(f"cteam: {text}\n")
    sys.stderr.flush()


class Libc:
    """The few C library calls the host needs: ``srand``, ``fflush``, ``setvbuf``."""

    def __init__(self) -> None:
        self.lib = ctypes.CDLL(None)
        self.lib.srand.argtypes = (ctypes.c_uint,)
        self.lib.srand.restype = None
        self.lib.fflush.argtypes = (ctypes.c_void_p,)
        self.lib.fflush.restype = ctypes.c_int

    def line_buffer_stdout(self) -> None:
        """Make C's ``stdout`` line-buffered, so a crash loses no finished line."""
        try:
            stream = ctypes.c_void_p.in_dll(self.lib, "stdout")
        except ValueError:
            return
        setvbuf = self.lib.setvbuf
        setvbuf.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_size_t)
        setvbuf.restype = ctypes.c_int
        setvbuf(stream, None, 1, 1024)  # _IOLBF is 1 on glibc and musl

    def srand(self, seed: int) -> None:
        """Seed ``rand()`` for the library (it shares this C library)."""
        self.lib.srand(seed & 0xFFFFFFFF)

    def flush(self) -> None:
        """Flush every C stream (``fflush(NULL)``)."""
        self.lib.fflush(None)


class Team:
    """A loaded team library: its three functions, called with fresh structures."""

    def __init__(self, path: Path, prefix: str | None = None) -> None:
        self.path = path
        self.functions: TeamFunctions = find_team_functions(path, prefix)
        try:
            self.lib = ctypes.CDLL(str(path.resolve()))
        except OSError as exc:
            raise LibraryError(f"cannot load the team library {path}: {exc}") from None
        try:
            get_name, init, move = (getattr(self.lib, n) for n in self.functions.names())
        except AttributeError as exc:
            raise LibraryError(
                f"{path}: {exc}; define getName, init and move "
                "(or one prefixed set such as jane_doe_getName, jane_doe_init, jane_doe_move)"
            ) from None
        get_name.argtypes = ()
        get_name.restype = ctypes.c_char_p
        init.argtypes = (ctypes.POINTER(InitData),)
        init.restype = None
        move.argtypes = (ctypes.POINTER(MoveData),)
        move.restype = None
        self._get_name: Callable[[], bytes | None] = get_name
        self._init: Callable[[Any], None] = init
        self._move: Callable[[Any], None] = move

    def name(self) -> str:
        """What ``getName`` returns."""
        raw = self._get_name()
        return raw.decode("utf-8", "replace") if raw is not None else "(null)"

    def init(self, data: InitData) -> None:
        """Call ``init``."""
        self._init(ctypes.byref(data))

    def move(self, data: MoveData) -> None:
        """Call ``move``."""
        self._move(ctypes.byref(data))


class Host:
    """The protocol loop of one team process.

    Args:
        team: the loaded library.
        libc: the C library calls.
        send: writes one reply (bytes) to the referee.
        seed: the seed for ``srand`` when the referee announces none (``--param
            seed=N`` announces one).
    """

    def __init__(
        self, team: Team, libc: Libc, send: Callable[[bytes], None], seed: int = 1
    ) -> None:
        self.team = team
        self.libc = libc
        self.send = send
        self.seed = seed
        self.seat = 0
        self.games = 0

    def handle(self, message: dict[str, Any]) -> None:
        """Act on one referee message."""
        kind = message.get("type")
        if kind == "start":
            self.start(message)
        elif kind == "turn":
            self.turn(message)
        elif kind == "end":
            self.libc.flush()
        elif kind != "out":
            warn(f"ignored a message of unknown type {kind!r}")

    def start(self, message: dict[str, Any]) -> None:
        """Build `InitData`, seed ``rand()`` and call ``init``."""
        self.games += 1
        self.seat = int(message.get("seat", 0))
        params = message.get("params") or {}
        seed = self.seed
        if "seed" in params:
            try:
                seed = int(str(params["seed"]), 0)
            except ValueError:
                warn(f"--param seed={params['seed']!r} is not an integer; using {seed}")
        data = build_init(message, seed)
        self.libc.srand(seed)
        try:
            self.team.init(data)
        finally:
            self.libc.flush()
            poison(data)

    def turn(self, message: dict[str, Any]) -> None:
        """Build `MoveData`, call ``move``, read the list back and reply."""
        turn = TurnData(message, self.seat)
        try:
            self.team.move(turn.data)
        finally:
            self.libc.flush()
        moves = turn.moves()
        turn.release()
        self.send(json.dumps({"moves": moves}, separators=(",", ":")).encode() + b"\n")


def take_stdio() -> tuple[IO[bytes], Callable[[bytes], None]]:
    """Keep stdin and stdout for the protocol; give the C code ``/dev/null`` and stderr.

    Returns:
        The protocol's input, and a function writing one whole reply to its output.
    """
    sys.stdout.flush()
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.set_inheritable(proto_in, False)
    os.set_inheritable(proto_out, False)

    def send(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(proto_out, view) :]

    return open(proto_in, "rb", buffering=65536), send


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m lightcycle.hosts.cteam",
        description="Play a C team library (see tron.h) over lightcycle's jsonl protocol.",
    )
    parser.add_argument("library", type=Path, help="the team's shared library (.so)")
    parser.add_argument(
        "--prefix",
        default=None,
        help="the functions' prefix, e.g. jane_doe_ (default: found in the library)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=1,
        help="srand() seed when the referee sends no seed parameter (default: 1)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the host; returns the exit status."""
    args = parse_args(argv)
    proto_in, send = take_stdio()
    libc = Libc()
    libc.line_buffer_stdout()
    try:
        team = Team(args.library, args.prefix)
    except LibraryError as exc:
        warn(str(exc))
        return EXIT_SETUP
    warn(f"team {team.name()!r} from {args.library} ({', '.join(team.functions.names())})")
    host = Host(team, libc, send, seed=args.seed)
    for line in proto_in:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError as exc:
            warn(f"cannot read the referee's message ({exc}): {line[:200]!r}")
            return EXIT_SETUP
        try:
            host.handle(message)
        except GameError as exc:
            warn(str(exc))
            return EXIT_SETUP
        except BrokenPipeError:
            return 0
    libc.flush()
    return 0

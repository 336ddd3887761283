"""The local side of a remote seat: a bot program relayed as it is, or an in-process bot.

A `ProgramBot` runs the program as ``lightcycle match`` would (`BotProcess`: its own
process group or PID namespace, memory limit, the sandbox level asked for, stderr drained
into a tail) and only moves bytes: the server's ``data`` text goes to its stdin, its
stdout goes back cut into replies (`lightcycle.remote.framing`). The server runs the
protocol's codec and judges every reply, so the program plays exactly as in a local
match.

An `InProcessBot` (``builtin:...``, ``py:...`` or a `Bot` object) has no protocol of its
own: it plays ``jsonl``, whose messages `JsonlDecoder` turns back into the `GameState` a
`View` needs, and its answers become ``{"move": ...}`` lines.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from lightcycle.bots.api import Bot, BotError
from lightcycle.bots.registry import make_bot
from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology, Heading
from lightcycle.protocols import get_protocol
from lightcycle.referee.local import answers_by_cycle
from lightcycle.referee.players import BotSpec, ProgramPlayer
from lightcycle.remote.decode import DecodeError, JsonlDecoder
from lightcycle.remote.framing import Framer
from lightcycle.rules.legal import moves_this_turn, read_answer
from lightcycle.rules.observe import View
from lightcycle.sandbox import BotProcess, Limits


class LocalBot:
    """What the relay needs of a local bot (see the subclasses)."""

    protocol = "jsonl"
    display_name = "bot"

    def start_game(self) -> None:
        """Be ready for a new game (a new process unless the protocol plays several)."""

    def fileno(self) -> int | None:
        """A descriptor that becomes readable when the bot has output (``None``: none)."""
        return None

    def deliver(self, text: str) -> list[bytes]:
        """Hand the bot the server's data; return the replies it made at once."""
        raise NotImplementedError

    def replies(self) -> list[bytes]:
        """Replies the bot wrote since the last call (program bots)."""
        return []

    def pending_input(self) -> bool:
        """Whether input is buffered for a bot that has not read it yet."""
        return False

    def end_game(self) -> None:
        """The game is over (a program of a one-game protocol gets end of input)."""

    def exit_note(self) -> str | None:
        """Once, if the bot ended before the game did: how (for a warning line)."""
        return None

    def close(self) -> None:
        """Release everything (kill the process)."""


class ProgramBot(LocalBot):
    """A bot program relayed byte for byte (see the module docstring).

    The process is the referee's own `ProgramPlayer`'s (its folder, command rewriting,
    sandbox, limits), kept from game to game exactly where a match would keep it.

    Args:
        spec: a ``program`` bot spec (``cmd:...`` or a bot file).
        limits: its process limits (a bot file's memory overrides the memory).

    Raises:
        SandboxError: a sandbox that cannot read the bot's folder; at `start_game`, a
            program that cannot start.
    """

    def __init__(self, spec: BotSpec, limits: Limits) -> None:
        self.player = ProgramPlayer(spec, limits, log_dir=None, spares=0)
        self.protocol = self.player.protocol.name
        self.display_name = self.player.name
        self.process: BotProcess | None = None
        self.framer = Framer(self.protocol)
        self._noted = False

    def start_game(self) -> None:
        proc = self.process
        if proc is None or not self.player.reuses or proc.poll() is not None:
            self.player.stop()
        self.process, new = self.player.ensure_process("remote.log")
        if new:
            self.framer = Framer(self.protocol)
            self._noted = False

    def fileno(self) -> int | None:
        proc = self.process
        if proc is None or proc.stdout_eof:
            return None
        return proc.stdout_fd

    def deliver(self, text: str) -> list[bytes]:
        if self.process is not None:
            self.process.send(text.encode("utf-8", "surrogateescape"))
        return []

    def replies(self) -> list[bytes]:
        proc = self.process
        if proc is None:
            return []
        out: list[bytes] = []
        while True:
            chunk = proc.read()
            if not chunk:
                break
            out += self.framer.feed(chunk)
        if proc.stdout_eof:
            rest = self.framer.rest()
            if rest.strip():
                out.append(rest)
        return out

    def pending_input(self) -> bool:
        proc = self.process
        if proc is None or not proc.pending:
            return False
        proc.flush()
        return bool(proc.pending)

    def end_game(self) -> None:
        if not self.player.reuses:
            self.player.stop(grace=0.5)
            self.process = None

    def exit_note(self) -> str | None:
        proc = self.process
        if proc is None or self._noted or not proc.stdout_eof:
            return None
        self._noted = True
        proc.wait_exit(0.2)
        tail = proc.stderr_tail(400).decode("utf-8", "replace").strip().splitlines()[-1:]
        last = f"; its last stderr line: {tail[0]}" if tail else ""
        return f"the bot ended its output ({proc.status_text()}){last}"

    def close(self) -> None:
        self.player.shutdown()
        self.process = None


def _reply(state: GameState, cycle: int, answer: object) -> object:
    """A bot's answer as a jsonl move.

    On a grid a heading letter, or ``{"heading", "jump"}`` for a jump; on a graph the
    destination node, or ``{"to", "use_item"}`` when the move uses the held item.
    """
    move = read_answer(state, cycle, answer)
    topo = state.board.topology
    if not isinstance(topo, GridTopology):
        return {"to": move.to, "use_item": True} if move.use_item else move.to
    head = state.cycles[cycle].head
    step = topo.jump if move.jump else topo.move
    heading = next((h for h in Heading if step(head, h) == move.to), None)
    if heading is None:
        raise ValueError(f"answered a move to cell {move.to}, which is no heading from {head}")
    if move.jump or move.use_item:
        return {"heading": heading.letter, "jump": move.jump, "use_item": move.use_item}
    return heading.letter


class InProcessBot(LocalBot):
    """A Python bot playing over ``jsonl`` (see the module docstring).

    Args:
        bot: a spec text (``builtin:chaser``, ``py:bot.py``) or a `Bot` (a fresh copy is
            not made of an object: it plays every game).

    Raises:
        BotError: an unknown bot.
    """

    protocol = "jsonl"

    def __init__(self, bot: str | Bot) -> None:
        self.source = bot
        self.bot = make_bot(bot)
        self.display_name = self.bot.display_name
        self.decoder = JsonlDecoder()
        self._started = False

    def start_game(self) -> None:
        if self._started and isinstance(self.source, str):
            self.bot = make_bot(self.source)
        self._started = True
        self.decoder = JsonlDecoder()

    def deliver(self, text: str) -> list[bytes]:
        out: list[bytes] = []
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                raise DecodeError(
                    f"the server sent jsonl that is not JSON: {line[:80]!r}"
                ) from None
            if not isinstance(message, dict):
                continue
            reply = self._handle(message)
            if reply is not None:
                out.append(reply)
        return out

    def _handle(self, message: dict[str, Any]) -> bytes | None:
        kind = message.get("type")
        state = self.decoder.feed(message)
        if state is None:
            return None
        seat = self.decoder.seat
        if kind == "start":
            try:
                self.bot.start(View(state, seat))
            except Exception as exc:  # a bot's bug: said, and the game goes on
                _warn(f"{self.display_name}: start() raised {type(exc).__name__}: {exc}")
            return None
        if kind != "turn":
            return None
        mine = [c for c in state.cycles_of(seat) if moves_this_turn(state, c.index)]
        if not mine:
            return None
        limit = self.decoder.time.get("first_move" if state.turn == 0 else "move")
        view = View(state, seat, float(limit) if isinstance(limit, int | float) else None)
        try:
            answer = self.bot.move(view)
            pairs = answers_by_cycle(state, mine, answer)
            if sum(c.alive for c in state.cycles_of(seat)) == 1:  # "move" needs one live cycle
                reply: dict[str, Any] = {"move": _reply(state, *pairs[0])}
            else:
                # a cycle the bot gave no move is left out: the referee forfeits it
                moves = {str(i): _reply(state, i, a) for i, a in pairs if a is not None}
                reply = {"moves": moves}
        except Exception as exc:  # a bot's bug costs its move (the server times it out)
            _warn(
                f"{self.display_name}: move() on turn {state.turn + 1} raised "
                f"{type(exc).__name__}: {exc}; the server will time this move out"
            )
            return None
        return json.dumps(reply, separators=(",", ":")).encode() + b"\n"


def _warn(text: str) -> None:
    print(f"warning: {text}", file=sys.stderr, flush=True)


def make_local_bot(bot: str | Bot, protocol: str | None, limits: Limits) -> LocalBot:
    """The local bot for a spec or a `Bot` object.

    Raises:
        BotError: an unknown bot, a program without a protocol, or ``--protocol`` other
            than jsonl for an in-process bot.
    """
    from lightcycle.referee.players import parse_bot_spec

    if isinstance(bot, Bot):
        return InProcessBot(bot)
    spec = parse_bot_spec(bot, protocol)
    if spec.kind == "program":
        return ProgramBot(spec, limits)
    if protocol is not None and get_protocol(protocol).name != "jsonl":
        raise BotError(
            f"{bot}: built-in and py: bots play remotely over jsonl; drop --protocol {protocol}"
        )
    return InProcessBot(spec.text)

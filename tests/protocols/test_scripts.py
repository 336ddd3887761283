"""Scripted exchanges with every codec, no processes: test-vector files and properties.

Each file in ``vectors/`` is named after a protocol and holds cases. A case opens with
``=== title`` and is a script run top to bottom against one fresh codec:

``key: value``
    a setting: ``seat`` (default 0), ``map`` (a built-in name; empty: the ``| `` rows that
    follow, ``#`` wall, ``.`` floor, ``1``-``8`` starts), ``wrap: 1``, ``graph: N a-b ...``
    with ``starts: a b ...`` (a graph board instead), ``ruleset`` (default ``classic``),
    ``board`` (override the ruleset's board kind), ``settings: turn_limit=3 ...``,
    ``seed``, ``players``, ``names: A B``, ``loadtime`` / ``turntime`` (seconds),
    ``time: move=0.5 cpu=none ...`` (every time control, as the referee passes them),
    ``extra: key value`` (repeatable; the value may use the escapes below),
    ``xfail: reason`` (the case shows a codec bug).
``game``
    set up a new game from the settings (the codec stays: several games in a row).
``check`` / ``start`` / ``turn`` / ``out`` / ``end``
    call the codec (``out`` is ``eliminated``); the bytes it returns must be exactly the
    ``> `` lines that follow (none: nothing is sent).
``play 0:n 1:jump-e 2:17 3:forfeit``
    play one turn: per cycle index a heading, a jump, a node or a forfeit.
``< bytes``
    the bot writes these bytes (appended to the seat's buffer).
``= what EXPR``
    ``move`` / ``hello`` / ``ready`` read the buffer, ``stray`` drops leading blanks,
    ``buffer`` peeks, ``ranks`` is the outcome; the result must equal the Python
    expression ``EXPR`` (``Move`` is known).
``! what BYTES``
    reading must raise `ProtocolError` with exactly ``BYTES`` received; ``! check TEXT``
    and ``! start TEXT`` expect `UnsupportedGame` with ``TEXT`` in its message.

In ``> `` and ``< `` lines ``⏎`` is a newline and ``\\r``, ``\\t``, ``\\\\``, ``\\xNN``
are escapes; a line may not end with a blank (write ``\\x20``), so every byte is visible.
"""

from __future__ import annotations

import dataclasses
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.state import Board, GameState
from lightcycle.core.topology import GraphTopology, GridTopology, Heading
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapSpec
from lightcycle.protocols.aichallenge import AIChallenge
from lightcycle.protocols.base import Codec, Params, ProtocolError, UnsupportedGame, get_protocol
from lightcycle.protocols.sexp import Sexp
from lightcycle.protocols.tron2010 import Tron2010
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.legal import legal_moves, read_answer
from lightcycle.rules.ruleset import Ruleset
from lightcycle.rules.variants import CLASSIC, get_ruleset
from tests.conftest import grid_map, random_moves

VECTORS = Path(__file__).with_name("vectors")
PROTOCOLS = ("tron2010", "aichallenge", "sexp", "jsonl")

# -- the vector format --------------------------------------------------------------------

_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|r|t|n|\\)|⏎")
_EMITTING = ("check", "start", "turn", "out", "end")


def unescape(text: str) -> bytes:
    """The bytes a ``> `` or ``< `` line stands for."""
    out = bytearray()
    pos = 0
    for m in _ESCAPE.finditer(text):
        out += text[pos : m.start()].encode()
        token = m.group(0)
        if token == "⏎":
            out += b"\n"
        else:
            code = m.group(1)
            out += {"r": b"\r", "t": b"\t", "n": b"\n", "\\": b"\\"}.get(code) or bytes(
                [int(code[1:], 16)]
            )
        pos = m.end()
    out += text[pos:].encode()
    return bytes(out)


def escape(data: bytes) -> list[str]:
    """``data`` as the text of ``> `` lines (the inverse of `unescape`, line by line)."""
    lines: list[str] = []
    for chunk in data.splitlines(keepends=True):
        text = chunk.decode("utf-8", "surrogateescape")
        text = text.replace("\\", "\\\\").replace("\r", "\\r").replace("\t", "\\t")
        text = text.replace("⏎", "\\xe2\\x8f\\x8e")
        text = re.sub(
            r"[\x00-\x08\x0b-\x1f\x7f\udc80-\udcff]",
            lambda m: f"\\x{ord(m.group(0)) & 0xFF:02x}",
            text,
        )
        if text.endswith("\n"):
            text = text[:-1] + "⏎"
        elif text.endswith(" "):
            stripped = text.rstrip(" ")
            text = stripped + "\\x20" * (len(text) - len(stripped))
        lines.append(text)
    return lines


@dataclass
class Step:
    line: int
    kind: str  # set, row, cmd, send, expect, raises
    name: str = ""
    arg: str = ""
    sent: bytes | None = None  # for cmd: the expected bytes of the following > lines


@dataclass
class Case:
    path: Path
    line: int
    title: str
    steps: list[Step] = field(default_factory=list)

    @property
    def xfail(self) -> str | None:
        return next((s.arg for s in self.steps if s.kind == "set" and s.name == "xfail"), None)


def parse_vectors(path: Path) -> list[Case]:
    """Every case of a vector file."""
    cases: list[Case] = []
    case: Case | None = None
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path.name}:{n}"
        if raw != raw.rstrip():
            raise ValueError(f"{where}: a line may not end with a blank (write \\x20)")
        if raw.startswith("==="):
            case = Case(path, n, raw[3:].strip())
            cases.append(case)
            continue
        if not raw or raw.startswith("#"):
            continue
        if case is None:
            raise ValueError(f"{where}: a script line before the first '=== title'")
        steps = case.steps
        if raw in ("<", "|"):  # an empty chunk, an empty row
            raw += " "
        if raw.startswith((">", "<", "|")) and raw[:2] not in ("> ", "< ", "| "):
            raise ValueError(f"{where}: write '> ', '< ' or '| ' followed by the text")
        if raw.startswith("> "):
            if not steps or steps[-1].kind != "cmd" or steps[-1].name not in _EMITTING:
                raise ValueError(f"{where}: '> ' lines must follow {'/'.join(_EMITTING)}")
            steps[-1].sent = (steps[-1].sent or b"") + unescape(raw[2:])
        elif raw.startswith("< "):
            steps.append(Step(n, "send", sent=unescape(raw[2:])))
        elif raw.startswith("|"):
            steps.append(Step(n, "row", arg=raw[2:]))
        elif raw.startswith(("= ", "! ")):
            what, _, arg = raw[2:].partition(" ")
            steps.append(Step(n, "expect" if raw[0] == "=" else "raises", what, arg.strip()))
        elif re.match(r"[a-z_]+:", raw):
            key, _, value = raw.partition(":")
            steps.append(Step(n, "set", key, value.strip()))
        else:
            name, _, arg = raw.partition(" ")
            if name not in (*_EMITTING, "game", "play"):
                raise ValueError(f"{where}: unknown command {name!r}")
            steps.append(Step(n, "cmd", name, arg.strip()))
    return cases


def _evaluate(expr: str) -> Any:
    return eval(expr, {"__builtins__": {}, "Move": Move})


class Script:
    """Runs one case. With ``record`` set, emitted bytes are collected, not compared."""

    def __init__(self, case: Case, record: dict[int, bytes] | None = None) -> None:
        self.case = case
        self.protocol = get_protocol(case.path.stem)
        self.settings: dict[str, str] = {}
        self.extra: list[tuple[str, str]] = []
        self.rows: list[str] = []
        self.codec: Codec | None = None
        self.state: GameState | None = None
        self.buf = bytearray()
        self.record = record

    # -- building games from the settings ------------------------------------------------
    def spec(self) -> MapSpec:
        s = self.settings
        if "graph" in s:
            size, *edges = s["graph"].split()
            pairs = [tuple(int(v) for v in e.split("-")) for e in edges]
            topo = GraphTopology(int(size), pairs)  # type: ignore[arg-type]
            starts = tuple((int(v),) for v in s["starts"].split())
            return MapSpec(name="graph", board=Board(topo, 0), starts=starts)
        if s.get("map"):
            return get_map(s["map"])
        return grid_map(self.rows, wrap=s.get("wrap") == "1", name="script")

    def ruleset(self) -> Ruleset:
        s = self.settings
        rs = get_ruleset(s.get("ruleset", "classic"))
        if "settings" in s:
            values: dict[str, Any] = {}
            for item in s["settings"].split():
                key, _, value = item.partition("=")
                values[key] = None if value == "none" else int(value) if value.isdigit() else value
            rs = rs.with_settings(values)
        if "stages" in s:
            rs = dataclasses.replace(rs, stages=tuple(s["stages"].split()))
        if "board" in s:
            rs = dataclasses.replace(rs, board=s["board"])  # type: ignore[arg-type]
        return rs

    def params(self) -> Params:
        s = self.settings
        names = tuple(s["names"].split()) if "names" in s else ()
        load = float(s["loadtime"]) if "loadtime" in s else None
        move = float(s["turntime"]) if "turntime" in s else None
        time: dict[str, float | None] = {}
        for item in s.get("time", "").split():
            key, _, value = item.partition("=")
            time[key] = None if value == "none" else float(value)
        return Params(
            first_move_time=load, move_time=move, names=names, extra=tuple(self.extra), time=time
        )

    def new_game(self) -> None:
        s = self.settings
        names = s["names"].split() if "names" in s else None
        players = int(s["players"]) if "players" in s else None
        self.state = new_game(
            self.ruleset(), self.spec(), seed=int(s.get("seed", "1")), players=players, names=names
        )

    def play(self, arg: str) -> None:
        state = self.need_state()
        topo = state.board.topology
        moves: dict[int, Move | Forfeit] = {}
        for item in arg.split():
            index, _, what = item.partition(":")
            i = int(index)
            head = state.cycles[i].head
            if what == "forfeit":
                moves[i] = Forfeit(i, "scripted forfeit")
            elif what.isdigit():
                moves[i] = Move(i, int(what))
            elif what.startswith("jump-"):
                assert isinstance(topo, GridTopology)
                moves[i] = Move(i, topo.jump(head, Heading.parse(what[5:])), jump=True)
            else:
                assert isinstance(topo, GridTopology)
                moves[i] = Move(i, topo.move(head, Heading.parse(what)))
        self.state = step(state, moves)

    def need_state(self) -> GameState:
        if self.state is None:
            self.new_game()
        assert self.state is not None
        return self.state

    def need_codec(self) -> Codec:
        if self.codec is None:
            self.codec = self.protocol(int(self.settings.get("seat", "0")))
        return self.codec

    # -- running ---------------------------------------------------------------------------
    def run(self) -> None:
        for s in self.case.steps:
            try:
                self.do(s)
            except Exception as exc:
                exc.add_note(f"at {self.case.path.name}:{s.line} ({self.case.title})")
                raise

    def do(self, s: Step) -> None:
        if s.kind == "set":
            if s.name == "extra":
                key, _, value = s.arg.partition(" ")
                self.extra.append((key, unescape(value).decode()))
            elif s.arg or s.name == "map":
                self.settings[s.name] = s.arg
                if s.name == "map":
                    self.rows = []
            else:  # an empty value drops the setting
                self.settings.pop(s.name, None)
        elif s.kind == "row":
            self.rows.append(s.arg)
        elif s.kind == "send":
            assert s.sent is not None
            self.buf += s.sent
        elif s.kind == "cmd":
            self.command(s)
        elif s.kind == "expect":
            assert self.read(s.name) == _evaluate(s.arg)
        else:
            self.refused(s)

    def command(self, s: Step) -> None:
        if s.name == "game":
            self.new_game()
            return
        if s.name == "play":
            self.play(s.arg)
            return
        codec, state = self.need_codec(), self.need_state()
        if s.name == "check":
            codec.check(state)
            out = b""
        elif s.name == "start":
            out = codec.start(state, self.params())
        elif s.name == "turn":
            out = codec.turn(state)
        elif s.name == "out":
            out = codec.eliminated(state)
        else:
            assert state.outcome is not None, "end before the game is over"
            out = codec.end(state)
        if self.record is not None:
            self.record[s.line] = out
        else:
            assert out == (s.sent or b"")

    def read(self, what: str) -> Any:
        codec = self.need_codec()
        if what == "move":
            return codec.read_move(self.buf, self.need_state())
        if what == "hello":
            return codec.read_hello(self.buf)
        if what == "ready":
            return codec.read_ready(self.buf)
        if what == "stray":
            return codec.stray(self.buf)
        if what == "buffer":
            return bytes(self.buf)
        if what == "ranks":
            outcome = self.need_state().outcome
            return None if outcome is None else outcome.ranks
        raise ValueError(f"unknown expectation {what!r}")

    def refused(self, s: Step) -> None:
        codec = self.need_codec()
        if s.name in ("check", "start"):
            with pytest.raises(UnsupportedGame) as info:
                if s.name == "check":
                    codec.check(self.need_state())
                else:
                    codec.start(self.need_state(), self.params())
            assert s.arg in str(info.value)
            return
        with pytest.raises(ProtocolError) as err:
            self.read(s.name)
        assert err.value.protocol == codec.name
        assert err.value.received == _evaluate(s.arg)


def _all_cases() -> list[Any]:
    params = []
    for protocol in PROTOCOLS:
        for case in parse_vectors(VECTORS / f"{protocol}.txt"):
            slug = re.sub(r"[^a-z0-9]+", "-", case.title.lower()).strip("-")
            marks = [pytest.mark.xfail(reason=case.xfail, strict=True)] if case.xfail else []
            params.append(pytest.param(case, id=f"{protocol}:{slug}", marks=marks))
    return params


@pytest.mark.parametrize("case", _all_cases())
def test_vector(case: Case) -> None:
    Script(case).run()


def test_every_protocol_has_vectors_and_titles_are_unique() -> None:
    for protocol in PROTOCOLS:
        cases = parse_vectors(VECTORS / f"{protocol}.txt")
        assert len(cases) >= 5
        titles = [c.title for c in cases]
        assert len(titles) == len(set(titles))


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"8 4\n",
        b"#  1 \n",
        b"a\\b\r\n",
        b"\t\x00\x7f trailing  ",
        "été ⏎\n".encode(),
        b"\xff\xfe\\xff",
    ],
)
def test_escape_round_trip(data: bytes) -> None:
    assert b"".join(unescape(line) for line in escape(data)) == data
    assert all(line == line.rstrip() for line in escape(data))


# -- tron2010: the incremental map against a full re-encode and a reference drawing --------


def draw_2010(state: GameState, seat: int) -> bytes:
    """The 2010 map as the protocol describes it, drawn independently of the codec."""
    topo = state.board.topology
    assert isinstance(topo, GridTopology)
    w, h = topo.width, topo.height
    border = [
        topo.cell(x, y) for x in range(w) for y in range(h) if x in (0, w - 1) or y in (0, h - 1)
    ]
    pad = 0 if all(state.board.is_wall(c) for c in border) else 1
    rows = [["#"] * (w + 2 * pad) for _ in range(h + 2 * pad)]
    for y in range(h):
        for x in range(w):
            rows[y + pad][x + pad] = "#" if not state.is_free(topo.cell(x, y)) else " "
    for c in state.cycles:
        if c.alive:
            x, y = topo.xy(c.head)
            rows[y + pad][x + pad] = "1" if c.team == seat else "2"
    return f"{w + 2 * pad} {h + 2 * pad}\n".encode() + b"".join(
        "".join(r).encode() + b"\n" for r in rows
    )


OPEN_EDGE = grid_map(["1.....", "......", "..#...", ".....2"], name="open")
HALF_WALLED = grid_map(["######", "#1...#", "#.##..", "#...2#", "######"], name="half")
JUMPS = dataclasses.replace(
    CLASSIC.with_settings(jumps=3),
    name="classic-jumps",
    stages=("movement.jump", *CLASSIC.stages[1:]),
)
REMOVE = dataclasses.replace(
    CLASSIC,
    name="classic-remove",
    stages=tuple("trails.remove_on_death" if s == "trails.persist" else s for s in CLASSIC.stages),
)


def _jumpy_moves(state: GameState, rng: random.Random) -> dict[int, Move]:
    moves = random_moves(state, rng)
    for i in list(moves):
        jumps = [m for m in legal_moves(state, i) if m.jump and state.is_free(m.to)]
        if jumps and rng.random() < 0.2:
            moves[i] = rng.choice(jumps)
    return moves


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    spec=st.sampled_from(
        [
            get_map("arena-10"),
            get_map("ring"),
            get_map("pillars"),
            get_map("arena-30"),
            OPEN_EDGE,
            HALF_WALLED,
        ]
    ),
    ruleset=st.sampled_from([CLASSIC, CLASSIC.with_settings(turn_limit=30)]),
)
def test_tron2010_incremental_map_equals_full_encoding(
    seed: int, spec: MapSpec, ruleset: Ruleset
) -> None:
    rng = random.Random(seed)
    state = new_game(ruleset, spec, seed=seed)
    codecs = [Tron2010(0), Tron2010(1)]
    for c in codecs:
        assert c.start(state, Params()) == b""
    turns = 0
    while state.outcome is None:
        for seat, c in enumerate(codecs):
            fresh = Tron2010(seat)
            fresh.start(state, Params())
            sent = c.turn(state)
            assert sent == fresh.turn(state) == draw_2010(state, seat)
        state = step(state, _jumpy_moves(state, rng))
        turns += 1
    assert turns >= 1


@pytest.mark.parametrize("protocol", ["tron2010", "aichallenge", "sexp"])
@pytest.mark.parametrize("ruleset", [JUMPS, REMOVE], ids=["jumps", "trail-removal"])
def test_older_protocols_refuse_rules_they_cannot_express(protocol: str, ruleset: Ruleset) -> None:
    state = new_game(ruleset, get_map("arena-10"), seed=1)
    codec = get_protocol(protocol)
    with pytest.raises(UnsupportedGame, match=f"cannot express the rules of {ruleset.id}.*jsonl"):
        codec.check(state)


@pytest.mark.parametrize("protocol", ["tron2010", "aichallenge", "sexp"])
def test_older_protocols_refuse_the_team_and_3d_variants(protocol: str) -> None:
    from tests.conftest import graph_map

    codec = get_protocol(protocol)
    teams = get_ruleset("teams").with_settings(cycles_per_team=1)
    for state in (
        new_game(teams, get_map("court-small"), seed=1),
        new_game("tron3d", graph_map(), seed=1),
    ):
        with pytest.raises(UnsupportedGame, match="jsonl"):
            codec.check(state)


def test_tron2010_pads_only_maps_without_a_walled_border() -> None:
    for spec in (get_map("arena-10"), get_map("ring")):
        state = new_game("classic", spec, seed=1)
        topo = state.board.topology
        assert isinstance(topo, GridTopology)
        first = Tron2010(0).turn(state).split(b"\n", 1)[0]
        assert first == f"{topo.width} {topo.height}".encode()
    for spec in (OPEN_EDGE, HALF_WALLED):
        state = new_game("classic", spec, seed=1)
        topo = state.board.topology
        assert isinstance(topo, GridTopology)
        lines = Tron2010(0).turn(state).split(b"\n")
        assert lines[0] == f"{topo.width + 2} {topo.height + 2}".encode()
        assert lines[1] == lines[-2] == b"#" * (topo.width + 2)
        assert all(row[:1] == row[-1:] == b"#" for row in lines[1:-1])


def test_tron2010_headings_mean_the_same_in_the_padded_frame() -> None:
    # on the padded map the bot at frame (1, 1) answering 3 (south) moves down one cell
    state = new_game("classic", OPEN_EDGE, seed=1)
    codec = Tron2010(0)
    frame = codec.turn(state).split(b"\n")[1:-1]
    assert frame[1].index(b"1") == 1
    answer = codec.read_move(bytearray(b"3"), state)
    assert answer == {0: 3}
    move = read_answer(state, 0, answer[0])
    assert move.to == OPEN_EDGE.board.topology.cell(0, 1)  # type: ignore[attr-defined]


# -- aichallenge and sexp turn lines follow every head over whole games --------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(["ffa4", "ffa3", "arena-15"]))
def test_aichallenge_turn_lines_list_every_live_player(seed: int, name: str) -> None:
    rng = random.Random(seed)
    state = new_game("ffa", get_map(name), seed=seed)
    topo = state.board.topology
    assert isinstance(topo, GridTopology)
    codecs = [AIChallenge(t.index) for t in state.teams]
    for c in codecs:
        assert c.start(state, Params()).endswith(b"\nready\n")
    ends = [0] * len(codecs)
    while state.outcome is None:
        for seat, c in enumerate(codecs):
            if state.team_alive(seat):
                lines = c.turn(state).decode().splitlines()
                assert lines[0] == f"turn {state.turn + 1}" and lines[-1] == "go"
                expected = [
                    "p {} {} {}".format(cy.team, *reversed(topo.xy(cy.head)))
                    for cy in state.cycles
                    if cy.alive
                ]
                assert lines[1:-1] == expected
            else:
                ends[seat] += c.eliminated(state).count(b"end\n")
        state = step(state, random_moves(state, rng))
    for seat, c in enumerate(codecs):
        ends[seat] += c.end(state).count(b"end\n")
    assert ends == [1] * len(codecs)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(["torus-20", "arena-10", "ring"]))
def test_sexp_positions_come_mine_first(seed: int, name: str) -> None:
    rng = random.Random(seed)
    spec = get_map(name)
    state = new_game("torus" if name == "torus-20" else "classic", spec, seed=seed)
    codecs = [Sexp(0), Sexp(1)]
    for c in codecs:
        c.start(state, Params())
    topo = state.board.topology
    assert isinstance(topo, GridTopology)
    while state.outcome is None:
        pairs = ["({} . {})".format(*topo.xy(cy.head)) for cy in state.cycles]
        assert codecs[0].turn(state).decode().splitlines() == pairs
        assert codecs[1].turn(state).decode().splitlines() == pairs[::-1]
        state = step(state, random_moves(state, rng))
    words = {codecs[0].end(state), codecs[1].end(state)}
    assert words in ({b"win\n", b"loss\n"}, {b"draw\n"})


# -- max_reply: replies that grow too long are refused -------------------------------------

_UNFINISHED = {  # a reply that is not over yet, however long it grows
    "tron2010": (b"", b" "),
    "aichallenge": (b"n", b" "),
    "sexp": (b"", b" "),
    "jsonl": (b'{"move":"n"', b" "),
}
_FINISHED = {"tron2010": b"1", "aichallenge": b"\n", "sexp": b"n\n", "jsonl": b"}\n"}


def _duel(name: str) -> GameState:
    if name == "aichallenge":
        return new_game("ffa", get_map("arena-10"), seed=1)
    return new_game("classic", get_map("arena-10"), seed=1)


@pytest.mark.parametrize("name", PROTOCOLS)
def test_a_reply_growing_past_max_reply_is_refused(name: str) -> None:
    codec = get_protocol(name)(0)
    state = _duel(name)
    head, filler = _UNFINISHED[name]
    buf = bytearray(head)
    with pytest.raises(ProtocolError) as err:
        for _ in range(codec.max_reply // 64 + 2):
            buf += filler * 64
            assert codec.read_move(buf, state) is None
    assert len(buf) > codec.max_reply
    assert err.value.protocol == name


@pytest.mark.parametrize("name", PROTOCOLS)
def test_a_refused_long_reply_shows_the_bytes(name: str) -> None:
    codec = get_protocol(name)(0)
    head, filler = _UNFINISHED[name]
    buf = bytearray(head + filler * (codec.max_reply + 1))
    with pytest.raises(ProtocolError) as err:
        codec.read_move(buf, _duel(name))
    assert err.value.received != b""


@pytest.mark.parametrize("name", PROTOCOLS)
def test_a_long_reply_arriving_in_one_read_is_refused(name: str) -> None:
    codec = get_protocol(name)(0)
    head, filler = _UNFINISHED[name]
    data = head + filler * (codec.max_reply + 1) + _FINISHED[name]
    with pytest.raises(ProtocolError):
        codec.read_move(bytearray(data), _duel(name))


@pytest.mark.parametrize("name", ["aichallenge", "jsonl"])
def test_a_line_of_exactly_max_reply_bytes_is_read(name: str) -> None:
    codec = get_protocol(name)(0)
    head, filler = _UNFINISHED[name]
    end = _FINISHED[name]
    line = head + filler * (codec.max_reply - len(head) - len(end) + 1) + end
    assert len(line) == codec.max_reply + 1  # max_reply bytes and the newline
    assert codec.read_move(bytearray(line), _duel(name)) == {0: "n"}


def test_a_long_name_arriving_in_one_read_is_refused() -> None:
    with pytest.raises(ProtocolError):
        Sexp(0).read_hello(bytearray(b"x" * (Sexp.max_reply + 1) + b"\n"))


def test_a_long_name_arriving_in_pieces_is_refused() -> None:
    codec = Sexp(0)
    buf = bytearray()
    with pytest.raises(ProtocolError):
        for _ in range(Sexp.max_reply + 1):
            buf += b"x"
            assert codec.read_hello(buf) is None


def test_every_protocol_declares_what_the_referee_needs() -> None:
    flags = {
        c.name: (c.multi_game, c.hello, c.wants_ready, c.max_reply)
        for c in (Tron2010, AIChallenge, Sexp, get_protocol("jsonl"))
    }
    assert flags == {
        "tron2010": (False, False, False, 4096),
        "aichallenge": (False, False, True, 1024),
        "sexp": (False, True, False, 256),
        "jsonl": (True, False, False, 65536),
    }

"""Every jsonl message the codec sends, and example replies, against the JSON Schema.

The schema is ``docs/protocols/jsonl.schema.json``. Whole random games are played with
one codec per seat, driven as the referee drives them (start, a turn per live seat,
``out`` once for a seat knocked out, end, then the next game on the same codecs), and
every line sent is validated. Every registered ruleset is included: the team course on a
court (twenty cycles, jumps, CPU times) and the 3D course on mesh boards (items, turbo
rounds, scores), plus graph games under unregistered rulesets with ``board="any"``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from lightcycle.core.state import Board, GameState
from lightcycle.core.topology import GraphTopology, GridTopology
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapSpec
from lightcycle.protocols.base import Params, ProtocolError
from lightcycle.protocols.jsonl import JsonLines
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.legal import read_answer
from lightcycle.rules.ruleset import Ruleset
from lightcycle.rules.variants import CLASSIC, FFA, get_ruleset
from tests.conftest import random_moves

SCHEMA_PATH = Path(__file__).parents[2] / "docs" / "protocols" / "jsonl.schema.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _validator(definition: str | None = None) -> Draft202012Validator:
    if definition is None:
        return Draft202012Validator(SCHEMA)
    return Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": SCHEMA["$defs"]})


ANY = _validator()
TO_BOT = _validator("to_bot")
REPLY = _validator("reply")


def _errors(validator: Draft202012Validator, message: object) -> list[str]:
    return [e.message for e in validator.iter_errors(message)]


# -- boards ----------------------------------------------------------------------------------


def _lattice(n: int) -> MapSpec:
    """An n x n lattice with one diagonal per square, as a graph with 3D positions."""
    edges = []
    for y in range(n):
        for x in range(n):
            v = y * n + x
            if x + 1 < n:
                edges.append((v, v + 1))
            if y + 1 < n:
                edges.append((v, v + n))
            if x + 1 < n and y + 1 < n:
                edges.append((v, v + n + 1))
    positions = [(float(v % n), float(v // n), 0.5) for v in range(n * n)]
    topo = GraphTopology(n * n, edges, positions=positions)
    walls = 1 << (n * n // 2)  # the middle node
    return MapSpec(name="lattice", board=Board(topo, walls), starts=((0,), (n * n - 1,)))


def _ring(n: int) -> MapSpec:
    """A plain cycle graph without positions."""
    topo = GraphTopology(n, [(i, (i + 1) % n) for i in range(n)])
    return MapSpec(name="ring-graph", board=Board(topo, 0), starts=((0,), (n // 2,)))


GRAPH_DUEL = Ruleset(name="graph-duel", version=1, stages=CLASSIC.stages, board="any")
GRAPH_FFA = Ruleset(name="graph-ffa", version=1, stages=FFA.stages, board="any", players=(2, 8))

GAMES = {
    "classic-arena-15": (CLASSIC, get_map("arena-15"), None),
    "classic-turn-limit": (CLASSIC.with_settings(turn_limit=5), get_map("arena-15"), None),
    "ffa-ffa4": (FFA, get_map("ffa4"), None),
    "ffa-arena-50-six": (FFA, get_map("arena-50"), 6),
    "torus-20": ("torus", get_map("torus-20"), None),
    "graph-lattice": (GRAPH_DUEL, _lattice(6), None),
    "graph-ring": (GRAPH_FFA, _ring(9), None),
    "teams-court-small": ("teams", get_map("court-small"), None),
    "tron3d-icosahedron-four": (
        get_ruleset("tron3d").with_settings(bonus_round=4),
        get_map("icosahedron"),
        4,
    ),
    "tron3d-cube-two": ("tron3d", get_map("cube"), 2),
}

PARAMS = Params(
    first_move_time=3.0,
    move_time=0.5,
    names=(),
    extra=(("league", "test"), ("turns", "500")),
    time={"total": 120.0, "overhead": None},
)


def _play(
    codecs: list[JsonLines], ruleset: Any, spec: MapSpec, players: int | None, seed: int
) -> Iterator[tuple[int, bytes, GameState]]:
    """Play one random game the way the referee drives seats; yield what each seat is sent."""
    state = new_game(ruleset, spec, seed=seed, players=players)
    rng = random.Random(seed)
    params = PARAMS
    if seed % 2:
        params = Params(names=tuple(f"bot-{t.index}" for t in state.teams))
    for seat in range(len(state.teams)):
        yield seat, codecs[seat].start(state, params), state
    while state.outcome is None:
        for seat in range(len(state.teams)):
            if state.team_alive(seat):
                yield seat, codecs[seat].turn(state), state
            else:
                yield seat, codecs[seat].eliminated(state), state
        moves = random_moves(state, rng)
        if state.turn % 3 == 0:  # some cycles use their items
            moves = {
                i: m._replace(use_item=True) if state.cycles[i].item else m
                for i, m in moves.items()
            }
        cpu = [rng.randrange(100) for _ in state.teams]
        state = step(state, moves, cpu)
    for seat in range(len(state.teams)):
        yield seat, codecs[seat].end(state), state


@pytest.mark.parametrize("game", list(GAMES))
def test_every_message_of_random_games_matches_the_schema(game: str) -> None:
    ruleset, spec, players = GAMES[game]
    seats = players or len(spec.starts) or 2
    codecs = [JsonLines(seat) for seat in range(seats)]
    seen: dict[str, int] = {}
    for seed in range(4):  # several games in a row on the same codecs
        for seat, data, _state in _play(codecs, ruleset, spec, players, seed):
            if not data:
                continue
            assert data.endswith(b"\n") and data.count(b"\n") == 1, data[:200]
            message = json.loads(data)
            assert _errors(TO_BOT, message) == [], message
            assert _errors(ANY, message) == [], message
            kind = message["type"]
            seen[kind] = seen.get(kind, 0) + 1
            if kind == "start":
                assert message["seat"] == seat
    assert seen["start"] == seen["end"] == 4 * seats
    assert seen["turn"] > 0
    if "ffa" in game:
        assert seen.get("out", 0) > 0


def test_out_is_sent_once_per_game() -> None:
    spec = get_map("ffa4")
    codecs = [JsonLines(seat) for seat in range(4)]
    for seed in range(3):
        outs = [0] * 4
        for seat, data, _ in _play(codecs, FFA, spec, None, seed):
            outs[seat] += data.count(b'"type":"out"')
        assert all(n <= 1 for n in outs)


def test_graph_heads_are_nodes_and_grid_heads_are_pairs() -> None:
    codec = JsonLines(0)
    for ruleset, spec in ((GRAPH_DUEL, _lattice(4)), (CLASSIC, get_map("arena-10"))):
        state = new_game(ruleset, spec)
        start = json.loads(codec.start(state, Params()))
        turn = json.loads(codec.turn(state))
        is_grid = isinstance(spec.board.topology, GridTopology)
        assert start["board"]["kind"] == ("grid" if is_grid else "graph")
        for cycle in turn["cycles"]:
            assert isinstance(cycle["head"], list) == is_grid


# -- replies ---------------------------------------------------------------------------------

GRID_STATE = new_game("classic", get_map("arena-10"), seed=1)
GRAPH_STATE = new_game(GRAPH_DUEL, _lattice(4), seed=1)

VALID_GRID_REPLIES = [
    {"move": "n"},
    {"move": "w"},
    {"moves": {"0": "e"}},
    {"move": {"heading": "s"}},
    {"move": {"heading": "e", "jump": True}},
    {"move": {"heading": "e", "use_item": True}},
    {"move": {"heading": "n", "jump": False, "use_item": True}},
    {"moves": {"0": {"heading": "w", "jump": True}}},
]
VALID_GRAPH_REPLIES = [
    {"move": 1},
    {"move": {"to": 4}},
    {"moves": {"0": 5}},
    {"moves": {"0": {"to": 1, "use_item": True}}},
]
INVALID_REPLIES = [  # the schema rejects them and so does the codec
    {},
    {"mov": "n"},
    {"move": "x"},
    {"move": True},
    {"move": 1.5},
    {"move": None},
    {"move": ["n"]},
    {"move": {"jump": True}},
    {"moves": ["n"]},
    {"moves": {"a": "n"}},
]
LENIENT_REPLIES = [  # the schema rejects them; the codec accepts them today
    {"move": "north"},
    {"move": "N"},
    {"move": "1"},
    {"move": "n", "comment": "extra keys are ignored"},
    {"move": {"heading": "n", "to": 3}},
    {"move": {"heading": "e", "jump": "yes"}},
    {"moves": {"-1": "n"}},
]


@pytest.mark.parametrize("reply", VALID_GRID_REPLIES + VALID_GRAPH_REPLIES, ids=str)
def test_valid_replies_match_the_schema_and_the_codec(reply: dict[str, Any]) -> None:
    assert _errors(REPLY, reply) == []
    assert _errors(ANY, reply) == []
    state = GRID_STATE if reply in VALID_GRID_REPLIES else GRAPH_STATE
    codec = JsonLines(0)
    codec.start(state, Params())
    answers = codec.read_move(bytearray(json.dumps(reply).encode() + b"\n"), state)
    assert answers is not None and list(answers) == [0]


@pytest.mark.parametrize("reply", INVALID_REPLIES, ids=str)
def test_invalid_replies_fail_the_schema_and_the_codec(reply: dict[str, Any]) -> None:
    assert _errors(REPLY, reply) != []
    assert _errors(ANY, reply) != []
    codec = JsonLines(0)
    codec.start(GRID_STATE, Params())
    with pytest.raises(ProtocolError):
        codec.read_move(bytearray(json.dumps(reply).encode() + b"\n"), GRID_STATE)


@pytest.mark.parametrize("reply", LENIENT_REPLIES, ids=str)
def test_lenient_replies_fail_the_schema(reply: dict[str, Any]) -> None:
    assert _errors(REPLY, reply) != []


@pytest.mark.parametrize("game", ["classic-arena-15", "ffa-ffa4", "graph-lattice"])
def test_replies_a_bot_would_write_match_the_schema_and_read_back(game: str) -> None:
    ruleset, spec, players = GAMES[game]
    state = new_game(ruleset, spec, seed=3, players=players)
    rng = random.Random(3)
    codecs = [JsonLines(t.index) for t in state.teams]
    for c in codecs:
        c.start(state, Params())
    topo = state.board.topology
    while state.outcome is None:
        moves = random_moves(state, rng)
        for seat, codec in enumerate(codecs):
            mine = {i: m for i, m in moves.items() if state.cycles[i].team == seat}
            if not mine:
                continue
            wire: dict[str, object] = {}
            for i, m in mine.items():
                if isinstance(topo, GridTopology):
                    heading = topo.heading_to(state.cycles[i].head, m.to)
                    assert heading is not None
                    wire[str(i)] = heading.letter
                else:
                    wire[str(i)] = m.to
            reply: dict[str, object] = (
                {"move": next(iter(wire.values()))} if rng.random() < 0.5 else {"moves": wire}
            )
            assert _errors(REPLY, reply) == []
            answers = codec.read_move(bytearray(json.dumps(reply).encode() + b"\n"), state)
            assert answers is not None
            assert {i: read_answer(state, i, a) for i, a in answers.items()} == mine
        state = step(state, moves)


def test_the_schema_is_valid_draft_2020_12() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(SCHEMA)

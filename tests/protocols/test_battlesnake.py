"""The Battlesnake codec: scripted bodies (``vectors/battlesnake.txt``) and properties.

The scripts run with `tests.protocols.test_scripts`' runner; the codec is named here
because it is no ``--protocol`` of bot programs (its bodies travel over HTTP).
The properties hold over whole random games: every snake's body is its trail in order,
head first; coordinates follow Battlesnake's (y up); ``up`` lands where the docs say.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import random
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightcycle.core.bitset import iter_cells
from lightcycle.core.moves import Move
from lightcycle.core.state import Board, GameState
from lightcycle.core.topology import GridTopology, Heading
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapSpec
from lightcycle.protocols.base import Params, ProtocolError, UnsupportedGame
from lightcycle.protocols.battlesnake import MOVES, Battlesnake, walled_rings
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.legal import read_answer
from lightcycle.rules.variants import get_ruleset
from tests.conftest import graph_map, grid_map, random_moves
from tests.protocols.test_scripts import VECTORS, Case, Script, parse_vectors

# -- the scripts --------------------------------------------------------------------------


class BattlesnakeScript(Script):
    """`Script` with the Battlesnake codec (`Script` finds codecs among ``--protocol``s)."""

    def __init__(self, case: Case) -> None:
        super().__init__(dataclasses.replace(case, path=VECTORS / "jsonl.txt"))
        self.case = case
        self.protocol = Battlesnake


def _cases() -> list[Any]:
    params = []
    for case in parse_vectors(VECTORS / "battlesnake.txt"):
        slug = re.sub(r"[^a-z0-9]+", "-", case.title.lower()).strip("-")
        params.append(pytest.param(case, id=slug))
    return params


@pytest.mark.parametrize("case", _cases())
def test_vector(case: Case) -> None:
    BattlesnakeScript(case).run()


# -- whole games --------------------------------------------------------------------------

OPEN_EDGE = grid_map(["1.....", "..#...", "......", ".....2"], name="open-edge")
GAMES = [
    ("classic", "arena-10"),
    ("classic", "ring"),
    ("torus", "torus-20"),
    ("ffa", "ffa4"),
    ("classic", OPEN_EDGE),
]


def _points(state: GameState) -> dict[int, tuple[int, int]]:
    """Each lightcycle cell's Battlesnake (x, y), computed the long way round."""
    return _board_points(state.board)


@functools.lru_cache(maxsize=8)
def _board_points(board: Board) -> dict[int, tuple[int, int]]:
    topo = board.topology
    assert isinstance(topo, GridTopology)
    k = 0 if topo.wrap else walled_rings(board.walls, topo.width, topo.height)
    bottom = topo.height - 1 - k
    return {
        c: (c % topo.width - k, bottom - c // topo.width)
        for c in range(topo.size)
        if k <= c % topo.width < topo.width - k and k <= c // topo.width <= bottom
    }


def _check_body(
    state: GameState, body: dict[str, Any], snake: dict[str, Any], starts: list[int]
) -> None:
    topo = state.board.topology
    assert isinstance(topo, GridTopology)
    pts = _points(state)
    cell_of = {xy: c for c, xy in pts.items()}
    width, height = body["board"]["width"], body["board"]["height"]
    index = int(snake["id"].removeprefix("seat-")) - 1
    cycle = state.cycles[index]
    xys = [(p["x"], p["y"]) for p in snake["body"]]
    assert all(0 <= x < width and 0 <= y < height for x, y in xys)
    assert snake["head"] == snake["body"][0] and snake["length"] == len(xys) >= 3
    assert xys[-1] == xys[-2] == pts[starts[index]]  # the constrictor's doubled tail
    assert {cell_of[xy] for xy in xys} == set(iter_cells(cycle.trail))
    path = [cell_of[xy] for xy in xys[:-1]]
    if len(path) == 2 and path[0] == path[1]:  # not moved yet: three stacked segments
        path = path[:1]
    assert len(set(path)) == len(path)
    for a, b in itertools.pairwise(path):
        assert topo.heading_to(a, b) is not None  # one step apart, head first
    assert snake["health"] == (100 if cycle.alive else 0)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), game=st.sampled_from(GAMES))
def test_every_body_is_the_trail_head_first(seed: int, game: tuple[str, Any]) -> None:
    ruleset, name = game
    spec = name if isinstance(name, MapSpec) else get_map(name)
    state = new_game(ruleset, spec, seed=seed)
    starts = [c.head for c in state.cycles]
    rng = random.Random(seed)
    codecs = [Battlesnake(t.index) for t in state.teams]
    for c in codecs:
        c.start(state, Params(move_time=0.5))
    while state.outcome is None:
        for c in codecs:
            body = json.loads(c.turn(state))
            assert body["turn"] == state.turn
            assert body["you"]["id"] == f"seat-{c.seat + 1}"
            wrap = state.board.topology.wrap  # type: ignore[attr-defined]
            name = body["game"]["ruleset"]["name"]
            assert name == ("wrapped_constrictor" if wrap else "constrictor")
            assert len(body["board"]["snakes"]) == len(state.cycles)
            for snake in body["board"]["snakes"]:
                _check_body(state, body, snake, starts)
        state = step(state, random_moves(state, rng))
    for c in codecs:
        body = json.loads(c.end(state))
        for snake in body["board"]["snakes"]:
            _check_body(state, body, snake, starts)


@pytest.mark.parametrize("name", ["arena-10", "torus-20", "ring"])
def test_hazards_are_the_walls_inside_the_cut_off_rings(name: str) -> None:
    spec = get_map(name)
    state = new_game("torus" if name.startswith("torus") else "classic", spec, seed=1)
    body = json.loads(Battlesnake(0).start(state, Params()))
    pts = _points(state)
    hazards = {(p["x"], p["y"]) for p in body["board"]["hazards"]}
    inner = {pts[c] for c in iter_cells(state.board.walls) if c in pts}
    assert hazards == inner
    assert body["game"]["ruleset"]["settings"]["hazardDamagePerTurn"] == 100


def test_up_down_left_right_land_where_the_docs_say() -> None:
    # an asymmetric position: the snake at lightcycle (2, 2) of a 7 x 6 map walled all
    # round is Battlesnake's (1, 2) on a 5 x 4 board, whose top row is y 3
    spec = grid_map(["#######", "#.....#", "#.1...#", "#.....#", "#....2#", "#######"])
    state = new_game("classic", spec, seed=1)
    topo = state.board.topology
    assert isinstance(topo, GridTopology)
    codec = Battlesnake(0)
    you = json.loads(codec.start(state, Params()))["you"]
    assert (you["head"], state.cycles[0].head) == ({"x": 1, "y": 2}, topo.cell(2, 2))
    pts = _points(state)
    expected = {"up": (1, 3), "down": (1, 1), "left": (0, 2), "right": (2, 2)}
    for word, xy in expected.items():
        answer = codec.read_move(bytearray(json.dumps({"move": word}).encode()), state)
        assert answer is not None
        move = read_answer(state, 0, answer[0])
        assert isinstance(move, Move) and pts[move.to] == xy, word
    assert MOVES == {"up": "n", "down": "s", "left": "w", "right": "e"}
    assert Heading.parse(MOVES["up"]) == Heading.N


def test_the_shout_and_latency_come_back_in_the_next_request() -> None:
    state = new_game("classic", get_map("arena-10"), seed=1)
    codec = Battlesnake(0)
    codec.start(state, Params())
    codec.read_move(bytearray(b'{"move":"up","shout":"' + b"x" * 300 + b'"}'), state)
    codec.latency_ms = 37
    you = json.loads(codec.turn(state))["you"]
    assert you["shout"] == "x" * 256 and you["latency"] == "37"
    other = json.loads(codec.turn(state))["board"]["snakes"][1]
    assert other["shout"] == "" and other["latency"] == "0"


def test_games_a_snake_cannot_play_are_refused() -> None:
    teams = get_ruleset("teams").with_settings(cycles_per_team=1)
    for state in (
        new_game(teams, get_map("court-small"), seed=1),
        new_game("tron3d", graph_map(), seed=1),
    ):
        with pytest.raises(UnsupportedGame):
            Battlesnake.check(state)


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=80) | st.text(max_size=60).map(str.encode))
def test_any_answer_is_a_move_or_a_protocol_error(data: bytes) -> None:
    state = new_game("classic", get_map("arena-10"), seed=1)
    codec = Battlesnake(0)
    try:
        answer = codec.read_move(bytearray(data), state)
    except ProtocolError as exc:
        assert exc.protocol == "battlesnake" and exc.received == data[:200]
        return
    assert answer is not None and set(answer) == {0}
    assert isinstance(answer[0], str) and answer[0] in "nesw"


def test_a_body_past_the_limit_is_refused() -> None:
    state = new_game("classic", get_map("arena-10"), seed=1)
    big = b'{"move":"up","x":"' + b"y" * Battlesnake.max_reply + b'"}'
    with pytest.raises(ProtocolError, match="at most 65536 bytes"):
        Battlesnake(0).read_move(bytearray(big), state)

"""The observation contract: hand-written positions, and what holds in every position.

`tests/envs/vectors/observations.txt` holds positions reached by real moves through
`rules.engine.step` and every array one agent must see there, written by hand from the
contract (`lightcycle.envs.observe`); the batched engine is held to the same arrays. The
other tests check what must hold in any position: observations lie in their spaces, the
mask lists exactly the legal moves, and each masked action plays the move it stands for.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from lightcycle.core.bitset import iter_cells
from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology, Heading
from lightcycle.envs.game import configure
from lightcycle.envs.observe import Layout, action_mask, bits, layout_for, many_bits, observe
from lightcycle.envs.spaces import decode_action, observation_space
from lightcycle.maps.spec import MapSpec
from lightcycle.rules.engine import step
from lightcycle.rules.legal import legal_moves
from tests.conftest import graph_map, grid_map, random_moves, team_map

VECTORS = Path(__file__).parent / "vectors" / "observations.txt"


@dataclass
class Expected:
    """What one agent must see."""

    agent: str
    planes: dict[str, list[str]] = field(default_factory=dict)
    scalars: list[str] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)


@dataclass
class Case:
    """A position and the agents' expected observations."""

    title: str
    source: str
    ruleset: str = "classic"
    settings: dict[str, int | str] = field(default_factory=dict)
    wrap: bool = False
    graph: bool = False
    board: list[str] = field(default_factory=list)
    moves: list[list[str]] = field(default_factory=list)
    agents: list[Expected] = field(default_factory=list)

    def spec(self) -> MapSpec:
        if self.graph or any("a" <= ch <= "t" for row in self.board for ch in row):
            return team_map(self.board, graph=self.graph, name="vector")
        return grid_map(self.board, wrap=self.wrap, name="vector")


def read_cases(path: Path) -> list[Case]:
    """The cases of a vector file (format in its header)."""
    cases: list[Case] = []
    rows: list[str] | None = None
    for no, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.rstrip()
        if not line:
            rows = None
            continue
        if line == "#" or line.startswith("# "):  # a comment (rows hold no blanks)
            continue
        if line.startswith("== "):
            cases.append(Case(title=line[3:], source=f"{path.name}:{no}"))
            rows = None
            continue
        case = cases[-1]
        word, _, rest = line.partition(" ")
        if word == "ruleset":
            name, *pairs = rest.split()
            case.ruleset = name
            for pair in pairs:
                key, _, value = pair.partition("=")
                case.settings[key] = int(value) if value.isdigit() else value
        elif word in ("wrap", "graph"):
            setattr(case, word, True)
        elif word == "board":
            rows = case.board
        elif word == "moves":
            case.moves.append(rest.split())
        elif word == "agent":
            case.agents.append(Expected(rest.strip()))
            rows = None
        elif word == "plane":
            rows = case.agents[-1].planes.setdefault(rest.strip(), [])
        elif word == "scalars":
            case.agents[-1].scalars = rest.split()
        elif word == "mask":
            case.agents[-1].mask = [int(t) for t in rest.split()]
        elif rows is not None:
            rows.append(line)
        else:
            raise ValueError(f"{path.name}:{no}: cannot read {line!r}")
    return cases


CASES = read_cases(VECTORS)


def move_of(state: GameState, cycle: int, token: str) -> Move | Forfeit | None:
    """A vector's move token as the rules' move (``None``: the cycle sits the turn out)."""
    if token == ".":
        return None
    if token == "-":
        return Forfeit(cycle, "vector")
    topo = state.board.topology
    if not isinstance(topo, GridTopology):
        return Move(cycle, int(token.rstrip("!")), use_item=token.endswith("!"))
    head = state.cycles[cycle].head
    h = Heading.parse(token.lower())
    if token.isupper():
        return Move(cycle, topo.jump(head, h), jump=True)
    return Move(cycle, topo.move(head, h))


def position(case: Case) -> tuple[GameState, Layout]:
    config = configure(
        map=case.spec(), ruleset=case.ruleset, players=2 if case.graph else None,
        settings=case.settings or None,
    )  # fmt: skip
    state = config.new_state(0)
    for tokens in case.moves:
        assert len(tokens) == len(state.cycles), f"{case.source}: a token per cycle"
        moves = {}
        for i, token in enumerate(tokens):
            m = move_of(state, i, token)
            if m is not None:
                moves[i] = m
        state = step(state, moves)
    return state, layout_for(config)


def test_the_vector_file_has_cases_of_every_layout() -> None:
    rulesets = {case.ruleset for case in CASES}
    assert {"classic", "ffa", "torus", "teams", "tron3d"} <= rulesets
    assert sum(len(case.agents) for case in CASES) >= 10


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_observation_vectors(case: Case) -> None:
    state, layout = position(case)
    for want in case.agents:
        cycle = int(want.agent.removeprefix("player_"))
        got = observe(state, cycle, layout)
        where = f"{case.source} {want.agent}"
        assert list(want.planes) == list(layout.channels), f"{where}: planes in contract order"
        assert got["observation"].shape == layout.shape
        assert got["observation"].dtype == np.uint8
        for k, name in enumerate(layout.channels):
            marks = "".join(want.planes[name])
            expected = np.array([ch == "#" for ch in marks], dtype=np.uint8)
            assert expected.size == got["observation"][k].size, f"{where}: plane {name} size"
            shown = "".join(".#"[v] for v in got["observation"][k].reshape(-1))
            assert shown == marks, f"{where}: plane {name}"
        scalars = [np.float32(float(Fraction(t))) for t in want.scalars]
        assert got["scalars"].dtype == np.float32
        assert got["scalars"].tolist() == scalars, f"{where}: scalars"
        assert got["action_mask"].dtype == np.int8
        assert got["action_mask"].tolist() == want.mask, f"{where}: mask"


def test_bits_are_the_cells_of_a_mask() -> None:
    rng = random.Random(5)
    for size in (1, 7, 8, 9, 64, 900, 2500):
        mask = rng.getrandbits(size)
        got = bits(mask, size)
        assert got.dtype == np.uint8 and got.shape == (size,)
        assert np.flatnonzero(got).tolist() == list(iter_cells(mask))
        others = [rng.getrandbits(size) for _ in range(3)]
        rows = many_bits([mask, *others], size)
        assert rows.shape == (4, size)
        for row, m in zip(rows, [mask, *others], strict=True):
            assert np.array_equal(row, bits(m, size))


def test_graph_items_and_held_items_show_in_planes_and_scalars() -> None:
    config = configure(map=graph_map(), ruleset="tron3d", players=2)
    layout = layout_for(config)
    state = config.new_state(3)
    first = state.cycles[0]
    state = state._replace(
        items=((2, "turbo"), (3, "ghost"), (4, "points")),
        cycles=(first._replace(item="ghost", ghost=2, turbo=4), *state.cycles[1:]),
        scores=(30, 50),
    )
    got = observe(state, 0, layout)
    plane = dict(zip(layout.channels, got["observation"], strict=True))
    assert np.flatnonzero(plane["turbo_items"]).tolist() == [2]
    assert np.flatnonzero(plane["ghost_items"]).tolist() == [3]
    assert np.flatnonzero(plane["points_items"]).tolist() == [4]
    assert np.flatnonzero(plane["bonus"]).tolist() == sorted(config.spec.bonus)
    assert np.flatnonzero(plane["ghost_heads"]).tolist() == [first.head]
    assert np.flatnonzero(plane["turbo_heads"]).tolist() == [first.head]
    scalars = dict(zip(layout.scalars, got["scalars"].tolist(), strict=True))
    s = config.ruleset.settings
    assert scalars["holds_ghost"] == 1.0 and scalars["holds_turbo"] == 0.0
    assert scalars["ghost_left"] == np.float32(2 / s.ghost_duration)  # type: ignore[attr-defined]
    assert scalars["turbo_left"] == np.float32(4 / s.turbo_duration)  # type: ignore[attr-defined]
    assert scalars["own_score"] == np.float32(30 / layout.score_scale)
    assert scalars["best_other_score"] == np.float32(50 / layout.score_scale)
    degree = layout.degree
    mask = got["action_mask"]
    around = len(config.board.topology.neighbours[first.head])
    assert mask[:around].all() and mask[degree : degree + around].all(), "item moves too"
    for k in np.flatnonzero(mask):
        m = decode_action(state, 0, int(k), layout)
        assert isinstance(m, Move) and m.use_item == (k >= degree)


SETUPS = [
    {"map": "arena-10"},
    {"map": "torus-20"},
    {"map": "arena-15", "ruleset": "ffa", "players": 4},
    {"map": "court-small", "ruleset": "teams"},
    {"map": "icosahedron", "ruleset": "tron3d", "players": 4},
]


@pytest.mark.parametrize("setup", SETUPS, ids=[str(s) for s in SETUPS])
def test_every_position_fits_the_space_and_the_mask_is_the_legal_moves(
    setup: dict[str, object],
) -> None:
    config = configure(**setup)  # type: ignore[arg-type]
    layout = layout_for(config)
    space = observation_space(layout)
    rng = random.Random(11)
    state = config.new_state(4)
    while True:
        for c in state.cycles:
            obs = observe(state, c.index, layout)
            assert space.contains(obs), f"turn {state.turn} cycle {c.index}"
            mask = action_mask(state, c.index, layout)
            played = [decode_action(state, c.index, int(k), layout) for k in np.flatnonzero(mask)]
            assert sorted(played) == sorted(legal_moves(state, c.index))
        if state.outcome is not None:
            break
        state = step(state, random_moves(state, rng))
    assert state.turn > 3


def test_an_action_outside_the_space_is_refused() -> None:
    config = configure(map="arena-10")
    layout = layout_for(config)
    state = config.new_state(0)
    for bad in (-1, 4, 1.5, "n", None):
        with pytest.raises(ValueError, match="action"):
            decode_action(state, 0, bad, layout)
    assert decode_action(state, 0, np.int64(2), layout) == Move(0, state.cycles[0].head + 10)

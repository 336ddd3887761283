"""The batched engine plays the rules' own games, move for move, and sees what they see.

Every game of `BatchedGames` is checked against `lightcycle.rules.engine.step` fed the same
moves from the same `new_game` set-up (same map, same seed): heads, trails, occupancy,
alive flags, jumps, turn, the end, the ranks and the rewards, across automatic resets.
The observation planes, scalars and masks are checked against a plain reference written
here from the `GameState` alone (one cell at a time, no tricks). The rules' hand-written
vectors (tests/rules/vectors) and the environments' observation vectors
(tests/envs/vectors/observations.txt) are replayed through the batched engine too, and
tests/envs/vectors/batched.txt holds games written for it (free-for-all rewards, turn
limits, masks with repeated headings).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from lightcycle.core.moves import Move
from lightcycle.core.rng import Rng
from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology
from lightcycle.envs.batched import (
    AutoReset,
    BatchedGames,
    random_safe_policy,
    rng_draw,
    rng_states,
)
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapSpec
from lightcycle.rules.engine import step
from lightcycle.rules.legal import legal_moves, safe_moves
from lightcycle.rules.ruleset import RulesError
from lightcycle.rules.variants import get_ruleset
from tests.conftest import grid_map, team_map
from tests.rules.vectors_io import Vector, all_vectors

VECTORS = Path(__file__).parent / "vectors"

# --------------------------------------------------------------------------- reference


def reference_move(state: GameState, cycle: int, action: int) -> Move:
    """The rules' move for a batched action: heading ``action``, or a jump for 4..7."""
    topo = state.board.topology
    assert isinstance(topo, GridTopology)
    head = state.cycles[cycle].head
    if action >= 4:
        return Move(cycle, topo.jump(head, action - 4), jump=True)
    return Move(cycle, topo.move(head, action))


def reference_moves(state: GameState, actions: np.ndarray) -> dict[int, Move]:
    """Every live cycle's move, listed in cycle order (the order the batched engine uses)."""
    return {
        c.index: reference_move(state, c.index, int(actions[c.index]))
        for c in state.cycles
        if c.alive
    }


def cell_vector(mask: int, size: int) -> np.ndarray:
    """Bit ``c`` of ``mask`` as entry ``c``, one cell at a time."""
    return np.array([(mask >> c) & 1 for c in range(size)], dtype=np.uint8)


def reference_observation(
    state: GameState, agent: int, horizon: int, jumps: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The contract's three arrays for ``agent``, straight from the state."""
    topo = state.board.topology
    assert isinstance(topo, GridTopology)
    me = state.cycles[agent]
    teams = any(len(state.cycles_of(t.index)) > 1 for t in state.teams)
    own = mates = others = own_head = mate_heads = other_heads = 0
    for c in state.cycles:
        head = 1 << c.head if c.alive else 0
        if c.index == agent:
            own, own_head = c.trail, head
        elif teams and c.team == me.team:
            mates, mate_heads = mates | c.trail, mate_heads | head
        else:
            others, other_heads = others | c.trail, other_heads | head
    if teams:
        masks = [state.board.walls, own, mates, others, own_head, mate_heads, other_heads]
    else:
        masks = [state.board.walls, own, others, own_head, other_heads]
    planes = np.stack([cell_vector(m, topo.size).reshape(topo.height, topo.width) for m in masks])
    values = [state.turn / horizon] + ([float(me.jumps_left)] if jumps else [])
    mask = np.zeros(8 if jumps else 4, dtype=np.int8)
    for m in legal_moves(state, agent):
        table = topo.jump_table if m.jump else topo.step_table
        h = next(h for h in range(4) if table[me.head * 4 + h] == m.to)
        mask[h + (4 if m.jump else 0)] = 1
    return planes, np.array(values, dtype=np.float32), mask


def reference_rewards(state: GameState) -> list[float]:
    """Per cycle: its team's mean over the other teams of +1 placed below, -1 above."""
    assert state.outcome is not None
    ranks = state.outcome.ranks
    out = []
    for c in state.cycles:
        mine = ranks[c.team]
        others = [r for t, r in enumerate(ranks) if t != c.team]
        out.append(sum((r > mine) - (r < mine) for r in others) / len(others))
    return out


def ended_by_limit(state: GameState) -> bool:
    """The rules' turn limit ended the game with two or more teams still alive."""
    limit = state.ruleset.settings.turn_limit  # type: ignore[attr-defined]
    return (
        state.outcome is not None
        and limit is not None
        and state.turn >= limit
        and len(state.alive_teams()) > 1
    )


# --------------------------------------------------------------------------- checks


def assert_same_state(games: BatchedGames, g: int, state: GameState, where: str) -> None:
    """Game ``g`` of the batch holds exactly ``state``'s position."""
    assert int(games.turn[g]) == state.turn, where
    assert int(games.seeds[g]) == state.seed, where
    assert [int(h) for h in games.heads[g]] == [c.head for c in state.cycles], where
    assert [bool(a) for a in games.alive[g]] == [c.alive for c in state.cycles], where
    occupied = sum(1 << int(c) for c in games.occupied_cells(g))
    assert occupied == state.occupied, where
    for c in state.cycles:
        trail = sum(1 << int(x) for x in games.trail_cells(g, c.index))
        assert trail == c.trail, f"{where}: trail of cycle {c.index}"
        if games.has_jumps:
            assert int(games.jumps_left[g, c.index]) == c.jumps_left, where
        if not c.alive:
            assert c.death is not None
            assert int(games.death_turn[g, c.index]) == c.death.turn, where


def assert_same_observation(
    games: BatchedGames,
    state: GameState,
    where: str,
    planes: np.ndarray,
    scalars: np.ndarray,
    mask: np.ndarray,
) -> None:
    """Every agent's arrays (rows of one game) equal the reference for ``state``."""
    for a in range(games.num_cycles):
        ref_planes, ref_scalars, ref_mask = reference_observation(
            state, a, games.horizon, games.has_jumps
        )
        assert np.array_equal(planes[a], ref_planes), f"{where}: planes of agent {a}"
        assert np.array_equal(scalars[a], ref_scalars), f"{where}: scalars of agent {a}"
        assert np.array_equal(mask[a], ref_mask), f"{where}: mask of agent {a}"


def assert_safe_mask(games: BatchedGames, g: int, state: GameState, where: str) -> None:
    """The single steps `safe_mask` allows are the rules' `safe_moves`."""
    if state.outcome is not None:
        return
    safe = games.safe_mask()[g]
    topo = state.board.topology
    for c in state.cycles:
        cells = sorted(m.to for m in safe_moves(state, c.index))
        ours = sorted(
            {topo.step_table[c.head * 4 + h] for h in range(4) if safe[c.index, h]}  # type: ignore[attr-defined]
        )
        assert ours == cells, where


def choose_actions(
    games: BatchedGames, rng: np.random.Generator, safe_p: float, wild_p: float
) -> np.ndarray:
    """Per cycle: often a safe move, sometimes any legal one, now and then any action."""
    safe, legal = games.safe_mask(), games.legal_mask()
    out = np.zeros((games.num_games, games.num_cycles), dtype=np.intp)
    for g in range(games.num_games):
        for c in range(games.num_cycles):
            roll = rng.random()
            pool = np.flatnonzero(safe[g, c]) if roll < safe_p else np.flatnonzero(legal[g, c])
            if len(pool) == 0:
                pool = np.flatnonzero(legal[g, c])
            if len(pool) == 0 or rng.random() < wild_p:
                pool = np.arange(games.num_actions)
            out[g, c] = rng.choice(pool)
    return out


@dataclass
class Tally:
    """What a run went through, so a test can say it crossed several games."""

    ended: int = 0
    truncated: int = 0
    restarts: int = 0


def play_along(
    games: BatchedGames,
    seed: int,
    steps: int,
    safe_p: float,
    wild_p: float,
    obs_every: int,
) -> Tally:
    """Step the batch and the rules side by side; check everything after every step."""
    rng = np.random.default_rng(seed)
    states = [games.new_game_state(g) for g in range(games.num_games)]
    tally = Tally()
    for t in range(steps):
        actions = choose_actions(games, rng, safe_p, wild_p)
        waiting = games.over.copy()
        res = games.step(actions)
        for g in range(games.num_games):
            where = f"step {t}, game {g}"
            if waiting[g]:  # next_step: this call restarted it and ignored its actions
                assert res.restarted[g] and not res.terminated[g] and not res.truncated[g]
                assert not res.rewards[g].any()
                states[g] = games.new_game_state(g)
                tally.restarts += 1
                assert_same_state(games, g, states[g], where)
                continue
            after = step(states[g], reference_moves(states[g], actions[g]))
            ended = after.outcome is not None
            assert bool(res.terminated[g] or res.truncated[g]) == ended, where
            if ended:
                tally.ended += 1
                assert after.outcome is not None
                assert bool(res.truncated[g]) == ended_by_limit(after), where
                tally.truncated += int(res.truncated[g])
                assert tuple(int(r) for r in res.ranks[g]) == after.outcome.ranks, where
                assert int(res.final_turn[g]) == after.outcome.turn, where
                assert list(res.rewards[g]) == pytest.approx(reference_rewards(after)), where
                assert [bool(a) for a in res.final_alive[g]] == [c.alive for c in after.cycles]
            else:
                assert not res.rewards[g].any(), where
            if ended and games.autoreset is AutoReset.SAME_STEP:
                assert res.restarted[g], where
                pl = games.planes
                if pl is not None:
                    row = int(np.flatnonzero(pl.final_games == g)[0])
                    assert_same_observation(
                        games,
                        after,
                        f"{where} (final)",
                        pl.final_obs[row],
                        pl.final_scalars[row],
                        pl.final_mask[row],
                    )
                tally.restarts += 1
                after = games.new_game_state(g)
            states[g] = after
            assert_same_state(games, g, after, where)
            assert_safe_mask(games, g, after, where)
        pl = games.planes
        if pl is not None and (t % obs_every == 0 or res.restarted.any() or res.terminated.any()):
            for g in range(games.num_games):
                assert_same_observation(
                    games,
                    states[g],
                    f"step {t}, game {g}",
                    pl.obs[g],
                    pl.scalars[g],
                    pl.action_mask[g],
                )
    return tally


# --------------------------------------------------------------------------- maps


def narrow_torus() -> MapSpec:
    """A torus two cells wide: east and west reach the same cell (the mask lists it once)."""
    return grid_map(["1.", "..", "..", "..", ".2", ".."], wrap=True, name="narrow")


def open_edges() -> MapSpec:
    """A grid without a wall border: moves off the edge are legal and deadly."""
    return grid_map(["1....", ".....", "....2"], name="edges")


@dataclass(frozen=True)
class Setup:
    """A ruleset on a map, and how long to play to cross several games."""

    ruleset: str
    map: str
    players: int | None = None
    steps: int = 80
    obs_every: int = 1
    max_turns: int | None = None

    def spec(self) -> MapSpec:
        return {"narrow": narrow_torus, "edges": open_edges}.get(
            self.map, lambda: get_map(self.map)
        )()

    def __str__(self) -> str:
        extra = f"/{self.players}p" if self.players else ""
        return f"{self.ruleset}@{self.map}{extra}" + (
            f"/max{self.max_turns}" if self.max_turns else ""
        )


SETUPS = [
    Setup("classic", "arena-10", steps=90),
    Setup("classic", "ring", steps=70),
    Setup("classic", "chambers", steps=60, obs_every=7),
    Setup("classic", "edges", steps=40),
    Setup("classic", "arena-10", steps=60, max_turns=9),
    Setup("torus", "torus-20", steps=60, obs_every=5),
    Setup("torus", "narrow", steps=40),
    Setup("ffa", "ffa3", steps=50, obs_every=9),
    Setup("ffa", "ffa4", steps=50, obs_every=9),
    Setup("ffa", "ffa6", steps=40, obs_every=13),
    Setup("ffa", "ffa8", steps=40, obs_every=13),
    Setup("ffa", "arena-15", players=4, steps=50, obs_every=5),
    Setup("ffa", "arena-30", players=8, steps=40, obs_every=13),
    Setup("classic", "open-random", steps=60, obs_every=5),
    Setup("teams", "court-small", steps=45, obs_every=9),
    Setup("teams", "court-small", steps=40, obs_every=9, max_turns=12),
]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    setup=st.sampled_from(SETUPS),
    seed=st.integers(0, 2**32 - 1),
    autoreset=st.sampled_from([AutoReset.NEXT_STEP, AutoReset.SAME_STEP]),
    safe_p=st.sampled_from([0.6, 0.9, 1.0]),
    wild_p=st.sampled_from([0.0, 0.03]),
)
def test_random_games_evolve_as_the_engine_steps_them(
    setup: Setup, seed: int, autoreset: AutoReset, safe_p: float, wild_p: float
) -> None:
    games = BatchedGames(
        setup.ruleset,
        setup.spec(),
        3,
        players=setup.players,
        seed=seed,
        autoreset=autoreset,
        max_turns=setup.max_turns,
    )
    tally = play_along(games, seed, setup.steps, safe_p, wild_p, setup.obs_every)
    note(f"{setup}: {tally}")  # the fixed-seed sweep below checks that the setups restart


def test_every_setup_crosses_several_games_and_reaches_its_turn_limit() -> None:
    """The property test's setups are long enough to restart games (a fixed seed each)."""
    for setup in SETUPS:
        games = BatchedGames(
            setup.ruleset, setup.spec(), 3, players=setup.players, seed=5, max_turns=setup.max_turns
        )
        tally = play_along(games, 5, setup.steps, 0.9, 0.0, 10**9)
        assert tally.restarts >= 2, f"{setup}: {tally}"
        if setup.max_turns is not None:
            assert tally.truncated >= 1, f"{setup}: {tally}"


def test_disabled_autoreset_freezes_finished_games_until_reset_games() -> None:
    games = BatchedGames("classic", "arena-10", 4, seed=3, autoreset="disabled")
    rng = np.random.default_rng(3)
    while not games.over.any():
        games.step(random_safe_policy(games, np.arange(2), rng))
    done = np.flatnonzero(games.over)
    frozen = games.cells[done].copy(), games.turn[done].copy()
    obs = games.planes.obs[done].copy()  # type: ignore[union-attr]
    res = games.step(random_safe_policy(games, np.arange(2), rng))
    assert not res.terminated[done].any() and not res.restarted.any()
    assert np.array_equal(games.cells[done], frozen[0])
    assert np.array_equal(games.turn[done], frozen[1])
    assert np.array_equal(games.planes.obs[done], obs)  # type: ignore[union-attr]
    games.reset_games(games.over, seeds=[77] * len(done))
    assert not games.over.any()
    assert (games.turn[done] == 0).all() and (games.seeds[done] == 77).all()
    for g in done:
        assert_same_state(games, int(g), games.new_game_state(int(g)), "after reset_games")


def test_stop_on_death_of_ends_the_game_with_the_reward_the_whole_game_gives() -> None:
    """In a free-for-all a player's place is fixed when it dies: the early end pays it."""
    games = BatchedGames("ffa", "ffa4", 6, seed=11, stop_on_death_of=0, autoreset="disabled")
    rng = np.random.default_rng(11)
    states = [games.new_game_state(g) for g in range(6)]
    running = set(range(6))
    while running:
        actions = choose_actions(games, rng, 0.8, 0.0)
        res = games.step(actions)
        for g in sorted(running):
            after = states[g] = step(states[g], reference_moves(states[g], actions[g]))
            assert bool(res.terminated[g]) == (
                after.outcome is not None or not after.cycles[0].alive
            )
            if not res.terminated[g]:
                continue
            running.discard(g)
            others = np.random.default_rng(g)
            while after.outcome is None:  # the others play on; cycle 0's place is set
                legal = {c.index: legal_moves(after, c.index) for c in after.cycles if c.alive}
                after = step(after, {i: ms[others.integers(len(ms))] for i, ms in legal.items()})
            assert float(res.rewards[g, 0]) == pytest.approx(reference_rewards(after)[0])


def test_the_ported_rng_draws_what_core_rng_draws() -> None:
    seeds = np.array([0, 1, 2**63 + 5, 2**64 - 1, 123456789], dtype=np.uint64)
    turns = np.array([0, 1, 7, 1999, 3], dtype=np.int32)
    for stream in ("order", "priority"):
        from lightcycle.core.rng import _hash_text

        states = rng_states(seeds, turns + 1, np.uint64(_hash_text(stream)))
        for k in range(3):
            drawn = rng_draw(states, np.full(len(seeds), k, dtype=np.uint64))
            for i, (s, t) in enumerate(zip(seeds, turns, strict=True)):
                rng = Rng(int(s), int(t) + 1, stream)
                expected = [rng.next_u64() for _ in range(k + 1)][-1]
                assert int(drawn[i]) == expected


# --------------------------------------------------------------------------- vectors


def _supported(vec: Vector) -> bool:
    """Rules vectors the batched engine can express: grids, no forfeits, no CPU, no order."""
    rs = get_ruleset(vec.ruleset)
    tokens = [t for turn in vec.moves for t in turn]
    jumps = "movement.jump" in rs.stages
    return (
        not vec.graph
        and not vec.cpu
        and not vec.orders
        and not vec.items
        and rs.name in ("classic", "torus", "ffa", "teams")
        and "-" not in tokens
        and (jumps or all(not t.isupper() for t in tokens))
    )


RULES_VECTORS = [v for v in all_vectors() if _supported(v)]


def _action(token: str) -> int:
    return "nesw".index(token.lower()) + (4 if token.isupper() else 0) if token != "." else 0


@pytest.mark.parametrize("vec", RULES_VECTORS, ids=[v.title for v in RULES_VECTORS])
def test_rules_vectors_play_out_in_the_batched_engine(vec: Vector) -> None:
    rs = get_ruleset(vec.ruleset).with_settings(vec.settings)
    games = BatchedGames(rs, vec.spec(), 1, seed=1, autoreset="disabled")  # the vectors' seed
    state = games.new_game_state(0)
    last = None
    for tokens in vec.moves:
        actions = np.array([[_action(t) for t in tokens]])
        last = games.step(actions)
        state = step(state, reference_moves(state, actions[0]))
        assert_same_state(games, 0, state, vec.source)
    width = max(len(r) for r in vec.board)
    kind = vec.expect[0]
    if kind == "running":
        assert not games.over[0]
    else:
        assert last is not None and games.over[0]
        ranks = [int(r) for r in last.ranks[0]]
        if kind == "draw":
            assert ranks.count(1) > 1
        elif kind == "winner":
            assert ranks.count(1) == 1 and ranks.index(1) == int(vec.expect[1]) - 1
        elif kind == "ranks":
            assert ranks == [int(r) for r in vec.expect[1:]]
    if vec.turn is not None:
        assert int(games.turn[0]) == vec.turn
    for k, _cause, turn in vec.deaths:
        assert not games.alive[0, k - 1] and int(games.death_turn[0, k - 1]) == turn
    for k in vec.alive:
        assert games.alive[0, k - 1]
    for word, parts in vec.checks:
        cycle = int(parts[0]) - 1
        if word == "head":
            x, y = (int(v) for v in parts[1].split(","))
            assert int(games.heads[0, cycle]) == y * width + x
        elif word == "trail":
            assert len(games.trail_cells(0, cycle)) == int(parts[1])
        elif word == "jumps":
            assert int(games.jumps_left[0, cycle]) == int(parts[1])


def test_some_rules_vectors_of_every_batched_ruleset_are_replayed() -> None:
    names = {get_ruleset(v.ruleset).name for v in RULES_VECTORS}
    assert names == {"classic", "torus", "ffa", "teams"}


@dataclass
class BatchedCase:
    """A game written for the batched engine (format in tests/envs/vectors/batched.txt)."""

    title: str
    source: str
    ruleset: str = "classic"
    settings: dict[str, object] = field(default_factory=dict)
    wrap: bool = False
    board: list[str] = field(default_factory=list)
    moves: list[list[str]] = field(default_factory=list)
    expect: dict[str, list[str]] = field(default_factory=dict)
    masks: list[tuple[int, list[int]]] = field(default_factory=list)


def read_batched_cases(path: Path) -> Iterator[BatchedCase]:
    """The cases of tests/envs/vectors/batched.txt."""
    case: BatchedCase | None = None
    in_board = False
    for no, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.rstrip()
        if line.startswith("#") and not in_board:
            continue
        if line.startswith("== "):
            if case is not None:
                yield case
            case = BatchedCase(title=line[3:], source=f"{path.name}:{no}")
            in_board = False
            continue
        if case is None or not line:
            in_board = False
            continue
        word, _, rest = line.partition(" ")
        parts = rest.split()
        if in_board and word not in ("moves",):
            case.board.append(line)
            continue
        in_board = False
        if word == "ruleset":
            case.ruleset = parts[0]
            for kv in parts[1:]:
                k, _, v = kv.partition("=")
                case.settings[k] = int(v) if v.lstrip("-").isdigit() else v
        elif word == "wrap":
            case.wrap = True
        elif word == "board":
            in_board = True
        elif word == "moves":
            case.moves.append(parts)
        elif word == "mask":
            case.masks.append((int(parts[0]), [int(p) for p in parts[1:]]))
        elif word in ("ranks", "rewards", "turn", "status"):
            case.expect[word] = parts
        else:
            raise ValueError(f"{path.name}:{no}: cannot read {line!r}")
    if case is not None:
        yield case


BATCHED_CASES = list(read_batched_cases(VECTORS / "batched.txt"))


@pytest.mark.parametrize("case", BATCHED_CASES, ids=[c.title for c in BATCHED_CASES])
def test_batched_vectors(case: BatchedCase) -> None:
    if any("a" <= ch <= "t" for row in case.board for ch in row):
        spec = team_map(case.board, name="vector")
    else:
        spec = grid_map(case.board, wrap=case.wrap, name="vector")
    rs = get_ruleset(case.ruleset).with_settings(case.settings)
    games = BatchedGames(rs, spec, 2, seed=1, autoreset="disabled")
    state = games.new_game_state(0)
    res = None
    for tokens in case.moves:
        actions = np.array([[_action(t) for t in tokens]] * 2)
        res = games.step(actions)
        state = step(state, reference_moves(state, actions[0]))
        assert_same_state(games, 0, state, case.source)
    for cycle, mask in case.masks:
        assert list(games.planes.action_mask[0, cycle]) == mask  # type: ignore[union-attr]
    assert_same_observation(games, state, case.source, *(a[0] for a in _planes(games)))
    status = case.expect.get("status", ["running"])[0]
    if status == "running":
        assert not games.over[0] and state.outcome is None
        return
    assert res is not None and state.outcome is not None
    assert bool(res.truncated[0]) == (status == "truncated")
    assert bool(res.terminated[0]) == (status == "terminated")
    if "ranks" in case.expect:
        assert [int(r) for r in res.ranks[0]] == [int(r) for r in case.expect["ranks"]]
        assert list(state.outcome.ranks) == [int(r) for r in case.expect["ranks"]]
    if "rewards" in case.expect:
        expected = [float(Fraction(r)) for r in case.expect["rewards"]]
        assert [float(r) for r in res.rewards[0]] == pytest.approx(expected)
        assert reference_rewards(state) == pytest.approx(expected)
    if "turn" in case.expect:
        assert int(res.final_turn[0]) == int(case.expect["turn"][0])


def _planes(games: BatchedGames) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pl = games.planes
    assert pl is not None
    return pl.obs, pl.scalars, pl.action_mask


def test_the_environments_observation_vectors_hold_for_the_batched_planes() -> None:
    """The hand-written positions of tests/envs/vectors/observations.txt, batched."""
    observe_tests = pytest.importorskip("tests.envs.test_observe")
    cases = [
        c
        for c in observe_tests.read_cases(observe_tests.VECTORS)
        if not c.graph and all("." not in t and "-" not in t for turn in c.moves for t in turn)
    ]
    assert cases
    for case in cases:
        rs = get_ruleset(case.ruleset).with_settings(case.settings or {})
        games = BatchedGames(rs, case.spec(), 1, seed=0, autoreset="disabled")
        for tokens in case.moves:
            games.step(np.array([[_action(t) for t in tokens]]))
        obs, scalars, mask = _planes(games)
        layout = observe_tests.position(case)[1]
        for expected in case.agents:
            a = int(expected.agent.removeprefix("player_"))
            for name, rows in expected.planes.items():
                plane = layout.channels.index(name)
                want = np.array([[ch == "#" for ch in row] for row in rows], dtype=np.uint8)
                assert np.array_equal(obs[0, a, plane], want), f"{case.source}: {name}"
            if expected.scalars:
                want_s = np.array([float(Fraction(x)) for x in expected.scalars], np.float32)
                assert np.array_equal(scalars[0, a], want_s), case.source
            if expected.mask:
                assert list(mask[0, a]) == expected.mask, case.source


# --------------------------------------------------------------------------- API


def test_returned_arrays_are_the_engines_buffers() -> None:
    games = BatchedGames("classic", "arena-10", 3, seed=0)
    obs = games.planes.obs  # type: ignore[union-attr]
    first = games.step(np.zeros((3, 2), dtype=np.intp))
    second = games.step(np.ones((3, 2), dtype=np.intp))
    assert first.rewards is second.rewards and first.terminated is second.terminated
    assert games.planes.obs is obs  # type: ignore[union-attr]
    assert np.shares_memory(obs, games.planes._flat)  # type: ignore[union-attr]


def test_seeded_resets_repeat_the_same_games() -> None:
    runs = []
    for _ in range(2):
        games = BatchedGames("ffa", "arena-15", 3, players=4, seed=21)
        rng = np.random.default_rng(0)
        trace = []
        for _ in range(40):
            games.step(random_safe_policy(games, np.arange(4), rng))
            trace.append((games.heads.copy(), games.seeds.copy()))
        runs.append(trace)
    for (h1, s1), (h2, s2) in zip(*runs, strict=True):
        assert np.array_equal(h1, h2) and np.array_equal(s1, s2)
    games = BatchedGames("classic", "arena-10", 2, seed=4)
    assert list(games.seeds) == [4, 5]


def test_random_safe_policy_picks_safe_moves_when_there_are_some() -> None:
    games = BatchedGames("ffa", "ffa4", 16, seed=2)
    rng = np.random.default_rng(2)
    for _ in range(30):
        actions = random_safe_policy(games, np.arange(4), rng)
        safe = games.safe_mask()
        legal = games.legal_mask()
        rows, cols = np.nonzero(games.alive & ~games.over[:, None])
        for g, c in zip(rows, cols, strict=True):
            if safe[g, c].any():
                assert safe[g, c, actions[g, c]]
            else:
                assert legal[g, c, actions[g, c]]
        games.step(actions)


def test_bad_actions_and_boards_are_refused() -> None:
    games = BatchedGames("classic", "arena-10", 2, seed=0)
    with pytest.raises(ValueError, match="shape"):
        games.step(np.zeros((2, 3), dtype=np.intp))
    with pytest.raises(ValueError, match=r"0\.\.3"):
        games.step(np.array([[0, 4], [0, 0]]))
    with pytest.raises(ValueError, match=r"0\.\.3"):
        games.step(np.array([[0, -1], [0, 0]]))
    with pytest.raises(RulesError, match="grid"):
        BatchedGames("tron3d", "icosahedron", 1)
    with pytest.raises(RulesError, match="stages"):
        BatchedGames(
            get_ruleset("classic").__class__(
                name="odd", version=1, stages=("movement.standard", "collision.random_order")
            ),
            "arena-10",
            1,
        )
    with pytest.raises(ValueError, match="num_games"):
        BatchedGames("classic", "arena-10", 0)
    with pytest.raises(ValueError, match="stop_on_death_of"):
        BatchedGames("teams", "court-small", 1, stop_on_death_of=0)


def test_thousands_of_random_games_end_as_the_engine_ends_them() -> None:
    """Over a thousand whole games (walled duel, torus, four-player ffa), every step
    compared with `rules.engine.step`: the property test's setups, in bulk."""
    ended = 0
    for ruleset, map_name, n, players in (
        ("classic", "arena-10", 64, None),
        ("torus", "torus-20", 32, None),
        ("ffa", "arena-15", 32, 4),
    ):
        games = BatchedGames(
            ruleset, map_name, n, players=players, seed=11, autoreset=AutoReset.NEXT_STEP
        )
        ended += play_along(games, 11, 120, 0.9, 0.03, 10**9).ended
    assert ended >= 1000, ended

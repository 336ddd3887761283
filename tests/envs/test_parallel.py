"""The PettingZoo environment: PettingZoo's own checkers, and the referee's rules kept.

Every ruleset with simultaneous moves passes PettingZoo's API and seed tests on a few
maps; a game played through the environment is the game `rules.engine.step` plays with
the same moves; rewards, terminations and truncations say what the rules decided.
"""

from __future__ import annotations

import contextlib
import io
import random
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from lightcycle.core.moves import Move
from lightcycle.core.state import GameState
from lightcycle.envs import env, parallel_env
from lightcycle.envs.observe import Layout, action_mask
from lightcycle.envs.parallel import LightcycleParallelEnv
from lightcycle.envs.rewards import pairwise
from lightcycle.envs.spaces import decode_action
from lightcycle.render import palette
from lightcycle.rules.engine import step
from lightcycle.rules.legal import moves_this_turn
from lightcycle.rules.ruleset import RulesError
from tests.conftest import grid_map, random_moves, team_map

SETUPS = [
    {"map": "arena-15"},
    {"map": "torus-20"},
    {"map": "arena-30", "ruleset": "ffa", "players": 4},
    {"map": "arena-50", "ruleset": "ffa", "players": 8},
    {"map": "court-small", "ruleset": "teams"},
    {"map": "icosahedron", "ruleset": "tron3d"},
    {"map": "icosahedron", "ruleset": "tron3d", "players": 4},
]
IDS = [",".join(f"{k}={v}" for k, v in s.items()) for s in SETUPS]

DICT_OBSERVATION_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box",
)
"""What PettingZoo's checker says of any environment whose observation is a dict with an
action mask (it exempts its own such games by name); anything else it says is a fault."""


def checked(run: Callable[[], None]) -> None:
    """Run one of PettingZoo's checkers, failing on any warning but the dict ones."""
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("always")
        run()
    said = {str(w.message) for w in caught}
    unexpected = [m for m in said if not m.startswith(DICT_OBSERVATION_WARNINGS)]
    assert not unexpected


@pytest.mark.parametrize("setup", SETUPS, ids=IDS)
def test_pettingzoo_parallel_api_test(setup: dict[str, Any]) -> None:
    checked(lambda: parallel_api_test(parallel_env(**setup), num_cycles=1000))


@pytest.mark.parametrize("setup", SETUPS, ids=IDS)
def test_pettingzoo_aec_api_test(setup: dict[str, Any]) -> None:
    checked(lambda: api_test(env(**setup), num_cycles=1000))


@pytest.mark.parametrize("setup", SETUPS, ids=IDS)
def test_pettingzoo_seed_tests(setup: dict[str, Any]) -> None:
    checked(lambda: parallel_seed_test(lambda: parallel_env(**setup)))
    checked(lambda: seed_test(lambda: env(**setup)))


def cycle_of(agent: str) -> int:
    """The cycle of agent ``player_i``."""
    return int(agent.removeprefix("player_"))


def action_for(state: GameState, cycle: int, move: Move, layout: Layout) -> int:
    """The masked action that plays ``move``."""
    found = [
        int(k)
        for k in np.flatnonzero(action_mask(state, cycle, layout))
        if decode_action(state, cycle, int(k), layout) == move
    ]
    assert len(found) == 1, (move, found)
    return found[0]


@pytest.mark.parametrize("setup", SETUPS, ids=IDS)
def test_a_game_through_the_env_is_the_game_of_the_rules(setup: dict[str, Any]) -> None:
    """Moves chosen as a bot would (safe when it can), played through the environment
    and through `rules.engine.step` side by side: the same states, the same outcome."""
    par = parallel_env(**setup)
    rng = random.Random(7)
    obs, _ = par.reset(seed=21)
    rules = par.config.new_state(21)
    assert par.game == rules
    exits: dict[str, tuple[float, bool, bool]] = {}
    while par.agents:
        assert rules.outcome is None
        moves = random_moves(rules, rng)
        actions = {
            a: action_for(rules, i, moves[i], par.layout) if i in moves else 0
            for i, a in enumerate(par.possible_agents)
            if a in par.agents
        }
        rules = step(rules, moves)
        obs, rewards, terminations, truncations, infos = par.step(actions)
        assert par.game == rules
        for a, r in rewards.items():
            i = cycle_of(a)
            c = rules.cycles[i]
            leaves = not c.alive or rules.outcome is not None
            assert (
                terminations[a] or truncations[a]
                if leaves
                else not (terminations[a] or truncations[a])
            )
            assert not (terminations[a] and truncations[a])
            assert infos[a]["alive"] == c.alive and infos[a]["team"] == c.team
            assert obs[a]["action_mask"].any() == moves_this_turn(rules, i)
            if leaves:
                team_out = not rules.team_alive(c.team)
                exits[a] = (r, rules.outcome is not None, team_out)
    outcome = rules.outcome
    assert outcome is not None
    assert sorted(exits) == sorted(par.possible_agents)
    death_ranked = "game_over.score" not in par.config.ruleset.stages
    for a, (r, over, team_out) in exits.items():
        team = rules.cycles[cycle_of(a)].team
        known = over or (team_out and death_ranked)
        assert r == (pairwise(outcome.ranks, team) if known else 0.0), a


def test_ffa_rewards_are_the_final_ranking_paid_on_each_crash_step() -> None:
    """In ffa a cycle's place is fixed when it crashes: its reward then is what the final
    ranking says, and the rewards of a game sum to zero."""
    for seed in range(6):
        par = parallel_env(map="arena-30", ruleset="ffa", players=8)
        rng = random.Random(seed)
        par.reset(seed=seed)
        paid: dict[str, float] = {}
        while par.agents:
            state = par.game
            assert state is not None
            moves = random_moves(state, rng)
            actions = {
                a: action_for(state, cycle_of(a), moves[cycle_of(a)], par.layout)
                for a in par.agents
            }
            _, rewards, terminations, truncations, _ = par.step(actions)
            for a in rewards:
                if terminations[a] or truncations[a]:
                    paid[a] = rewards[a]
                else:
                    assert rewards[a] == 0.0
        ranks = par.game.outcome.ranks  # type: ignore[union-attr]
        assert paid == {f"player_{t}": pairwise(ranks, t) for t in range(8)}
        assert abs(sum(paid.values())) < 1e-9
        assert max(paid.values()) > min(paid.values())


def test_pairwise_results() -> None:
    assert pairwise((1, 2), 0) == 1.0 and pairwise((1, 2), 1) == -1.0
    assert pairwise((1, 1), 0) == 0.0
    assert pairwise((1, 2, 3, 4), 0) == 1.0 and pairwise((1, 2, 3, 4), 3) == -1.0
    assert pairwise((1, 2, 2, 4), 1) == 0.0
    assert pairwise((3, 1, 1), 1) == 0.5 and pairwise((3, 1, 1), 0) == -1.0


DUEL_BOARD = ["#######", "#1...2#", "#######"]


def duel(actions: list[tuple[int, int]], **kw: Any) -> list[tuple[Any, ...]]:
    par = LightcycleParallelEnv(map=grid_map(DUEL_BOARD), ruleset="classic", **kw)
    par.reset(seed=0)
    out = []
    for a0, a1 in actions:
        _, r, te, tr, info = par.step({"player_0": a0, "player_1": a1})
        out.append((r, te, tr, info))
        if not par.agents:
            break
    return out


N, E, S, W = range(4)


def test_duel_win_loss_and_draw() -> None:
    [(r, te, tr, info)] = duel([(N, W)])
    assert r == {"player_0": -1.0, "player_1": 1.0}
    assert te == {"player_0": True, "player_1": True} and not any(tr.values())
    assert info["player_0"]["death"] == "wall" and info["player_1"]["alive"]
    assert info["player_0"]["rank"] == 2 and info["player_1"]["rank"] == 1
    [(r, te, _, _)] = duel([(N, S)])
    assert r == {"player_0": 0.0, "player_1": 0.0} and all(te.values())
    # both enter the middle cell on the second turn: same_cell, a draw
    (_, (r, te, _, info)) = duel([(E, W), (E, W)])
    assert r == {"player_0": 0.0, "player_1": 0.0}
    assert info["player_0"]["death"] == "same_cell"


def test_the_turn_limit_truncates_the_survivors_with_the_rules_draw() -> None:
    par = LightcycleParallelEnv(
        map=grid_map(["#######", "#1...2#", "#.....#", "#.....#", "#######"]), max_turns=2
    )
    par.reset(seed=0)
    _, r, te, tr, _ = par.step({"player_0": S, "player_1": S})
    assert not any(te.values()) and not any(tr.values()) and par.agents
    _, r, te, tr, info = par.step({"player_0": S, "player_1": S})
    assert not par.agents
    assert tr == {"player_0": True, "player_1": True} and not any(te.values())
    assert r == {"player_0": 0.0, "player_1": 0.0}
    assert info["player_0"]["rank"] == 1


def test_survival_shaping_pays_one_over_t_per_turn_survived() -> None:
    steps = duel([(E, W), (N, W)], shaping="survival")
    limit = 5  # the free cells of the board
    assert steps[0][0] == {"player_0": 1 / limit, "player_1": 1 / limit}
    assert steps[1][0] == {"player_0": -1.0, "player_1": 1.0 + 1 / limit}
    with pytest.raises(ValueError, match="survival"):
        parallel_env(shaping="speed")


def test_a_missing_or_none_action_forfeits() -> None:
    [(r, _, _, info)] = duel([(E, None)])  # type: ignore[list-item]
    assert r == {"player_0": 1.0, "player_1": -1.0}
    assert info["player_1"]["death"] == "forfeit"
    par = LightcycleParallelEnv(map=grid_map(DUEL_BOARD), ruleset="classic")
    par.reset(seed=0)
    _, r, _, _, _ = par.step({"player_0": E})
    assert r == {"player_0": 1.0, "player_1": -1.0}
    with pytest.raises(ValueError, match="outside"):
        par.reset(seed=0)
        par.step({"player_0": 9, "player_1": 0})


def test_team_cycles_leave_one_by_one_and_the_team_result_comes_at_the_end() -> None:
    par = parallel_env(map="court-small", ruleset="teams", max_turns=40)
    rng = random.Random(3)
    par.reset(seed=5)
    left_early: dict[str, float] = {}
    last: dict[str, float] = {}
    while par.agents:
        state = par.game
        assert state is not None
        moves = random_moves(state, rng)
        # cycle 0 drives north into its team's side wall at once
        actions = {
            a: N
            if a == "player_0"
            else action_for(state, cycle_of(a), moves[cycle_of(a)], par.layout)
            for a in par.agents
        }
        _, rewards, terminations, truncations, _ = par.step(actions)
        over = par.game is not None and par.game.outcome is not None
        for a in rewards:
            if terminations[a] or truncations[a]:
                (last if over else left_early)[a] = rewards[a]
    assert left_early.get("player_0") == 0.0, "its team played on: its place was not settled"
    ranks = par.game.outcome.ranks  # type: ignore[union-attr]
    for a, r in last.items():
        assert r == pairwise(ranks, par.game.cycles[cycle_of(a)].team)  # type: ignore[union-attr]


def test_tron3d_ends_at_its_rounds_with_the_survivors_truncated_and_ranked_by_score() -> None:
    par = parallel_env(map="icosahedron", ruleset="tron3d", max_turns=6)
    rng = random.Random(1)
    par.reset(seed=2)
    assert par.neighbours is not None and par.neighbours.shape == (162, par.layout.degree)
    while par.agents:
        state = par.game
        assert state is not None
        moves = random_moves(state, rng)
        actions = {
            a: action_for(state, cycle_of(a), moves[cycle_of(a)], par.layout)
            if cycle_of(a) in moves
            else 0
            for a in par.agents
        }
        _, rewards, terminations, truncations, infos = par.step(actions)
    final = par.game
    assert final is not None and final.turn == 6 and final.outcome is not None
    for a in rewards:
        i = cycle_of(a)
        assert truncations[a] == final.cycles[i].alive and not terminations[a]
        assert rewards[a] == pairwise(final.outcome.ranks, final.cycles[i].team)
        assert infos[a]["rank"] == final.outcome.ranks[final.cycles[i].team]


def test_seeded_resets_repeat_games_and_name_the_game_seed() -> None:
    par = parallel_env(map="open-random")
    obs, _ = par.reset(seed=12)
    assert par.game is not None and par.game.seed == 12
    again, _ = par.reset(seed=12)
    assert all(np.array_equal(obs[a]["observation"], again[a]["observation"]) for a in obs)
    par.reset()
    first = par.game
    other = parallel_env(map="open-random")
    other.reset(seed=12)
    other.reset()
    assert other.game == first
    seeded = parallel_env(map="open-random", seed=4)
    seeded.reset()
    assert seeded.game is not None and seeded.game.seed != 12


def test_render_text_and_pixels() -> None:
    par = parallel_env(map="arena-15", render_mode="ansi")
    par.reset(seed=0)
    text = par.render()
    assert isinstance(text, str) and "A" in text and "turn 0" in text
    par = parallel_env(map="arena-15", render_mode="rgb_array")
    par.reset(seed=0)
    image = par.render()
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8
    assert image.ndim == 3 and image.shape[2] == 3 and image.shape[0] == image.shape[1]
    cell = image.shape[0] // 15
    head = par.game.cycles[0].head  # type: ignore[union-attr]
    x, y = head % 15, head // 15
    assert tuple(image[y * cell + cell // 2, x * cell + cell // 2]) == palette.rgb(palette.head(0))
    assert tuple(image[0, 0]) == palette.rgb(palette.WALL)
    graph = parallel_env(map="icosahedron", render_mode="rgb_array")
    graph.reset(seed=0)
    picture = graph.render()
    assert isinstance(picture, np.ndarray) and picture.shape == (400, 400, 3)
    colours = {tuple(p) for p in picture.reshape(-1, 3)}
    assert palette.rgb(palette.head(0)) in colours and palette.rgb(palette.head(1)) in colours
    with pytest.raises(ValueError, match="render_mode"):
        parallel_env(render_mode="human")


def test_set_ups_the_rules_refuse_are_refused_with_the_reason() -> None:
    with pytest.raises(RulesError, match="torus"):
        parallel_env(map="arena-15", ruleset="torus")
    with pytest.raises(RulesError, match="2 to 8"):
        parallel_env(map="arena-30", ruleset="ffa", players=9)
    with pytest.raises(RulesError, match="max_turns"):
        parallel_env(max_turns=0)


def test_the_defaults_follow_lightcycle_play() -> None:
    assert parallel_env(map="arena-15").config.ruleset.id == "classic@1"
    assert parallel_env(map="torus-20").config.ruleset.id == "torus@1"
    assert parallel_env(map="ffa4").config.ruleset.id == "ffa@1"
    assert parallel_env(map="court-small").config.ruleset.id == "teams@1"
    assert parallel_env(map="cube").config.ruleset.id == "tron3d@1"
    assert parallel_env(map="court-small").possible_agents[-1] == "player_19"


def test_a_graph_action_past_the_heads_neighbours_forfeits_by_the_rules() -> None:
    board = team_map(["a...k", "b...l"], graph=True)
    par = LightcycleParallelEnv(map=board, ruleset="tron3d", players=2)
    obs, _ = par.reset(seed=0)
    assert par.layout.degree == 3  # corner vertex 0 has two neighbours
    assert obs["player_0"]["action_mask"].tolist() == [1, 1, 0, 0, 0, 0]
    actions = {"player_0": 2, "player_1": 0, "player_2": 0, "player_3": 0}
    _, _, terminations, _, infos = par.step(actions)
    assert terminations["player_0"] and infos["player_0"]["death"] == "forfeit"
    assert "not next to node 0" in infos["player_0"]["death_detail"]

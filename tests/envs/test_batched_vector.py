"""The Gymnasium vector environments over the batched engine keep Gymnasium's promises.

Gymnasium ships no checker for vector environments, so these are the checks of
`gymnasium.utils.env_checker` that apply to one, written for N sub-environments: every
observation lies in the declared space, action spaces accept their samples, a seeded
reset repeats itself, and automatic reset behaves as ``metadata["autoreset_mode"]``
declares (next step, same step, or disabled). Gymnasium's own vector wrapper
(``RecordEpisodeStatistics``) must read the episodes right.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_space_limit
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from lightcycle.envs.batched import BatchedGames
from lightcycle.envs.vector import OpponentVectorEnv, SelfPlayVectorEnv

MODES = list(AutoresetMode)
SETUPS = [("classic", "arena-10"), ("ffa", "ffa4"), ("teams", "court-small"), ("torus", "torus-20")]


def masked_actions(
    env: SelfPlayVectorEnv | OpponentVectorEnv, obs: dict[str, Any], rng: Any
) -> np.ndarray:
    """A random legal action per sub-environment (and per seat), from the masks."""
    mask = obs["action_mask"]
    flat = mask.reshape(-1, mask.shape[-1])
    out = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in flat])
    return out.reshape(mask.shape[:-1])


def make(kind: str, ruleset: str, map: str, mode: AutoresetMode, n: int = 3, **kw: Any):
    cls = SelfPlayVectorEnv if kind == "self" else OpponentVectorEnv
    return cls(n, ruleset, map, autoreset_mode=mode, **kw)


def finish_disabled(env: Any, terminated: np.ndarray, truncated: np.ndarray) -> None:
    done = terminated | truncated
    if env.autoreset_mode is AutoresetMode.DISABLED and done.any():
        env.reset(options={"reset_mask": done})


@pytest.mark.parametrize("kind", ["self", "opponent"])
@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
@pytest.mark.parametrize(("ruleset", "map"), SETUPS)
def test_spaces_hold_what_reset_and_step_return(
    kind: str, mode: AutoresetMode, ruleset: str, map: str
) -> None:
    env = make(kind, ruleset, map, mode)
    assert env.metadata["autoreset_mode"] is mode
    check_space_limit(env.single_observation_space, "observation")
    check_space_limit(env.single_action_space, "action")
    assert env.action_space.contains(env.action_space.sample())
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs) and isinstance(info, dict)
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(60):
        actions = masked_actions(env, obs, rng)
        assert env.action_space.contains(actions.astype(env.action_space.dtype))
        obs, rewards, terminated, truncated, infos = env.step(actions)
        assert env.observation_space.contains(obs)
        assert rewards.shape == terminated.shape == truncated.shape == (env.num_envs,)
        assert rewards.dtype == np.float64 and terminated.dtype == truncated.dtype == np.bool_
        assert not (terminated & truncated).any()
        assert np.all(rewards[~(terminated | truncated)] == 0)  # at a game's end only
        assert np.all(np.abs(rewards) <= 1)
        if mode is AutoresetMode.SAME_STEP and (terminated | truncated).any():
            for i in np.flatnonzero(terminated | truncated):
                assert env.single_observation_space.contains(infos["final_obs"][i])
        ended += int((terminated | truncated).sum())
        finish_disabled(env, terminated, truncated)
    assert ended or ruleset == "teams"
    env.close()


@pytest.mark.parametrize("kind", ["self", "opponent"])
@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
def test_a_seeded_reset_repeats_the_same_episodes(kind: str, mode: AutoresetMode) -> None:
    traces = []
    for _ in range(2):
        env = make(kind, "ffa", "arena-15", mode, n=4, players=4)
        obs, _ = env.reset(seed=42)
        env.action_space.seed(42)
        trace = [{k: v.copy() for k, v in obs.items()}]
        for _ in range(40):
            obs, rewards, terminated, truncated, _ = env.step(env.action_space.sample())
            trace.append({k: v.copy() for k, v in obs.items()})
            trace.append({"r": rewards, "t": terminated, "u": truncated})
            finish_disabled(env, terminated, truncated)
        traces.append(trace)
    for a, b in zip(*traces, strict=True):
        for key in a:
            assert np.array_equal(a[key], b[key]), key
    env = make(kind, "classic", "open-random", mode, n=3)
    first, _ = env.reset(seed=9)
    first = {k: v.copy() for k, v in first.items()}
    env.step(env.action_space.sample())
    again, _ = env.reset(seed=9)
    for key in first:
        assert np.array_equal(first[key], again[key])
    assert list(env.games.seeds) == [9, 10, 11]


def first_ending(env: Any, seed: int) -> tuple[dict[str, Any], int, tuple]:
    """Step random legal moves until some game ends; return the obs copy, the game, step."""
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(500):
        out = env.step(masked_actions(env, obs, rng))
        obs, _, terminated, truncated, _ = out
        done = np.flatnonzero(terminated | truncated)
        if len(done):
            return {k: v.copy() for k, v in obs.items()}, int(done[0]), out
    raise AssertionError("no game ended")


@pytest.mark.parametrize("kind", ["self", "opponent"])
def test_next_step_autoreset_restarts_a_finished_game_on_the_next_step(kind: str) -> None:
    env = make(kind, "classic", "arena-10", AutoresetMode.NEXT_STEP, n=4)
    final, g, _ = first_ending(env, seed=1)
    assert not final["action_mask"][g].any()  # the terminal observation: no move is legal
    fresh = BatchedGames("classic", "arena-10", 1, seed=0).planes
    assert fresh is not None
    outcomes = []
    for action in (0, 1):  # the finished game's action is ignored
        twin = make(kind, "classic", "arena-10", AutoresetMode.NEXT_STEP, n=4)
        first_ending(twin, seed=1)
        actions = np.zeros(twin.action_space.shape, dtype=np.int64)
        actions[g] = action
        obs, rewards, terminated, truncated, _ = twin.step(actions)
        assert rewards[g] == 0 and not terminated[g] and not truncated[g]
        assert obs["scalars"][g].max() == 0  # turn 0 of a new game
        want = fresh.obs[0] if kind == "self" else fresh.obs[0, 0]
        assert np.array_equal(obs["observation"][g], want)
        outcomes.append(obs["observation"][g].copy())
    assert np.array_equal(outcomes[0], outcomes[1])


@pytest.mark.parametrize("kind", ["self", "opponent"])
def test_same_step_autoreset_returns_the_new_game_and_the_final_observation(kind: str) -> None:
    env = make(kind, "classic", "arena-10", AutoresetMode.SAME_STEP, n=4)
    obs, g, (_, rewards, terminated, truncated, infos) = first_ending(env, seed=1)
    assert obs["scalars"][g].max() == 0  # already the next game's first observation
    assert infos["_final_obs"][g] and infos["_final_info"][g]
    final = infos["final_obs"][g]
    assert final["scalars"].max() > 0 and not final["action_mask"].any()
    assert infos["final_info"]["turn"][g] > 0
    ranks = infos["final_info"]["ranks"][g]
    below = sum(r > ranks[0] for r in ranks[1:])
    above = sum(r < ranks[0] for r in ranks[1:])
    assert rewards[g] == (below - above) / (len(ranks) - 1)  # seat 0's, from its place
    assert not any(infos["_final_obs"][i] for i in np.flatnonzero(~(terminated | truncated)))


def test_disabled_autoreset_keeps_a_finished_game_until_a_masked_reset() -> None:
    env = make("self", "classic", "arena-10", AutoresetMode.DISABLED, n=4)
    obs, g, _ = first_ending(env, seed=2)
    for _ in range(3):
        again, rewards, terminated, truncated, _ = env.step(env.action_space.sample())
        assert np.array_equal(again["observation"][g], obs["observation"][g])
        assert rewards[g] == 0 and not terminated[g] and not truncated[g]
    mask = np.zeros(env.num_envs, dtype=bool)
    mask[g] = True
    after, _ = env.reset(options={"reset_mask": mask})
    assert after["scalars"][g].max() == 0
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": np.ones(2, dtype=bool)})


def test_record_episode_statistics_reads_the_episodes_right() -> None:
    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        env = RecordEpisodeStatistics(make("self", "classic", "arena-10", mode, n=6))
        obs, _ = env.reset(seed=5)
        rng = np.random.default_rng(5)
        episodes = 0
        for _ in range(150):
            obs, rewards, terminated, truncated, infos = env.step(masked_actions(env, obs, rng))
            if "episode" in infos:
                done = infos["_episode"]
                assert np.array_equal(done, terminated | truncated)
                turns = (
                    infos["final_info"]["turn"]
                    if mode is AutoresetMode.SAME_STEP
                    else infos["turn"]
                )
                assert np.array_equal(infos["episode"]["l"][done], turns[done])
                assert np.array_equal(infos["episode"]["r"][done], rewards[done])
                episodes += int(done.sum())
        assert episodes > 6


def test_observations_are_the_engines_buffers_unless_copy_is_asked() -> None:
    env = make("self", "classic", "arena-10", AutoresetMode.NEXT_STEP)
    first, _ = env.reset(seed=0)
    second, *_ = env.step(env.action_space.sample())
    assert second["observation"] is first["observation"]
    assert second["observation"] is env.games.planes.obs  # type: ignore[union-attr]
    env = make("self", "classic", "arena-10", AutoresetMode.NEXT_STEP, copy=True)
    first, _ = env.reset(seed=0)
    second, *_ = env.step(env.action_space.sample())
    assert not np.shares_memory(second["observation"], first["observation"])
    assert not np.shares_memory(second["observation"], env.games.planes.obs)  # type: ignore[union-attr]


def test_self_play_gives_seat_zero_the_reward_and_every_seat_in_infos() -> None:
    env = make("self", "ffa", "ffa4", AutoresetMode.NEXT_STEP, n=8)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(4)
    seen = 0
    for _ in range(200):
        obs, rewards, terminated, truncated, infos = env.step(masked_actions(env, obs, rng))
        seats = infos["seat_rewards"]
        assert seats.shape == (8, 4) and np.array_equal(seats[:, 0], rewards)
        done = terminated | truncated
        assert np.allclose(seats[done].sum(axis=1), 0, atol=1e-6)  # zero-sum
        seen += int(done.sum())
    assert seen > 4


def test_the_opponent_env_plays_a_plugged_in_batched_policy() -> None:
    calls = []

    def always_north(
        games: BatchedGames, cycles: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        calls.append((games.num_games, tuple(cycles)))
        return np.zeros((games.num_games, len(cycles)), dtype=np.intp)

    env = OpponentVectorEnv(5, "classic", "arena-10", opponent=always_north, seat=1)
    env.reset(seed=0)
    start = env.games.heads[:, 0].copy()
    env.step(np.full(5, 1))
    assert calls == [(5, (0,))]
    assert np.array_equal(env.games.heads[:, 0], start - 10)  # one row up on a 10-wide grid
    with pytest.raises(ValueError, match="seat"):
        OpponentVectorEnv(2, "classic", "arena-10", seat=2)


def test_the_opponent_episode_ends_when_the_learners_cycle_dies_in_a_free_for_all() -> None:
    env = make("opponent", "ffa", "ffa4", AutoresetMode.NEXT_STEP, n=8)
    obs, _ = env.reset(seed=6)
    rng = np.random.default_rng(6)
    early = 0
    for _ in range(150):
        obs, rewards, terminated, _, infos = env.step(masked_actions(env, obs, rng))
        for g in np.flatnonzero(terminated):
            alive_others = env.games.alive[g, 1:].sum()
            ranks = infos["ranks"][g]
            if alive_others >= 2:  # the game goes on without the learner: it is out
                early += 1
                assert not env.games.alive[g, 0]
                below = sum(r > ranks[0] for r in ranks[1:])
                above = sum(r < ranks[0] for r in ranks[1:])
                assert rewards[g] == pytest.approx((below - above) / 3)
    assert early > 0

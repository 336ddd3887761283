"""Episodes are games: an environment's game saved as a lightcycle replay re-simulates.

The replay layer re-plays the saved moves through the rules from the seed and checks
them against the stored outcome; these tests check that this gives back the very game
the environment played (every cycle, trail, score, item and the outcome), that
``lightcycle replay`` plays the file, and that the batched engine's games, by index,
become replays of the games it played.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from typer.testing import CliRunner

from lightcycle.cli.main import app
from lightcycle.core.bitset import iter_cells
from lightcycle.core.state import GameState
from lightcycle.envs import LightcycleEnv, parallel_env
from lightcycle.envs.batched import BatchedGames, random_safe_policy
from lightcycle.envs.episodes import GameRecorder, batched_replay, spec_text
from lightcycle.replay.model import Replay, ReplayError

runner = CliRunner()

GAMES: list[dict[str, Any]] = [
    {"map": "arena-15"},
    {"map": "torus-20"},
    {"map": "arena-30", "ruleset": "ffa", "players": 4},
    {"map": "court-small", "ruleset": "teams", "max_turns": 80},
    {"map": "icosahedron", "ruleset": "tron3d", "players": 4, "max_turns": 40},
]


def same_game(a: GameState, b: GameState) -> None:
    """Everything the rules decide is equal (team names may differ: a replay names its
    seats, an environment's game does not)."""
    assert a.turn == b.turn
    assert a.cycles == b.cycles
    assert a.occupied == b.occupied
    assert a.scores == b.scores and a.items == b.items
    assert a.outcome == b.outcome
    assert a.seed == b.seed


def random_actions(obs: dict[str, Any], agents: list[str], rng: np.random.Generator) -> dict:
    actions: dict[str, Any] = {}
    for agent in agents:
        legal = np.flatnonzero(obs[agent]["action_mask"])
        actions[agent] = int(rng.choice(legal)) if len(legal) else 0
    return actions


@pytest.mark.parametrize("kwargs", GAMES, ids=lambda k: f"{k['map']}-{k.get('ruleset', '')}")
def test_a_parallel_episode_saved_is_the_game_the_replay_layer_re_simulates(
    kwargs: dict[str, Any], tmp_path: Path
) -> None:
    env = parallel_env(**kwargs)
    obs, _ = env.reset(seed=11)
    rng = np.random.default_rng(3)
    first = True
    while env.agents:
        actions = random_actions(obs, env.agents, rng)
        if first:  # a forfeit is recorded as one: an agent that gives no action
            actions[env.agents[-1]] = None
            first = False
        obs, *_ = env.step(actions)
    assert env.game is not None and env.game.outcome is not None
    path = tmp_path / "episode.json"
    env.replay().save(path)
    loaded = Replay.load(path)
    assert loaded.seed == 11 and loaded.outcome is not None
    same_game(loaded.verify(), env.game)
    assert all(s["bot"] == "agent" for s in loaded.seats)


def test_the_parallel_replay_names_its_seats_by_their_agents() -> None:
    teams = parallel_env(map="court-small", ruleset="teams", max_turns=5)
    teams.reset(seed=1)
    assert [s["name"] for s in teams.replay().seats] == [
        "player_0..player_9",
        "player_10..player_19",
    ]
    duel = parallel_env(map="arena-10")
    duel.reset(seed=1)
    assert [s["name"] for s in duel.replay(names=["PPO", "random"]).seats] == ["PPO", "random"]
    with pytest.raises(ValueError, match="3 names given for 2 seats"):
        duel.replay(names=["a", "b", "c"])


def test_a_game_under_way_is_a_replay_without_outcome_that_reaches_the_same_turn() -> None:
    env = parallel_env(map="arena-15")
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(3):
        obs, *_ = env.step(random_actions(obs, env.agents, rng))
    assert env.game is not None
    if env.game.outcome is None:
        replay = env.replay()
        assert replay.outcome is None and len(replay.turns) == env.game.turn
        same_game(replay.verify(), env.game)
    env.reset(seed=5)
    assert env.replay().turns == []  # a reset starts a new record


def test_no_replay_before_the_first_reset() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        parallel_env().replay()
    with pytest.raises(RuntimeError, match="reset"):
        LightcycleEnv().replay()


def test_lightcycle_replay_plays_an_environment_episode(tmp_path: Path) -> None:
    env = parallel_env(map="arena-10")
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(2)
    while env.agents:
        obs, *_ = env.step(random_actions(obs, env.agents, rng))
    path = tmp_path / "episode.json"
    env.replay().save(path)
    result = runner.invoke(app, ["replay", str(path), "--no-render"])
    assert result.exit_code == 0, result.output
    assert "player_" in result.output or "draw" in result.output
    page = tmp_path / "episode.html"
    result = runner.invoke(app, ["replay", str(path), "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert "lightcycle-replay" in page.read_text(encoding="utf-8")


def play_single(env: Any, seed: int) -> None:
    env.reset(seed=seed)
    done = False
    while not done:
        action = int(np.flatnonzero(env.unwrapped.action_masks())[-1])
        _, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("lightcycle/Duel-v1", {"opponents": "wallhugger"}),
        ("lightcycle/Teams-v1", {"max_turns": 60}),
        ("lightcycle/Tron3D-v1", {"max_turns": 30}),
    ],
)
def test_a_single_agent_episode_is_the_whole_game_with_the_bots_moves(
    env_id: str, kwargs: dict[str, Any], tmp_path: Path
) -> None:
    env = gymnasium.make(env_id, **kwargs)
    play_single(env, seed=6)
    game = env.unwrapped.game
    assert game.outcome is not None  # the bots played the game out
    path = tmp_path / "single.json"
    env.unwrapped.replay().save(path)
    loaded = Replay.load(path)
    same_game(loaded.verify(), game)
    assert loaded.seats[0]["name"] == "agent"
    result = runner.invoke(app, ["replay", str(path), "--no-render"])
    assert result.exit_code == 0, result.output


def test_the_single_agent_seats_say_which_bots_played() -> None:
    env = LightcycleEnv(
        map="arena-30", ruleset="ffa", players=4, opponents=["random", "chaser", "random"]
    )
    env.reset(seed=1)
    assert env.replay().seats == [
        {"name": "agent", "bot": "agent"},
        {"name": "Random", "bot": "builtin:random"},
        {"name": "Chaser", "bot": "builtin:chaser"},
        {"name": "Random 2", "bot": "builtin:random"},
    ]
    teams = LightcycleEnv(map="court-small", ruleset="teams")
    teams.reset(seed=1)
    assert teams.replay().seats[0] == {"name": "agent", "bot": "agent with builtin:randombot"}
    assert spec_text(LightcycleEnv) == "python:lightcycle.envs.single.LightcycleEnv"


def test_an_episode_that_ends_before_its_game_is_a_replay_without_outcome(tmp_path: Path) -> None:
    """A free-for-all agent out first: its episode ends, the game plays on without it."""
    env = LightcycleEnv(map="arena-30", ruleset="ffa", players=4, opponents="wallhugger")
    env.reset(seed=2)
    terminated = False
    while not terminated:  # north until the wall
        _, _, terminated, _, _ = env.step(0)
    assert env.game is not None and env.game.outcome is None
    replay = env.replay()
    assert replay.outcome is None
    same_game(replay.verify(), env.game)
    path = tmp_path / "ffa.json"
    replay.save(path)
    assert runner.invoke(app, ["replay", str(path), "--no-render"]).exit_code == 0


# -- the batched engine --------------------------------------------------------------

BATCHED = [
    ("classic", "arena-10", "next_step", {}),
    ("classic", "arena-10", "same_step", {}),
    ("torus", "torus-20", "disabled", {}),
    ("ffa", "arena-15", "next_step", {"players": 4}),
    ("teams", "court-small", "same_step", {"max_turns": 30}),
]


@pytest.mark.parametrize(("ruleset", "map_name", "mode", "kwargs"), BATCHED)
def test_every_batched_game_by_index_is_a_replay_of_that_game(
    ruleset: str, map_name: str, mode: str, kwargs: dict[str, Any]
) -> None:
    games = BatchedGames(ruleset, map_name, 4, seed=1, autoreset=mode, **kwargs)
    recorder = GameRecorder(games)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(80):
        result = recorder.step(random_safe_policy(games, np.arange(games.num_cycles), rng))
        for g in np.flatnonzero(result.terminated | result.truncated):
            replay = recorder.finished(int(g))
            assert replay is not None
            final = replay.verify()
            assert final.outcome is not None
            assert list(final.outcome.ranks) == result.ranks[g].tolist()
            finished += 1
        if mode == "disabled":
            games.reset_games(games.over)
        for g in range(games.num_games):
            now = recorder.replay(g).verify()
            assert now.turn == games.turn[g]
            assert [c.alive for c in now.cycles] == games.alive[g].tolist()
            assert [c.head for c in now.cycles if c.alive] == games.heads[g][
                games.alive[g]
            ].tolist()
            assert list(iter_cells(now.occupied)) == games.occupied_cells(g).tolist()
    assert finished > 0


def test_a_batched_game_stepped_without_the_recorder_is_refused() -> None:
    games = BatchedGames("classic", "arena-30", 2, seed=1)
    recorder = GameRecorder(games)
    assert recorder.finished(0) is None
    actions = np.ones((2, 2), dtype=np.intp)  # east and east: both live a few turns
    recorder.step(actions)
    games.step(actions)
    with pytest.raises(ValueError, match="without the recorder"):
        recorder.replay(0)
    games.reset(seed=3)
    recorder.step(actions)
    assert len(recorder.replay(0).turns) == 1  # a new game: recorded from its start


def test_actions_past_a_games_end_are_not_that_games() -> None:
    games = BatchedGames("classic", "arena-10", 1, seed=1)
    with pytest.raises(ReplayError, match="not that game's actions"):
        batched_replay(games.ruleset, games.spec, 1, np.zeros((40, 2), dtype=np.int8))

"""The Gymnasium single-agent environments: Gymnasium's checker, and the game kept whole.

Each registered id passes ``check_env``; an episode is the agent's cycle's part of one
game against bots asked as the referee asks them, and its reward is the team's final
result even when the agent's cycle dies first.
"""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from lightcycle.bots.builtin import WallHugger
from lightcycle.envs import ENV_IDS, LightcycleEnv, PolicyBot
from lightcycle.envs.rewards import pairwise
from lightcycle.referee.local import play
from lightcycle.rules.legal import moves_this_turn
from lightcycle.rules.observe import View
from tests.conftest import grid_map

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("env_id", list(ENV_IDS))
def test_gymnasium_check_env(env_id: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = gymnasium.make(env_id)
        check_env(made.unwrapped)
    assert [str(w.message) for w in caught] == []


def first_legal(obs: dict[str, np.ndarray]) -> int:
    return int(np.flatnonzero(obs["action_mask"])[0])


def run_episode(env: LightcycleEnv, seed: int, policy: Any = None) -> tuple[float, int]:
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        assert np.array_equal(mask, obs["action_mask"].astype(bool))
        action = policy(obs) if policy else int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, truncated, _ = env.step(action)
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps


@pytest.mark.parametrize("env_id", list(ENV_IDS))
def test_the_episode_reward_is_the_team_result_at_the_game_end(env_id: str) -> None:
    env = gymnasium.make(env_id).unwrapped
    assert isinstance(env, LightcycleEnv)
    for seed in range(3):
        total, _ = run_episode(env, seed)
        game = env.game
        assert game is not None
        if game.outcome is None:  # ffa: the agent's place was settled when it crashed
            assert not game.cycles[env.cycle].alive and game.ruleset.name == "ffa"
            continue
        assert total == pairwise(game.outcome.ranks, env.team)


def test_a_team_agent_that_crashes_first_still_gets_its_team_result() -> None:
    env = gymnasium.make("lightcycle/Teams-v1").unwrapped
    assert isinstance(env, LightcycleEnv)
    env.reset(seed=1)
    _, reward, terminated, _, _ = env.step(2)  # south
    assert not terminated and reward == 0.0
    _, reward, terminated, truncated, info = env.step(0)  # north, back into its own trail
    assert terminated and not truncated and info["death"] == "trail"
    game = env.game
    assert game is not None and game.outcome is not None, "the bots played the game out"
    assert game.turn > 1 and reward == pairwise(game.outcome.ranks, env.team)


def test_tron3d_asks_the_agent_only_on_turns_its_cycle_moves() -> None:
    env = gymnasium.make("lightcycle/Tron3D-v1").unwrapped
    assert isinstance(env, LightcycleEnv)
    assert env.neighbours is not None and env.neighbours.shape[0] == 162
    obs, _ = env.reset(seed=3)
    turns = []
    for _ in range(20):
        game = env.game
        assert game is not None and moves_this_turn(game, env.cycle)
        assert obs["scalars"][1] == 1.0
        turns.append(game.turn)
        obs, _, terminated, truncated, _ = env.step(first_legal(obs))
        if terminated or truncated:
            break
    assert len(turns) > 3 and all(t % 2 == 0 for t in turns)


def test_opponents_by_name_class_instance_function_or_one_per_team() -> None:
    board = grid_map(["########", "#1....3#", "#......#", "#2....4#", "########"])
    seen: list[int] = []

    def south(view: View) -> str:
        seen.append(view.seat)
        return "s"

    env = LightcycleEnv(
        map=board, ruleset="ffa", players=4, opponents=["wallhugger", WallHugger, south]
    )
    env.reset(seed=0)
    _, _, terminated, _, _ = env.step(1)  # east: safe
    assert not terminated and seen == [3]
    game = env.game
    assert game is not None and game.cycles[3].death.cause == "wall"  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="3 other teams"):
        LightcycleEnv(map=board, ruleset="ffa", players=4, opponents=["random", "random"])
    with pytest.raises(TypeError, match="not a bot"):
        LightcycleEnv(map="arena-15", opponents=3).reset(seed=0)  # type: ignore[arg-type]


def test_a_policy_plays_as_a_seat_in_the_referee() -> None:
    """`PolicyBot` sees what an environment's agent sees, so a trained policy faces the
    built-in bots in `lightcycle play`, `match` and `duel` like any bot."""
    seen: list[tuple[tuple[int, ...], int]] = []

    def policy(obs: dict[str, np.ndarray]) -> int:
        seen.append((obs["observation"].shape, int(obs["action_mask"].sum())))
        return first_legal(obs)

    result = play("arena-10", [PolicyBot(policy, name="Agent"), "random"], seed=2)
    assert result.outcome is not None and seen and seen[0][0] == (5, 10, 10)
    env = LightcycleEnv(map="arena-10", opponents=PolicyBot(first_legal))
    total, _ = run_episode(env, 0, first_legal)
    assert total in (-1.0, 0.0, 1.0)
    result = play("court-small", [PolicyBot(first_legal), "randombot"], ruleset="teams", seed=1)
    assert result.replay.verify() == result.final


def test_render_modes() -> None:
    env = LightcycleEnv(map="arena-15", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "turn 0" in text
    env = LightcycleEnv(map="icosahedron", ruleset="tron3d", render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert isinstance(image, np.ndarray) and image.shape == (400, 400, 3)


def test_stepping_a_finished_episode_is_refused() -> None:
    env = LightcycleEnv(map=grid_map(["#####", "#1.2#", "#####"]), ruleset="classic")
    env.reset(seed=0)
    _, reward, terminated, _, _ = env.step(0)
    assert terminated and reward == -1.0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def python_blocks(markdown: str) -> list[str]:
    """The ```python blocks of a document, in order."""
    return re.findall(r"^```python\n(.*?)^```", markdown, flags=re.S | re.M)


def test_the_python_examples_of_docs_rl_run() -> None:
    """docs/rl.md's Python examples run as shown (the doc test runs its shell lines)."""
    blocks = python_blocks((ROOT / "docs" / "rl.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 3
    scope: dict[str, Any] = {}
    for block in blocks:
        exec(compile(block, "docs/rl.md", "exec"), scope)


@pytest.mark.parametrize(
    ("hidden", "code"),
    [
        ("gymnasium", "import lightcycle.envs"),
        ("pettingzoo", "from lightcycle.envs import parallel_env; parallel_env()"),
    ],
)
def test_a_missing_rl_extra_names_the_install_command(hidden: str, code: str) -> None:
    """Without the ``rl`` extra the error says what to install (the package is hidden
    from a fresh interpreter, as on a machine without it)."""
    program = f"import sys; sys.modules[{hidden!r}] = None\n{code}"
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode != 0
    assert "pip install 'lightcycle[rl]'" in done.stderr

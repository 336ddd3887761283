"""``examples/rl/opponents.py``: the batched wall-hugger is the built-in one, move for move.

The trained agent of ``examples/rl`` is measured against ``builtin:wallhugger`` but trained
against `wallhugger_policy`, so the two must be one bot. Games are played side by side
in the referee's engine (`lightcycle.rules.engine.step`) and in `BatchedGames`, both
cycles moving at random onto free cells so that the positions vary; every turn the real
`WallHugger` and the batched rule are asked for both cycles' moves and must agree.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="examples/rl needs the rl extra: pip install -e '.[rl]'")

from lightcycle.bots.builtin import WallHugger
from lightcycle.core.topology import Heading
from lightcycle.envs import BatchedGames
from lightcycle.maps.registry import get_map
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.legal import read_answer, safe_moves
from lightcycle.rules.observe import View

RL = Path(__file__).resolve().parents[2] / "examples" / "rl"


def load(name: str) -> ModuleType:
    """Import ``examples/rl/NAME.py`` as the scripts there import each other."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, RL / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("ruleset", "map_name"),
    [
        ("classic", "arena-10"),
        ("classic", "chambers"),
        ("classic", "corridors"),
        ("torus", "torus-20"),
    ],
)
def test_wallhugger_policy_moves_as_the_builtin_bot(ruleset: str, map_name: str) -> None:
    opponents = load("opponents")
    spec = get_map(map_name)
    rng = np.random.default_rng(11)
    bot = WallHugger()
    compared = 0
    for seed in range(6):
        state = new_game(ruleset, spec, seed=seed)
        games = BatchedGames(ruleset, spec, 1, seed=seed, autoreset="disabled", observe=False)
        while state.outcome is None:
            ours = opponents.wallhugger_policy(games, [0, 1], rng)[0]
            for cycle in (0, 1):
                real = bot.move(View(state, cycle))
                assert int(ours[cycle]) == int(real), (map_name, seed, state.turn, cycle)
                compared += 1
            actions = []
            for cycle in (0, 1):
                safe = safe_moves(state, cycle)
                to = safe[rng.integers(len(safe))].to if safe else None
                head = state.cycles[cycle].head
                k = next((h for h in Heading if spec.board.topology.move(head, h) == to), 0)
                actions.append(int(k))
            state = step(state, [read_answer(state, c, Heading(k)) for c, k in enumerate(actions)])
            games.step(np.array([actions]))
            assert games.heads[0].tolist() == [c.head for c in state.cycles]
    assert compared > 100

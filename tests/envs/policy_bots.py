"""Policies seated as bots, for the command-line tests (``py:tests/envs/policy_bots.py:NAME``).

A policy takes one cycle's observation dict (`lightcycle.envs.observe`) and returns an
action; `PolicyBot` seats it wherever a bot plays. ``safe``: the first legal move onto a
free cell, the policy of ``examples/rl/first_safe.py`` (grids of one cycle per team:
planes 0 walls, 1 own trail, 2 the others' trails, 3 own head). ``crasher``: always
north, into the wall sooner or later.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

from lightcycle.envs import PolicyBot

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rl" / "first_safe.py"


def _load_example() -> ModuleType:
    """``examples/rl/first_safe.py``, imported by path as the tests of examples/rl do."""
    if "first_safe" in sys.modules:
        return sys.modules["first_safe"]
    spec = importlib.util.spec_from_file_location("first_safe", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["first_safe"] = module
    spec.loader.exec_module(module)
    return module


first_safe = _load_example().first_safe
"""The first legal action onto a free cell, else the first legal one (the example's)."""


def north(observation: dict[str, np.ndarray]) -> int:
    """Action 0 whatever the board: a policy that has learnt nothing."""
    return 0


safe = PolicyBot(first_safe, name="SafePolicy")
crasher = PolicyBot(north, name="NorthPolicy")

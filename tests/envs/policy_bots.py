"""Policies seated as bots, for the command-line tests (``py:tests/envs/policy_bots.py:NAME``).

A policy takes one cycle's observation dict (`lightcycle.envs.observe`) and returns an
action; `PolicyBot` seats it wherever a bot plays. ``safe``: the first legal move onto a
free cell (grids of one cycle per team: planes 0 walls, 1 own trail, 2 the others'
trails, 3 own head). ``crasher``: always north, into the wall sooner or later.
"""

from __future__ import annotations

import numpy as np

from lightcycle.envs import PolicyBot

STEPS = ((-1, 0), (0, 1), (1, 0), (0, -1))


def first_safe(observation: dict[str, np.ndarray]) -> int:
    """The first legal action onto a free cell, else the first legal one."""
    planes = observation["observation"]
    legal = np.flatnonzero(observation["action_mask"])
    blocked = planes[0] | planes[1] | planes[2]
    (y, x), *_ = np.argwhere(planes[3])
    for action in legal:
        dy, dx = STEPS[action]
        ny, nx = y + dy, x + dx
        if 0 <= ny < blocked.shape[0] and 0 <= nx < blocked.shape[1] and not blocked[ny, nx]:
            return int(action)
    return int(legal[0])


def north(observation: dict[str, np.ndarray]) -> int:
    """Action 0 whatever the board: a policy that has learnt nothing."""
    return 0


safe = PolicyBot(first_safe, name="SafePolicy")
crasher = PolicyBot(north, name="NorthPolicy")

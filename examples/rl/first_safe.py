"""A policy seated as a bot: ``lightcycle duel py:examples/rl/first_safe.py:bot random``.

A policy is what an environment of `lightcycle.envs` trains: one cycle's observation
dict in, one action out. `PolicyBot` gives it exactly those observations wherever a bot
plays (``lightcycle play``, ``match``, ``duel``, tournaments), so a trained agent is
measured as any bot is. This one is written by hand, to show the shape: the first
legal move onto a free cell, for the grids with one cycle per team (``classic``,
``ffa``; planes 0 walls, 1 own trail, 2 the others' trails, 3 own head; actions N, E,
S, W). A trained policy loads its weights here: the referee imports the file afresh
for every game, so each game gets a fresh bot.
"""

from __future__ import annotations

import numpy as np

from lightcycle.envs import PolicyBot

STEPS = ((-1, 0), (0, 1), (1, 0), (0, -1))
"""Action k's step as (rows, columns): N is towards row 0."""


def first_safe(observation: dict[str, np.ndarray]) -> int:
    """The first legal action onto a free cell of the board, else the first legal one."""
    planes = observation["observation"]
    legal = np.flatnonzero(observation["action_mask"])
    blocked = planes[0] | planes[1] | planes[2]
    (y, x), *_ = np.argwhere(planes[3])
    height, width = blocked.shape
    for action in legal:
        dy, dx = STEPS[action]
        if 0 <= y + dy < height and 0 <= x + dx < width and not blocked[y + dy, x + dx]:
            return int(action)
    return int(legal[0])


bot = PolicyBot(first_safe, name="FirstSafe")

"""Rewards from results: the game's outcome as one number per team, and optional shaping.

The result of a team is its mean pairwise result against every other team: +1 for each
team it ranks above, 0 for each it shares a place with, -1 for each ranked above it,
divided by the number of other teams. In a two-team game that is the familiar win +1,
draw 0, loss -1; in a free-for-all of ``n`` it maps the final ranking linearly onto
``[-1, 1]`` (first +1, last -1, a shared place the mean of the places it covers), and
the results of a game always sum to zero, so no ranking is rewarded for free.

A team's result is paid once, to its cycles' agents, on the step it becomes known:
`settled` says when. In rulesets that rank by death (the duel, ``torus``, ``ffa``,
``teams``) a team's place is fixed the turn its last cycle dies, so an ``ffa`` cycle gets
its result on its crash step; under ``tron3d`` scores decide at the end, so results come
with the last turn.
"""

from __future__ import annotations

from collections.abc import Sequence

from lightcycle.core.state import GameState
from lightcycle.envs.game import death_ranked
from lightcycle.rules.ruleset import Ruleset

SHAPINGS = ("survival",)
"""Named reward shapings. ``survival``: ``1 / T`` for every turn a cycle survives (``T``
the environment's turn limit), so a whole game of shaping stays below one result."""


def pairwise(ranks: Sequence[int], team: int) -> float:
    """``team``'s mean pairwise result given the final ``ranks`` (1 is first)."""
    mine = ranks[team]
    others = [r for t, r in enumerate(ranks) if t != team]
    if not others:
        return 0.0
    return sum((r > mine) - (r < mine) for r in others) / len(others)


def settled(state: GameState, team: int) -> float | None:
    """``team``'s result if it is known in ``state``, else ``None``.

    Known once the game is over, and under rulesets that rank by death as soon as the
    team has no cycle left: it ranks below every team still alive, with every team whose
    last cycle died on the same turn, and above the teams that died before.
    """
    if state.outcome is not None:
        return pairwise(state.outcome.ranks, team)
    rs = state.ruleset
    if not (isinstance(rs, Ruleset) and death_ranked(rs)) or state.team_alive(team):
        return None
    died = _last_death(state)
    mine = died[team]
    assert mine is not None
    total = 0
    for t, d in enumerate(died):
        if t != team:
            total += -1 if d is None or d > mine else (1 if d < mine else 0)
    return total / (len(died) - 1)


def _last_death(state: GameState) -> list[int | None]:
    """Per team, the turn its last cycle died (``None`` while one is alive)."""
    out: list[int | None] = []
    for t in state.teams:
        cycles = state.cycles_of(t.index)
        if any(c.alive for c in cycles):
            out.append(None)
        else:
            out.append(max(c.death.turn if c.death else 0 for c in cycles))
    return out


def check_shaping(shaping: str | None) -> str | None:
    """``shaping`` if it names one of `SHAPINGS` (or is ``None``).

    Raises:
        ValueError: naming the shapings there are.
    """
    if shaping is not None and shaping not in SHAPINGS:
        raise ValueError(f"unknown shaping {shaping!r}; known: {', '.join(SHAPINGS)} or None")
    return shaping


def shaping_reward(shaping: str | None, survived: bool, turn_limit: int) -> float:
    """The shaping reward of one agent for one step (0 without shaping)."""
    if shaping == "survival" and survived:
        return 1.0 / turn_limit
    return 0.0

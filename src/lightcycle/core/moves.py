"""What a cycle does in a turn, how a cycle dies, and how a game ends."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple


class Move(NamedTuple):
    """One cycle's move for one turn (a named tuple: bots build one per cycle per turn).

    Attributes:
        cycle: the index of the cycle in ``GameState.cycles``.
        to: the destination cell (``OFF`` when a grid move leaves a walled grid).
        jump: the move is a two-cell straight jump (rulesets with jumps only).
        use_item: the cycle uses the item it holds (rulesets with items only).
    """

    cycle: int
    to: int
    jump: bool = False
    use_item: bool = False


@dataclass(frozen=True, slots=True)
class Forfeit:
    """A cycle that made no valid move this turn, with the reason recorded.

    The referee or the local runner produces these for bots that raised, returned nothing,
    answered garbage or ran out of time; the rules kill the cycle with cause ``FORFEIT``.
    """

    cycle: int
    reason: str


class DeathCause(StrEnum):
    """Why a cycle died. The string values appear in replays and protocols."""

    WALL = "wall"
    """Entered a wall or left a walled board."""
    TRAIL = "trail"
    """Entered a trail (any cycle's, including a cell a head occupied at turn start)."""
    HEAD_ON = "head_on"
    """Swapped cells with another cycle's head."""
    SAME_CELL = "same_cell"
    """Entered the same cell as another cycle on the same turn."""
    FORFEIT = "forfeit"
    """Made no valid move (the reason is in ``Death.detail``)."""


@dataclass(frozen=True, slots=True)
class Death:
    """When and why a cycle died."""

    turn: int
    cause: DeathCause
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    Attributes:
        ranks: per team, its place (1 is best); teams that share a place share a rank.
        winner: the single team ranked first, or ``None`` for a draw.
        reason: a short sentence, e.g. ``last cycle standing`` or ``turn limit reached``.
        turn: the turn on which the game ended.
    """

    ranks: tuple[int, ...]
    reason: str
    turn: int
    winner: int | None = field(init=False)

    def __post_init__(self) -> None:
        ranks = self.ranks
        object.__setattr__(self, "winner", ranks.index(1) if ranks.count(1) == 1 else None)

    @property
    def is_draw(self) -> bool:
        """Whether no single team came first."""
        return self.winner is None


def competition_ranks(keys: list[float]) -> tuple[int, ...]:
    """Rank by ``keys`` (higher is better), ties sharing a place: ``[9, 5, 5, 1] -> 1,2,2,4``."""
    # plain loops: every game ends with a call, on lists of two to eight keys, where a
    # generator per key costs more than the comparisons
    ranks = []
    for k in keys:
        r = 1
        for other in keys:
            if other > k:
                r += 1
        ranks.append(r)
    return tuple(ranks)

"""Immutable snapshots of a game between turns.

A `GameState` never changes; `lightcycle.rules.step` builds the next one. Trails and walls
are bitmasks (see `lightcycle.core.bitset`), so a snapshot is a handful of ints and tuples
and keeping every turn of a game costs little.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Protocol

from lightcycle.core.bitset import contains, iter_cells
from lightcycle.core.moves import Death, Outcome
from lightcycle.core.topology import Topology


class RulesetRef(Protocol):
    """What the core needs to know of the ruleset that produced a state."""

    @property
    def id(self) -> str:
        """``name@version``."""
        ...


@dataclass(frozen=True, slots=True)
class Board:
    """The static part of a game: the shape, the walls that never move, the bonus cells."""

    topology: Topology
    walls: int = 0
    bonus: tuple[int, ...] = ()

    def is_wall(self, cell: int) -> bool:
        """Return whether ``cell`` is a wall."""
        return contains(self.walls, cell)


@dataclass(frozen=True, slots=True)
class Team:
    """A side in a game: one player's seat, owning one or more cycles."""

    index: int
    name: str


class Cycle(NamedTuple):
    """One light cycle (immutable; a named tuple because turns create many of them).

    Attributes:
        index: position in ``GameState.cycles``.
        team: the team (seat) that steers it.
        head: the cell it is on (its last cell once dead).
        trail: bitmask of every cell it has covered, its head included.
        alive: whether it still moves.
        death: when and why it died.
        name: a label such as ``A`` (team rulesets) or ``""``.
        jumps_left: jumps it may still make (rulesets with jumps).
        item: the item it holds (rulesets with items).
        ghost: turns of ghost left; turbo: turns of turbo left.
    """

    index: int  # type: ignore[assignment]  # shadows tuple.index on purpose: c.index reads best
    team: int
    head: int
    trail: int
    alive: bool = True
    death: Death | None = None
    name: str = ""
    jumps_left: int = 0
    item: str | None = None
    ghost: int = 0
    turbo: int = 0

    def trail_cells(self) -> list[int]:
        """The cells of the trail in increasing order."""
        return list(iter_cells(self.trail))


class GameState(NamedTuple):
    """Everything about a game at the start of a turn.

    Immutable. It is a named tuple rather than a frozen dataclass because every turn
    builds one, and a named tuple is built about four times faster.

    Attributes:
        ruleset: the ruleset that steps this game (a `lightcycle.rules.Ruleset`).
        board: topology and walls.
        seed: the game seed; all randomness derives from it.
        turn: how many turns have been played.
        teams: the sides, in seat order.
        cycles: every cycle, alive or dead.
        occupied: walls plus every standing trail: the cells a move may not enter.
        scores: per team (rulesets that score; zeros otherwise).
        items: items lying on the board as ``(cell, kind)``.
        outcome: set once the game is over.
        cpu: per team, the CPU time its bot has used so far in microseconds, as the
            referee measured it (rulesets where CPU time decides collisions; zeros
            otherwise). An integer, so replays re-simulate exactly.
    """

    ruleset: RulesetRef
    board: Board
    seed: int
    turn: int
    teams: tuple[Team, ...]
    cycles: tuple[Cycle, ...]
    occupied: int
    scores: tuple[int, ...] = ()
    items: tuple[tuple[int, str], ...] = ()
    outcome: Outcome | None = None
    cpu: tuple[int, ...] = ()

    @property
    def topology(self) -> Topology:
        """The board's topology."""
        return self.board.topology

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.outcome is not None

    def is_free(self, cell: int) -> bool:
        """Return whether ``cell`` is on the board and holds no wall or trail."""
        return cell >= 0 and not (self.occupied >> cell) & 1

    def cycles_of(self, team: int) -> tuple[Cycle, ...]:
        """The cycles of ``team``, alive or dead."""
        return tuple(c for c in self.cycles if c.team == team)

    def team_alive(self, team: int) -> bool:
        """Whether ``team`` still has a cycle alive."""
        return any(c.alive for c in self.cycles if c.team == team)

    def alive_teams(self) -> tuple[int, ...]:
        """The teams with a cycle alive, in seat order."""
        return tuple(t.index for t in self.teams if self.team_alive(t.index))

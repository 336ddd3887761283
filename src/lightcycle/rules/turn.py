"""`Turn`: the scratch pad the stages of one step share.

The stages mutate this object instead of building snapshots one after another; `step`
freezes it into the next immutable `GameState` once every stage has run. Per-cycle data
lives in plain lists indexed by cycle for speed.
"""

from __future__ import annotations

from collections.abc import Mapping

from lightcycle.core.moves import Death, DeathCause, Forfeit, Move, Outcome
from lightcycle.core.rng import Rng
from lightcycle.core.state import Cycle, GameState
from lightcycle.rules.ruleset import Ruleset, Settings

NO_MOVE = -2
"""``Turn.dest`` value of a cycle that does not move this turn (dead or forfeited)."""


class Turn:
    """One turn in progress.

    Attributes:
        before: the state the turn starts from.
        ruleset, settings: the rules in force.
        moves: what each cycle was asked to do, by cycle index.
        number: the turn being played (``before.turn + 1``); deaths record it.
        dest: per cycle, the cell it moves to, ``OFF``, or ``NO_MOVE``.
        heads, trails, alive, deaths: the cycles' data, updated in place.
        occupied: walls plus standing trails.
        outcome: set by a ``game_over`` stage.
    """

    __slots__ = (
        "alive",
        "before",
        "deaths",
        "dest",
        "heads",
        "jumps_left",
        "moves",
        "number",
        "occupied",
        "outcome",
        "ruleset",
        "scores",
        "settings",
        "trails",
    )

    def __init__(self, before: GameState, moves: Mapping[int, Move | Forfeit], rs: Ruleset):
        self.before = before
        self.ruleset = rs
        self.settings: Settings = rs.settings
        self.moves = moves
        self.number = before.turn + 1
        cycles = before.cycles
        n = len(cycles)
        self.dest = [NO_MOVE] * n
        self.heads = [c.head for c in cycles]
        self.trails = [c.trail for c in cycles]
        self.alive = [c.alive for c in cycles]
        self.deaths: list[Death | None] = [c.death for c in cycles]
        self.jumps_left = [c.jumps_left for c in cycles]
        self.occupied = before.occupied
        self.scores = before.scores
        self.outcome: Outcome | None = None

    def kill(self, cycle: int, cause: DeathCause, detail: str = "") -> None:
        """Mark ``cycle`` dead this turn (the first cause recorded wins)."""
        if self.alive[cycle]:
            self.alive[cycle] = False
            self.deaths[cycle] = Death(self.number, cause, detail)

    def rng(self, stream: str) -> Rng:
        """A generator for this game, this turn and ``stream``."""
        return Rng(self.before.seed, self.number, stream)

    def freeze(self) -> GameState:
        """Build the next immutable state (cycles that did not change are reused)."""
        before = self.before
        heads, trails, alive, jumps = self.heads, self.trails, self.alive, self.jumps_left
        cycles = list(before.cycles)
        for i, c in enumerate(cycles):
            if (
                c.head != heads[i]
                or c.trail != trails[i]
                or c.alive != alive[i]
                or (c.jumps_left != jumps[i])
            ):
                cycles[i] = Cycle(  # positional: several times faster than _replace
                    c.index,
                    c.team,
                    heads[i],
                    trails[i],
                    alive[i],
                    self.deaths[i],
                    c.name,
                    jumps[i],
                    c.item,
                    c.ghost,
                    c.turbo,
                )
        return GameState(
            before.ruleset,
            before.board,
            before.seed,
            self.number,
            before.teams,
            tuple(cycles),
            self.occupied,
            tuple(self.scores),
            before.items,
            self.outcome,
        )

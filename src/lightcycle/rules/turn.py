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
        jumped_over: per cycle, the cell a jump passes over (``NO_MOVE`` when not jumping).
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
        "jumped_over",
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
        self.dest = [NO_MOVE] * len(cycles)
        self.jumped_over = [NO_MOVE] * len(cycles)
        self.heads = [c.head for c in cycles]
        self.trails = [c.trail for c in cycles]
        self.alive = [c.alive for c in cycles]
        self.deaths: list[Death | None] = [c.death for c in cycles]
        self.jumps_left = [c.jumps_left for c in cycles]
        self.occupied = before.occupied
        self.scores = list(before.scores)
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
        """Build the next immutable state."""
        before = self.before
        cycles = tuple(
            c
            if (
                c.head == self.heads[i]
                and c.trail == self.trails[i]
                and c.alive == self.alive[i]
                and c.jumps_left == self.jumps_left[i]
            )
            else Cycle(
                index=c.index,
                team=c.team,
                head=self.heads[i],
                trail=self.trails[i],
                alive=self.alive[i],
                death=self.deaths[i],
                name=c.name,
                jumps_left=self.jumps_left[i],
                item=c.item,
                ghost=c.ghost,
                turbo=c.turbo,
            )
            for i, c in enumerate(before.cycles)
        )
        return GameState(
            ruleset=before.ruleset,
            board=before.board,
            seed=before.seed,
            turn=self.number,
            teams=before.teams,
            cycles=cycles,
            occupied=self.occupied,
            scores=tuple(self.scores),
            items=before.items,
            outcome=self.outcome,
        )

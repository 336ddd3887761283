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

_new = tuple.__new__

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
        heads, trails, alive, deaths, jumps_left, held, ghost, turbo: the cycles' data,
            updated in place (``held`` is the item a cycle holds).
        occupied: walls plus standing trails.
        scores: per team.
        items: the items lying on the board, by cell.
        cpu: per team, CPU microseconds used so far, this turn's included.
        advanced: set by stages that move the cycles themselves (the sequential
            collision stages), so the trail stages do not move them again.
        outcome: set by a ``game_over`` stage.
    """

    __slots__ = (
        "advanced",
        "alive",
        "before",
        "cpu",
        "deaths",
        "dest",
        "ghost",
        "heads",
        "held",
        "items",
        "jumps_left",
        "moves",
        "number",
        "occupied",
        "outcome",
        "ruleset",
        "scores",
        "settings",
        "trails",
        "turbo",
    )

    def __init__(
        self,
        before: GameState,
        moves: Mapping[int, Move | Forfeit],
        rs: Ruleset,
        cpu: tuple[int, ...] | None = None,
    ):
        self.before = before
        self.ruleset = rs
        self.settings: Settings = rs.settings
        self.moves = moves
        self.number = before.turn + 1
        cycles = before.cycles
        n = len(cycles)
        self.dest = [NO_MOVE] * n
        # one transposition instead of a comprehension per field: every non-quiet turn
        # builds a Turn, and the last turn of every game is one
        _, _, heads, trails, alive, deaths, _, jumps, held, ghost, turbo = (
            zip(*cycles, strict=True) if n else ((),) * len(Cycle._fields)
        )
        self.heads: list[int] = list(heads)
        self.trails: list[int] = list(trails)
        self.alive: list[bool] = list(alive)
        self.deaths: list[Death | None] = list(deaths)
        self.jumps_left: list[int] = list(jumps)
        self.held: list[str | None] = list(held)
        self.ghost: list[int] = list(ghost)
        self.turbo: list[int] = list(turbo)
        self.occupied = before.occupied
        self.scores = list(before.scores)
        self.items = dict(before.items)
        self.cpu = before.cpu if cpu is None else cpu
        self.advanced = False
        self.outcome: Outcome | None = None

    def kill(self, cycle: int, cause: DeathCause, detail: str = "") -> None:
        """Mark ``cycle`` dead this turn (the first cause recorded wins)."""
        if self.alive[cycle]:
            self.alive[cycle] = False
            self.deaths[cycle] = Death(self.number, cause, detail)

    def remove_trail(self, cycle: int) -> None:
        """Take ``cycle``'s whole trail off the board (the rulesets where it explodes).

        Only cells no other standing trail or wall holds are freed, and a live head left
        on a freed cell (a ghost's) takes the cell back into its own trail.
        """
        gone = self.trails[cycle]
        if not gone:
            return
        self.trails[cycle] = 0
        keep = self.before.board.walls
        for t in self.trails:
            if t & gone:
                keep |= t
        freed = gone & ~keep
        self.occupied &= ~freed
        for i, h in enumerate(self.heads):
            if self.alive[i] and (freed >> h) & 1:
                self.trails[i] |= 1 << h
                self.occupied |= 1 << h

    def rng(self, stream: str) -> Rng:
        """A generator for this game, this turn and ``stream``."""
        return Rng(self.before.seed, self.number, stream)

    def freeze(self) -> GameState:
        """Build the next immutable state (cycles that did not change are reused)."""
        before = self.before
        heads, trails, alive, jumps = self.heads, self.trails, self.alive, self.jumps_left
        held, ghost, turbo = self.held, self.ghost, self.turbo
        cycles = list(before.cycles)
        for i, c in enumerate(cycles):
            if (
                c.head != heads[i]
                or c.trail != trails[i]
                or c.alive != alive[i]
                or c.jumps_left != jumps[i]
                or c.item != held[i]
                or c.ghost != ghost[i]
                or c.turbo != turbo[i]
            ):
                cycles[i] = _new(  # no named-tuple constructor: several times faster
                    Cycle,
                    (
                        c.index,
                        c.team,
                        heads[i],
                        trails[i],
                        alive[i],
                        self.deaths[i],
                        c.name,
                        jumps[i],
                        held[i],
                        ghost[i],
                        turbo[i],
                    ),
                )
        items = before.items
        if (items or self.items) and dict(items) != self.items:
            items = tuple(sorted(self.items.items()))
        return _new(
            GameState,
            (
                before.ruleset,
                before.board,
                before.seed,
                self.number,
                before.teams,
                tuple(cycles),
                self.occupied,
                tuple(self.scores),
                items,
                self.outcome,
                self.cpu,
            ),
        )

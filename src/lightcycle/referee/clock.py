"""Time controls: how long each move may take, and what a seat has used.

A `TimeControl` is the match's setting; a `Clock` is one seat's account in one game. The
clock only does arithmetic on times the referee measured (a monotonic wall clock per
move, the CPU time of the bot's process tree), so it is tested without any clock at all.

Controls, each optional and combinable:

- ``move``: seconds per move; ``first_move``: seconds for the first move (and set-up);
- ``bank``: seconds of reserve that moves slower than ``move`` draw on;
- ``average``: the mean time of the moves after the first may not exceed this (the team
  course: 5 s first turn, then 0.1 s on average): a move may take what the earlier
  moves saved (the bank does not extend this limit);
- ``cpu``: CPU seconds for the whole game, counted over the bot's whole process tree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from lightcycle.rules.observe import ClockView


class TimeControlError(ValueError):
    """A time control that cannot work (negative, or nothing that stops a sleeping bot)."""


@dataclass(frozen=True)
class TimeControl:
    """Time limits of a match (seconds; ``None``: not limited).

    Attributes:
        move: limit per move after the first.
        first_move: limit for the first move, set-up included (default: ``move``).
        bank: reserve drawn on by moves slower than ``move``.
        average: limit on the mean time of the moves after the first.
        cpu: CPU-time budget for the whole game (process-tree wide).
    """

    move: float | None = 1.0
    first_move: float | None = 3.0
    bank: float = 0.0
    average: float | None = None
    cpu: float | None = None

    def validate(self) -> None:
        """Raise `TimeControlError` for limits no game can use."""
        for f in fields(self):
            v = getattr(self, f.name)
            if v is not None and v < 0:
                raise TimeControlError(f"time control {f.name} must be >= 0 seconds, got {v}")
        if self.move is None and self.average is None:
            raise TimeControlError(
                "set --move-time or --average-time: without a wall-clock limit a bot that "
                "sleeps would stop the game"
            )

    @classmethod
    def for_ruleset(cls, clock: Mapping[str, float | None]) -> TimeControl:
        """The defaults with a ruleset's own time controls (`Ruleset.clock`) applied.

        The team course, for instance, gives 5 s for the first turn and then 0.1 s on
        average, with no separate per-move limit.
        """
        return cls().with_overrides(dict(clock))

    def with_overrides(self, overrides: dict[str, Any]) -> TimeControl:
        """A copy with some controls replaced (a bot file's ``[time]`` table)."""
        known = {f.name for f in fields(self)}
        bad = sorted(set(overrides) - known)
        if bad:
            raise TimeControlError(
                f"unknown time control {', '.join(bad)}; known: {', '.join(sorted(known))}"
            )
        return replace(self, **overrides)

    def to_dict(self) -> dict[str, float | None]:
        """Plain data for replays and protocols."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


class Clock:
    """One seat's time account in one game.

    Attributes:
        moves: moves charged so far.
        used: wall seconds of the moves after the first.
        bank_left: reserve left.
        max_move: the slowest move so far.
        total: wall seconds of every move.
    """

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.moves = 0
        self.used = 0.0
        self.total = 0.0
        self.max_move = 0.0
        self.bank_left = control.bank

    def allowance(self) -> float:
        """Wall seconds the next move may take (``inf`` if nothing limits it)."""
        c = self.control
        if self.moves == 0:
            first = c.first_move if c.first_move is not None else c.move
            return first if first is not None else float("inf")
        limit = float("inf")
        if c.move is not None:
            limit = c.move + self.bank_left
        if c.average is not None:
            limit = min(limit, self.moves * c.average - self.used)
        return max(limit, 0.0)

    def charge(self, elapsed: float) -> bool:
        """Account a move that took ``elapsed`` seconds; return whether it was in time."""
        allowed = self.allowance()
        first = self.moves == 0
        self.moves += 1
        self.total += elapsed
        self.max_move = max(self.max_move, elapsed)
        if first:
            return elapsed <= allowed
        self.used += elapsed
        move = self.control.move
        if move is not None and elapsed > move:
            self.bank_left = max(0.0, self.bank_left - (elapsed - move))
        return elapsed <= allowed

    def view(self, cpu_used: float = 0.0) -> ClockView:
        """What a bot may know of this account before its next move (`View.clock`).

        Args:
            cpu_used: CPU seconds the seat has used in this game so far (against the
                control's ``cpu`` budget).
        """
        c = self.control
        return ClockView.account(
            c.move, c.first_move, self.bank_left, c.average, self.moves, self.used, c.cpu, cpu_used
        )

    def cpu_exceeded(self, cpu_seconds: float) -> bool:
        """Whether ``cpu_seconds`` of process-tree CPU breaks the game's CPU budget."""
        return self.control.cpu is not None and cpu_seconds > self.control.cpu

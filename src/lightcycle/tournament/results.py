"""What a finished match left behind: places, scores, verdicts, the replay's path.

Plain data, shared by the workers that play matches (they import no database code) and
the store that keeps them. `seat_results` turns a game's places and forfeits into each
seat's win, draw or loss, with forfeit wins and losses counted the way
``lightcycle match`` counts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SeatResult:
    """One seat of a finished match.

    Attributes:
        seat: the seat number (0-based).
        entrant: the entrant's index.
        rank: its place (1 is best; equal places drew).
        score: its game score (rulesets that score; 0 otherwise).
        outcome: ``win`` (sole first), ``draw`` (shared first), ``loss`` or ``bye``.
        forfeit: whether a verdict (timeout, crash, bad output...) took the seat out.
        forfeit_win: a win in which another seat forfeited and this one did not.
        forfeit_loss: a loss by this seat's forfeit.
        verdict: the seat's first verdict other than ok (``ok`` if none), with detail.
        moves: moves timed.
        move_time: seconds over those moves.
    """

    seat: int
    entrant: int
    rank: int
    score: int = 0
    outcome: str = "loss"
    forfeit: bool = False
    forfeit_win: bool = False
    forfeit_loss: bool = False
    verdict: str = "ok"
    moves: int = 0
    move_time: float = 0.0


@dataclass(frozen=True)
class MatchResult:
    """A finished match (a game, or a bye).

    Attributes:
        key: the match key.
        reason: why the game ended (``bye`` for a bye).
        turns: turns played.
        seats: per seat, in seat order.
        replay: the replay's path relative to the output folder.
        wall_seconds: how long the game took.
    """

    key: str
    reason: str
    turns: int
    seats: tuple[SeatResult, ...]
    replay: str | None = None
    wall_seconds: float = 0.0

    @property
    def ranks(self) -> tuple[int, ...]:
        """The places, in seat order."""
        return tuple(s.rank for s in self.seats)


def seat_outcomes(ranks: Sequence[int], forfeits: Sequence[bool]) -> list[tuple[str, bool, bool]]:
    """Each seat's ``(outcome, forfeit_win, forfeit_loss)`` from places and forfeits.

    ``win`` is the sole first place, ``draw`` a shared first place, ``loss`` anything
    else (in a free-for-all, second place is a loss here; the pairwise points of the
    standings give it its due). A forfeit win is a win in which another seat forfeited
    and this one did not; a forfeit loss is a loss in which this seat forfeited.
    """
    best = min(ranks)
    sole = list(ranks).count(best) == 1
    out: list[tuple[str, bool, bool]] = []
    for seat, rank in enumerate(ranks):
        others_forfeit = any(f for s, f in enumerate(forfeits) if s != seat)
        if rank == best and sole:
            out.append(("win", others_forfeit and not forfeits[seat], False))
        elif rank == best:
            out.append(("draw", False, False))
        else:
            out.append(("loss", False, forfeits[seat]))
    return out

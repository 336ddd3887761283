"""The ladder: each rated queue ranks its players with the multi-player contest's Elo.

The rating system is `lightcycle.tournament.elo` unchanged: everyone starts at 2000, K is
24, and a game of any number of players changes each rated player's rating by K times the
sum, over every other rated player, of (actual - expected) score, with places compared
pairwise (ahead 1, level 0.5, behind 0).

Who is rated (docs/server.md, "The ladder"):

- **accounts**, under their account name: a name with a secret is the only identity that
  cannot be taken by someone else;
- **built-in fill bots**, under their seat name (their bot spec, ``builtin:medium``):
  they play the same strength in every game, so they anchor the ladder;
- **anonymous players are not rated**: anyone may use any free name without a secret, so
  a rating under that name would belong to nobody. Their games still count for the
  others: the rated players of a game are rated among themselves, by their places in it
  (an account that beats an anonymous player and a bot is rated against the bot only).

A game with fewer than two rated players changes nothing; an aborted game changes
nothing; a queue with ``rated = false`` has no ladder.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from lightcycle.tournament import elo

START = elo.INITIAL
"""A new player's rating (2000)."""

K = elo.K
"""The K factor (24)."""


class RankedSeat(Protocol):
    """What the ladder reads of a seat's outcome (`lightcycle.server.game.SeatOutcome`)."""

    @property
    def name(self) -> str: ...

    @property
    def account(self) -> str | None: ...

    @property
    def kind(self) -> str: ...

    @property
    def rank(self) -> int: ...


def ladder_name(name: str, account: str | None, kind: str) -> str | None:
    """The name a seat is rated under, or ``None`` when it is not rated."""
    if account is not None:
        return account
    if kind == "builtin":
        return name
    return None


def rated_seats(seats: Sequence[RankedSeat]) -> dict[int, str]:
    """Seat index -> ladder name for the seats that are rated in this game.

    Empty unless at least two seats are rated (one player alone has no one to be rated
    against). A ladder name seen twice is rated once, at its first seat.
    """
    out: dict[int, str] = {}
    for i, seat in enumerate(seats):
        name = ladder_name(seat.name, seat.account, seat.kind)
        if name is not None and name not in out.values():
            out[i] = name
    return out if len(out) >= 2 else {}


class Rater:
    """The ratings after one game from those before it (the store calls it inside the
    game's transaction, with the ratings it read there).

    Args:
        placements: ``(ladder name, rank)`` for each rated player of the game.
    """

    def __init__(self, placements: Sequence[tuple[str, int]]) -> None:
        self.placements = list(placements)

    def __call__(self, before: Mapping[str, float]) -> dict[str, float]:
        """New ratings of every rated player; players missing from ``before`` start at
        `START`."""
        if len(self.placements) < 2:
            return {}
        return elo.update(before, self.placements, K)


def rater(seats: Sequence[RankedSeat], rated: Mapping[int, str]) -> Rater:
    """The `Rater` of a finished game whose rated seats are ``rated``."""
    return Rater([(name, seats[i].rank) for i, name in sorted(rated.items())])

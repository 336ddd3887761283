"""Elo for matches of any number of players, exactly as the multi-player contest defines it.

The contest's specification (the "Rankings" section of the multi-player Tron spec)
rates a match of players ``P`` like this, for each player ``p``:

- the expected score against each other player ``q``:
  ``E(p, q) = 1 / (1 + 10 ** ((R(q) - R(p)) / 400))``, from the ratings *before* the match;
- the actual score against ``q``: ``A(p, q)`` is 1 if ``p`` finished ahead of ``q``,
  0.5 if they finished level, 0 if ``q`` finished ahead;
- the new rating: ``R'(p) = R(p) + K * sum over q != p of (A(p, q) - E(p, q))``;
- new players start at 2000 and ``K`` is 24.

The spec says nothing about rounding, so ratings are kept as floats and never rounded:
only what is shown to people is rounded. With two players this is the usual Elo update.
Every player of the match is updated from the same old ratings, so seat order never
matters. Pure standard library; the tests check it against values worked by hand
(``tests/tournament/vectors/elo.txt``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

INITIAL = 2000.0
"""A new player's rating."""

K = 24.0
"""The K factor."""


def expected(rating: float, other: float) -> float:
    """The expected score of a player rated ``rating`` against one rated ``other``."""
    return 1.0 / (1.0 + math.pow(10.0, (other - rating) / 400.0))


def actual(rank: int, other_rank: int) -> float:
    """The actual score from two places (1 is best): 1 ahead, 0.5 level, 0 behind."""
    if rank < other_rank:
        return 1.0
    if rank > other_rank:
        return 0.0
    return 0.5


def deltas(ratings: Sequence[float], ranks: Sequence[int], k: float = K) -> list[float]:
    """Each player's rating change from one match.

    Args:
        ratings: the players' ratings before the match, one per player.
        ranks: their places in the match (1 is best; equal places are a draw between
            those players), in the same order.
        k: the K factor.

    Returns:
        ``K * sum(A(p, q) - E(p, q))`` per player, in the same order.

    Raises:
        ValueError: unless there are as many ranks as ratings and at least two players.
    """
    if len(ratings) != len(ranks):
        raise ValueError(f"{len(ratings)} ratings but {len(ranks)} ranks")
    if len(ratings) < 2:
        raise ValueError("an Elo update needs at least two players")
    out: list[float] = []
    for p, (rp, place) in enumerate(zip(ratings, ranks, strict=True)):
        total = 0.0
        for q, (rq, other_place) in enumerate(zip(ratings, ranks, strict=True)):
            if q != p:
                total += actual(place, other_place) - expected(rp, rq)
        out.append(k * total)
    return out


def update(
    ratings: Mapping[str, float], placements: Sequence[tuple[str, int]], k: float = K
) -> dict[str, float]:
    """The players' ratings after one match.

    Args:
        ratings: known ratings by player; a player not in it is new and starts at
            `INITIAL`.
        placements: ``(player, rank)`` for every player of the match, each player once.
        k: the K factor.

    Returns:
        The new rating of every player of the match (others are left out).

    Raises:
        ValueError: for a player listed twice or fewer than two players.
    """
    names = [name for name, _ in placements]
    if len(set(names)) != len(names):
        raise ValueError(f"a player is listed twice in {names}")
    before = [ratings.get(name, INITIAL) for name in names]
    change = deltas(before, [rank for _, rank in placements], k)
    return {name: r + d for name, r, d in zip(names, before, change, strict=True)}

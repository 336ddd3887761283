"""OpenSkill (Weng-Lin, Plackett-Luce model) ratings for duels, free-for-alls and teams.

Elo as the contest defines it treats a free-for-all as a bundle of independent duels and
knows nothing of uncertainty: a newcomer who won once looks as strong as a veteran who won
a hundred times. OpenSkill keeps, per player, a skill estimate ``mu`` and its uncertainty
``sigma``, updates them from the whole ranking of a match at once (Plackett-Luce), and
handles teams. Players are ranked by the conservative rating ``mu - 3 * sigma``: a
player is placed where we are 99.7% sure it is at least, so a lucky newcomer does not top
the table.

This module wraps ``openskill.models.PlackettLuce`` with the library's defaults
(``mu`` 25, ``sigma`` 25/3, ``beta`` 25/6, ``tau`` 25/300), so a rating means the same as
everywhere else OpenSkill is used. ``tests/tournament/vectors/openskill.txt`` checks the
wrapper against the paper's update worked by hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

MU = 25.0
"""A new player's ``mu``."""

SIGMA = 25.0 / 3.0
"""A new player's ``sigma``."""

Z = 3.0
"""How many ``sigma`` the conservative rating subtracts."""

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


@dataclass(frozen=True)
class Skill:
    """One player's OpenSkill rating.

    Attributes:
        mu: the estimated skill.
        sigma: the uncertainty of the estimate (one standard deviation).
    """

    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        """The conservative rating ``mu - 3 * sigma`` the tables are ranked by."""
        return self.mu - Z * self.sigma


def _rating(skill: Skill) -> PlackettLuceRating:
    return _MODEL.rating(mu=skill.mu, sigma=skill.sigma)


def rate(
    ratings: Mapping[str, Skill], teams: Sequence[tuple[Sequence[str], int]]
) -> dict[str, Skill]:
    """The players' ratings after one match.

    Args:
        ratings: known ratings by player; a player not in it is new (`MU`, `SIGMA`).
        teams: ``(players, rank)`` per team of the match (1 is best; equal ranks drew).
            In a duel or a free-for-all every team is one player.

    Returns:
        The new rating of every player of the match.

    Raises:
        ValueError: for a player listed twice or fewer than two teams.
    """
    names = [name for players, _ in teams for name in players]
    if len(set(names)) != len(names):
        raise ValueError(f"a player is listed twice in {names}")
    if len(teams) < 2 or any(not players for players, _ in teams):
        raise ValueError("an OpenSkill update needs at least two teams of at least one player")
    grouped = [[_rating(ratings.get(n, Skill())) for n in players] for players, _ in teams]
    after = _MODEL.rate(grouped, ranks=[float(rank) for _, rank in teams])
    out: dict[str, Skill] = {}
    for (players, _), new in zip(teams, after, strict=True):
        for name, r in zip(players, new, strict=True):
            out[name] = Skill(float(r.mu), float(r.sigma))
    return out

"""Both rating systems of a tournament, updated match by match and recomputable.

A tournament keeps two ratings per entrant: the contest's Elo (`lightcycle.tournament.elo`)
and OpenSkill (`lightcycle.tournament.skill`). Each rated match produces one
`RatingUpdate` per entrant and system (the rating before and after), and the store
commits them with the match's result. Ratings depend on the order matches are applied
in, so the runner applies them in schedule order, never in the order parallel workers
happen to finish: then the ratings are the same for any number of workers and any number
of interruptions, and `recompute` can rebuild every update from the stored results alone
and compare it with what is stored, float for float.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from lightcycle.tournament import elo, skill
from lightcycle.tournament.skill import Skill

ELO = "elo"
"""The system name of the contest's Elo."""

OPENSKILL = "openskill"
"""The system name of OpenSkill (Plackett-Luce)."""

SYSTEMS = (ELO, OPENSKILL)


@dataclass(frozen=True)
class RatingUpdate:
    """One entrant's rating change in one system from one match.

    Attributes:
        entrant: the entrant's name.
        system: `ELO` or `OPENSKILL`.
        before: the rating before the match (OpenSkill: ``mu``).
        after: the rating after the match (OpenSkill: ``mu``).
        sigma_before: OpenSkill's ``sigma`` before (``None`` for Elo).
        sigma_after: OpenSkill's ``sigma`` after (``None`` for Elo).
    """

    entrant: str
    system: str
    before: float
    after: float
    sigma_before: float | None = None
    sigma_after: float | None = None

    @property
    def value(self) -> float:
        """The rating after the match as tables rank it (OpenSkill: ``mu - 3 sigma``)."""
        if self.sigma_after is None:
            return self.after
        return Skill(self.after, self.sigma_after).ordinal


@dataclass
class RatingBook:
    """Every entrant's current ratings; `rate` applies one match.

    Attributes:
        elo: Elo by entrant (missing: `elo.INITIAL`).
        skill: OpenSkill by entrant (missing: a new `Skill`).
    """

    elo: dict[str, float] = field(default_factory=dict)
    skill: dict[str, Skill] = field(default_factory=dict)

    def elo_of(self, entrant: str) -> float:
        """The entrant's Elo."""
        return self.elo.get(entrant, elo.INITIAL)

    def skill_of(self, entrant: str) -> Skill:
        """The entrant's OpenSkill rating."""
        return self.skill.get(entrant, Skill())

    def rate(self, placements: Sequence[tuple[str, int]]) -> list[RatingUpdate]:
        """Apply one match and return its updates (Elo first, then OpenSkill, by seat).

        Args:
            placements: ``(entrant, rank)`` per seat, 1 the best rank, equal ranks level.
        """
        new_elo = elo.update(self.elo, placements)
        new_skill = skill.rate(self.skill, [([name], rank) for name, rank in placements])
        updates: list[RatingUpdate] = []
        for name, _ in placements:
            updates.append(RatingUpdate(name, ELO, self.elo_of(name), new_elo[name]))
        for name, _ in placements:
            old, new = self.skill_of(name), new_skill[name]
            updates.append(RatingUpdate(name, OPENSKILL, old.mu, new.mu, old.sigma, new.sigma))
        self.elo.update(new_elo)
        self.skill.update(new_skill)
        return updates

    def apply(self, updates: Iterable[RatingUpdate]) -> None:
        """Take stored updates as they are (resuming from the store)."""
        for u in updates:
            if u.system == ELO:
                self.elo[u.entrant] = u.after
            else:
                assert u.sigma_after is not None
                self.skill[u.entrant] = Skill(u.after, u.sigma_after)


def recompute(matches: Iterable[Sequence[tuple[str, int]]]) -> list[list[RatingUpdate]]:
    """Every match's updates, recomputed from the placements alone, in the order given."""
    book = RatingBook()
    return [book.rate(placements) for placements in matches]

"""Standings and the crosstable, tallied from match results.

One tally serves every format. Each game gives every seat *pairwise points*: 1 for each
rival it finished ahead of, a half for each rival it tied with, the actual scores of the
Elo update. In a duel that is the usual 1 for a win and a half for a draw; in a table of
four, a second place is worth 2 points out of 3. Standings are ordered by the format's
own ranking where it has one (the elimination's order of going out), then by points,
then by the conservative OpenSkill rating, then by name; fillers are left out.

The crosstable keeps, for every two entrants, the points each took from the other and the
games they shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from lightcycle.tournament.elo import actual
from lightcycle.tournament.ratings import RatingBook
from lightcycle.tournament.results import MatchResult


@dataclass
class Line:
    """One entrant's tally.

    Attributes:
        games: games played (byes not counted).
        wins: sole first places.
        draws: shared first places.
        losses: anything else.
        forfeit_wins: wins in which a rival forfeited and it did not.
        forfeit_losses: losses by its own forfeit.
        points: pairwise points, byes included.
        possible: the most points its games could have given (byes included).
        places: how often it finished in each place (``{1: 3, 2: 1}``).
        score: its game scores summed (rulesets that score).
        byes: byes received.
        opponents: entrants it met (for the Buchholz tie-break).
        verdicts: games per verdict other than ok.
    """

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeit_wins: int = 0
    forfeit_losses: int = 0
    points: float = 0.0
    possible: float = 0.0
    places: dict[int, int] = field(default_factory=dict)
    score: int = 0
    byes: int = 0
    opponents: list[int] = field(default_factory=list)
    verdicts: dict[str, int] = field(default_factory=dict)

    @property
    def percent(self) -> float:
        """Points as a share of the possible (0.5 with nothing played)."""
        return self.points / self.possible if self.possible else 0.5

    @property
    def mean_place(self) -> float | None:
        """The average place over its games (``None`` before any)."""
        n = sum(self.places.values())
        return sum(p * c for p, c in self.places.items()) / n if n else None


@dataclass(frozen=True)
class Standing:
    """One row of the standings table.

    Attributes:
        place: 1 for the best; equal places share a tier of the format's ranking.
        entrant: the entrant's index.
        name: its name.
        line: its tally.
        elo: its Elo.
        mu: its OpenSkill ``mu``.
        sigma: its OpenSkill ``sigma``.
        ordinal: ``mu - 3 sigma``.
        buchholz: the points of the opponents it met, summed (a Swiss tie-break).
    """

    place: int
    entrant: int
    name: str
    line: Line
    elo: float
    mu: float
    sigma: float
    ordinal: float
    buchholz: float


class Tally:
    """Adds up match results into lines and a crosstable.

    Args:
        names: every entrant's name, by index.
        fillers: indices of filler entrants (tallied, never ranked).
        bye_points: what a bye is worth (Swiss: a won pairing).
    """

    def __init__(self, names: Sequence[str], fillers: Sequence[int] = (), bye_points: float = 1.0):
        self.names = list(names)
        self.fillers = set(fillers)
        self.bye_points = bye_points
        self.lines = [Line() for _ in names]
        self.cross: dict[tuple[int, int], list[float]] = {}
        """``(p, q) -> [points p took from q, games]``."""

    def add(self, result: MatchResult) -> None:
        """Count one finished match."""
        seats = result.seats
        if len(seats) == 1:
            line = self.lines[seats[0].entrant]
            line.byes += 1
            line.points += self.bye_points
            line.possible += self.bye_points
            return
        for s in seats:
            line = self.lines[s.entrant]
            line.games += 1
            if s.outcome == "win":
                line.wins += 1
            elif s.outcome == "draw":
                line.draws += 1
            else:
                line.losses += 1
            line.forfeit_wins += s.forfeit_win
            line.forfeit_losses += s.forfeit_loss
            line.places[s.rank] = line.places.get(s.rank, 0) + 1
            line.score += s.score
            kind = s.verdict.partition(":")[0]
            if kind != "ok":
                line.verdicts[kind] = line.verdicts.get(kind, 0) + 1
            for o in seats:
                if o is s:
                    continue
                pts = actual(s.rank, o.rank)
                line.points += pts
                line.possible += 1.0
                line.opponents.append(o.entrant)
                cell = self.cross.setdefault((s.entrant, o.entrant), [0.0, 0.0])
                cell[0] += pts
                cell[1] += 1

    def standings(self, book: RatingBook, ranking: list[list[int]] | None = None) -> list[Standing]:
        """The table, best first (see the module docstring for the order)."""
        tier: dict[int, int] = {}
        if ranking is not None:
            for t, group in enumerate(ranking):
                for p in group:
                    tier[p] = t
        rows: list[Standing] = []
        for p, name in enumerate(self.names):
            if p in self.fillers:
                continue
            line = self.lines[p]
            sk = book.skill_of(name)
            buchholz = sum(self.lines[o].points for o in set(line.opponents))
            rows.append(
                Standing(0, p, name, line, book.elo_of(name), sk.mu, sk.sigma, sk.ordinal, buchholz)
            )

        def key(r: Standing) -> tuple[int, float, float, str]:
            return (tier.get(r.entrant, len(tier)), -r.line.points, -r.ordinal, r.name)

        rows.sort(key=key)
        out: list[Standing] = []
        for i, r in enumerate(rows):
            place = i + 1
            if i and key(rows[i - 1])[:3] == key(r)[:3]:
                place = out[-1].place
            out.append(replace(r, place=place))
        return out

    def crosstable(self) -> dict[tuple[int, int], tuple[float, int]]:
        """``(p, q) -> (points p took from q, games they shared)`` for pairs that met."""
        return {k: (v[0], int(v[1])) for k, v in self.cross.items()}

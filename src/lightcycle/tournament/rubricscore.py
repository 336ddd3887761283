"""Scoring a rubric: a bot's results in each series in, the judged rows and points out.

`score` is pure: the same results always give the same `Grade`, so a grade can be
re-scored from stored results when a rubric's points change. `lightcycle.tournament.grade`
plays the games and hands their counts here as `SeriesResult`s; the grade's classes also
write ``grade.json``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lightcycle.tournament.rubricmodel import Rubric


@dataclass(frozen=True)
class SeriesResult:
    """What the bot under test did in one series: the input of `score`.

    Attributes:
        wins: games won.
        draws: games drawn.
        losses: games lost (forfeits included).
        verdicts: the bot's non-``ok`` verdicts by kind (``timeout``: 2).
        out_dir: where the series' replays went, if anywhere.
    """

    wins: int
    draws: int
    losses: int
    verdicts: Mapping[str, int] = field(default_factory=dict)
    out_dir: str | None = None

    @property
    def games(self) -> int:
        """Games played."""
        return self.wins + self.draws + self.losses


@dataclass(frozen=True)
class RowGrade:
    """One judged row.

    Attributes:
        requirement: the row in words.
        achieved: whether the bot met it.
        points: points earned (the row's points or 0).
        max_points: the row's points.
    """

    requirement: str
    achieved: bool
    points: float
    max_points: float

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``grade.json``."""
        return {
            "requirement": self.requirement,
            "achieved": self.achieved,
            "points": self.points,
            "max_points": self.max_points,
        }


@dataclass(frozen=True)
class SeriesGrade:
    """One judged series: the results and every row judged from them.

    Attributes:
        label: the opponent's name.
        opponent: the opponent's spec.
        result: wins, draws, losses and verdicts of the bot under test.
        credit: what counted towards the rows (wins, plus half the draws if the series
            says so).
        rows: the judged rows.
    """

    label: str
    opponent: str
    result: SeriesResult
    credit: float
    rows: tuple[RowGrade, ...]

    @property
    def points(self) -> float:
        """Points earned in this series."""
        return sum(r.points for r in self.rows)

    @property
    def max_points(self) -> float:
        """Points this series could give."""
        return sum(r.max_points for r in self.rows)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``grade.json``."""
        r = self.result
        return {
            "label": self.label,
            "opponent": self.opponent,
            "games": r.games,
            "wins": r.wins,
            "draws": r.draws,
            "losses": r.losses,
            "credit": self.credit,
            "verdicts": dict(sorted(r.verdicts.items())),
            "points": self.points,
            "max_points": self.max_points,
            "rows": [row.to_dict() for row in self.rows],
            "out_dir": r.out_dir,
        }


@dataclass(frozen=True)
class Grade:
    """A bot's grade on a rubric.

    Attributes:
        title: the rubric's title.
        rubric: the rubric file.
        ruleset: the ruleset id the games were played under.
        series: the judged series, in rubric order.
        bot: the bot under test (its name, or its spec).
        seed: the rubric seed the games used.
        notes: things the grader should know (a bot file's time ignored, say).
        wall_seconds: how long the grading took.
    """

    title: str
    rubric: str
    ruleset: str
    series: tuple[SeriesGrade, ...]
    bot: str = ""
    seed: int = 0
    notes: tuple[str, ...] = ()
    wall_seconds: float = 0.0

    @property
    def total(self) -> float:
        """Points earned."""
        return sum(s.points for s in self.series)

    @property
    def maximum(self) -> float:
        """Points the rubric could give."""
        return sum(s.max_points for s in self.series)

    @property
    def rows(self) -> list[RowGrade]:
        """Every judged row, in rubric order."""
        return [r for s in self.series for r in s.rows]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``grade.json`` and ``--json``."""
        return {
            "complete": True,
            "interrupted": False,
            "title": self.title,
            "rubric": self.rubric,
            "ruleset": self.ruleset,
            "bot": self.bot,
            "seed": self.seed,
            "total": self.total,
            "maximum": self.maximum,
            "series": [s.to_dict() for s in self.series],
            "notes": list(self.notes),
            "wall_seconds": round(self.wall_seconds, 3),
        }


def score(rubric: Rubric, results: Sequence[SeriesResult], bot: str = "") -> Grade:
    """Judge every row of ``rubric`` from the bot's results, one per series.

    Pure: the same results always give the same grade, so grades can be re-scored from
    stored results when a rubric's points change.

    Raises:
        ValueError: when the results do not match the rubric's series (count, or games
            per series), which is a caller's bug, not a user's mistake.
    """
    if len(results) != len(rubric.series):
        raise ValueError(
            f"{rubric.source} has {len(rubric.series)} series, got {len(results)} results"
        )
    graded: list[SeriesGrade] = []
    for s, r in zip(rubric.series, results, strict=True):
        if min(r.wins, r.draws, r.losses) < 0 or r.games != s.games:
            raise ValueError(
                f"series vs {s.label} has {s.games} games, got W{r.wins} D{r.draws} L{r.losses}"
            )
        credit = r.wins + (0.5 * r.draws if s.draws_as_half_wins else 0.0)
        rows = tuple(
            RowGrade(
                requirement=s.requirement(row),
                achieved=credit >= row.wins,
                points=row.points if credit >= row.wins else 0,
                max_points=row.points,
            )
            for row in s.rows
        )
        graded.append(SeriesGrade(s.label, s.opponent, r, credit, rows))
    return Grade(
        title=rubric.title,
        rubric=rubric.source,
        ruleset=rubric.ruleset.id,
        series=tuple(graded),
        bot=bot,
        seed=rubric.seed,
    )

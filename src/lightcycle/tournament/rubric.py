"""Grading rubrics: which games a bot must play, and what its results are worth.

A course grades a bot with rows like "wins 3 of 3 games vs RandomBot: 15 points" and
"wins 9 of 10 games vs LookBot: 15 points". Several rows usually judge the same games
(3, 5, 6, 7, 8 and 9 wins of 10 vs LineBot, 5 points each), so a rubric groups its rows
by *series*: one opponent, a number of games, and the thresholds scored from those games.
Playing the 10 games once and scoring every threshold from them is both cheaper and
fairer than playing a fresh series per row (one lucky series cannot pass one row and fail
an easier one).

Rubrics are read and scored here; `lightcycle.tournament.grade` plays the games. This
module finds a rubric (a shipped one by name, or a file) and is where the rubric's
public names are imported from; the parts live in modules named after what they own:
`lightcycle.tournament.rubricmodel` (the rubric as data, `RubricError`),
`lightcycle.tournament.rubricparse` (the TOML text checked and read),
`lightcycle.tournament.rubriclines` (the line of a key, for messages),
`lightcycle.tournament.rubricopponents` (the opponents a series may name) and
`lightcycle.tournament.rubricscore` (results judged into a `Grade`). The file format
(TOML, documented key by key in ``docs/grading.md``)::

    title = "Team course bot grade"
    ruleset = "teams"
    maps = ["court"]
    seed = 0                       # game i of a series uses seed + i
    swap_sides = true              # the bot changes seats every game (default)
    draws_as_half_wins = false     # only wins count (default)
    [time]                         # optional: move, first_move, bank, average, cpu
    average = 0.1
    [[series]]
    opponent = "builtin:randombot"
    label = "RandomBot"
    games = 3
    rows = [ { wins = 3, points = 15 } ]

Every mistake is a `RubricError` naming the file, the line where the key was found
(looked up in the text, since ``tomllib`` keeps no positions) and what was expected, so
an instructor fixes a rubric before a whole class is graded against it.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from lightcycle.tournament.rubricmodel import Row, Rubric, RubricError, Series
from lightcycle.tournament.rubricparse import parse_rubric
from lightcycle.tournament.rubricscore import Grade, RowGrade, SeriesGrade, SeriesResult, score

__all__ = [
    "SHIPPED",
    "Grade",
    "Row",
    "RowGrade",
    "Rubric",
    "RubricError",
    "Series",
    "SeriesGrade",
    "SeriesResult",
    "load_rubric",
    "parse_rubric",
    "score",
    "shipped_rubric_text",
]

SHIPPED = ("teams", "duel")
"""Rubrics shipped with lightcycle (``lightcycle/data/rubrics/NAME.toml``)."""


def shipped_rubric_text(name: str) -> str:
    """The text of a rubric shipped with lightcycle (`SHIPPED`)."""
    root = resources.files("lightcycle").joinpath("data").joinpath("rubrics")
    return root.joinpath(f"{name}.toml").read_text(encoding="utf-8")


def load_rubric(path: str | Path) -> Rubric:
    """Read a rubric: ``teams`` or ``duel`` for a shipped one, else a TOML file.

    Paths inside the rubric (a ``py:`` or bot-file opponent, a map file) are relative to
    the rubric's folder.

    Raises:
        RubricError: for a missing or malformed file, naming the line and what was
            expected.
    """
    text_path = str(path)
    if text_path in SHIPPED and not Path(text_path).exists():
        return parse_rubric(
            shipped_rubric_text(text_path), f"lightcycle/data/rubrics/{text_path}.toml", None
        )
    p = Path(path)
    if not p.is_file():
        raise RubricError(
            text_path,
            None,
            f"a rubric file or a shipped rubric ({', '.join(SHIPPED)})",
            "no such file",
        )
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RubricError(text_path, None, "a UTF-8 TOML file", f"{exc}") from None
    return parse_rubric(text, text_path, p.resolve().parent)

"""What a rubric is once read: series of games and the rows judged from them.

A rubric groups its rows by *series* (one opponent, a number of games, and the thresholds
scored from those games), so several rows are judged from the same games. `Rubric`,
`Series` and `Row` are that plan, frozen; `RubricError` is how every part of reading a
rubric file says what is wrong with it (``file:line: expected ..., found ...``), and
`found_value` writes the "found" part of such a message the same way everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lightcycle.formats.errors import FormatError, show
from lightcycle.referee.clock import TimeControl
from lightcycle.rules.ruleset import Ruleset


class RubricError(FormatError):
    """A rubric file that cannot be used: where, what was expected, what was found.

    It is a `FormatError` so the command line's error guard already turns it into one red
    line (``file:line: expected ..., found ...``). ``line`` is 0 when the key could not
    be found in the text (then the message names only the file).
    """

    def __init__(self, source: str, line: int | None, expected: str, found: str) -> None:
        super().__init__(source, line or 0, None, expected, found)

    def _message(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"{where}: expected {self.expected}, found {self.found}"


def found_value(v: object) -> str:
    """A found value for a message: its TOML type and the value (cut when long)."""
    kinds = {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a table",
    }
    kind = next((k for t, k in kinds.items() if type(v) is t), type(v).__name__)
    return f"{kind} {show(str(v).lower() if isinstance(v, bool) else str(v))}"


@dataclass(frozen=True)
class Row:
    """One line of the rubric: a number of wins in a series is worth some points.

    Attributes:
        wins: the wins needed (with ``draws_as_half_wins``, wins plus half the draws).
        points: the points the row is worth.
        text: the requirement as the rubric words it (``None``: written from the series).
    """

    wins: int
    points: float
    text: str | None = None


@dataclass(frozen=True)
class Series:
    """Games against one opponent, played once, and the rows judged from them.

    Attributes:
        opponent: the opponent's bot spec (a path in it made absolute, so the rubric
            works from any folder).
        label: the opponent's name in requirements (``RandomBot``).
        games: games in the series.
        rows: the thresholds judged from these games.
        maps: map names or files; game ``i`` is played on one of them in turn.
        swap_sides: whether the bot under test changes seats every game.
        draws_as_half_wins: whether a draw counts as half a win towards the rows.
        control: the time control of both bots (the ruleset's, with the rubric's and the
            series' ``[time]`` applied).
        protocol: the protocol of a ``cmd:`` opponent.
        line: the line of the series' ``[[series]]`` header (0 if unknown).
    """

    opponent: str
    label: str
    games: int
    rows: tuple[Row, ...]
    maps: tuple[str, ...]
    swap_sides: bool = True
    draws_as_half_wins: bool = False
    control: TimeControl = field(default_factory=TimeControl)
    protocol: str | None = None
    line: int = 0

    @property
    def max_points(self) -> float:
        """The points every row of the series is worth together."""
        return sum(r.points for r in self.rows)

    def requirement(self, row: Row) -> str:
        """The row's requirement in words, e.g. ``wins 3 of 3 games vs RandomBot``."""
        if row.text is not None:
            return row.text
        half = " (a draw counts half a win)" if self.draws_as_half_wins else ""
        games = "1 game" if self.games == 1 else f"{self.games} games"
        return f"wins {row.wins} of {games} vs {self.label}{half}"


@dataclass(frozen=True)
class Rubric:
    """A parsed rubric file.

    Attributes:
        title: shown above the grade.
        ruleset: the rules, with the rubric's ``[settings]`` applied.
        series: the series, in file order.
        seed: game ``i`` of every series uses ``seed + i``.
        source: the file it was read from (for messages and ``grade.json``).
        description: free text for the reader of the grade.
    """

    title: str
    ruleset: Ruleset
    series: tuple[Series, ...]
    seed: int = 0
    source: str = "<string>"
    description: str = ""

    @property
    def max_points(self) -> float:
        """The most points the rubric gives."""
        return sum(s.max_points for s in self.series)

    @property
    def games(self) -> int:
        """Games played in all series together."""
        return sum(s.games for s in self.series)

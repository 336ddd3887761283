"""Grading rubrics: which games a bot must play, and what its results are worth.

A course grades a bot with rows like "wins 3 of 3 games vs RandomBot: 15 points" and
"wins 9 of 10 games vs LookBot: 15 points". Several rows usually judge the same games
(3, 5, 6, 7, 8 and 9 wins of 10 vs LineBot, 5 points each), so a rubric groups its rows
by *series*: one opponent, a number of games, and the thresholds scored from those games.
Playing the 10 games once and scoring every threshold from them is both cheaper and
fairer than playing a fresh series per row (one lucky series cannot pass one row and fail
an easier one).

This module only reads rubric files and scores results; `lightcycle.tournament.grade`
plays the games. The file format (TOML, documented key by key in ``docs/grading.md``)::

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

import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, TypeGuard

from lightcycle.bots.api import BotError
from lightcycle.bots.registry import BUILTIN, builtin_names, make_bot
from lightcycle.formats.errors import FormatError, show
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapError
from lightcycle.protocols import get_protocol
from lightcycle.referee.clock import TimeControl, TimeControlError
from lightcycle.rules.engine import new_game
from lightcycle.rules.ruleset import RulesError, Ruleset
from lightcycle.rules.variants import get_ruleset

SHIPPED = ("teams", "duel")
"""Rubrics shipped with lightcycle (``lightcycle/data/rubrics/NAME.toml``)."""

_TOP_KEYS = (
    "title",
    "description",
    "ruleset",
    "settings",
    "maps",
    "seed",
    "swap_sides",
    "draws_as_half_wins",
    "time",
    "series",
)
_SERIES_KEYS = (
    "opponent",
    "label",
    "games",
    "rows",
    "maps",
    "swap_sides",
    "draws_as_half_wins",
    "time",
    "protocol",
)
_ROW_KEYS = ("wins", "points", "text")
_TIME_KEYS = tuple(TimeControl().to_dict())
_NO_LIMIT = "none"
_PROGRAM_PREFIXES = ("py:", "cteam:", "scheme:", "toml:")


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


def parse_rubric(text: str, source: str = "<string>", base: Path | None = None) -> Rubric:
    """Parse rubric text (see the module docstring and ``docs/grading.md``).

    Args:
        text: the TOML text.
        source: the file name for messages.
        base: the folder relative paths are read from (``None``: the current folder).

    Raises:
        RubricError: naming ``source``, the line and what was expected.
    """
    return _Parser(text, source, base).rubric()


class _Lines:
    """Finds where a key is written, since ``tomllib`` keeps no positions.

    The search is textual and forgiving: it narrows to the right table (the n-th
    ``[[series]]``, the n-th row of a series) and returns the first line that assigns the
    key there. When it cannot tell, it returns the best enclosing line, or 0.
    """

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.series = [i for i, ln in enumerate(self.lines) if _header(ln) == "[[series]]"]
        first_header = next((i for i, ln in enumerate(self.lines) if _header(ln)), None)
        self.top_end = first_header if first_header is not None else len(self.lines)

    def _find(self, key: str, start: int, end: int) -> int:
        pattern = re.compile(rf'(^|[{{,\s])("?){re.escape(key)}\2\s*=')
        for i in range(start, min(end, len(self.lines))):
            if pattern.search(_strip_comment(self.lines[i])):
                return i + 1
        return 0

    def _table(self, name: str) -> tuple[int, int] | None:
        for i, ln in enumerate(self.lines):
            if _header(ln) == f"[{name}]":
                return i, self._next_header(i + 1)
        return None

    def _next_header(self, start: int) -> int:
        for i in range(start, len(self.lines)):
            if _header(self.lines[i]):
                return i
        return len(self.lines)

    def top(self, key: str) -> int:
        """The line of a top-level key (or of its ``[key]`` table header)."""
        found = self._find(key, 0, self.top_end)
        if found:
            return found
        table = self._table(key)
        return table[0] + 1 if table is not None else 0

    def in_table(self, table: str, key: str) -> int:
        """The line of ``key`` in the top-level table ``[table]``."""
        span = self._table(table)
        if span is None:
            return self.top(table)
        return self._find(key, span[0], span[1]) or span[0] + 1

    def series_span(self, k: int) -> tuple[int, int] | None:
        """The lines of the k-th ``[[series]]`` (header included, up to the next one)."""
        if k >= len(self.series):
            return None
        start = self.series[k]
        end = self.series[k + 1] if k + 1 < len(self.series) else len(self.lines)
        for i in range(start + 1, end):
            h = _header(self.lines[i])
            if h and not h.startswith(("[series.", "[[series.")):
                return start, i
        return start, end

    def series_header(self, k: int) -> int:
        """The line of the k-th ``[[series]]`` header (0 if not found)."""
        return self.series[k] + 1 if k < len(self.series) else 0

    def series_key(self, k: int, key: str) -> int:
        """The line of ``key`` in the k-th series, or of its header."""
        span = self.series_span(k)
        if span is None:
            return 0
        if key == "time":
            for i in range(span[0], span[1]):
                if _header(self.lines[i]) == "[series.time]":
                    return i + 1
        return self._find(key, span[0] + 1, span[1]) or span[0] + 1

    def series_time_key(self, k: int, key: str) -> int:
        """The line of a time key of the k-th series (in ``[series.time]`` or inline)."""
        span = self.series_span(k)
        if span is None:
            return 0
        return self._find(key, span[0] + 1, span[1]) or self.series_key(k, "time")

    def row(self, k: int, j: int, key: str | None = None) -> int:
        """The line of row ``j`` of series ``k`` (of ``key`` in it, when found)."""
        span = self.series_span(k)
        if span is None:
            return 0
        starts: list[int] = []
        in_rows = False
        for i in range(span[0] + 1, span[1]):
            line = _strip_comment(self.lines[i])
            if _header(line) == "[[series.rows]]":
                starts.append(i)
                continue
            if re.match(r"\s*rows\s*=", line):
                in_rows = True
                line = line.split("=", 1)[1]
            elif _header(line) or re.match(r"\s*[A-Za-z_\"]+\s*=", line):
                in_rows = False
            if in_rows:
                starts.extend([i] * line.count("{"))
        if j >= len(starts):
            return self.series_key(k, "rows")
        if key is None:
            return starts[j] + 1
        end = starts[j + 1] if j + 1 < len(starts) else span[1]
        if end == starts[j]:
            return starts[j] + 1  # several inline rows on one line: that line
        return self._find(key, starts[j], end) or starts[j] + 1


def _strip_comment(line: str) -> str:
    """The line without a trailing ``# comment`` (a ``#`` inside quotes is kept)."""
    quote: str | None = None
    for i, ch in enumerate(line):
        if quote is not None:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return line[:i]
    return line


def _header(line: str) -> str:
    """The table header on ``line`` (``[[series]]``, ``[time]``), spaces removed, or ``""``."""
    s = _strip_comment(line).strip()
    if s.startswith("[") and s.endswith("]") and "=" not in s:
        return s.replace(" ", "")
    return ""


def _is_int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: object) -> TypeGuard[int | float]:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _found(v: object) -> str:
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


class _Parser:
    """One rubric file being read; every check knows where to point."""

    def __init__(self, text: str, source: str, base: Path | None) -> None:
        self.text = text
        self.source = source
        self.base = base
        self.where = _Lines(text)

    def fail(self, line: int, expected: str, found: str) -> RubricError:
        return RubricError(self.source, line, expected, found)

    def rubric(self) -> Rubric:
        try:
            data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as exc:
            m = re.search(r"\(at line (\d+), column \d+\)", str(exc))
            line = int(m.group(1)) if m else 0
            if "(at end of document)" in str(exc):
                line = max(1, len(self.where.lines))
            message = re.sub(r"\s*\(at .*\)$", "", str(exc))
            raise self.fail(line, "valid TOML", message[:1].lower() + message[1:]) from None
        self._unknown(data, _TOP_KEYS, "a top-level key", self.where.top)
        title = data.get("title")
        if not isinstance(title, str) or not title.strip():
            raise self.fail(
                self.where.top("title"),
                'a title, e.g. title = "Team course bot grade"',
                _found(title) if "title" in data else "no title",
            )
        description = data.get("description", "")
        if not isinstance(description, str):
            raise self.fail(self.where.top("description"), "a string", _found(description))
        ruleset = self._ruleset(data)
        seed = data.get("seed", 0)
        if not _is_int(seed) or seed < 0:
            raise self.fail(self.where.top("seed"), "an integer >= 0, e.g. seed = 0", _found(seed))
        maps = self._maps(data, ruleset, self.where.top("maps")) if "maps" in data else None
        swap = self._bool(data, "swap_sides", True, self.where.top)
        half = self._bool(data, "draws_as_half_wins", False, self.where.top)
        time = self._time(data.get("time", {}), self.where.top("time"), self.where.in_table)
        control = self._control(ruleset, time, self.where.top("time"))
        raw_series = data.get("series")
        if (
            not isinstance(raw_series, list)
            or not raw_series
            or not all(isinstance(s, dict) for s in raw_series)
        ):
            raise self.fail(
                self.where.top("series"),
                "at least one [[series]] table (an opponent, games and rows)",
                _found(raw_series) if raw_series is not None else "no [[series]]",
            )
        series = tuple(
            self._series(k, s, ruleset, maps, swap, half, time, control)
            for k, s in enumerate(raw_series)
        )
        return Rubric(
            title=title.strip(),
            ruleset=ruleset,
            series=series,
            seed=seed,
            source=self.source,
            description=description.strip(),
        )

    def _unknown(
        self,
        table: Mapping[str, Any],
        known: Sequence[str],
        what: str,
        locate: Callable[[str], int],
    ) -> None:
        for key in table:
            if key not in known:
                raise self.fail(locate(key), f"{what}: one of {', '.join(known)}", show(key))

    def _bool(
        self, table: Mapping[str, Any], key: str, default: bool, locate: Callable[[str], int]
    ) -> bool:
        value = table.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(locate(key), f"true or false for {key}", _found(value))
        return value

    def _ruleset(self, data: Mapping[str, Any]) -> Ruleset:
        line = self.where.top("ruleset")
        name = data.get("ruleset")
        if not isinstance(name, str):
            raise self.fail(
                line,
                'a ruleset, e.g. ruleset = "teams" (see `lightcycle rules list`)',
                _found(name) if name is not None else "no ruleset",
            )
        try:
            ruleset = get_ruleset(name)
        except RulesError as exc:
            raise self.fail(line, "a known ruleset", str(exc)) from None
        if not ruleset.players[0] <= 2 <= ruleset.players[1]:
            raise self.fail(line, "a ruleset for two players", f"{ruleset.id}")
        settings = data.get("settings", {})
        if not isinstance(settings, dict):
            raise self.fail(self.where.top("settings"), "a [settings] table", _found(settings))
        for key, value in settings.items():
            try:
                ruleset = ruleset.with_settings({key: value})
            except (RulesError, TypeError, ValueError) as exc:
                raise self.fail(
                    self.where.in_table("settings", key),
                    f"a setting of {ruleset.id}",
                    f"{show(key)} = {_found(value)}: {exc}",
                ) from None
        return ruleset

    def _maps(self, table: Mapping[str, Any], ruleset: Ruleset, line: int) -> tuple[str, ...]:
        value = table.get("maps")
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(m, str) and m.strip() for m in value)
        ):
            raise self.fail(
                line,
                'a non-empty list of map names or files, e.g. maps = ["court"]',
                _found(value),
            )
        names: list[str] = []
        for text in value:
            name = text.strip()
            if self.base is not None and (self.base / name).is_file():
                name = str(self.base / name)
            try:
                spec = get_map(name)
            except (MapError, FormatError) as exc:
                raise self.fail(line, "a map (see `lightcycle maps list`)", str(exc)) from None
            if 2 not in spec.players:
                raise self.fail(
                    line,
                    "a map for two players",
                    f"{spec.id} for {','.join(map(str, spec.players))} players",
                )
            try:
                new_game(ruleset, spec, seed=0, players=2)
            except (RulesError, MapError, ValueError) as exc:
                raise self.fail(line, f"a map {ruleset.id} can play", str(exc)) from None
            names.append(name)
        return tuple(names)

    def _time(
        self, table: object, line: int, locate: Callable[[str, str], int]
    ) -> dict[str, float | None]:
        if not isinstance(table, dict):
            raise self.fail(line, "a [time] table of seconds, e.g. average = 0.1", _found(table))
        out: dict[str, float | None] = {}
        for key, value in table.items():
            if key not in _TIME_KEYS:
                raise self.fail(
                    locate("time", key),
                    f"a time control: one of {', '.join(_TIME_KEYS)}",
                    show(key),
                )
            if value == _NO_LIMIT and key != "bank":
                out[key] = None
            elif _is_number(value) and value >= 0:
                out[key] = float(value)
            else:
                no_limit = "" if key == "bank" else f' or "{_NO_LIMIT}" for no limit'
                raise self.fail(
                    locate("time", key), f"{key}: seconds >= 0{no_limit}", _found(value)
                )
        return out

    def _control(
        self, ruleset: Ruleset, time: Mapping[str, float | None], line: int
    ) -> TimeControl:
        try:
            control = TimeControl.for_ruleset(ruleset.clock).with_overrides(dict(time))
            control.validate()
        except TimeControlError as exc:
            raise self.fail(line, "time controls a game can use", str(exc)) from None
        return control

    def _series(
        self,
        k: int,
        s: Mapping[str, Any],
        ruleset: Ruleset,
        maps: tuple[str, ...] | None,
        swap: bool,
        half: bool,
        time: Mapping[str, float | None],
        control: TimeControl,
    ) -> Series:
        where = self.where
        header = where.series_header(k)

        def locate(key: str) -> int:
            return where.series_key(k, key)

        self._unknown(s, _SERIES_KEYS, f"a key of [[series]] number {k + 1}", locate)
        protocol = s.get("protocol")
        if protocol is not None and not isinstance(protocol, str):
            raise self.fail(locate("protocol"), "a protocol name", _found(protocol))
        opponent = self._opponent(s.get("opponent"), protocol, locate("opponent") or header)
        label = s.get("label", _default_label(opponent))
        if not isinstance(label, str) or not label.strip():
            raise self.fail(locate("label"), 'a label, e.g. label = "RandomBot"', _found(label))
        games = s.get("games")
        if not _is_int(games) or games < 1:
            raise self.fail(
                locate("games"),
                "games = a whole number >= 1",
                _found(games) if games is not None else "no games",
            )
        series_maps = self._maps(s, ruleset, locate("maps")) if "maps" in s else maps
        if series_maps is None:
            raise self.fail(
                header,
                'maps = ["..."] at the top of the rubric or in this series',
                "no maps",
            )
        if "time" in s:

            def locate_time(_table: str, key: str) -> int:
                return where.series_time_key(k, key)

            time = {**time, **self._time(s["time"], locate("time"), locate_time)}
            control = self._control(ruleset, time, locate("time"))
        rows = self._rows(k, s.get("rows"), games, locate("rows") or header)
        return Series(
            opponent=opponent,
            label=label.strip(),
            games=games,
            rows=rows,
            maps=series_maps,
            swap_sides=self._bool(s, "swap_sides", swap, locate),
            draws_as_half_wins=self._bool(s, "draws_as_half_wins", half, locate),
            control=control,
            protocol=protocol,
            line=header,
        )

    def _opponent(self, value: object, protocol: str | None, line: int) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(
                line,
                'an opponent bot spec, e.g. opponent = "builtin:randombot"',
                _found(value) if value is not None else "no opponent",
            )
        text = value.strip()
        if text.startswith("cmd:"):
            if protocol is None:
                raise self.fail(
                    line,
                    'protocol = "tron2010" (or aichallenge, sexp, jsonl) for a cmd: opponent',
                    "no protocol",
                )
            try:
                get_protocol(protocol)
            except ValueError as exc:
                raise self.fail(line, "a known protocol", str(exc)) from None
            return text
        prefix = next((p for p in _PROGRAM_PREFIXES if text.startswith(p)), "")
        if prefix or text.endswith(".toml"):
            rest = text.removeprefix(prefix)
            suffix = {"py:": ".py", "scheme:": ".scm"}.get(prefix)
            path_text, _, cls = rest.partition(f"{suffix}:") if suffix else (rest, "", "")
            if cls and suffix:
                path_text += suffix
            path = Path(path_text)
            if self.base is not None and not path.is_absolute():
                path = self.base / path
            if not path.is_file():
                raise self.fail(
                    line,
                    "an opponent whose file exists (paths are relative to the rubric)",
                    f"{show(text)}: no file {path}",
                )
            return f"{prefix}{path}{':' + cls if cls else ''}"
        name, _, settings = text.removeprefix("builtin:").partition(":")
        name = name.lower()
        if name not in builtin_names():
            raise self.fail(
                line,
                "an opponent: builtin:NAME[:key=value,...] ("
                + ", ".join(builtin_names())
                + "), py:FILE.py, FILE.toml, cteam:FILE.c, scheme:FILE.scm or cmd:'...' with "
                + "protocol",
                show(text),
            )
        spec = f"builtin:{name}" + (f":{settings}" if settings else "")
        if settings:  # build it once, so a bad setting is reported here, with its line
            try:
                make_bot(spec)
            except BotError as exc:
                raise self.fail(line, "settings the built-in bot accepts", str(exc)) from None
        return spec

    def _rows(self, k: int, value: object, games: int, line: int) -> tuple[Row, ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(
                line,
                "rows = [ { wins = N, points = P }, ... ] (at least one row)",
                _found(value) if value is not None else "no rows",
            )
        rows: list[Row] = []
        for j, raw in enumerate(value):
            if not isinstance(raw, dict):
                raise self.fail(self.where.row(k, j), "a row { wins = N, points = P }", _found(raw))

            def locate(key: str, j: int = j) -> int:
                return self.where.row(k, j, key)

            self._unknown(raw, _ROW_KEYS, f"a row key of series {k + 1}", locate)
            wins = raw.get("wins")
            if not _is_int(wins) or not 0 <= wins <= games:
                raise self.fail(
                    locate("wins"),
                    f"wins = a whole number from 0 to {games} (the series' games)",
                    _found(wins) if wins is not None else "no wins",
                )
            points = raw.get("points")
            if not _is_number(points) or points < 0:
                raise self.fail(
                    locate("points"),
                    "points = a number >= 0",
                    _found(points) if points is not None else "no points",
                )
            text = raw.get("text")
            if text is not None and (not isinstance(text, str) or not text.strip()):
                raise self.fail(locate("text"), "the requirement in words", _found(text))
            rows.append(Row(wins, points, text.strip() if text is not None else None))
        return tuple(rows)


def _default_label(opponent: str) -> str:
    """An opponent's name when the series gives no label: the built-in bot's, or the file's."""
    if opponent.startswith("builtin:"):
        return BUILTIN[opponent.removeprefix("builtin:").partition(":")[0]].name
    if opponent.startswith("cmd:"):
        return opponent
    path = opponent.split(":", 1)[-1] if opponent.startswith(_PROGRAM_PREFIXES) else opponent
    return Path(path.partition(".py:")[0].partition(".scm:")[0]).stem

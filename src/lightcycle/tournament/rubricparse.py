"""Reading a rubric's TOML text into a `Rubric`, every value checked where it is written.

Every mistake is a `RubricError` naming the file, the line where the key was found
(`lightcycle.tournament.rubriclines`, since ``tomllib`` keeps no positions) and what was
expected, so an instructor fixes a rubric before a whole class is graded against it. The
rules, maps and time controls are tried as a game would use them; opponents are checked
by `lightcycle.tournament.rubricopponents`.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeGuard

from lightcycle.formats.errors import FormatError, show
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapError
from lightcycle.referee.clock import TimeControl, TimeControlError
from lightcycle.rules.engine import new_game
from lightcycle.rules.ruleset import RulesError, Ruleset
from lightcycle.rules.variants import get_ruleset
from lightcycle.tournament.rubriclines import KeyLines
from lightcycle.tournament.rubricmodel import Row, Rubric, RubricError, Series, found_value
from lightcycle.tournament.rubricopponents import default_label, opponent_spec

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


def _is_int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: object) -> TypeGuard[int | float]:
    return isinstance(v, int | float) and not isinstance(v, bool)


class _Parser:
    """One rubric file being read; every check knows where to point."""

    def __init__(self, text: str, source: str, base: Path | None) -> None:
        self.text = text
        self.source = source
        self.base = base
        self.where = KeyLines(text)

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
                found_value(title) if "title" in data else "no title",
            )
        description = data.get("description", "")
        if not isinstance(description, str):
            raise self.fail(self.where.top("description"), "a string", found_value(description))
        ruleset = self._ruleset(data)
        seed = data.get("seed", 0)
        if not _is_int(seed) or seed < 0:
            raise self.fail(
                self.where.top("seed"), "an integer >= 0, e.g. seed = 0", found_value(seed)
            )
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
                found_value(raw_series) if raw_series is not None else "no [[series]]",
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
            raise self.fail(locate(key), f"true or false for {key}", found_value(value))
        return value

    def _ruleset(self, data: Mapping[str, Any]) -> Ruleset:
        line = self.where.top("ruleset")
        name = data.get("ruleset")
        if not isinstance(name, str):
            raise self.fail(
                line,
                'a ruleset, e.g. ruleset = "teams" (see `lightcycle rules list`)',
                found_value(name) if name is not None else "no ruleset",
            )
        try:
            ruleset = get_ruleset(name)
        except RulesError as exc:
            raise self.fail(line, "a known ruleset", str(exc)) from None
        if not ruleset.players[0] <= 2 <= ruleset.players[1]:
            raise self.fail(line, "a ruleset for two players", f"{ruleset.id}")
        settings = data.get("settings", {})
        if not isinstance(settings, dict):
            raise self.fail(self.where.top("settings"), "a [settings] table", found_value(settings))
        for key, value in settings.items():
            try:
                ruleset = ruleset.with_settings({key: value})
            except (RulesError, TypeError, ValueError) as exc:
                raise self.fail(
                    self.where.in_table("settings", key),
                    f"a setting of {ruleset.id}",
                    f"{show(key)} = {found_value(value)}: {exc}",
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
                found_value(value),
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
            raise self.fail(
                line, "a [time] table of seconds, e.g. average = 0.1", found_value(table)
            )
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
                    locate("time", key), f"{key}: seconds >= 0{no_limit}", found_value(value)
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
            raise self.fail(locate("protocol"), "a protocol name", found_value(protocol))
        opponent_line = locate("opponent") or header

        def fail_opponent(expected: str, what: str) -> RubricError:
            return self.fail(opponent_line, expected, what)

        opponent = opponent_spec(s.get("opponent"), protocol, self.base, fail_opponent)
        label = s.get("label", default_label(opponent))
        if not isinstance(label, str) or not label.strip():
            raise self.fail(
                locate("label"), 'a label, e.g. label = "RandomBot"', found_value(label)
            )
        games = s.get("games")
        if not _is_int(games) or games < 1:
            raise self.fail(
                locate("games"),
                "games = a whole number >= 1",
                found_value(games) if games is not None else "no games",
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

    def _rows(self, k: int, value: object, games: int, line: int) -> tuple[Row, ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(
                line,
                "rows = [ { wins = N, points = P }, ... ] (at least one row)",
                found_value(value) if value is not None else "no rows",
            )
        rows: list[Row] = []
        for j, raw in enumerate(value):
            if not isinstance(raw, dict):
                raise self.fail(
                    self.where.row(k, j), "a row { wins = N, points = P }", found_value(raw)
                )

            def locate(key: str, j: int = j) -> int:
                return self.where.row(k, j, key)

            self._unknown(raw, _ROW_KEYS, f"a row key of series {k + 1}", locate)
            wins = raw.get("wins")
            if not _is_int(wins) or not 0 <= wins <= games:
                raise self.fail(
                    locate("wins"),
                    f"wins = a whole number from 0 to {games} (the series' games)",
                    found_value(wins) if wins is not None else "no wins",
                )
            points = raw.get("points")
            if not _is_number(points) or points < 0:
                raise self.fail(
                    locate("points"),
                    "points = a number >= 0",
                    found_value(points) if points is not None else "no points",
                )
            text = raw.get("text")
            if text is not None and (not isinstance(text, str) or not text.strip()):
                raise self.fail(locate("text"), "the requirement in words", found_value(text))
            rows.append(Row(wins, points, text.strip() if text is not None else None))
        return tuple(rows)

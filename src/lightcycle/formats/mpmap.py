"""The multi-player contest map: ``key value`` parameters, ``map``, then the rows.

::

    no_rows 5
    no_cols 7
    no_players 2
    name tiny
    map
    %%%%%%%
    %a....%
    %.....%
    %....b%
    %%%%%%%

``.`` is floor, ``%`` a wall, and the letters ``a``, ``b``, ... mark the starts of players
0, 1, .... ``no_rows``, ``no_cols`` and ``no_players`` are required. The contest promised to
add parameters over time and asked every reader to tolerate ones it does not know, so
unknown parameters are kept (in order) rather than rejected; lightcycle stores its own map
metadata (name, version, tags, ...) the same way. A map may have no start letters at all
(``no_players 0``) when starts are placed at game time.
"""

from __future__ import annotations

import re

from lightcycle.formats.errors import FormatError, show
from lightcycle.formats.gridtext import GridText, read_side, text_lines

WALL = "%"
FLOOR = "."
LETTERS = "abcdefghijklmnopqrstuvwxyz"
REQUIRED = ("no_rows", "no_cols", "no_players")
"""The parameters every file must state, in the order `format_mpmap` writes them."""
RESERVED = (*REQUIRED, "map")
_DIGITS = re.compile(r"[0-9]{1,2}")


def parse_mpmap(text: str, source: str = "<string>") -> GridText:
    """Read a multi-player map.

    Args:
        text: the whole file.
        source: the file name to put in error messages.

    Returns:
        The grid; ``starts[i]`` is where letter ``LETTERS[i]`` stands, and ``params`` holds
        every parameter other than the three required ones, in file order.

    Raises:
        FormatError: at the first problem, with its line, column and what was expected.
    """
    lines = text_lines(text)
    numbers: dict[str, tuple[int, int, int]] = {}  # key -> (value, line, column)
    params: list[tuple[str, str]] = []
    map_index: int | None = None
    for index, line in enumerate(lines):
        entry = _split_param(line)
        if entry is None:
            continue
        key, key_col, value, value_col = entry
        if key == "map":
            if value:
                raise FormatError(
                    source,
                    index + 1,
                    value_col,
                    "nothing after 'map' (the rows start on the next line)",
                    show(value),
                )
            map_index = index
            break
        if key not in REQUIRED:
            params.append((key, value))
            continue
        if key in numbers:
            raise FormatError(
                source,
                index + 1,
                key_col,
                f"{key} only once (it is already on line {numbers[key][1]})",
                f"a second {key!r}",
            )
        numbers[key] = (
            _read_number(key, value, source, index + 1, value_col),
            index + 1,
            value_col,
        )

    if map_index is None:
        raise FormatError(
            source, len(lines) + 1, None, "a 'map' line after the parameters", "end of file"
        )
    for key in REQUIRED:
        if key not in numbers:
            raise FormatError(source, map_index + 1, 1, f"a '{key}' line before 'map'", "'map'")
    height, _, _ = numbers["no_rows"]
    width, width_line, _ = numbers["no_cols"]
    players, players_line, players_col = numbers["no_players"]
    marks = LETTERS[:players]
    expected_cell = _expected_cell(players)

    walls: set[tuple[int, int]] = set()
    starts: dict[str, tuple[int, int, int, int]] = {}
    for y in range(height):
        index = map_index + 1 + y
        if index >= len(lines):
            raise FormatError(
                source,
                index + 1,
                None,
                f"{height} map rows after 'map' (no_rows is {height})",
                f"end of file after {y} rows",
            )
        row = lines[index]
        for x, ch in enumerate(row[:width]):
            if ch == WALL:
                walls.add((x, y))
            elif ch == FLOOR:
                pass
            elif ch in marks:
                if ch in starts:
                    _, _, line0, col0 = starts[ch]
                    raise FormatError(
                        source,
                        index + 1,
                        x + 1,
                        f"one {ch!r} per map (already at line {line0}, column {col0})",
                        f"a second {ch!r}",
                    )
                starts[ch] = (x, y, index + 1, x + 1)
            else:
                raise FormatError(source, index + 1, x + 1, expected_cell, show(ch))
        if len(row) < width:
            raise FormatError(
                source,
                index + 1,
                len(row) + 1,
                f"{width} map characters per row (no_cols on line {width_line})",
                f"end of line after {len(row)}",
            )
        rest = row[width:]
        if rest.strip():
            k = len(rest) - len(rest.lstrip())
            raise FormatError(
                source,
                index + 1,
                width + k + 1,
                f"end of row after {width} characters (no_cols on line {width_line})",
                show(rest[k]),
            )

    for mark in marks:
        if mark not in starts:
            raise FormatError(
                source,
                players_line,
                players_col,
                f"start letters 'a' to {marks[-1]!r} in the map (no_players is {players})",
                f"no {mark!r}",
            )
    for index in range(map_index + 1 + height, len(lines)):
        extra = lines[index]
        if extra.strip():
            k = len(extra) - len(extra.lstrip())
            raise FormatError(
                source,
                index + 1,
                k + 1,
                f"end of file after the {height} map rows",
                show(extra.strip()),
            )
    return GridText(
        width,
        height,
        frozenset(walls),
        tuple((starts[m][0], starts[m][1]) for m in marks),
        tuple(params),
    )


def _split_param(line: str) -> tuple[str, int, str, int] | None:
    """Split a parameter line into (key, key column, value, value column); None if blank."""
    stripped = line.strip()
    if not stripped:
        return None
    key_start = len(line) - len(line.lstrip())
    key = stripped.split(None, 1)[0]
    rest = line[key_start + len(key) :]
    value = rest.strip()
    value_col = key_start + len(key) + (len(rest) - len(rest.lstrip())) + 1
    return key, key_start + 1, value, value_col


def _read_number(key: str, value: str, source: str, line: int, column: int) -> int:
    if key == "no_rows":
        return read_side(value, source, line, column, "no_rows")
    if key == "no_cols":
        return read_side(value, source, line, column, "no_cols")
    expected = f"no_players as a whole number from 0 to {len(LETTERS)}"
    if not _DIGITS.fullmatch(value) or int(value) > len(LETTERS):
        raise FormatError(source, line, column, expected, show(value) if value else "end of line")
    return int(value)


def _expected_cell(players: int) -> str:
    options = [repr(FLOOR), repr(WALL)]
    if players <= 3:
        options += [repr(c) for c in LETTERS[:players]]
        detail = f" (no_players is {players})"
    else:
        options.append(f"a start letter 'a'-{LETTERS[players - 1]!r}")
        detail = ""
    return "one of " + ", ".join(options) + detail


def param_position(text: str, key: str) -> tuple[int, int] | None:
    """Return (line, column) of the value of the first parameter ``key`` in ``text``.

    `GridText` forgets where a parameter was written; callers that interpret a parameter
    (`lightcycle.maps.io` reads ``version``, ``players`` ...) use this to point their own
    `FormatError` at the right place. ``None`` when the parameter does not occur before
    the ``map`` line.
    """
    for index, line in enumerate(text_lines(text)):
        entry = _split_param(line)
        if entry is None:
            continue
        name, _, _, value_col = entry
        if name == "map":
            return None
        if name == key:
            return index + 1, value_col
    return None


def format_mpmap(grid: GridText) -> str:
    """Write ``grid`` as a multi-player map (``\\n`` line ends, final newline included).

    The required parameters come first, then ``grid.params`` in order, then the rows.

    Raises:
        ValueError: when the grid has more starts than letters, or a parameter in
            ``grid.params`` would be read back as a required one or as ``map``.
    """
    if len(grid.starts) > len(LETTERS):
        raise ValueError(f"{len(grid.starts)} starts, but only {len(LETTERS)} start letters")
    lines = [
        f"no_rows {grid.height}",
        f"no_cols {grid.width}",
        f"no_players {len(grid.starts)}",
    ]
    for key, value in grid.params:
        if key in RESERVED:
            raise ValueError(f"parameter {key!r} is written by the format itself")
        lines.append(f"{key} {value}" if value else key)
    lines.append("map")
    lines += grid.rows(WALL, FLOOR, LETTERS)
    return "".join(line + "\n" for line in lines)

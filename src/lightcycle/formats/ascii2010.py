"""The 2010 AI-challenge ASCII map: a ``WIDTH HEIGHT`` line, then the rows of the room.

This is the format the 2010 Google AI Challenge referee sent to bots every turn and the
one its map folders were written in::

    5 4
    #####
    #1 2#
    #   #
    #####

``#`` is a wall, a space is floor, ``1`` and ``2`` are the two players' starts; ``(x, y)``
is (column, row) from the top-left. Files from the wild differ in small ways, so the
reader accepts Windows line ends, a missing final newline, blank lines around the map and
blanks after a row's last cell; anything else is a `FormatError` that points at it (a short
row in particular is an error, since padding it would silently invent floor).
"""

from __future__ import annotations

import re

from lightcycle.formats.errors import FormatError, show
from lightcycle.formats.gridtext import GridText, read_side, text_lines

WALL = "#"
FLOOR = " "
MARKS = "12"
_CELLS = WALL + FLOOR + MARKS
_EXPECTED_CELL = "one of '#', ' ', '1', '2'"
_TOKEN = re.compile(r"\S+")


def parse_ascii2010(text: str, source: str = "<string>") -> GridText:
    """Read a 2010 ASCII map.

    Args:
        text: the whole file.
        source: the file name to put in error messages.

    Returns:
        The grid, with ``starts`` = (position of ``1``, position of ``2``) and no params.

    Raises:
        FormatError: at the first problem, with its line, column and what was expected.
    """
    lines = text_lines(text)
    head = 0
    while head < len(lines) and not lines[head].strip():
        head += 1
    if head == len(lines):
        raise FormatError(source, head + 1, None, "a first line 'WIDTH HEIGHT'", "end of file")
    width, height = _read_header(lines[head], source, head + 1)

    walls: set[tuple[int, int]] = set()
    found: dict[str, tuple[int, int, int, int]] = {}
    for y in range(height):
        index = head + 1 + y
        if index >= len(lines):
            raise FormatError(
                source,
                index + 1,
                None,
                f"{height} map rows after the size line (line {head + 1})",
                f"end of file after {y} rows",
            )
        row = lines[index]
        for x, ch in enumerate(row[:width]):
            if ch not in _CELLS:
                raise FormatError(source, index + 1, x + 1, _EXPECTED_CELL, show(ch))
            if ch == WALL:
                walls.add((x, y))
            elif ch in MARKS:
                if ch in found:
                    _, _, line0, col0 = found[ch]
                    raise FormatError(
                        source,
                        index + 1,
                        x + 1,
                        f"one {ch!r} per map (already at line {line0}, column {col0})",
                        f"a second {ch!r}",
                    )
                found[ch] = (x, y, index + 1, x + 1)
        if len(row) < width:
            raise FormatError(
                source,
                index + 1,
                len(row) + 1,
                f"{width} map characters per row (the width on line {head + 1})",
                f"end of line after {len(row)}",
            )
        rest = row[width:]
        if rest.strip():
            k = len(rest) - len(rest.lstrip())
            raise FormatError(
                source,
                index + 1,
                width + k + 1,
                f"end of row after {width} characters (the width on line {head + 1})",
                show(rest[k]),
            )

    for number, mark in enumerate(MARKS, start=1):
        if mark not in found:
            raise FormatError(
                source,
                head + 1,
                None,
                f"a {mark!r} in the map (player {number}'s start)",
                "none",
            )
    for index in range(head + 1 + height, len(lines)):
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
    starts = tuple((found[m][0], found[m][1]) for m in MARKS)
    return GridText(width, height, frozenset(walls), starts)


def _read_header(line: str, source: str, number: int) -> tuple[int, int]:
    tokens = list(_TOKEN.finditer(line))
    first = tokens[0]
    width = read_side(first.group(), source, number, first.start() + 1, "WIDTH")
    if len(tokens) < 2:
        raise FormatError(
            source, number, len(line.rstrip()) + 1, "HEIGHT after the width", "end of line"
        )
    second = tokens[1]
    height = read_side(second.group(), source, number, second.start() + 1, "HEIGHT")
    if len(tokens) > 2:
        extra = tokens[2]
        raise FormatError(
            source,
            number,
            extra.start() + 1,
            "end of line after 'WIDTH HEIGHT'",
            show(extra.group()),
        )
    return width, height


def format_ascii2010(grid: GridText) -> str:
    """Write ``grid`` as a 2010 ASCII map (``\\n`` line ends, final newline included).

    The format has no place for parameters, so ``grid.params`` are left out; convert to
    the multi-player format (`lightcycle.formats.mpmap`) to keep them.

    Raises:
        ValueError: unless the grid has exactly two starts, the only count the format knows.
    """
    if len(grid.starts) != 2:
        raise ValueError(
            f"the 2010 ASCII format holds exactly 2 starts, this grid has {len(grid.starts)}"
        )
    rows = grid.rows(WALL, FLOOR, MARKS)
    return f"{grid.width} {grid.height}\n" + "".join(row + "\n" for row in rows)

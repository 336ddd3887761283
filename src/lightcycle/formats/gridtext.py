"""`GridText`: what a grid map file says, before anyone decides what it means.

Both map formats describe the same things (a size, walls, numbered starts and some
``key value`` extras), so they parse to one neutral object and `lightcycle.maps.io` turns
that into a playable `MapSpec` in one place. Keeping this object free of game concepts
lets the formats stay pure text <-> data converters that round-trip exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lightcycle.formats.errors import FormatError, show

MAX_SIDE = 10_000
"""The largest width or height a map file may declare.

Real maps are under a hundred cells wide; the cap turns a typo such as ``150000`` into a
clear error instead of a parser waiting for a hundred thousand rows.
"""

_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class GridText:
    """A rectangular map as a file states it.

    Attributes:
        width: columns.
        height: rows.
        walls: the ``(x, y)`` wall cells, ``x`` the column and ``y`` the row, origin top-left.
        starts: one ``(x, y)`` per player, in player order.
        params: extra ``key value`` parameters in file order (unknown ones included), so a
            file can be rewritten without losing what we did not understand.

    Raises:
        ValueError: when the fields contradict each other (a cell off the grid, a start on
            a wall, two starts on one cell, a parameter that cannot be written as a line).
    """

    width: int
    height: int
    walls: frozenset[tuple[int, int]] = frozenset()
    starts: tuple[tuple[int, int], ...] = ()
    params: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not (1 <= self.width <= MAX_SIDE and 1 <= self.height <= MAX_SIDE):
            raise ValueError(
                f"grid size {self.width}x{self.height} is outside 1..{MAX_SIDE} per side"
            )
        for x, y in self.walls:
            if not self.contains(x, y):
                raise ValueError(f"wall ({x}, {y}) is outside the {self.width}x{self.height} grid")
        if len(set(self.starts)) != len(self.starts):
            raise ValueError(f"two starts share a cell: {self.starts}")
        for p, (x, y) in enumerate(self.starts):
            if not self.contains(x, y):
                raise ValueError(f"start {p + 1} ({x}, {y}) is outside the grid")
            if (x, y) in self.walls:
                raise ValueError(f"start {p + 1} ({x}, {y}) is on a wall")
        for key, value in self.params:
            check_param(key, value)

    def contains(self, x: int, y: int) -> bool:
        """Return whether ``(x, y)`` lies on the grid."""
        return 0 <= x < self.width and 0 <= y < self.height

    def param(self, key: str) -> str | None:
        """Return the value of the first parameter named ``key``, or ``None``."""
        for k, v in self.params:
            if k == key:
                return v
        return None

    def rows(self, wall: str, floor: str, start_marks: str) -> list[str]:
        """Draw the grid as text rows, ``start_marks[i]`` marking player ``i``'s start.

        Raises:
            ValueError: when there are more starts than marks.
        """
        if len(self.starts) > len(start_marks):
            raise ValueError(f"{len(self.starts)} starts but only {len(start_marks)} marks")
        grid = [[floor] * self.width for _ in range(self.height)]
        for x, y in self.walls:
            grid[y][x] = wall
        for mark, (x, y) in zip(start_marks, self.starts, strict=False):
            grid[y][x] = mark
        return ["".join(row) for row in grid]


def check_param(key: str, value: str) -> None:
    """Check that ``key value`` can be written as one parameter line and read back the same.

    Raises:
        ValueError: naming the parameter and the rule it breaks.
    """
    if not key or any(c.isspace() for c in key):
        raise ValueError(f"parameter name {key!r} must be one word without blanks")
    # Only "\n" ends a line (see `text_lines`); a "\r" inside a value reads back as is.
    if "\n" in value or value != value.strip():
        raise ValueError(
            f"parameter {key!r} value {value!r} must be one line without leading or trailing blanks"
        )


def text_lines(text: str) -> list[str]:
    """Split file text into lines the way every map parser here reads them.

    Only ``\\n`` ends a line (so a stray form feed stays visible as a bad character), a
    trailing ``\\r`` per line is dropped (files saved on Windows), as is a leading byte
    order mark. A final newline does not create an extra empty line.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def read_side(token: str, source: str, line: int, column: int, what: str) -> int:
    """Read a positive width or height, raising `FormatError` with its position if it is not.

    Only ASCII digits are accepted: Python's ``int`` would also take ``1_0``, ``+10`` or
    other scripts' digits, none of which another tool would read the same way.
    """
    expected = f"{what} as a whole number from 1 to {MAX_SIDE}"
    if not _DIGITS.fullmatch(token) or len(token) > 5:
        raise FormatError(source, line, column, expected, show(token))
    value = int(token)
    if not 1 <= value <= MAX_SIDE:
        raise FormatError(source, line, column, expected, show(token))
    return value

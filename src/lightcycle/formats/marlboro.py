"""The Marlboro tron-engine replay: one record ``+OK|W H|rows|name1|name2|moves|result|+OK``.

The tron-engine of the Marlboro College programming workshop (a descendant of the 2010 AI
challenge's referee) saved each duel this way for its web replayer, one ``.tron`` file
per game::

    +OK|5 4|#####
    #1 2#
    #   #
    #####
    |felix|freebot|SSWE|D|+OK

The fields are separated by ``|``:

``+OK``
    a fixed opening mark.
``W H``
    the width and height of the room.
``rows``
    the room at the start, in the 2010 ASCII map's alphabet (``#`` wall, space floor,
    ``1`` and ``2`` the players), each row followed by a newline. The rows are why a
    record that is logically one line spans ``H + 1`` lines of text.
``name1``, ``name2``
    the two players' names.
``moves``
    two characters per turn, player 1's then player 2's, from ``" NESW"``: ``N``, ``E``,
    ``S``, ``W`` are the headings, a space is a turn without a valid move (the original
    engine stopped the game instead; lightcycle writes a space for a forfeit).
``result``
    ``1`` or ``2`` for the winner, ``D`` for a draw.
``+OK``
    the closing mark, then an optional newline.

This module only turns text into a `MarlboroGame` and back; what the moves mean (and
whether they really lead to the result) is `lightcycle.replay.convert`'s business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lightcycle.formats.errors import FormatError, show
from lightcycle.formats.gridtext import GridText, read_side

MARK = "+OK"
MOVE_CHARS = " NESW"
"""Per player per turn: a space (no valid move), then the four headings."""
RESULTS = ("1", "2", "D")
_CELLS = "# 12"
_SIDES = re.compile(r"(\S+) (\S+)")


@dataclass(frozen=True)
class MarlboroGame:
    """What a tron-engine replay says.

    Attributes:
        grid: the room; ``starts`` are where ``1`` and ``2`` stand.
        names: the two players' names.
        moves: per turn, player 1's and player 2's characters from `MOVE_CHARS`.
        result: ``"1"``, ``"2"`` or ``"D"``.

    Raises:
        ValueError: for fields the format cannot hold (a name with ``|`` or a line break,
            a move character outside `MOVE_CHARS`, a result other than `RESULTS`, a grid
            without exactly two starts).
    """

    grid: GridText
    names: tuple[str, str]
    moves: tuple[tuple[str, str], ...]
    result: str

    def __post_init__(self) -> None:
        if len(self.grid.starts) != 2:
            raise ValueError(f"a tron-engine room has 2 starts, not {len(self.grid.starts)}")
        for name in self.names:
            if "|" in name or "\n" in name or "\r" in name:
                raise ValueError(f"player name {name!r} cannot hold '|' or a line break")
        for turn, pair in enumerate(self.moves, start=1):
            if len(pair) != 2 or any(len(c) != 1 or c not in MOVE_CHARS for c in pair):
                raise ValueError(f"turn {turn}: moves {pair!r} are not two of {MOVE_CHARS!r}")
        if self.result not in RESULTS:
            raise ValueError(f"result {self.result!r} is not one of {', '.join(RESULTS)}")


class _Cursor:
    """Offsets in the text turned into (line, column), for error messages."""

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source

    def where(self, offset: int) -> tuple[int, int]:
        line = self.text.count("\n", 0, offset) + 1
        column = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        return line, column

    def error(self, offset: int, expected: str, found: str) -> FormatError:
        line, column = self.where(offset)
        return FormatError(self.source, line, column, expected, found)


def parse_marlboro(text: str, source: str = "<string>") -> MarlboroGame:
    """Read a tron-engine replay.

    Windows line ends and a byte order mark are accepted; anything else out of place is
    an error that points at it.

    Raises:
        FormatError: at the first problem, with its line, column and what was expected.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n")
    at = _Cursor(text, source)
    fields: list[tuple[int, str]] = []  # (offset, text)
    start = 0
    while True:
        bar = text.find("|", start)
        if bar < 0:
            fields.append((start, text[start:]))
            break
        fields.append((start, text[start:bar]))
        start = bar + 1
    names = ("'+OK'", "'W H'", "the rows", "name 1", "name 2", "the moves", "the result", "'+OK'")
    if len(fields) < len(names):
        offset = len(text.rstrip("\n"))
        raise at.error(
            offset,
            f"{names[len(fields)]} after '|' (8 fields separated by '|')",
            "end of file",
        )
    if len(fields) > len(names):
        raise at.error(fields[len(names)][0] - 1, "end of record after the closing '+OK'", "'|'")
    (
        (o_open, opening),
        (o_size, size),
        (o_rows, rows),
        (_, name1),
        (_, name2),
        (o_moves, moves),
        (o_result, result),
        (o_close, closing),
    ) = fields
    if opening != MARK:
        raise at.error(o_open, "'+OK|' at the start of the file", show(opening))
    m = _SIDES.fullmatch(size)
    if m is None:
        raise at.error(o_size, "'WIDTH HEIGHT' between the first two '|'", show(size))
    width = read_side(m.group(1), source, *at.where(o_size), "WIDTH")
    height = read_side(m.group(2), source, *at.where(o_size + m.start(2)), "HEIGHT")
    grid = _read_rows(rows, o_rows, width, height, at)
    for offset, name in ((fields[3][0], name1), (fields[4][0], name2)):
        breaks = [k for k, ch in enumerate(name) if ch in "\r\n"]
        if breaks:
            raise at.error(offset + breaks[0], "a player name on one line", "a line break")
    if len(moves) % 2:
        raise at.error(
            o_moves + len(moves),
            "an even number of move characters (two per turn)",
            f"{len(moves)} characters",
        )
    for k, ch in enumerate(moves):
        if ch not in MOVE_CHARS:
            raise at.error(o_moves + k, "a move: one of ' ', 'N', 'E', 'S', 'W'", show(ch))
    if result not in RESULTS:
        raise at.error(o_result, "the result '1', '2' or 'D'", show(result) if result else "'|'")
    if closing not in (MARK, MARK + "\n"):
        raise at.error(o_close, "'+OK' closing the record", show(closing))
    pairs = tuple((moves[i], moves[i + 1]) for i in range(0, len(moves), 2))
    return MarlboroGame(grid, (name1, name2), pairs, result)


def _read_rows(rows: str, offset: int, width: int, height: int, at: _Cursor) -> GridText:
    walls: set[tuple[int, int]] = set()
    found: dict[str, tuple[int, int]] = {}
    pos = offset
    lines = rows.split("\n")
    if lines[-1] != "":
        raise at.error(
            offset + len(rows), "a line break after the last row, then '|'", "'|' at its end"
        )
    lines.pop()
    for y, row in enumerate(lines):
        if y >= height:
            raise at.error(pos, f"'|' after {height} rows (the height)", show(row))
        for x, ch in enumerate(row):
            if x >= width:
                raise at.error(
                    pos + x, f"a line break after {width} characters (the width)", show(ch)
                )
            if ch not in _CELLS:
                raise at.error(pos + x, "one of '#', ' ', '1', '2'", show(ch))
            if ch == "#":
                walls.add((x, y))
            elif ch in "12":
                if ch in found:
                    raise at.error(pos + x, f"one {ch!r} in the room", f"a second {ch!r}")
                found[ch] = (x, y)
        if len(row) < width:
            raise at.error(pos + len(row), f"{width} characters per row (the width)", "end of line")
        pos += len(row) + 1
    if len(lines) < height:
        raise at.error(pos, f"{height} rows (the height)", f"'|' after {len(lines)} rows")
    for mark in "12":
        if mark not in found:
            raise at.error(offset, f"a {mark!r} in the room (player {mark}'s start)", "none")
    return GridText(width, height, frozenset(walls), (found["1"], found["2"]))


def format_marlboro(game: MarlboroGame) -> str:
    """Write ``game`` as a tron-engine replay (``\\n`` line ends, final newline included)."""
    grid = game.grid
    rows = "".join(row + "\n" for row in grid.rows("#", " ", "12"))
    moves = "".join(a + b for a, b in game.moves)
    return (
        f"{MARK}|{grid.width} {grid.height}|{rows}|{game.names[0]}|{game.names[1]}|"
        f"{moves}|{game.result}|{MARK}\n"
    )

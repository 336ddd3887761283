"""How a grid board goes on a screen of a given size: full size, scaled down, or scrolled.

A terminal is often smaller than a board: the 64x48 team court needs 48 lines and an
80x24 terminal has 24. Cutting the board off hides half the game, so the board is drawn
one of two ways, chosen by who is watching:

- **scaled** (bots playing, replays): one character stands for a block of cells, the
  most telling thing in the block (a head, else a trail, else a wall, else floor). The
  whole board stays in view, which is what a spectator needs to see who is winning.
  An edge row or column that is all wall (the walls round a room) is drawn on a line of
  its own and the blocks start inside it: a block that took the wall row with the rows
  above it would show their trail or head in place of the wall, and a spectator would
  see a cycle outside the room.
- **scrolled** (a person playing): full-size cells, a window that follows the person's
  cycle. Steering needs every cell: a scaled board would hide the one-cell gap a
  player aims for, and what matters to the player is around their own head.

A board that fits is drawn as before: two columns per cell (a cell and a gap, so cells
look square), or one column per cell when two would not fit across.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fit:
    """Which cells are drawn, and how many to a character.

    Attributes:
        cols: screen columns per drawn character: 2 (a cell and a gap) or 1 (compact).
        sx: board columns per character (1: full size).
        sy: board rows per character (1: full size).
        x0, y0: the first board column and row drawn.
        x1, y1: one past the last board column and row drawn.
        frame: which edge lines (top, right, bottom, left) are drawn on their own
            although the board is scaled along them: the walls round the board, kept
            out of the blocks so no trail is ever drawn where the wall should be.
    """

    cols: int
    sx: int
    sy: int
    x0: int
    y0: int
    x1: int
    y1: int
    frame: tuple[bool, bool, bool, bool] = (False, False, False, False)

    @property
    def scaled(self) -> bool:
        """Whether a character stands for more than one cell."""
        return self.sx > 1 or self.sy > 1

    def row_blocks(self) -> list[tuple[int, int]]:
        """The board rows each line stands for, as ``(first, one past last)``, top first."""
        top, _, bottom, _ = self.frame
        return _blocks(self.y0, self.y1, self.sy, top, bottom)

    def column_blocks(self) -> list[tuple[int, int]]:
        """The board columns each character stands for, as ``(first, one past last)``."""
        _, right, _, left = self.frame
        return _blocks(self.x0, self.x1, self.sx, left, right)

    def scrolled(self, width: int, height: int) -> bool:
        """Whether only part of a ``width`` x ``height`` board is drawn."""
        return (self.x0, self.y0, self.x1, self.y1) != (0, 0, width, height)

    def note(self, width: int, height: int) -> str:
        """A line saying how the board is shown, or "" when it is shown whole at full size.

        ``board 64x48 scaled: 1 character = 1x3 cells`` or
        ``rows 11-31 of 50, columns 1-50 of 50: the view follows you``.
        """
        if self.scaled:
            return f"board {width}x{height} scaled: 1 character = {self.sx}x{self.sy} cells"
        if self.scrolled(width, height):
            return (
                f"rows {self.y0 + 1}-{self.y1} of {height}, columns {self.x0 + 1}-{self.x1} "
                f"of {width}: the view follows you"
            )
        return ""


def _blocks(start: int, stop: int, step: int, first: bool, last: bool) -> list[tuple[int, int]]:
    """``start..stop`` cut into blocks of ``step``, the ``first`` and ``last`` line (the
    walls round the board) each a block of its own, the inside blocked from the line
    after the first; the inside's last block may be short."""
    head = [(start, start + 1)] if first else []
    tail = [(stop - 1, stop)] if last else []
    lo, hi = start + first, stop - last
    return [*head, *((a, min(a + step, hi)) for a in range(lo, hi, step)), *tail]


def walled_edges(width: int, height: int, walls: int) -> tuple[bool, bool, bool, bool]:
    """Which edge lines of a ``width`` x ``height`` grid are wall from end to end.

    Returns ``(top, right, bottom, left)``; ``walls`` is the board's wall bitmask (cell
    ``y * width + x``).
    """
    row = (1 << width) - 1
    column = sum(1 << (y * width) for y in range(height))
    return (
        walls & row == row,
        (walls >> (width - 1)) & column == column,
        (walls >> ((height - 1) * width)) & row == row,
        walls & column == column,
    )


def _scale(size: int, shown: int, first: bool, last: bool) -> tuple[int, bool, bool]:
    """Cells per character for ``size`` cells in ``shown`` characters, and which of the
    two edge lines to draw on their own: both walled edges when the inside still gets a
    character (never on a board that fits, where no block crosses an edge)."""
    if size <= shown:
        return 1, False, False
    edges = int(first) + int(last)
    if edges and size - edges >= 1 and shown - edges >= 1:
        return -(-(size - edges) // (shown - edges)), first, last
    return -(-size // max(1, shown)), False, False


def full(width: int, height: int, compact: bool = False) -> Fit:
    """The whole board at full size."""
    return Fit(1 if compact else 2, 1, 1, 0, 0, width, height)


def _window(size: int, shown: int, centre: int) -> tuple[int, int]:
    """``shown`` of ``size`` cells around ``centre``, moved in quarter-window steps: the
    view jumps now and then instead of sliding under the player every turn, and the
    followed cell stays at least a quarter of the window from its edges."""
    step = max(1, shown // 4)
    start = (centre - shown // 2 + step // 2) // step * step
    start = max(0, min(size - shown, start))
    return start, start + shown


def fit_board(
    width: int,
    height: int,
    cols: int,
    rows: int | None = None,
    follow: int | None = None,
    walls: int = 0,
) -> Fit:
    """Lay a ``width`` x ``height`` grid out in ``cols`` columns and ``rows`` lines.

    Args:
        width: board columns.
        height: board rows.
        cols: screen columns available.
        rows: screen lines available for the board (``None``: as many as it takes, for
            a board printed once rather than redrawn in place).
        follow: a cell to keep in view: the board is then scrolled, never scaled (see
            the module docstring).
        walls: the board's wall bitmask, so that a scaled board keeps the walls round it
            on lines of their own (`walled_edges`); without it the blocks run from the
            board's edge and a trail beside a wall is drawn on the wall's line.
    """
    cols = max(1, cols)
    cell_cols = 2 if 2 * width <= cols else 1
    fits_across = width * cell_cols <= cols
    fits_down = rows is None or height <= rows
    if fits_across and fits_down:
        return full(width, height, compact=cell_cols == 1)
    if follow is not None:
        shown_w = width if fits_across else cols // cell_cols
        shown_h = height if rows is None or fits_down else max(1, rows)
        x0, x1 = _window(width, shown_w, follow % width)
        y0, y1 = _window(height, shown_h, follow // width)
        return Fit(cell_cols, 1, 1, x0, y0, x1, y1)
    top, right, bottom, left = walled_edges(width, height, walls)
    sx, left, right = _scale(width, cols, left, right)
    sy, top, bottom = _scale(height, height if rows is None else rows, top, bottom)
    return Fit(1, sx, sy, 0, 0, width, height, (top, right, bottom, left))

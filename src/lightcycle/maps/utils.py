"""The Scheme course's board utilities, for bot authors who think in ``(x, y)`` pairs.

The Indiana CSCI-B351 Tron API gave brains a board as a size ``(w . h)``, a list of wall
positions ``((x . y) ...)`` and positions ``(x . y)``, with ``x`` the column, ``y`` the
row, origin top-left, on a torus. These functions keep those shapes and meanings
(``get-pos``, ``make-outer-walls``, ``valid-size?`` ...) with Python tuples, so code ported
from the course reads the same; the engine itself works on cell numbers
(``y * width + x``, see `lightcycle.core.topology`).

Unlike the Scheme ``valid-*?`` predicates, the ``check_*`` functions raise a `MapError`
that names the bad value and what would have been valid.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, overload

from lightcycle.core.bitset import from_cells
from lightcycle.core.state import Board
from lightcycle.core.topology import GridTopology, Heading
from lightcycle.maps.fairness import fair_game
from lightcycle.maps.spec import MapError

Pos = tuple[int, int]
"""A position ``(x, y)``: column, row, from the top-left."""
Size = tuple[int, int]
"""A board size ``(width, height)``."""
Move = str | int | Heading
"""A move: ``n``/``e``/``s``/``w`` (or the word), the 2010 numbers 1-4, or a `Heading`."""

_STEP = {Heading.N: (0, -1), Heading.E: (1, 0), Heading.S: (0, 1), Heading.W: (-1, 0)}


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_size(size: object) -> Size:
    """Return ``size`` if it is a pair of positive integers ``(width, height)``.

    Raises:
        MapError: naming the bad value.
    """
    if (
        isinstance(size, tuple | list)
        and len(size) == 2
        and _is_int(size[0])
        and _is_int(size[1])
        and size[0] > 0
        and size[1] > 0
    ):
        return int(size[0]), int(size[1])
    raise MapError(
        f"invalid board size {size!r}: expected a pair (width, height) of positive integers"
    )


def check_position(size: object, pos: object, what: str = "position") -> Pos:
    """Return ``pos`` if it is an ``(x, y)`` pair of integers on a board of ``size``.

    Args:
        size: the board size.
        pos: the position to check.
        what: what the position is, for the message (``wall``, ``player 1 start`` ...).

    Raises:
        MapError: naming the bad value and the valid range.
    """
    w, h = check_size(size)
    if (
        isinstance(pos, tuple | list)
        and len(pos) == 2
        and _is_int(pos[0])
        and _is_int(pos[1])
        and 0 <= pos[0] < w
        and 0 <= pos[1] < h
    ):
        return int(pos[0]), int(pos[1])
    raise MapError(
        f"invalid {what} {pos!r}: expected a pair (x, y) of integers with "
        f"0 <= x < {w} and 0 <= y < {h}"
    )


def check_walls(size: object, walls: object) -> list[Pos]:
    """Return ``walls`` as a list if every item is a position on a board of ``size``.

    Raises:
        MapError: naming the first bad wall and its index, or saying that ``walls`` is
            not a list of positions.
    """
    check_size(size)
    if isinstance(walls, str | bytes) or not isinstance(walls, Iterable):
        raise MapError(f"invalid walls {walls!r}: expected a list of (x, y) positions")
    return [check_position(size, p, f"wall #{i}") for i, p in enumerate(walls)]


def valid_size(size: object) -> bool:
    """Like Scheme ``valid-size?``: a pair of positive integers."""
    try:
        check_size(size)
    except MapError:
        return False
    return True


def valid_position(size: object, pos: object) -> bool:
    """Like Scheme ``valid-position?``: integers with ``0 <= x < w`` and ``0 <= y < h``."""
    try:
        check_position(size, pos)
    except MapError:
        return False
    return True


def valid_walls(size: object, walls: object) -> bool:
    """Like Scheme ``valid-walls?``: a list of valid positions."""
    try:
        check_walls(size, walls)
    except MapError:
        return False
    return True


@overload
def get_pos(move: Move, pos: Pos, size: Size, wrap: Literal[True] = True) -> Pos: ...
@overload
def get_pos(move: Move, pos: Pos, size: Size, wrap: bool) -> Pos | None: ...
def get_pos(move: Move, pos: Pos, size: Size, wrap: bool = True) -> Pos | None:
    """Return the position one ``move`` away from ``pos``, like Scheme ``get-pos``.

    Args:
        move: ``n``/``e``/``s``/``w`` (any case, or the full word), ``1``-``4`` (the 2010
            numbers for N, E, S, W) or a `Heading`. North is towards row 0.
        pos: the current ``(x, y)``.
        size: ``(width, height)``.
        wrap: on a torus (the course's board) a move off one edge comes back on the
            opposite edge; with ``wrap=False`` such a move gives ``None``.

    Raises:
        MapError: for an unknown move, a bad size or a position off the board.
    """
    w, h = check_size(size)
    x, y = check_position(size, pos)
    try:
        heading = Heading.parse(move)
    except ValueError:
        raise MapError(
            f"invalid move {move!r}: expected n, e, s or w (or north ... west, or 1-4)"
        ) from None
    dx, dy = _STEP[heading]
    nx, ny = x + dx, y + dy
    if wrap:
        return nx % w, ny % h
    if 0 <= nx < w and 0 <= ny < h:
        return nx, ny
    return None


def make_outer_walls(size: Size) -> list[Pos]:
    """The border of a ``(width, height)`` board, each cell once, like ``make-outer-walls``.

    The order follows the Scheme procedure (top row, bottom row, left column, right
    column, each in increasing order), but corners are not repeated.

    Raises:
        MapError: for a bad size.
    """
    w, h = check_size(size)
    cells = (
        [(x, 0) for x in range(w)]
        + [(x, h - 1) for x in range(w)]
        + [(0, y) for y in range(h)]
        + [(w - 1, y) for y in range(h)]
    )
    return list(dict.fromkeys(cells))


def board_from_walls(size: Size, walls: Iterable[Pos], wrap: bool = True) -> Board:
    """Build an engine `Board` from a size and a wall list (a torus unless ``wrap=False``).

    Raises:
        MapError: for a bad size or wall.
    """
    w, h = check_size(size)
    cells = check_walls(size, list(walls))
    return Board(GridTopology(w, h, wrap=wrap), from_cells(y * w + x for x, y in cells))


def is_fair_game(size: Size, walls: Iterable[Pos], pos1: Pos, pos2: Pos, wrap: bool = True) -> bool:
    """The Scheme ``fair-game?`` the course left unwritten, via `fair_game`.

    Fair means a symmetry of the board maps the walls onto themselves and swaps the two
    starts, or failing that both players reach nearly as many cells first.

    Raises:
        MapError: for a bad size, wall or position, or two equal positions.
    """
    board = board_from_walls(size, walls, wrap)
    w = check_size(size)[0]
    p1 = check_position(size, pos1, "player 1 position")
    p2 = check_position(size, pos2, "player 2 position")
    if p1 == p2:
        raise MapError(f"both players start at {p1}")
    return fair_game(board, ((p1[1] * w + p1[0],), (p2[1] * w + p2[0],))).is_fair

"""Fitting a grid to a screen: the blocks a scaled board is cut into keep its walls apart."""

from __future__ import annotations

import pytest

from lightcycle.maps.registry import get_map
from lightcycle.render.fit import Fit, fit_board, walled_edges
from tests.conftest import grid_map


def _covers(blocks: list[tuple[int, int]], size: int) -> bool:
    """Whether ``blocks`` cut ``0..size`` into consecutive, non-empty pieces."""
    ends = [b for _, b in blocks]
    starts = [a for a, _ in blocks]
    return (
        starts[0] == 0
        and ends[-1] == size
        and starts[1:] == ends[:-1]
        and all(a < b for a, b in blocks)
    )


def test_walled_edges_are_the_sides_that_are_wall_end_to_end() -> None:
    room = get_map("arena-50").board
    assert walled_edges(50, 50, room.walls) == (True, True, True, True)
    torus = get_map("torus-20").board  # two wall cells on each edge: not a wall round it
    assert walled_edges(20, 20, torus.walls) == (False, False, False, False)
    door = grid_map(["#####", "#...#", "#...#", "##.##"]).board  # a gap in the bottom wall
    assert walled_edges(5, 4, door.walls) == (True, True, False, True)
    halls = grid_map(["#####", ".....", "#####"]).board  # open to the left and right
    assert walled_edges(5, 3, halls.walls) == (True, False, True, False)


@pytest.mark.parametrize(
    ("width", "height", "cols", "rows"),
    [(64, 48, 80, 16), (64, 48, 33, 10), (50, 50, 80, 21), (51, 49, 37, 12), (31, 21, 20, 7)],
)
def test_a_scaled_room_keeps_its_walls_on_lines_of_their_own(
    width: int, height: int, cols: int, rows: int
) -> None:
    # before, the blocks ran from the board's edge: the court's last line took the wall
    # row with the two rows above it, and a trail there was drawn in place of the wall
    walls = get_map("arena-50").board.walls if (width, height) == (50, 50) else 0
    if not walls:
        walls = grid_map(
            ["#" * width] + ["#" + "." * (width - 2) + "#"] * (height - 2) + ["#" * width]
        ).board.walls
    f = fit_board(width, height, cols, rows, walls=walls)
    assert f.scaled and f.frame == (f.sy > 1, f.sx > 1, f.sy > 1, f.sx > 1)
    lines, chars = f.row_blocks(), f.column_blocks()
    assert len(lines) <= rows and len(chars) <= cols  # still fits the screen
    assert _covers(lines, height) and _covers(chars, width)  # every cell drawn, once
    for blocks, size in ((lines, height), (chars, width)):
        if len(blocks) < size:  # scaled this way: the walls alone, the inside apart
            assert blocks[0] == (0, 1) and blocks[-1] == (size - 1, size)
            assert all(a > 0 and b < size for a, b in blocks[1:-1])


def test_only_walled_sides_get_a_line_of_their_own() -> None:
    halls = grid_map(["#" * 40, *["." * 40] * 28, "#" * 40]).board
    f = fit_board(40, 30, 20, 10, walls=halls.walls)
    assert f.frame == (True, False, True, False)
    assert f.column_blocks()[0] == (0, 2)  # open sides are blocked as before
    assert f.row_blocks()[0] == (0, 1) and f.row_blocks()[-1] == (29, 30)


def test_boards_that_fit_or_are_followed_are_not_framed() -> None:
    walls = get_map("arena-50").board.walls
    assert fit_board(50, 50, 120, 60, walls=walls).frame == (False,) * 4
    assert fit_board(50, 50, 80, 20, follow=60, walls=walls).frame == (False,) * 4
    # scaled down one way only: the other way stays cell for cell, with no frame
    f = fit_board(50, 50, 80, 20, walls=walls)
    assert (f.sx, f.frame) == (1, (True, False, True, False))
    assert f.column_blocks() == [(x, x + 1) for x in range(50)]


def test_a_screen_too_small_for_a_frame_is_blocked_as_before() -> None:
    walls = get_map("arena-50").board.walls
    f = fit_board(50, 50, 2, 2, walls=walls)  # no line left for the inside
    assert f.frame == (False,) * 4 and len(f.row_blocks()) <= 2
    assert Fit(1, 3, 3, 0, 0, 7, 7).row_blocks() == [(0, 3), (3, 6), (6, 7)]

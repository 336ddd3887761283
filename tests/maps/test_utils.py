"""The Scheme course's board utilities behave like the Scheme procedures."""

from __future__ import annotations

import pytest

from lightcycle.core.topology import Heading
from lightcycle.maps.spec import MapError
from lightcycle.maps.utils import (
    board_from_walls,
    check_position,
    check_size,
    check_walls,
    get_pos,
    is_fair_game,
    make_outer_walls,
    valid_position,
    valid_size,
    valid_walls,
)


@pytest.mark.parametrize(
    ("move", "expected"),
    [("n", (3, 1)), ("e", (4, 2)), ("s", (3, 3)), ("w", (2, 2))],
)
def test_get_pos_moves_like_the_scheme_version(move: str, expected: tuple[int, int]) -> None:
    assert get_pos(move, (3, 2), (10, 5)) == expected


def test_get_pos_wraps_on_the_torus() -> None:
    size = (37, 10)
    assert get_pos("n", (5, 0), size) == (5, 9)
    assert get_pos("s", (5, 9), size) == (5, 0)
    assert get_pos("w", (0, 4), size) == (36, 4)
    assert get_pos("e", (36, 4), size) == (0, 4)


def test_get_pos_without_wrap_leaves_the_board() -> None:
    assert get_pos("n", (5, 0), (10, 10), wrap=False) is None
    assert get_pos("e", (9, 3), (10, 10), wrap=False) is None
    assert get_pos("s", (5, 0), (10, 10), wrap=False) == (5, 1)


@pytest.mark.parametrize("move", ["N", "north", 1, "1", Heading.N])
def test_get_pos_accepts_every_move_form(move: str | int | Heading) -> None:
    assert get_pos(move, (1, 1), (3, 3)) == (1, 0)


def test_get_pos_errors() -> None:
    with pytest.raises(MapError, match="invalid move 'up'"):
        get_pos("up", (1, 1), (3, 3))
    with pytest.raises(MapError, match=r"invalid position \(3, 1\)"):
        get_pos("n", (3, 1), (3, 3))


def test_make_outer_walls() -> None:
    walls = make_outer_walls((37, 10))
    assert len(walls) == len(set(walls)) == 2 * 37 + 2 * 10 - 4
    assert walls[:3] == [(0, 0), (1, 0), (2, 0)]
    assert all(x in (0, 36) or y in (0, 9) for x, y in walls)
    assert make_outer_walls((1, 1)) == [(0, 0)]
    assert sorted(make_outer_walls((2, 2))) == [(0, 0), (0, 1), (1, 0), (1, 1)]


@pytest.mark.parametrize("size", [(0, 5), (5, -1), (5,), "5x5", (5.0, 5), (True, 5), None])
def test_bad_sizes(size: object) -> None:
    assert not valid_size(size)
    with pytest.raises(MapError, match="invalid board size"):
        check_size(size)


def test_good_size() -> None:
    assert valid_size((37, 10)) and valid_size([1, 1])
    assert check_size([4, 5]) == (4, 5)


def test_positions() -> None:
    assert valid_position((5, 3), (4, 2))
    assert valid_position((5, 3), (0, 0))
    for bad in [(5, 2), (-1, 0), (0, 3), (1,), "ab", (1.0, 1)]:
        assert not valid_position((5, 3), bad)
    with pytest.raises(MapError, match=r"invalid player 1 start \(5, 2\).*0 <= x < 5"):
        check_position((5, 3), (5, 2), "player 1 start")


def test_walls() -> None:
    assert valid_walls((5, 5), make_outer_walls((5, 5)))
    assert valid_walls((5, 5), [])
    assert not valid_walls((5, 5), [(0, 0), (5, 5)])
    assert not valid_walls((5, 5), "walls")
    with pytest.raises(MapError, match=r"invalid wall #1 \(5, 5\)"):
        check_walls((5, 5), [(0, 0), (5, 5)])
    with pytest.raises(MapError, match="list of"):
        check_walls((5, 5), 7)


def test_board_from_walls_is_a_torus_by_default() -> None:
    board = board_from_walls((4, 3), [(1, 1)])
    assert board.topology.describe() == "4x3 torus"
    assert board.is_wall(5)


def test_is_fair_game() -> None:
    size = (37, 10)
    walls = make_outer_walls(size)
    assert is_fair_game(size, walls, (1, 1), (35, 8))
    assert not is_fair_game(size, walls, (1, 1), (3, 1))
    with pytest.raises(MapError, match="both players"):
        is_fair_game(size, walls, (1, 1), (1, 1))

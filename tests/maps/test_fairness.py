"""fair_game: symmetry detection, territory balance, and the forms it accepts."""

from __future__ import annotations

import pytest

from lightcycle.core.bitset import from_cells
from lightcycle.core.state import Board
from lightcycle.core.topology import GraphTopology, GridTopology
from lightcycle.maps.fairness import board_symmetries, fair_game, territories
from lightcycle.maps.io import map_from_text
from lightcycle.maps.spec import MapError
from lightcycle.maps.utils import make_outer_walls


def grid_board(rows: list[str], wrap: bool = False) -> tuple[Board, tuple[tuple[int], ...]]:
    """Build a board from ``#``/``.`` rows with digits 1-9 as starts."""
    width = len(rows[0])
    walls = [y * width + x for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "#"]
    marks = sorted(
        (ch, y * width + x)
        for y, row in enumerate(rows)
        for x, ch in enumerate(row)
        if ch.isdigit()
    )
    board = Board(GridTopology(width, len(rows), wrap), from_cells(walls))
    return board, tuple((cell,) for _, cell in marks)


def test_asymmetric_map_is_detected() -> None:
    board, starts = grid_board(
        [
            "#########",
            "#1......#",
            "#..##...#",
            "#.......#",
            "#......2#",
            "#########",
        ]
    )
    report = fair_game(board, starts)
    assert not report.symmetric
    assert report.symmetries == ()
    assert report.balance < 1
    assert report.territory[0] != report.territory[1]


def test_unfair_starts_on_a_symmetric_board() -> None:
    board, starts = grid_board(
        [
            "########",
            "#1.....#",
            "#......#",
            "#......#",
            "#...2..#",
            "########",
        ]
    )
    report = fair_game(board, starts)
    assert not report.symmetric and not report.is_fair
    assert "point-reflection" in report.wall_symmetries
    assert report.balance < 0.95


def test_point_symmetric_map() -> None:
    board, starts = grid_board(
        [
            "#########",
            "#1..#...#",
            "#..###..#",
            "#...#..2#",
            "#########",
        ]
    )
    report = fair_game(board, starts)
    assert report.symmetric and report.is_fair
    assert report.symmetries == ("point-reflection",)
    assert report.permutations == ((1, 0),)
    assert report.territory[0] == report.territory[1]
    assert report.balance == 1.0


def test_names_of_square_symmetries() -> None:
    board, starts = grid_board(["1....", ".....", ".....", ".....", "....2"])
    report = fair_game(board, starts)
    # The diagonal from 1 to 2 is fixed by the transpose; the other symmetries swap them.
    assert set(report.symmetries) == {"point-reflection", "transpose", "anti-transpose"}
    assert set(report.wall_symmetries) == {
        "mirror-vertical",
        "mirror-horizontal",
        "point-reflection",
        "rotate-90",
        "rotate-270",
        "transpose",
        "anti-transpose",
    }
    assert report.symmetric


def test_mirror_names() -> None:
    left_right, starts = grid_board(["#....#", "#1..2#", "#....#"])
    assert "mirror-vertical" in fair_game(left_right, starts).symmetries
    top_bottom, starts = grid_board(["###", "#1#", "#.#", "#2#", "###"])
    assert "mirror-horizontal" in fair_game(top_bottom, starts).symmetries


def test_four_players_need_a_transitive_group() -> None:
    rows = [
        "#######",
        "#1...2#",
        "#.....#",
        "#.....#",
        "#.....#",
        "#3...4#",
        "#######",
    ]
    board, starts = grid_board(rows)
    assert fair_game(board, starts).symmetric
    # Two pairs that only swap among themselves are not enough.
    rows[1], rows[5] = "#1....#", "#....4#"
    rows[2], rows[4] = "#.2...#", "#...3.#"
    board, starts = grid_board(rows)
    report = fair_game(board, starts)
    assert "point-reflection" in report.symmetries
    assert not report.symmetric


def test_torus_translations() -> None:
    board, starts = grid_board(["1...", "....", "..2.", "...."], wrap=True)
    report = fair_game(board, starts)
    assert "translate(2,2)" in report.symmetries
    assert report.symmetric


def test_torus_territory_wraps() -> None:
    board, starts = grid_board(["1.........2"], wrap=True)
    territory, contested = territories(board, [list(s) for s in starts])
    # Around the ring the two are 1 and 10 steps apart: each owns half the ring.
    assert territory == (5, 5) and contested == 1


def test_board_symmetries_counts() -> None:
    assert len(board_symmetries(GridTopology(5, 5))) == 8
    assert len(board_symmetries(GridTopology(5, 3))) == 4
    assert len(board_symmetries(GridTopology(4, 3, wrap=True))) == 4 * 12


def test_graph_boards_get_territory_only() -> None:
    path = Board(GraphTopology(7, [(i, i + 1) for i in range(6)]))
    report = fair_game(path, [0, 6])
    assert report.symmetries == ()
    assert not report.symmetric
    assert report.territory == (3, 3) and report.contested == 1
    assert report.is_fair
    lopsided = fair_game(path, [0, 2])
    assert lopsided.territory == (1, 5) and not lopsided.is_fair


def test_accepted_forms() -> None:
    spec = map_from_text("5 3\n#####\n#1 2#\n#####\n")
    expected = fair_game(spec)
    assert fair_game((spec.board, spec.starts)) == expected
    assert fair_game(spec.board, spec.starts) == expected
    assert fair_game(spec.board, [c for (c,) in spec.starts]) == expected
    assert "fair: symmetric" in str(expected)


def test_no_starts_is_a_map_error() -> None:
    board = Board(GridTopology(6, 6), from_cells(y * 6 + x for x, y in make_outer_walls((6, 6))))
    with pytest.raises(MapError, match="needs starts"):
        fair_game(board)


def test_team_starts() -> None:
    board, _ = grid_board(["......", "......", "......", "......"])
    teams = ((0, 6), (23, 17))
    report = fair_game(board, teams)
    assert report.symmetric and "point-reflection" in report.symmetries

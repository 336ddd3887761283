"""Boards as text: walls, trails and heads tell apart without colour; boards fit a screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightcycle.core.bitset import from_cells
from lightcycle.core.moves import Move
from lightcycle.core.state import GameState
from lightcycle.maps.registry import get_map
from lightcycle.referee.local import default_ruleset
from lightcycle.render.fit import fit_board
from lightcycle.render.text import (
    board_string,
    board_text,
    cycle_label,
    death_detail,
    status_line,
    team_labels,
)
from lightcycle.rules.engine import new_game, step
from tests.conftest import graph_map, grid_map

VECTORS = Path(__file__).with_name("vectors")


def test_unicode_and_ascii_boards() -> None:
    s = new_game("classic", grid_map(["#####", "#1.2#", "#####"]))
    assert board_string(s).splitlines() == ["█████████", "█ A · B █", "█████████"]
    assert board_string(s, unicode=False).splitlines()[1] == "# A . B #"


def test_trails_read_apart_from_walls_without_colour() -> None:
    # before: a trail was drawn with the wall's glyph (⊠, # in ASCII), told apart only by
    # colour; now it is its cycle's letter in lower case, leading back to the head
    s = new_game("classic", grid_map(["######", "#1..2#", "######"]))
    s = step(s, {0: Move(0, 8), 1: Move(1, 9)})
    row = board_string(s, unicode=False).splitlines()[1]
    assert row == "# a A B b #"
    assert board_string(s).splitlines()[1] == "█ a A B b █"
    plain = board_text(s, unicode=False, color=False).plain
    assert plain.count("#") == 2 * 6 + 2  # only the walls


def test_dead_cycles_and_trails() -> None:
    s = new_game("classic", grid_map(["######", "#1..2#", "######"]))
    s = step(s, {0: Move(0, 8), 1: Move(1, 4)})
    assert board_string(s).splitlines()[1] == "█ a A · ✖ █"
    assert board_string(s, unicode=False).splitlines()[1] == "# a A . * #"
    assert "B Player 2: dead (wall)" in status_line(s)


def test_letters_beyond_two_players() -> None:
    s = new_game("ffa", grid_map(["1.2", "...", "3.4"]))
    assert board_string(s, unicode=False).splitlines()[0] == "A . B"


def test_the_player_is_marked_on_the_board_and_in_the_status_line() -> None:
    s = new_game("classic", grid_map(["#####", "#1.2#", "#####"]))
    assert board_string(s).splitlines()[1] == "█ A · B █"
    board = board_text(s, color=False, you=[1]).plain
    assert board.splitlines()[1] == "█ A · @ █"
    assert status_line(s, you=[1]) == "turn 0 | A Player 1: alive | @ you (Player 2): alive"


def test_team_cycles_go_by_their_letters_everywhere() -> None:
    spec = get_map("court")
    s = new_game(default_ruleset(spec, 2), spec, seed=0, players=2)
    assert [cycle_label(c) for c in s.cycles] == [chr(ord("A") + i) for i in range(20)]
    assert team_labels(s, 0) == "A-J" and team_labels(s, 1) == "K-T"
    assert "A-J Player 1: 10/10 left" in status_line(s)
    # the rules write numbers (replays keep that text); people read the board's letters
    assert death_detail(s, "with cycle 13: more CPU time") == "with cycle N: more CPU time"
    assert death_detail(s, "with cycle 0, 19") == "with cycle A, T"
    assert death_detail(s, "with cycle 99") == "with cycle 99"  # not a cycle: as written


def test_a_board_that_fits_is_drawn_whole() -> None:
    assert fit_board(15, 15, 80, 20) == fit_board(15, 15, 80)
    f = fit_board(15, 15, 80, 20)
    assert (f.cols, f.sx, f.sy, f.x1, f.y1) == (2, 1, 1, 15, 15) and not f.note(15, 15)
    assert fit_board(50, 20, 80, 20).cols == 1  # compact: one column per cell


def test_the_court_is_scaled_to_an_80x24_terminal_not_cut() -> None:
    spec = get_map("court")  # 64x48
    s = new_game(default_ruleset(spec, 2), spec, seed=0, players=2)
    f = fit_board(64, 48, 80, 21, walls=s.board.walls)
    assert (f.sx, f.sy) == (1, 3)
    lines = board_text(s, color=False, fit=f).plain.splitlines()
    # the walls on lines of their own, the 46 rows inside them three to a line
    assert len(lines) == 1 + 16 + 1 and max(len(line) for line in lines) == 64
    assert lines[0] == "█" * 64 and lines[-1] == "█" * 64  # both walls still shown
    line_of = {y: n for n, (a, b) in enumerate(f.row_blocks()) for y in range(a, b)}
    for c in s.cycles:  # a head is never hidden by floor, wall or trail (two heads in
        # one character show one of them)
        assert lines[line_of[c.head // 64]][c.head % 64].isupper()
    assert f.note(64, 48) == "board 64x48 scaled: 1 character = 1x3 cells"


def _ringed(width: int, height: int) -> GameState:
    """A ``width`` x ``height`` room whose first cycle's trail runs round the inside of
    its walls, every cell of it beside a wall, and whose heads stand beside the walls."""
    rows = ["#" * width] + ["#" + "." * (width - 2) + "#"] * (height - 2) + ["#" * width]
    rows[1] = "#1" + rows[1][2:]
    rows[height - 2] = rows[height - 2][: width - 2] + "2#"
    s = new_game("classic", grid_map(rows))
    ring = [
        y * width + x
        for y in range(1, height - 1)
        for x in range(1, width - 1)
        if x in (1, width - 2) or y in (1, height - 2)
    ]
    a = s.cycles[0]._replace(trail=from_cells(ring))
    return s._replace(cycles=(a, *s.cycles[1:]))


@pytest.mark.parametrize(
    ("width", "height", "cols", "rows"),
    [
        (64, 48, 80, 21),  # the court on the play screen: scaled one way
        (64, 48, 80, 16),  # ... in the replay viewer
        (64, 48, 33, 10),  # both ways
        (50, 50, 40, 12),
        (51, 49, 37, 12),  # odd sizes: the inside's last block is short
        (31, 21, 20, 7),
        (41, 31, 13, 5),
        (9, 40, 60, 11),  # tall and narrow: scaled down only
        (120, 7, 50, 30),  # wide and flat: scaled across only
    ],
)
def test_a_scaled_room_draws_its_walls_as_walls_and_every_trail_inside(
    width: int, height: int, cols: int, rows: int
) -> None:
    # issue 38: in the scaled view a trail beside the bottom wall was drawn on the line
    # of the wall (and beside the top, left and right walls likewise, heads too), as if
    # the cycle had left the room
    s = _ringed(width, height)
    f = fit_board(width, height, cols, rows, walls=s.board.walls)
    assert f.scaled
    for unicode, wall in ((True, "█"), (False, "#")):
        lines = board_text(s, unicode=unicode, color=False, fit=f).plain.splitlines()
        assert len(lines) <= rows and max(len(line) for line in lines) <= cols
        assert lines[0] == lines[-1] == wall * len(lines[0])  # top and bottom walls
        assert all(line[0] == line[-1] == wall for line in lines)  # left and right
        inside = [line[1:-1] for line in lines[1:-1]]
        assert wall not in "".join(inside)  # a room with nothing inside its walls
        # the trail, every cell of it beside a wall, is drawn just inside on all sides
        for edge in (inside[0], inside[-1], [r[0] for r in inside], [r[-1] for r in inside]):
            assert set(edge) <= {"a", "A", "B"} and "a" in edge, edge
        assert "A" in inside[0] and "B" in inside[-1]  # heads beside the walls, inside


def test_the_scaled_court_as_text() -> None:
    s = _ringed(64, 48)
    f = fit_board(64, 48, 40, 21, walls=s.board.walls)
    expected = (VECTORS / "court_scaled_40x21.txt").read_text(encoding="utf-8")
    assert board_text(s, unicode=False, color=False, fit=f).plain + "\n" == expected


def test_a_player_on_a_big_board_is_followed_at_full_size() -> None:
    spec = get_map("arena-50")
    s = new_game(default_ruleset(spec, 2), spec, seed=0, players=2)
    me = s.cycles[0]
    f = fit_board(50, 50, 80, 20, follow=me.head)
    assert (f.sx, f.sy, f.y1 - f.y0, f.x1 - f.x0) == (1, 1, 20, 50)
    assert f.y0 <= me.head // 50 < f.y1
    text = board_text(s, color=False, fit=f, you=[0]).plain
    assert len(text.splitlines()) == 20 and "@" in text
    assert f.note(50, 50).endswith("the view follows you")
    # the window moves in steps, with the followed cell well inside it
    for y in range(50):
        g = fit_board(50, 50, 80, 20, follow=y * 50 + 5)
        assert g.y0 <= y < g.y1
        assert g.y0 == 0 or g.y1 == 50 or min(y - g.y0, g.y1 - 1 - y) >= 5


def test_graph_boards_draw_trails_with_their_cycles_letters() -> None:
    from lightcycle.rules.legal import legal_moves

    s = new_game("tron3d", graph_map(), players=2)
    moves = {c.index: legal_moves(s, c.index)[0] for c in s.cycles}
    s = step(s, moves)
    flat = board_string(s, unicode=False)
    for c in s.cycles:
        if c.alive:  # the head's letter, and the trail left behind it in lower case
            assert cycle_label(c) in flat and cycle_label(c).lower() in flat
    assert "#" not in flat  # no walls on this board: before, every trail was '#'

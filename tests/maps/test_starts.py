"""Start placement: seeded, symmetric where the board allows, always legal."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightcycle.core.bitset import from_cells
from lightcycle.core.state import Board
from lightcycle.core.topology import GraphTopology, GridTopology
from lightcycle.maps.fairness import fair_game
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapError
from lightcycle.maps.starts import place_starts, starts_for
from lightcycle.maps.utils import make_outer_walls


def walled(width: int, height: int, wrap: bool = False) -> Board:
    walls = [] if wrap else make_outer_walls((width, height))
    return Board(GridTopology(width, height, wrap), from_cells(y * width + x for x, y in walls))


def assert_legal(board: Board, starts: tuple[tuple[int, ...], ...], players: int) -> None:
    assert len(starts) == players
    cells = [group[0] for group in starts]
    assert all(len(group) == 1 for group in starts)
    assert len(set(cells)) == players
    assert not any(board.is_wall(c) for c in cells)
    topo = board.topology
    for i, a in enumerate(cells):
        for b in cells[i + 1 :]:
            assert not topo.is_neighbour(a, b), (a, b)


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5, 6, 8])
def test_same_seed_same_starts(players: int) -> None:
    board = walled(20, 14)
    first = place_starts(board, players, 42)
    assert place_starts(board, players, 42) == first
    assert_legal(board, first, players)


def test_seeds_vary_the_starts() -> None:
    board = walled(20, 20)
    assert len({place_starts(board, 2, seed) for seed in range(10)}) > 5


@pytest.mark.parametrize(("width", "height"), [(20, 20), (21, 21), (24, 15)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_players_are_point_symmetric(width: int, height: int, seed: int) -> None:
    board = walled(width, height)
    (a,), (b,) = place_starts(board, 2, seed)
    ax, ay = a % width, a // width
    assert b == (height - 1 - ay) * width + (width - 1 - ax)
    report = fair_game(board, ((a,), (b,)))
    assert report.symmetric and "point-reflection" in report.symmetries


@pytest.mark.parametrize("seed", range(4))
def test_four_players_on_a_square_are_rotations(seed: int) -> None:
    board = walled(18, 18)
    starts = place_starts(board, 4, seed)
    report = fair_game(board, starts)
    assert report.symmetric
    assert "rotate-90" in report.symmetries


def test_four_players_on_a_rectangle_mirror_both_ways() -> None:
    board = walled(24, 14)
    report = fair_game(board, place_starts(board, 4, 3))
    assert report.symmetric
    assert {"mirror-vertical", "mirror-horizontal"} <= set(report.symmetries)


def test_eight_players_on_a_square_form_one_orbit() -> None:
    board = walled(30, 30)
    report = fair_game(board, place_starts(board, 8, 5))
    assert report.symmetric
    assert len(report.symmetries) == 7


def test_placement_follows_the_walls_symmetry() -> None:
    # A board only symmetric left <-> right: the two starts mirror each other.
    board = walled(15, 11)
    extra = from_cells(y * 15 + x for x, y in [(7, 2), (7, 3), (3, 8), (11, 8)])
    board = Board(board.topology, board.walls | extra)
    report = fair_game(board, place_starts(board, 2, 9))
    assert report.symmetric
    assert "mirror-vertical" in report.symmetries


def test_torus_starts_are_symmetric() -> None:
    board = walled(16, 16, wrap=True)
    report = fair_game(board, place_starts(board, 2, 0))
    assert report.symmetric


def test_starts_share_one_open_area() -> None:
    # A wall splits the room; the big side holds both starts.
    board = walled(20, 10)
    split = from_cells(y * 20 + 5 for y in range(10))
    board = Board(board.topology, board.walls | split)
    for seed in range(5):
        for (cell,) in place_starts(board, 2, seed):
            assert cell % 20 > 5


@settings(max_examples=60, deadline=None)
@given(
    st.integers(4, 14),
    st.integers(4, 14),
    st.sets(st.integers(0, 195), max_size=60),
    st.integers(1, 6),
    st.integers(0, 2**32),
)
def test_any_board_gets_legal_starts_or_a_map_error(
    width: int, height: int, walls: set[int], players: int, seed: int
) -> None:
    topo = GridTopology(width, height)
    board = Board(topo, from_cells(c for c in walls if c < topo.size))
    try:
        starts = place_starts(board, players, seed)
    except MapError as err:
        assert "cannot place" in str(err)
    else:
        assert_legal(board, starts, players)


def test_graph_boards_spread_starts_far_apart() -> None:
    # A path of 9 nodes: two players go to the two ends.
    graph = Board(GraphTopology(9, [(i, i + 1) for i in range(8)]))
    starts = place_starts(graph, 2, 3)
    assert sorted(c for (c,) in starts) == [0, 8]
    assert place_starts(graph, 2, 3) == starts
    three = place_starts(graph, 3, 1)
    assert_legal(graph, three, 3)


def test_impossible_placements_are_map_errors() -> None:
    with pytest.raises(MapError, match="at least one"):
        place_starts(walled(5, 5), 0, 0)
    with pytest.raises(MapError, match="only 9 free cells"):
        place_starts(walled(5, 5), 10, 0)
    with pytest.raises(MapError, match="cannot place 2 starts"):
        place_starts(Board(GridTopology(2, 1)), 2, 0)


def test_starts_for_uses_the_maps_own_starts() -> None:
    ring = get_map("ring")
    assert starts_for(ring, 2, 7) == ring.starts
    with pytest.raises(MapError, match="is for 2 players, not 3"):
        starts_for(ring, 3, 0)


def test_starts_for_places_when_the_map_has_none_or_another_count() -> None:
    spec = get_map("open-random")
    starts = starts_for(spec, 2, 11)
    assert starts == place_starts(spec.board, 2, 11)
    assert fair_game(spec.board, starts).symmetric
    arena = get_map("arena-30")
    assert len(starts_for(arena, 4, 0)) == 4
    assert fair_game(arena.board, starts_for(arena, 4, 0)).symmetric

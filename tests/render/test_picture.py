"""Pictures of a state: grid colours, crosses on the dead, default sizes, the 3D view."""

from __future__ import annotations

import math

import pytest

from lightcycle.core.moves import Move
from lightcycle.render import palette
from lightcycle.render.picture import (
    BOARD_WIDTH,
    MIN_CELL,
    cross,
    default_cell,
    graph_picture,
    grid_picture,
    orbit,
    trail_paths,
)
from lightcycle.rules.engine import new_game, step
from tests.conftest import graph_map, grid_map


def test_grid_colours_heads_trails_walls_and_crosses() -> None:
    s = new_game("classic", grid_map(["######", "#1..2#", "######"]))
    s = step(s, {0: Move(0, 8), 1: Move(1, 4)})  # 0 moves east, 1 walks into the wall
    pic = grid_picture(s)
    assert (pic.width, pic.height) == (6, 3)
    assert pic.cells[0] == palette.WALL
    assert pic.cells[8] == palette.head(0)
    assert pic.cells[7] == palette.trail(0)
    assert pic.cells[9] == palette.FLOOR
    assert pic.crosses == ((s.cycles[1].head, palette.head(1)),)


def test_a_dead_cycle_keeps_its_cross_after_its_trail_is_removed() -> None:
    s = new_game("classic", grid_map(["######", "#1..2#", "######"]))
    s = step(s, {0: Move(0, 8), 1: Move(1, 4)})
    gone = s.cycles[1]._replace(trail=0)
    later = s._replace(turn=s.turn + 5, cycles=(s.cycles[0], gone))
    assert grid_picture(later).crosses == ((gone.head, palette.head(1)),)


def test_a_cross_is_wider_than_its_cell_and_outlined() -> None:
    small = cross(10, 10, 4, "#ffffff")
    assert small.arm * 2 >= 8  # at least two 4-pixel cells across
    assert small.outline > small.width
    assert small.strokes()[0] == (6, 6, 14, 14)


@pytest.mark.parametrize(
    ("width", "height", "cell"),
    [(15, 15, BOARD_WIDTH // 15), (64, 48, 10), (10, 10, 64), (400, 300, MIN_CELL), (20, 90, 8)],
)
def test_default_cells_draw_the_board_about_640_pixels_wide(
    width: int, height: int, cell: int
) -> None:
    rows = ["1" + "." * (width - 2) + "2"] + ["." * width] * (height - 1)
    assert default_cell(new_game("classic", grid_map(rows))) == cell
    assert default_cell(new_game("tron3d", graph_map())) == BOARD_WIDTH // 40


def test_the_palette_tells_teams_apart() -> None:
    assert len(set(palette.HEADS)) == len(palette.HEADS)
    assert set(palette.HEADS).isdisjoint(palette.TRAILS)
    assert palette.rgb("#0a10ff") == (10, 16, 255)
    assert palette.head(8) == palette.head(0)


def test_orbit_centres_and_turns() -> None:
    cube = [(x, y, z) for x in (0, 2) for y in (0, 2) for z in (0, 2)]
    flat = orbit(cube, 0.0, 0.0)
    assert sum(p[0] for p in flat) == pytest.approx(0.0)
    assert all(0.0 <= p[2] <= 1.0 for p in flat)
    turned = orbit(cube, math.pi / 2, 0.0)
    assert [round(p[0], 6) for p in turned] != [round(p[0], 6) for p in flat]
    # a quarter turn and three more come back to the start
    back = orbit(cube, 2 * math.pi, 0.0)
    assert [v for p in back for v in p] == pytest.approx([v for p in flat for v in p])


def test_graph_pictures_draw_every_node_and_edge() -> None:
    spec = graph_map()
    s = new_game("tron3d", spec)
    pic = graph_picture(s, size=400)
    assert len(pic.dots) == spec.topology.size
    assert len(pic.lines) == len(spec.topology.edges)
    heads = [d for d in pic.dots if d[3] == palette.head(0)]
    assert len(heads) == 2  # team 0 has two cycles
    assert all(0 <= d[0] <= 400 and 0 <= d[1] <= 400 for d in pic.dots)
    with pytest.raises(ValueError):
        grid_picture(s)


def test_graph_trails_follow_the_moves_made() -> None:
    """On a mesh, a trail is the path the cycle drove, not every edge between its nodes."""
    spec = graph_map(side=6)
    topo = spec.topology
    s0 = new_game("tron3d", spec)
    assert s0.cycles[0].head == 0
    # cycle 0 drives three sides of a square (west, north, east round the wrap); the
    # fourth side joins two of its nodes without being driven
    square = [0, 5, 35, 30]
    states = [s0]
    for k, node in enumerate(square[1:], start=1):  # the states the moves lead to
        trail = sum(1 << n for n in square[: k + 1])
        moved = states[-1].cycles[0]._replace(head=node, trail=trail)
        states.append(states[-1]._replace(turn=k, cycles=(moved, *s0.cycles[1:])))
    assert trail_paths(states)[0] == tuple(square)
    free = graph_picture(states[-1], size=400)
    along = graph_picture(states[-1], size=400, paths=trail_paths(states))
    colour = palette.trail(0)
    assert sum(line[4] == colour for line in free.lines) == 4  # the square closed
    assert sum(line[4] == colour for line in along.lines) == 3  # the three moves made
    assert (square[3], square[0]) in topo.edges or (square[0], square[3]) in topo.edges

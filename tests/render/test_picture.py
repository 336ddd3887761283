"""Pictures of a state: grid colours, crosses on the dead, the 3D projection."""

from __future__ import annotations

import math

import pytest

from lightcycle.core.moves import Move
from lightcycle.render import palette
from lightcycle.render.picture import graph_picture, grid_picture, orbit
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
    assert pic.crosses == (s.cycles[1].head,)


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

"""SVG images are well-formed XML with the picture's colours."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from lightcycle.core.moves import Move
from lightcycle.render import palette
from lightcycle.render.svg import state_svg
from lightcycle.rules.engine import new_game, step
from tests.conftest import graph_map, grid_map

NS = "{http://www.w3.org/2000/svg}"


def test_grid_svg() -> None:
    s = new_game("classic", grid_map(["######", "#1..2#", "######"]))
    s = step(s, {0: Move(0, 8), 1: Move(1, 4)})
    root = ET.fromstring(state_svg(s, cell=10, title="a <test>"))
    assert root.get("width") == "60" and root.get("height") == "30"
    assert root.find(f"{NS}title").text == "a <test>"  # type: ignore[union-attr]
    fills = [r.get("fill") for r in root.iter(f"{NS}rect")]
    assert palette.head(0) in fills and palette.trail(0) in fills
    heads = [r for r in root.iter(f"{NS}rect") if r.get("fill") == palette.head(0)]
    assert (heads[0].get("x"), heads[0].get("y")) == ("20", "10")
    assert len(list(root.iter(f"{NS}path"))) == 1  # the crashed cycle's cross
    # runs of wall become one rectangle per row
    assert fills.count(palette.WALL) < 12


def test_graph_svg() -> None:
    spec = graph_map()
    root = ET.fromstring(state_svg(new_game("tron3d", spec), cell=10))
    assert root.get("width") == "400"
    assert len(list(root.iter(f"{NS}circle"))) == spec.topology.size
    assert len(list(root.iter(f"{NS}line"))) == len(spec.topology.edges)

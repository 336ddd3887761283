"""SVG images are well-formed XML: the board in the palette's colours on a page that says
what it shows (title, legend in the seats' colours, turn, result, death crosses)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from lightcycle.core.moves import Move
from lightcycle.render import palette
from lightcycle.render.svg import state_svg
from lightcycle.rules.engine import new_game, step
from tests.conftest import graph_map, grid_map

NS = "{http://www.w3.org/2000/svg}"


def _board(root: ET.Element) -> ET.Element:
    board = next(g for g in root.iter(f"{NS}g") if g.get("class") == "board")
    return board


def test_grid_svg() -> None:
    s = new_game("classic", grid_map(["######", "#1..2#", "######"]), names=["Ann", "Bob <3"])
    s = step(s, {0: Move(0, 8), 1: Move(1, 4)})
    root = ET.fromstring(state_svg(s, cell=10, title="a <test>"))
    assert root.find(f"{NS}title").text == "a <test>"  # type: ignore[union-attr]
    board = _board(root)
    assert board.get("transform", "").startswith("translate(")
    fills = [r.get("fill") for r in board.iter(f"{NS}rect")]
    assert palette.head(0) in fills and palette.trail(0) in fills
    heads = [r for r in board.iter(f"{NS}rect") if r.get("fill") == palette.head(0)]
    assert (heads[0].get("x"), heads[0].get("y")) == ("20", "10")
    # the crashed cycle's cross: its own colour over a dark outline
    deaths = [p for p in board.iter(f"{NS}path") if p.get("class") == "death"]
    assert [p.get("stroke") for p in deaths] == [palette.BACKGROUND, palette.head(1)]
    # runs of wall become one rectangle per row
    assert fills.count(palette.WALL) < 12


def test_the_page_names_the_game_the_seats_and_the_turn() -> None:
    s = new_game(
        "classic", grid_map(["######", "#1..2#", "######"]), seed=5, names=["Ann", "Bob <3"]
    )
    s = step(s, {0: Move(0, 8), 1: Move(1, 4)})
    text = state_svg(s, map_name="den@1", last_turn=1)
    root = ET.fromstring(text)
    words = {" ".join(t.itertext()): t for t in root.iter(f"{NS}text")}
    assert "den@1 · classic@1 · seed 5" in words
    assert "turn 1 of 1" in words
    assert words["Ann wins"].get("fill") == palette.head(0)
    assert words["Bob <3 out, turn 1"].get("fill") == palette.head(1)
    assert any(w.startswith("Ann wins (") for w in words)
    assert root.find(f"{NS}title").text == "den@1 · classic@1 · seed 5 · turn 1 of 1"  # type: ignore[union-attr]
    swatches = [r for r in root.iter(f"{NS}rect") if r.get("class") == "swatch"]
    assert [r.get("fill") for r in swatches] == [palette.head(0), palette.head(1)]
    # a default size a chat shows well: the 6x3 board scaled up, the page at least 560 wide
    assert 560 <= int(root.get("width", "0")) <= 800


def test_graph_svg() -> None:
    spec = graph_map()
    root = ET.fromstring(state_svg(new_game("tron3d", spec), cell=10))
    board = _board(root)
    assert len(list(board.iter(f"{NS}circle"))) == spec.topology.size
    assert len(list(board.iter(f"{NS}line"))) == len(spec.topology.edges)
    assert int(root.get("width", "0")) >= 400
    assert any("tron3d@1" in "".join(t.itertext()) for t in root.iter(f"{NS}text"))

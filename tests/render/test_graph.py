"""Graph boards as text: the table of vertices that ``maps show --vertices`` prints."""

from __future__ import annotations

import dataclasses
import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from lightcycle.core.bitset import from_cells
from lightcycle.core.moves import Move
from lightcycle.core.state import Board, GameState
from lightcycle.core.topology import GraphTopology
from lightcycle.maps.meshes import cube, mesh_to_map
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapSpec
from lightcycle.referee.local import default_ruleset
from lightcycle.render.graph import vertex_table
from lightcycle.rules.engine import new_game, step
from tests.conftest import graph_map

VECTORS = Path(__file__).with_name("vectors")
ROW = re.compile(r"^ +\d+ ")
"""A row of the table: the vertex number first, right-aligned."""


def _text(state: GameState, width: int, unicode: bool = True) -> str:
    """The table as plain text at ``width`` columns, without the blanks rich pads with."""
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(vertex_table(state, unicode=unicode))
    return "\n".join(line.rstrip() for line in console.export_text().splitlines()) + "\n"


def _small_cube() -> GameState:
    """The cube cut 2x2 a face (26 vertices), two players of two cycles a move in, a
    wall, an item and a bonus vertex: everything a vertex can hold."""
    mesh = dataclasses.replace(
        cube(2), groups=(("lc_start_2_1", (2, 4)), ("lc_start_2_2", (11, 13))), name="cube-2"
    )
    spec = mesh_to_map(mesh)
    spec = dataclasses.replace(
        spec, board=Board(spec.board.topology, from_cells([18]), bonus=(25,))
    )
    s = new_game("tron3d", spec, players=2)
    s = step(s, {0: Move(0, 1), 1: Move(1, 5), 2: Move(2, 10), 3: Move(3, 14)})
    return s._replace(items=((24, "turbo"),))


def test_the_vertices_of_a_cube_are_listed_face_by_face_in_aligned_columns() -> None:
    # issue 38: `maps show cube --vertices` printed 602 lines of
    # `0 (1.00, -1.00, -1.00): free; next 1 3 358`, unaligned and in no order a reader
    # could use
    s = _small_cube()
    assert _text(s, 80) == (VECTORS / "cube2_vertices_80.txt").read_text(encoding="utf-8")


def test_a_narrow_terminal_leaves_the_positions_out_rather_than_cut_columns() -> None:
    s = _small_cube()
    text = _text(s, 40)
    assert text == (VECTORS / "cube2_vertices_40.txt").read_text(encoding="utf-8")
    assert max(len(line) for line in text.splitlines()) <= 40


def test_ascii_draws_the_header_rule_with_hyphens() -> None:
    text = _text(_small_cube(), 80, unicode=False)
    assert text.isascii() and "-----" in text


@pytest.mark.parametrize("name", ["cube", "icosphere", "icosahedron", "donut", "cylinder"])
@pytest.mark.parametrize("width", [100, 80, 60, 44])
def test_every_vertex_once_on_one_line_every_column_lined_up(name: str, width: int) -> None:
    spec = get_map(name)
    s = new_game(default_ruleset(spec, 2), spec, seed=0, players=2)
    topo = s.board.topology
    assert isinstance(topo, GraphTopology)
    lines = _text(s, width).splitlines()
    assert max(len(line) for line in lines) <= width
    rows = [line for line in lines if ROW.match(line)]
    assert sorted(int(line.split()[0]) for line in rows) == list(range(topo.size))
    # the neighbours start in the same column on every row of every table
    starts = {
        line.index(" ".join(f"{n:>3}" for n in topo.neighbours[int(line.split()[0])]))
        for line in rows
    }
    assert len(starts) == 1, starts
    # a row and the lines its last column wraps onto, without blanks
    rows_at = [n for n, line in enumerate(lines) if ROW.match(line)]
    record: dict[int, str] = {}
    for n in rows_at:
        end = next((k for k in range(n + 1, len(lines)) if not lines[k].startswith(" ")), None)
        more = [line for line in lines[n + 1 : end] if line.strip() and not ROW.match(line)]
        record[int(lines[n].split()[0])] = "".join(" ".join([lines[n], *more]).split())
    for c in s.cycles:  # the cycles stand where the table says
        assert f"cycle{c.name or chr(65 + c.index)}(team{c.team + 1})" in record[c.head]
    if name == "cube":
        titles = [line for line in lines if line.startswith("face ")]
        assert [t.split()[1] for t in titles] == ["+x", "-x", "+y", "-y", "+z", "-z"]
        assert sum("corner,alsoon" in r for r in record.values()) == 8
        assert sum("edge,alsoon" in r for r in record.values()) == 12 * 9
        heading = " ".join(lines[: lines.index("") if "" in lines else 2])
        assert heading.startswith("602 vertices, 1200 edges: 594 vertices have 4 ways out")
    else:
        assert any(line.startswith("side facing +x: ") for line in lines)


def test_flat_boards_and_boards_without_positions_are_one_table() -> None:
    s = new_game("tron3d", graph_map(), players=2)
    text = _text(s, 80)
    assert "face" not in text and "side" not in text
    assert re.search(r"^vertex +x +y +z +next +on it$", text, re.MULTILINE)
    assert "bonus vertex" in text
    topo = s.board.topology
    assert isinstance(topo, GraphTopology)
    bare = MapSpec(
        name="bare",
        board=Board(GraphTopology(topo.size, topo.edges)),
        starts=graph_map().starts,
        players=(2,),
    )
    text = _text(new_game("tron3d", bare, players=2), 80)
    assert "x y z" not in text and "position" not in text
    assert text.splitlines()[-1].split()[0] == str(topo.size - 1)


def test_grids_are_not_listed() -> None:
    s = new_game("classic", get_map("ring"))
    with pytest.raises(ValueError, match="graph boards"):
        vertex_table(s)

"""Topologies: neighbour tables, wrap-around, headings, graphs."""

from __future__ import annotations

import pytest

from lightcycle.core.topology import OFF, GraphTopology, GridTopology, Heading


def test_grid_cells_and_moves_follow_the_scheme_coordinates() -> None:
    g = GridTopology(5, 4)
    assert g.cell(2, 1) == 7 and g.xy(7) == (2, 1)
    assert g.move(7, Heading.N) == g.cell(2, 0)
    assert g.move(7, Heading.E) == g.cell(3, 1)
    assert g.move(g.cell(0, 0), Heading.W) == OFF
    assert g.move(g.cell(0, 0), Heading.N) == OFF
    assert g.jump(g.cell(0, 0), Heading.E) == g.cell(2, 0)
    assert g.heading_to(7, 8) is Heading.E and g.heading_to(7, 9) is None
    with pytest.raises(ValueError, match=r"outside the 5x4 grid"):
        g.cell(5, 0)


def test_torus_wraps_every_edge() -> None:
    t = GridTopology(5, 4, wrap=True)
    assert t.move(t.cell(0, 0), Heading.W) == t.cell(4, 0)
    assert t.move(t.cell(0, 0), Heading.N) == t.cell(0, 3)
    assert t.move(t.cell(4, 3), Heading.S) == t.cell(4, 0)
    assert all(len(n) == 4 for n in t.neighbours)
    assert t.describe() == "5x4 torus"


@pytest.mark.parametrize(
    ("token", "heading"),
    [("n", Heading.N), ("E", Heading.E), ("south", Heading.S), (4, Heading.W), ("1", Heading.N)],
)
def test_heading_parse_accepts_letters_words_and_2010_numbers(token, heading) -> None:
    assert Heading.parse(token) is heading


@pytest.mark.parametrize("token", ["x", 0, 5, None, True, ""])
def test_heading_parse_refuses_the_rest(token) -> None:
    with pytest.raises(ValueError, match="not a heading"):
        Heading.parse(token)


def test_graph_topology() -> None:
    g = GraphTopology(4, [(0, 1), (1, 2), (2, 0), (2, 3), (1, 0)])
    assert g.neighbours == ((1, 2), (0, 2), (0, 1, 3), (2,))
    assert g.edges == ((0, 1), (0, 2), (1, 2), (2, 3))
    assert g.is_neighbour(2, 3) and not g.is_neighbour(0, 3)
    with pytest.raises(ValueError, match="outside"):
        GraphTopology(2, [(0, 2)])
    with pytest.raises(ValueError, match="loop"):
        GraphTopology(2, [(1, 1)])


def test_bad_grid_sizes() -> None:
    with pytest.raises(ValueError, match="positive integer size"):
        GridTopology(0, 3)

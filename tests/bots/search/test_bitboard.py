"""The bit-parallel kernel agrees with plain breadth-first search on every board kind."""

from __future__ import annotations

import random
from collections import deque

import pytest

from lightcycle.bots.search.bitboard import Kernel
from lightcycle.core.topology import GraphTopology, GridTopology, Topology


def _bfs(topo: Topology, starts: list[int], free: int) -> dict[int, int]:
    dist = {s: 0 for s in starts}
    q = deque(starts)
    while q:
        c = q.popleft()
        for d in topo.neighbours[c]:
            if (free >> d) & 1 and d not in dist:
                dist[d] = dist[c] + 1
                q.append(d)
    return dist


def _boards() -> list[Topology]:
    rng = random.Random(4)
    edges = [(i, j) for i in range(40) for j in range(i + 1, 40) if rng.random() < 0.08]
    return [
        GridTopology(9, 7),
        GridTopology(8, 6, wrap=True),
        GridTopology(7, 5, wrap=True),
        GridTopology(1, 6),
        GraphTopology(40, edges),
    ]


@pytest.mark.parametrize("topo", _boards(), ids=lambda t: t.describe())
def test_flood_and_voronoi_match_bfs(topo: Topology) -> None:
    rng = random.Random(topo.size)
    k = Kernel(topo)
    for _ in range(60):
        free = sum(1 << c for c in range(topo.size) if rng.random() < 0.7)
        a, b = rng.sample(range(topo.size), 2)
        free &= ~((1 << a) | (1 << b))
        da, db = _bfs(topo, [a], free), _bfs(topo, [b], free)
        assert k.flood(1 << a, free) == sum(1 << c for c in da if c != a)
        layers = k.layers(1 << a, free)
        for i, layer in enumerate(layers):
            assert layer == sum(1 << c for c, d in da.items() if d == i + 1)
        ta, tb, rest = k.voronoi(1 << a, 1 << b, free)
        # ``voronoi`` stops at neutral cells, so a cell behind one may go to the side
        # that also reaches it another way, but never to a side the other beats.
        for c in k.cells(ta):
            assert da[c] <= db.get(c, 10**9)
        for c in k.cells(tb):
            assert db[c] <= da.get(c, 10**9)
        unreached = {c for c in range(topo.size) if (free >> c) & 1} - set(da) - set(db)
        assert unreached <= set(k.cells(rest))
        many = k.voronoi_many([1 << a, 1 << b], free)
        assert many == [ta, tb]


def test_checkerboard_only_where_moves_change_colour() -> None:
    assert Kernel(GridTopology(6, 4)).black is not None
    assert Kernel(GridTopology(6, 4, wrap=True)).black is not None
    assert Kernel(GridTopology(5, 4, wrap=True)).black is None
    k = Kernel(GridTopology(5, 5))
    assert k.black is not None
    for c in range(25):
        for d in k.neighbours[c]:
            assert ((k.black >> c) & 1) != ((k.black >> d) & 1)


@pytest.mark.parametrize("topo", _boards(), ids=lambda t: t.describe())
def test_edges_count_each_cells_free_neighbours(topo: Topology) -> None:
    rng = random.Random(topo.size + 1)
    k = Kernel(topo)
    for _ in range(60):
        free = sum(1 << c for c in range(topo.size) if rng.random() < 0.7)
        cells = sum(1 << c for c in range(topo.size) if rng.random() < 0.5)
        expected = sum(
            1
            for c in range(topo.size)
            if (cells >> c) & 1
            for d in topo.neighbours[c]
            if (free >> d) & 1
        )
        assert k.edges(cells, free) == expected

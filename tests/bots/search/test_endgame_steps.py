"""The endgame's moves with fewer floods (`endgame._steps`), and the greedy fill built on
them, against the plain definitions: a flood per move, and the greedy fill as its
docstring states it. Regions on walled grids, tori one and two cells wide (where a cell
lists a neighbour twice), and random graphs (where neighbours may touch)."""

from __future__ import annotations

import random

import pytest

from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.chambers import parity_bound
from lightcycle.bots.search.endgame import _joined, _links, _steps, greedy_fill
from lightcycle.core.topology import GraphTopology, GridTopology
from tests.bots.search.brute import random_graph


def _kernels() -> list[Kernel]:
    rng = random.Random(5)
    grids = [(14, 14, False), (5, 4, False), (1, 7, False), (6, 6, True), (2, 9, True),
             (1, 6, True), (2, 2, True), (9, 7, True)]  # fmt: skip
    out = [Kernel(GridTopology(w, h, wrap)) for w, h, wrap in grids]
    return out + [random_graph(rng, 8, 30)[0] for _ in range(6)]


KERNELS = _kernels()


def _regions(k: Kernel, rng: random.Random, count: int) -> list[tuple[int, int]]:
    """Random ``(cell, reach)``: ``reach`` the cells a flood from ``cell`` gets to, as the
    solver's regions are; sometimes with ``cell`` itself inside."""
    out = []
    while len(out) < count:
        free = sum(1 << c for c in range(k.size) if rng.random() < rng.choice((0.5, 0.7, 0.9)))
        cur = rng.randrange(k.size)
        if rng.random() < 0.9:
            free &= ~(1 << cur)
        out.append((cur, k.flood(1 << cur, free)))
    return out


@pytest.mark.parametrize("k", KERNELS, ids=lambda k: f"{k.topology}")
def test_steps_reach_what_a_flood_per_move_reaches(k: Kernel) -> None:
    rng = random.Random(k.size)
    around, links = _links(k)
    joined = cut = 0
    for cur, reach in _regions(k, rng, 300):
        want = [
            (d, k.flood(1 << d, reach & ~(1 << d))) for d in k.neighbours[cur] if (reach >> d) & 1
        ]
        assert _steps(k.flood, k.neighbours[cur], around[cur], links[cur], reach) == want
        if len(want) > 1:
            if _joined(links[cur], reach & around[cur], reach):
                joined += 1
            else:
                cut += 1
    # Both ways of finding the parts were used (a line has no corners to join round).
    t = k.topology
    assert joined or (isinstance(t, GridTopology) and min(t.width, t.height) == 1)
    assert cut or k.size < 10


def test_joined_is_only_said_of_cells_that_cut_nothing() -> None:
    k = Kernel(GridTopology(3, 3))
    around, links = _links(k)
    centre = 4
    ring = k.full & ~(1 << centre)
    # The eight cells round the centre join its four ways on.
    assert _joined(links[centre], ring & around[centre], ring)
    # Without the corners, the ways on only meet through the centre.
    cross = ring & ~(1 << 0 | 1 << 2 | 1 << 6 | 1 << 8)
    assert not _joined(links[centre], cross & around[centre], cross)
    # One corner joins two neighbouring ways on, not the others.
    one = cross | 1 << 0
    assert not _joined(links[centre], one & around[centre], one)
    assert _joined(links[centre], (1 << 1 | 1 << 3), one)
    # On a graph, two ways on that touch are joined by either of them.
    tri = Kernel(GraphTopology(3, [(0, 1), (1, 2), (0, 2)]))
    around, links = _links(tri)
    assert _joined(links[0], around[0], 0b110)


def _greedy_by_definition(k: Kernel, head: int, free: int) -> list[int]:
    """Never enter a smaller region than needed (by the parity bound), and of the moves
    into the largest take the one with the fewest free neighbours; a flood per move."""
    path: list[int] = []
    cur, f = head, free
    while True:
        opts = [d for d in k.neighbours[cur] if (f >> d) & 1]
        if not opts:
            return path
        best: tuple[int, int] | None = None
        for d in opts:
            rest = f & ~(1 << d)
            room = parity_bound(k, d, k.flood(1 << d, rest))
            hug = -sum(1 for e in k.neighbours[d] if (rest >> e) & 1)
            if best is None or (room, hug) > best:
                best, choice = (room, hug), d
        path.append(choice)
        f &= ~(1 << choice)
        cur = choice


@pytest.mark.parametrize("k", KERNELS, ids=lambda k: f"{k.topology}")
def test_greedy_fill_is_the_greedy_fill_by_its_definition(k: Kernel) -> None:
    rng = random.Random(k.size + 1)
    for _ in range(60):
        free = sum(1 << c for c in range(k.size) if rng.random() < rng.choice((0.5, 0.8, 1.0)))
        head = rng.randrange(k.size)
        assert greedy_fill(k, head, free) == _greedy_by_definition(k, head, free)

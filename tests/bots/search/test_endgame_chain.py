"""The chamber bound's fast implementation against the plain one it replaced.

`_chain_bound` keeps the cell being searched, its iterator and its low-link in locals and
reads the region's bits as ASCII; `_plain_chain_bound` below is the earlier version (a
stack of (cell, iterator) pairs, a low-link list, discovery times from a dict), kept here
as the reference: both must give the same value on every region, grid, torus or graph.
"""

from __future__ import annotations

import random

from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.endgame import _chain_bound, _colours
from lightcycle.core.topology import GridTopology
from tests.bots.search.brute import longest_path, random_graph


def _plain_chain_bound(
    nbrs: tuple[tuple[int, ...], ...],
    colour: tuple[int, ...] | None,
    ncells: int,
    head: int,
    free: int,
) -> int:
    disc = [0 if (free >> c) & 1 else -1 for c in range(ncells)]
    low = [0] * ncells
    best = [0] * ncells
    disc[head] = low[head] = 1
    t = 1
    vstack: list[int] = []
    stack = [(head, iter(nbrs[head]))]
    while stack:
        v, it = stack[-1]
        for w in it:
            dw = disc[w]
            if dw <= 0:
                if dw < 0:
                    continue
                t += 1
                disc[w] = low[w] = t
                vstack.append(w)
                stack.append((w, iter(nbrs[w])))
                break
            if dw < low[v]:
                low[v] = dw
        else:
            stack.pop()
            if not stack:
                break
            p = stack[-1][0]
            lv = low[v]
            if lv < low[p]:
                low[p] = lv
            if lv < disc[p]:
                continue
            if vstack[-1] == v:
                vstack.pop()
                val = 1 + best[v]
            elif colour is None:
                size = 0
                sub = 0
                while True:
                    u = vstack.pop()
                    size += 1
                    sub = max(sub, best[u])
                    if u == v:
                        break
                val = size + sub
            else:
                pc = colour[p]
                members: list[int] = []
                same = 0
                while True:
                    u = vstack.pop()
                    members.append(u)
                    same += colour[u] == pc
                    if u == v:
                        break
                size = len(members)
                other = size - same
                val = min(size, 2 * same + 1 if other > same else 2 * other)
                even = 2 * min(same, other)
                odd = 2 * min(same, other - 1) + 1
                for u in members:
                    if best[u]:
                        cap = even if colour[u] == pc else odd
                        val = max(val, cap + best[u])
            best[p] = max(best[p], val)
    return best[head]


def _check(k: Kernel, head: int, free: int) -> int:
    region = k.flood(1 << head, free)
    colour = _colours(k)
    fast = _chain_bound(k.neighbours, colour, k.size, head, region)
    assert fast == _plain_chain_bound(k.neighbours, colour, k.size, head, region)
    return fast


def test_same_as_the_plain_version_on_grids_and_tori() -> None:
    """Boards from 1 to 14 cells a side, tori one or two cells wide included (their
    cells list a neighbour twice, or themselves), at densities from sparse corridors to
    nearly full."""
    rng = random.Random(5)
    for _ in range(1500):
        w, h = rng.randint(1, 14), rng.randint(1, 14)
        k = Kernel(GridTopology(w, h, rng.random() < 0.3))
        head = rng.randrange(w * h)
        density = rng.choice((0.5, 0.7, 0.85, 0.95, 1.0))
        free = sum(1 << c for c in range(w * h) if rng.random() < density) & ~(1 << head)
        _check(k, head, free)


def test_same_as_the_plain_version_on_graphs_and_never_below_the_optimum() -> None:
    rng = random.Random(6)
    for _ in range(300):
        k, n = random_graph(rng, 2, 11)
        head = rng.randrange(n)
        free = sum(1 << c for c in range(n) if rng.random() < 0.85) & ~(1 << head)
        assert _check(k, head, free) >= longest_path(k, head, free)


def test_never_below_the_optimum_on_small_grids() -> None:
    rng = random.Random(8)
    for _ in range(300):
        w, h = rng.randint(2, 5), rng.randint(2, 5)
        k = Kernel(GridTopology(w, h, rng.random() < 0.3))
        head = rng.randrange(w * h)
        free = sum(1 << c for c in range(w * h) if rng.random() < 0.8) & ~(1 << head)
        assert _check(k, head, free) >= longest_path(k, head, free)

"""Chambers: how much of a region one cycle can really fill.

A region is not all usable: a cycle that enters a dead-end pocket through a cut cell (an
articulation point) can never come back, so of all the pockets hanging off the cells it
passes, it fills at most one. The free cells split into blocks (biconnected components)
joined at cut cells, forming a tree; a simple path from the head crosses a chain of blocks
from the root down, so the longest path is bounded by the best root-to-leaf chain of block
sizes. On a checkerboard every step changes colour, which bounds each block again by how
many cells of each colour it has.

`fill_bound` computes that bound in one depth-first pass (Tarjan's low-link algorithm,
iterative so deep corridors cannot overflow the stack). It is an upper bound on the number
of moves a cycle can still make, exact for corridors and trees of rooms, and it is what the
evaluation calls the usable part of a territory.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from lightcycle.bots.search.bitboard import Kernel
from lightcycle.core.topology import GridTopology


def fill_bound(kernel: Kernel, head: int, free: int, parity: bool = True) -> int:
    """An upper bound on the moves a cycle at ``head`` can make inside ``free``.

    Args:
        kernel: the board's kernel.
        head: the cycle's cell (not in ``free``).
        free: the cells it may still enter.
        parity: also bound each block by its checkerboard colours (grids only).

    Returns:
        The best sum, over a chain of blocks from the head down the block tree, of the
        cells each block can contribute.
    """
    nbrs = kernel.neighbours
    black = kernel.black if parity else None
    free |= 1 << head  # edges back to the head close cycles too
    disc: dict[int, int] = {head: 1}
    low: dict[int, int] = {head: 1}
    best: dict[int, int] = {}
    t = 1
    vstack: list[int] = []
    work: list[list[int]] = [[head, 0]]
    while work:
        top = work[-1]
        v, i = top
        nb = nbrs[v]
        if i < len(nb):
            top[1] = i + 1
            w = nb[i]
            if not (free >> w) & 1:
                continue
            dw = disc.get(w)
            if dw is None:
                t += 1
                disc[w] = low[w] = t
                vstack.append(w)
                work.append([w, 0])
            elif dw < low[v]:
                low[v] = dw
            continue
        work.pop()
        if not work:
            break
        p = work[-1][0]
        lv = low[v]
        if lv < low[p]:
            low[p] = lv
        if lv >= disc[p]:
            size = same = sub = 0
            pc = (black >> p) & 1 if black is not None else 0
            while True:
                u = vstack.pop()
                size += 1
                bu = best.get(u, 0)
                if bu > sub:
                    sub = bu
                if black is not None and ((black >> u) & 1) == pc:
                    same += 1
                if u == v:
                    break
            cap = size
            if black is not None:
                other = size - same
                cap = min(size, 2 * same + 1 if other > same else 2 * other)
            val = cap + sub
            if val > best.get(p, 0):
                best[p] = val
    return best.get(head, 0)


def parity_bound(kernel: Kernel, head: int, region: int) -> int:
    """The checkerboard bound alone: the moves a path from ``head`` can make through
    ``region`` if colours must alternate (``region.bit_count()`` off checkerboards)."""
    size = region.bit_count()
    black = kernel.black
    if black is None:
        return size
    if (black >> head) & 1:
        same = (region & black).bit_count()
    else:
        same = size - (region & black).bit_count()
    other = size - same
    return min(size, 2 * same + 1 if other > same else 2 * other)


def dead_end_bound(kernel: Kernel, head: int, region: int) -> int:
    """The checkerboard bound with dead ends left out: an upper bound on the moves a
    path from ``head`` can make through ``region`` (the cells reachable from it).

    A dead end is a cell of ``region`` with one neighbour in ``region`` or at the head: a
    path that enters it cannot leave, so it can only be the last cell, and at most one
    dead end is used. Without one the path alternates colours through the live cells;
    ending on a dead end of the other colour than the head's, it makes an odd number of
    moves, one more on that colour; ending on one of the head's colour, an even number.
    On boards without a checkerboard (graphs, odd tori) only the count is bounded; on
    graphs, where dead ends are not found bit-parallel, this is `parity_bound`.
    """
    pairs = _pairs(kernel)
    if pairs is None:
        return parity_bound(kernel, head, region)
    dead = region & ~pairs(region | (1 << head))
    size = region.bit_count()
    nd = dead.bit_count()
    black = kernel.black
    if black is None:
        return size - nd + (1 if nd else 0)
    if (black >> head) & 1:
        same = (region & black).bit_count()
        same_dead = (dead & black).bit_count()
    else:
        same = size - (region & black).bit_count()
        same_dead = nd - (dead & black).bit_count()
    live_same = same - same_dead
    live_other = size - same - (nd - same_dead)
    bound = 2 * live_same + 1 if live_other > live_same else 2 * live_other
    if nd > same_dead:  # the last cell a dead end of the other colour
        bound = max(bound, 2 * min(live_same, live_other) + 1)
    if same_dead:  # the last cell a dead end of the head's colour
        bound = max(bound, 2 * min(live_other, live_same + 1))
    return bound


@lru_cache(maxsize=16)
def _pairs(kernel: Kernel) -> Callable[[int], int] | None:
    """``pairs(cells)``: the cells with at least two neighbours in ``cells``, by shifts
    (grids only; ``None`` on graphs).

    A neighbour reached two ways (the two sides of a torus two cells wide) counts twice,
    which only ever hides a dead end: the bound stays an upper bound."""
    topology = kernel.topology
    if not isinstance(topology, GridTopology):
        return None
    w, h, size = topology.width, topology.height, topology.size
    full = kernel.full
    first_col = sum(1 << (y * w) for y in range(h))
    last_col = first_col << (w - 1)
    not_first = full & ~first_col
    not_last = full & ~last_col
    if not topology.wrap:

        def pairs(b: int) -> int:
            r = (b & not_last) << 1
            le = (b & not_first) >> 1
            u = b << w
            d = b >> w
            return (r & le) | ((r | le) & (u | d)) | (u & d)

        return pairs
    first_row = (1 << w) - 1
    last_row = first_row << (size - w)
    down = size - w

    def pairs_torus(b: int) -> int:
        r = ((b & not_last) << 1) | ((b & last_col) >> (w - 1))
        le = ((b & not_first) >> 1) | ((b & first_col) << (w - 1))
        u = ((b & ~last_row) << w) | ((b & last_row) >> down)
        d = (b >> w) | ((b & first_row) << down)
        return ((r & le) | ((r | le) & (u | d)) | (u & d)) & full

    return pairs_torus

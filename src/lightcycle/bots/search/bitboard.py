"""Bit-parallel board operations for searching bots.

A set of cells is one Python int with bit ``c`` set for cell ``c`` (the core's own cell
numbering, so ``GameState.occupied`` is used as is). Flood fill and Voronoi territory then
advance a whole frontier per step with a few shifts and masks on a grid, instead of
visiting cells one by one: the cost grows with the board's diameter, not its area, which
is what makes a pure-Python search deep enough to matter (see ``bench/strength.py``).

Graph boards (the 3D variant) have no shifts; their kernel ORs per-cell neighbour masks,
which is still cheaper than a Python BFS over a deque.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from lightcycle.core.topology import GridTopology, Topology

Expand = Callable[[int], int]


class Kernel:
    """Neighbourhood operations on cell sets of one topology.

    Attributes:
        size: number of cells.
        full: the set of every cell.
        expand: ``expand(cells)`` is every cell one move from ``cells`` (may include
            ``cells`` themselves; callers mask with the free set).
        black: the cells of one checkerboard colour when every move changes colour (grids
            without odd wrap-around), else ``None``; the endgame's parity bound uses it.
        neighbours: the topology's neighbour table (for cell-by-cell algorithms).
        edges: ``edges(cells, free)`` counts the moves from a cell of ``cells`` into a
            cell of ``free`` (the sum of the cells' degrees in ``free``): how open a
            territory is, which its cell count alone does not say.
    """

    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self.size = topology.size
        self.full = (1 << self.size) - 1
        self.neighbours = topology.neighbours
        self.black: int | None = None
        if isinstance(topology, GridTopology):
            self.expand = _grid_expand(topology)
            self.edges = _grid_edges(topology)
            if not topology.wrap:
                self.voronoi = _grid_voronoi(topology)  # type: ignore[method-assign,assignment]
            w, h = topology.width, topology.height
            if not topology.wrap or (w % 2 == 0 and h % 2 == 0):
                self.black = sum(1 << c for c in range(self.size) if (c % w + c // w) % 2 == 0)
        else:
            self.expand = _graph_expand(topology.neighbours)
            self.edges = _graph_edges(topology.neighbours)

    def flood(self, start: int, free: int) -> int:
        """The cells of ``free`` reachable from the cells of ``start`` (not ``start`` itself
        unless it is free and reached)."""
        expand = self.expand
        region = 0
        frontier = start
        while frontier:
            frontier = expand(frontier) & free & ~region
            region |= frontier
        return region

    def flood_upto(self, start: int, free: int, cap: int) -> tuple[int, bool]:
        """`flood`, stopping once more than ``cap`` cells are found; and whether the
        region is complete (its size is then exact).

        Most questions about room only need to know whether it is large, and a bounded
        flood answers them in a few layers instead of the board's diameter.
        """
        expand = self.expand
        region = 0
        frontier = start
        while frontier:
            frontier = expand(frontier) & free & ~region
            region |= frontier
            if region.bit_count() > cap:
                return region, False
        return region, True

    def layers(self, start: int, free: int) -> list[int]:
        """Breadth-first layers: ``layers[d]`` is the set of free cells at distance
        ``d + 1`` from ``start``."""
        expand = self.expand
        out: list[int] = []
        avail = free & ~start
        frontier = start
        while True:
            frontier = expand(frontier) & avail
            if not frontier:
                return out
            avail ^= frontier
            out.append(frontier)

    def voronoi(self, a: int, b: int, free: int) -> tuple[int, int, int]:
        """Territories of two heads: the free cells ``a`` reaches strictly before ``b``,
        those ``b`` reaches strictly before ``a``, and the free cells neither reaches.

        Cells both reach at the same distance are neutral and stop both searches (the
        usual approximation: what lies behind a neutral cell goes to whoever also reaches
        it another way).
        """
        expand = self.expand
        avail = free
        fa, fb = a, b
        ta = tb = 0
        while fa or fb:
            na = expand(fa) & avail
            nb = expand(fb) & avail
            both = na & nb
            avail &= ~(na | nb)
            if both:
                na ^= both
                nb ^= both
            ta |= na
            tb |= nb
            fa, fb = na, nb
        return ta, tb, avail

    def voronoi_many(self, heads: list[int], free: int) -> list[int]:
        """Territories of any number of head sets (multi-player Voronoi), same rule as
        `voronoi`: a cell reached first by exactly one set belongs to it."""
        expand = self.expand
        avail = free
        fronts = list(heads)
        terr = [0] * len(heads)
        while any(fronts):
            nxt = [expand(f) & avail if f else 0 for f in fronts]
            seen = 0
            dup = 0
            for n in nxt:
                dup |= seen & n
                seen |= n
            avail &= ~seen
            for i, n in enumerate(nxt):
                n &= ~dup
                nxt[i] = n
                terr[i] |= n
            fronts = nxt
        return terr

    def cells(self, bits: int) -> list[int]:
        """The cells of a set, in increasing order."""
        out = []
        while bits:
            low = bits & -bits
            out.append(low.bit_length() - 1)
            bits ^= low
        return out


@lru_cache(maxsize=64)
def kernel_for(topology: Topology) -> Kernel:
    """The (cached) kernel of a topology: boards are shared by every state of a game."""
    return Kernel(topology)


def _column_masks(g: GridTopology) -> tuple[int, int, int, int, int]:
    """Every cell, the first and last columns, and every cell but those: what a shift by
    one column must mask so that a row does not run into the next."""
    full = (1 << g.size) - 1
    first_col = sum(1 << (y * g.width) for y in range(g.height))
    last_col = first_col << (g.width - 1)
    return full, first_col, last_col, full & ~first_col, full & ~last_col


def _grid_expand(g: GridTopology) -> Expand:
    w, size = g.width, g.size
    _, first_col, last_col, not_first, not_last = _column_masks(g)
    if not g.wrap:

        def expand(b: int) -> int:
            return ((b & not_last) << 1) | ((b & not_first) >> 1) | (b << w) | (b >> w)

        return expand
    first_row = (1 << w) - 1
    last_row = first_row << (size - w)
    wrap_down = size - w

    def expand_torus(b: int) -> int:
        return (
            ((b & not_last) << 1)
            | ((b & last_col) >> (w - 1))
            | ((b & not_first) >> 1)
            | ((b & first_col) << (w - 1))
            | ((b & ~last_row) << w)
            | ((b & last_row) >> wrap_down)
            | (b >> w)
            | ((b & first_row) << wrap_down)
        )

    return expand_torus


def _grid_edges(g: GridTopology) -> Callable[[int, int], int]:
    """`Kernel.edges` on a grid: for each direction, the cells whose neighbour that way
    is free, by one shift of ``free`` (four shifts and popcounts, whatever the sizes)."""
    w, size = g.width, g.size
    full, first_col, last_col, not_first, not_last = _column_masks(g)
    if not g.wrap:

        def edges(cells: int, free: int) -> int:
            return (
                (cells & ((free & not_first) >> 1)).bit_count()
                + (cells & ((free & not_last) << 1)).bit_count()
                + (cells & (free >> w)).bit_count()
                + (cells & (free << w)).bit_count()
            )

        return edges
    first_row = (1 << w) - 1
    down = size - w

    def edges_torus(cells: int, free: int) -> int:
        east = ((free & not_first) >> 1) | ((free & first_col) << (w - 1))
        west = ((free & not_last) << 1) | ((free & last_col) >> (w - 1))
        south = (free >> w) | ((free & first_row) << down)
        north = ((free << w) & full) | (free >> down)
        return (
            (cells & east).bit_count()
            + (cells & west).bit_count()
            + (cells & south).bit_count()
            + (cells & north).bit_count()
        )

    return edges_torus


def _graph_edges(neighbours: tuple[tuple[int, ...], ...]) -> Callable[[int, int], int]:
    masks = [sum(1 << d for d in nb) for nb in neighbours]

    def edges(cells: int, free: int) -> int:
        total = 0
        while cells:
            low = cells & -cells
            total += (masks[low.bit_length() - 1] & free).bit_count()
            cells ^= low
        return total

    return edges


def _grid_voronoi(g: GridTopology) -> Callable[[int, int, int], tuple[int, int, int]]:
    """`Kernel.voronoi` with the walled grid's shifts written out: it is the evaluation's
    inner loop, and a function call per expansion would cost a third of it."""
    w = g.width
    _, _, _, nf, nl = _column_masks(g)

    def voronoi(a: int, b: int, free: int) -> tuple[int, int, int]:
        avail = free
        fa, fb = a, b
        ta = tb = 0
        while fa or fb:
            na = (((fa & nl) << 1) | ((fa & nf) >> 1) | (fa << w) | (fa >> w)) & avail
            nb = (((fb & nl) << 1) | ((fb & nf) >> 1) | (fb << w) | (fb >> w)) & avail
            avail &= ~(na | nb)
            both = na & nb
            if both:
                na ^= both
                nb ^= both
            ta |= na
            tb |= nb
            fa, fb = na, nb
        return ta, tb, avail

    return voronoi


def _graph_expand(neighbours: tuple[tuple[int, ...], ...]) -> Expand:
    masks = [sum(1 << d for d in nb) for nb in neighbours]

    def expand(b: int) -> int:
        out = 0
        while b:
            low = b & -b
            out |= masks[low.bit_length() - 1]
            b ^= low
        return out

    return expand

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
of moves a cycle can still make, exact for corridors and trees of rooms.

`front_space` is what the duel's evaluation calls the usable part of a territory: the
2010 champion's count of the same chambers, aware of the battle front.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

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


_GridMasks = tuple[int, int, int, int, int, int, int, int, int, bool]


def _grid_masks(kernel: Kernel) -> _GridMasks | None:
    """What shifting a whole bitboard by one cell needs on ``kernel``'s grid (``None`` on
    graphs): width, size, all cells, the first and last columns, all but the first and
    all but the last column, the first and last rows, and whether it wraps."""
    topology = kernel.topology
    if not isinstance(topology, GridTopology):
        return None
    w, h, size = topology.width, topology.height, topology.size
    full = kernel.full
    first_col = sum(1 << (y * w) for y in range(h))
    last_col = first_col << (w - 1)
    first_row = (1 << w) - 1
    last_row = first_row << (size - w)
    not_first, not_last = full & ~first_col, full & ~last_col
    return (
        w,
        size,
        full,
        first_col,
        last_col,
        not_first,
        not_last,
        first_row,
        last_row,
        topology.wrap,
    )


@lru_cache(maxsize=16)
def _pairs(kernel: Kernel) -> Callable[[int], int] | None:
    """``pairs(cells)``: the cells with at least two neighbours in ``cells``, by shifts
    (grids only; ``None`` on graphs).

    A neighbour reached two ways (the two sides of a torus two cells wide) counts twice,
    which only ever hides a dead end: the bound stays an upper bound."""
    m = _grid_masks(kernel)
    if m is None:
        return None
    w, size, full, first_col, last_col, not_first, not_last, first_row, last_row, wrap = m
    if not wrap:

        def pairs(b: int) -> int:
            r = (b & not_last) << 1
            le = (b & not_first) >> 1
            u = b << w
            d = b >> w
            return (r & le) | ((r | le) & (u | d)) | (u & d)

        return pairs
    down = size - w

    def pairs_torus(b: int) -> int:
        r = ((b & not_last) << 1) | ((b & last_col) >> (w - 1))
        le = ((b & not_first) >> 1) | ((b & first_col) << (w - 1))
        u = ((b & ~last_row) << w) | ((b & last_row) >> down)
        d = (b >> w) | ((b & first_row) << down)
        return ((r & le) | ((r | le) & (u | d)) | (u & d)) & full

    return pairs_torus


def forced_bound(
    kernel: Kernel,
    head: int,
    region: int,
    bound: int,
    floor: int,
    out_of_time: Callable[[], bool] | None = None,
    refutes: Callable[[int, int, int], bool] | None = None,
) -> int:
    """Lower ``bound`` (an upper bound on the moves from ``head`` through ``region``)
    while `forced_refutes` refutes a path of exactly ``bound`` moves, but not below
    ``floor``: no path makes ``bound`` moves, so none makes more (its first ``bound``
    moves would).

    ``out_of_time`` is polled before each refutation after the first (each can cost a
    millisecond on a big region, and the loop can run many times at the root); when it
    says stop, the bound reached so far is returned, which is still an upper bound.
    ``refutes(head, region, length)`` replaces `forced_refutes` on ``kernel`` (its
    compiled copy, `native.forced_refutes_for`)."""
    if refutes is None:
        refutes = partial(forced_refutes, kernel)
    while bound > floor and refutes(head, region, bound):
        bound -= 1
        if out_of_time is not None and bound > floor and out_of_time():
            break
    return bound


def forced_refutes(kernel: Kernel, head: int, region: int, length: int) -> bool:
    """Whether no path from ``head`` through ``region`` makes exactly ``length`` moves,
    shown by forcing edges; ``False`` when it cannot tell (and on boards without a
    checkerboard, or graphs).

    A path ``c1..cL`` of ``L = length`` moves from a head of colour ``H`` takes ``L // 2``
    cells of colour ``H`` and ``L - L // 2`` of the other, and ends on a cell ``cL`` of the
    colour of ``L``'s parity. Join a virtual end ``T`` to every cell of that colour: the
    path plus the edge ``cL``-``T`` is a path from the head to ``T`` in which the head and
    ``T`` have one edge, every cell on it two. Dead ends (one neighbour in the region or
    at the head) of the other colour cannot be on it at all. Then, until nothing changes:

    - a colour with as many cells left as the path takes has all of them on the path; a
      colour with as many on the path as it takes has no more;
    - a cell on the path (or the head, or ``T``) with as many edges left as it needs uses
      all of them (forced edges), and one with all its edges forced loses the others;
      a cell at the end of a forced edge is on the path;
    - a cell not known to be on the path with fewer than two edges left is not on it, and
      loses its edges.

    A cell on the path short of edges, a colour short of cells, forced edges closing a
    cycle, or joining the head to ``T`` in a path of another length: no such path.
    """
    colours = _colour_masks(kernel)
    degrees = _degree_masks(kernel)
    if colours is None or degrees is None or length < 1:
        return False
    nbrs = _simple_neighbours(kernel)
    masks = _neighbour_masks(kernel)
    n = kernel.size
    t = n  # the virtual end
    hbit = 1 << head
    hc = (colours[1] >> head) & 1
    xc = hc ^ (length & 1)  # the colour of the last cell
    need = [0, 0]
    need[hc] = length // 2
    need[1 - hc] = length - length // 2
    cmask = (region & colours[0], region & colours[1])
    dead = region & ~degrees(region | hbit)[0]
    live = region & ~(dead & ~cmask[xc])  # the cells that may be on the path
    avail = [(live & cmask[0]).bit_count(), (live & cmask[1]).bit_count()]
    if need[0] > avail[0] or need[1] > avail[1]:
        return True
    if need[0] < avail[0] and need[1] < avail[1]:
        return False  # nothing is forced onto the path to start from
    on = 0  # cells known to be on the path
    count = [0, 0]
    adj = [-1] * (n + 1)  # each vertex's edges left, as a mask (bit n: T), -1 not built
    fixed = [0] * (n + 1)  # forced edges, as masks
    parent = list(range(n + 1))
    size = [1] * (n + 1)
    adj[t] = live & cmask[xc]
    queue: list[int] = [t, head]
    one = hbit | (1 << t)  # the vertices with one edge on the path
    for c in range(2):
        if need[c] == avail[c]:
            on |= live & cmask[c]
            count[c] = avail[c]
    two, three = degrees(live | hbit)
    xm = cmask[xc]
    todo = live & ((~three & ~xm) | (~two & xm))
    while todo:
        low = todo & -todo
        queue.append(low.bit_length() - 1)
        todo ^= low

    def edges(v: int) -> int:
        a = adj[v]
        if a < 0:
            a = masks[v] & (live | hbit)
            if (adj[t] >> v) & 1:
                a |= 1 << t
            adj[v] = a
        return a

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    while queue:
        v = queue.pop()
        if (one >> v) & 1:
            r = 1
        elif (on >> v) & 1:
            r = 2
        elif (live >> v) & 1:
            r = 0
        else:
            continue  # off the path, its edges dropped
        a = edges(v)
        if r:
            nf = fixed[v].bit_count()
            if a.bit_count() < r or nf > r:
                return True
            if a.bit_count() == r and nf < r:
                new = a & ~fixed[v]
                while new:
                    low = new & -new
                    new ^= low
                    u = low.bit_length() - 1
                    ru, rv = find(u), find(v)
                    if ru == rv:
                        return True  # a cycle
                    parent[ru] = rv
                    size[rv] += size[ru]
                    fixed[v] |= low
                    fixed[u] |= 1 << v
                    if find(head) == find(t):
                        # The whole path: it is this chain.
                        return size[find(t)] != length + 2
                    queue.append(u)
                    if not ((on | one) >> u) & 1:
                        if not (live >> u) & 1:
                            return True
                        on |= low
                        c = (colours[1] >> u) & 1
                        count[c] += 1
                        if count[c] > need[c]:
                            return True
                        if count[c] == need[c]:
                            rest = live & cmask[c] & ~on
                            live &= ~rest
                            avail[c] -= rest.bit_count()
                            _drop(rest, nbrs, adj, t, queue)
                nf = r
            if nf == r and a.bit_count() > r:
                extra = a & ~fixed[v]
                adj[v] = fixed[v]
                while extra:
                    low = extra & -extra
                    extra ^= low
                    u = low.bit_length() - 1
                    edges(u)
                    adj[u] &= ~(1 << v)
                    queue.append(u)
        elif a.bit_count() < 2:
            # Not on the path.
            bit = 1 << v
            live &= ~bit
            c = (colours[1] >> v) & 1
            avail[c] -= 1
            if avail[c] < need[c]:
                return True
            _drop(bit, nbrs, adj, t, queue)
            if avail[c] == need[c]:
                rest = live & cmask[c] & ~on
                on |= rest
                count[c] = need[c]
                while rest:
                    low = rest & -rest
                    rest ^= low
                    queue.append(low.bit_length() - 1)
    return False


def _drop(
    cells: int, nbrs: tuple[tuple[int, ...], ...], adj: list[int], t: int, queue: list[int]
) -> None:
    """Take ``cells`` off the path's candidates: their built neighbours lose the edges."""
    while cells:
        low = cells & -cells
        cells ^= low
        v = low.bit_length() - 1
        adj[v] = 0
        for e in nbrs[v]:
            if adj[e] > 0 and (adj[e] >> v) & 1:
                adj[e] &= ~low
                queue.append(e)
        if (adj[t] >> v) & 1:
            adj[t] &= ~low
            queue.append(t)


@lru_cache(maxsize=16)
def _colour_masks(kernel: Kernel) -> tuple[int, int] | None:
    """The cells of each checkerboard colour (``(white, black)``), or ``None``."""
    black = kernel.black
    if black is None:
        return None
    return (kernel.full & ~black, black)


@lru_cache(maxsize=16)
def _simple_neighbours(kernel: Kernel) -> tuple[tuple[int, ...], ...]:
    """Each cell's distinct neighbours other than itself (tori one or two cells wide
    list a neighbour twice, or the cell itself)."""
    return tuple(tuple(sorted(set(nb) - {c})) for c, nb in enumerate(kernel.neighbours))


@lru_cache(maxsize=16)
def _neighbour_masks(kernel: Kernel) -> tuple[int, ...]:
    """Each cell's neighbours other than itself, as a mask."""
    return tuple(sum(1 << e for e in nb) for nb in _simple_neighbours(kernel))


@lru_cache(maxsize=16)
def _degree_masks(kernel: Kernel) -> Callable[[int], tuple[int, int]] | None:
    """``degrees(cells)``: the cells with at least two and at least three neighbours in
    ``cells``, by shifts (grids only). A neighbour reached two ways counts twice: the
    masks may include too many cells, never too few."""
    m = _grid_masks(kernel)
    if m is None:
        return None
    w, size, full, first_col, last_col, not_first, not_last, first_row, last_row, wrap = m
    down = size - w

    def degrees(b: int) -> tuple[int, int]:
        if wrap:
            r = ((b & not_last) << 1) | ((b & last_col) >> (w - 1))
            le = ((b & not_first) >> 1) | ((b & first_col) << (w - 1))
            u = ((b & ~last_row) << w) | ((b & last_row) >> down)
            d = (b >> w) | ((b & first_row) << down)
        else:
            r = (b & not_last) << 1
            le = (b & not_first) >> 1
            u = (b << w) & full
            d = b >> w
        lr = r & le
        ud = u & d
        one_lr = r | le
        one_ud = u | d
        two = lr | ud | (one_lr & one_ud)
        three = (lr & one_ud) | (ud & one_lr)
        return two & full, three & full

    return degrees


def _fillable(black: int | None, cells: int, start_black: int) -> int:
    """The moves a path can make through ``cells`` from one of them of colour
    ``start_black`` (1: black) if colours alternate (every other cell, less the start,
    off checkerboards)."""
    n = cells.bit_count()
    if black is None:
        return n - 1
    nb = (cells & black).bit_count()
    same, other = (nb, n - nb) if start_black else (n - nb, nb)
    return 2 * min(same - 1, other) + (1 if other >= same else 0)


def front_space(
    kernel: Kernel, head: int, region: int, room: int, local: bool = False
) -> tuple[int, int]:
    """The usable part of a Voronoi territory as the 2010 champion (a1k0n) counted it,
    aware of the battle front: ``(cells, edges)``.

    The territory (``region``, the cells the cycle on ``head`` reaches first) splits into
    chambers at its cut cells. From the head's chamber the cycle can go on into one child
    chamber, so the bound takes the best chain, as `fill_bound` does, with one difference:
    a child chamber that touches the front (a cell of ``room``, free or a head, outside
    the territory) is where the fight goes on, and it is counted alone, worth its own
    cells plus the moves it takes to get there; the chambers passed on the way are not
    filled. `fill_bound` credits a territory cut into pockets along the front with every
    pocket it could chain, and the champion's count does not.

    Args:
        kernel: the board's kernel.
        head: the cycle's cell (not in ``region``).
        region: its territory.
        room: the free cells and both heads.
        local: let a chamber alone be its own best chain. The champion starts each
            chamber's best at nothing, so a chamber on the front anywhere past a cut
            cell (a few moves away) replaces a whole room before it; `strong` sets this.

    Returns:
        ``cells``: the cells a path can fill in the chosen chambers (checkerboard
        colours alternate from the head's), plus one per chosen chamber that touches the
        front; ``edges``: their moves into ``room`` (`Kernel.edges`).
    """
    nbrs = kernel.neighbours
    black = kernel.black
    inside = region | (1 << head)
    # The cut cells of the territory (Tarjan's low links, iterative).
    disc: dict[int, int] = {head: 1}
    low: dict[int, int] = {head: 1}
    t = 1
    cut = 0
    root_children = 0
    work: list[list[int]] = [[head, 0]]
    while work:
        top = work[-1]
        v, i = top
        nb = nbrs[v]
        if i < len(nb):
            top[1] = i + 1
            w = nb[i]
            if not (inside >> w) & 1:
                continue
            dw = disc.get(w)
            if dw is None:
                t += 1
                disc[w] = low[w] = t
                work.append([w, 0])
            elif dw < low[v]:
                low[v] = dw
            continue
        work.pop()
        if not work:
            break
        p = work[-1][0]
        if low[v] < low[p]:
            low[p] = low[v]
        if p == head:
            root_children += 1
        elif low[v] >= disc[p]:
            cut |= 1 << p
    if root_children > 1:
        cut |= 1 << head
    seen = 0
    layers: list[int] = []

    def explore(v: int) -> tuple[int, int, list[int]]:
        """The chamber entered at ``v``: its cells, whether it touches the front, and
        its exits (cut cells beside it; a cut cell's chamber is itself alone)."""
        nonlocal seen
        cells = 1 << v
        seen |= cells
        front = 0
        exits: list[int] = []
        stack = [v]
        open_ = not (cut >> v) & 1
        while stack:
            x = stack.pop()
            for w in nbrs[x]:
                bit = 1 << w
                if not room & bit:
                    continue
                if not inside & bit:
                    front = 1
                elif not seen & bit:
                    if not open_ or cut & bit:
                        exits.append(w)
                    else:
                        seen |= bit
                        cells |= bit
                        stack.append(w)
        return cells, front, exits

    def distance(cell: int) -> int:
        if not layers:
            reach = frontier = 1 << head
            while frontier:
                layers.append(frontier)
                frontier = kernel.expand(frontier) & inside & ~reach
                reach |= frontier
        bit = 1 << cell
        return next(d for d, layer in enumerate(layers) if layer & bit)

    # Each frame: [entrance, chamber cells, front, exits, next exit, best steps, best
    # cells, best front]; a finished frame hands its best chain to its parent.
    cells, front, exits = explore(head)

    def start(v: int, cells: int) -> int:
        return _fillable(black, cells, _colour(black, v)) if local else 0

    frames: list[list[Any]] = [[head, cells, front, exits, 0, start(head, cells), cells, front]]
    result = (0, 0)
    while frames:
        f = frames[-1]
        exits = f[3]
        i = f[4]
        while i < len(exits) and (seen >> exits[i]) & 1:
            i += 1  # met twice, or reached through a child already
        f[4] = i
        if i < len(exits):
            e = exits[i]
            cells, front, sub = explore(e)
            frames.append([e, cells, front, sub, 0, start(e, cells), cells, front])
            continue
        frames.pop()
        result = (f[6], f[7])
        if not frames:
            break
        parent = frames[-1]
        e = f[0]
        steps = _fillable(black, result[0], _colour(black, e))
        if result[1]:
            steps += distance(e) - 1
        else:
            steps += _fillable(black, parent[1] | (1 << e), _colour(black, parent[0]))
        if steps > parent[5]:
            parent[5] = steps
            if result[1]:
                parent[6], parent[7] = result
            else:
                parent[6], parent[7] = parent[1] | result[0], parent[2] + result[1]
        parent[4] += 1
    best_cells, best_front = result
    usable = best_front + _fillable(black, best_cells, _colour(black, head))
    return usable, kernel.edges(best_cells, room)


def _colour(black: int | None, cell: int) -> int:
    """1 where ``cell`` is black (0 off checkerboards)."""
    return (black >> cell) & 1 if black is not None else 0

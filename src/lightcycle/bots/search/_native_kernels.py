"""Numba kernels behind `lightcycle.bots.search.native` (import only through it).

Importing this module compiles them (or loads them from numba's cache), and raises
ImportError where numba is not installed. Each is the pure-Python algorithm it stands
for, step for step, on arrays: cells as indices, the neighbour table padded with -1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numba import njit, types

_TABLE = types.int32[:, ::1]
_CELLS = types.uint8[::1]
_COLOURS = types.int64[::1]


@njit(
    [_CELLS(bits, types.int64) for bits in (types.Bytes(types.uint8, 1, "C"), _CELLS)],
    cache=True,
    nogil=True,
)
def _unpack(bits: bytes | np.ndarray, size: int) -> np.ndarray:
    """A bitboard (little-endian bytes, or an array of them) as one byte per cell, 1
    where set."""
    out = np.empty(size, np.uint8)
    for c in range(size):
        out[c] = (bits[c >> 3] >> (c & 7)) & 1
    return out


@njit(types.int64(_TABLE, _CELLS, types.int64, _COLOURS, types.boolean), cache=True, nogil=True)
def _chamber(
    nbrs: np.ndarray, inside: np.ndarray, head: int, black: np.ndarray, parity: bool
) -> int:
    """`chambers.fill_bound` of the cells marked in ``inside`` (which it marks the head
    in): Tarjan's blocks, each capped by its colours, best chain from the head."""
    size = nbrs.shape[0]
    width = nbrs.shape[1]
    inside[head] = 1  # edges back to the head close cycles too
    disc = np.zeros(size, np.int32)
    low = np.zeros(size, np.int32)
    best = np.zeros(size, np.int32)
    vstack = np.empty(size, np.int32)
    vtop = 0
    work_v = np.empty(size + 1, np.int32)
    work_i = np.empty(size + 1, np.int32)
    disc[head] = 1
    low[head] = 1
    t = 1
    work_v[0] = head
    work_i[0] = 0
    top = 1
    while top:
        v = work_v[top - 1]
        i = work_i[top - 1]
        if i < width and nbrs[v, i] >= 0:
            work_i[top - 1] = i + 1
            w = nbrs[v, i]
            if inside[w] == 0:
                continue
            dw = disc[w]
            if dw == 0:
                t += 1
                disc[w] = t
                low[w] = t
                vstack[vtop] = w
                vtop += 1
                work_v[top] = w
                work_i[top] = 0
                top += 1
            elif dw < low[v]:
                low[v] = dw
            continue
        top -= 1
        if top == 0:
            break
        p = work_v[top - 1]
        lv = low[v]
        if lv < low[p]:
            low[p] = lv
        if lv >= disc[p]:
            count = 0
            same = 0
            sub = 0
            while True:
                vtop -= 1
                u = vstack[vtop]
                count += 1
                if best[u] > sub:
                    sub = best[u]
                if parity and black[u] == black[p]:
                    same += 1
                if u == v:
                    break
            cap = count
            if parity:
                other = count - same
                capped = 2 * same + 1 if other > same else 2 * other
                if capped < cap:
                    cap = capped
            val = cap + sub
            if val > best[p]:
                best[p] = val
    return int(best[head])


@njit(types.int64(_TABLE, _CELLS, types.int64, _COLOURS, types.boolean), cache=True, nogil=True)
def _chain(
    table: np.ndarray, inside: np.ndarray, head: int, black: np.ndarray, coloured: bool
) -> int:
    """`endgame._chain_bound` of the cells marked in ``inside`` (the head's mark is
    ignored): ``black`` each cell's checkerboard colour, used where ``coloured``. The
    duel's evaluation bounds separated territories by it, the endgame solver its moves
    (`_native_endgame`)."""
    size = table.shape[0]
    width = table.shape[1]
    # disc: 0 outside the region, 1 not reached yet, from 2 on the order reached.
    disc = np.empty(size, np.int32)
    for c in range(size):
        disc[c] = inside[c]
    best = np.zeros(size, np.int32)
    vstack = np.empty(size + 1, np.int32)
    vtop = 0
    # The pure version's stack of (parent, its iterator, its low-link).
    sv = np.empty(size + 1, np.int32)
    si = np.empty(size + 1, np.int32)
    sl = np.empty(size + 1, np.int32)
    top = 0
    t = 2
    disc[head] = t
    v = head
    lv = t
    i = 0  # v's next neighbour
    while True:
        descended = False
        while i < width:
            w = table[v, i]
            i += 1
            if w < 0:
                i = width
                break
            dw = disc[w]
            if dw > 1:
                if dw < lv:
                    lv = dw
            elif dw == 1:
                sv[top] = v
                si[top] = i
                sl[top] = lv
                top += 1
                t += 1
                disc[w] = t
                lv = t
                vstack[vtop] = w
                vtop += 1
                v = w
                i = 0
                descended = True
                break
        if descended:
            continue
        if top == 0:
            break
        top -= 1
        p = sv[top]
        i = si[top]
        lp = sl[top]
        if lv < disc[p]:
            v = p
            if lp < lv:
                lv = lp
            continue
        # v's subtree down to v is a block hanging off p: pop it.
        if vstack[vtop - 1] == v:
            vtop -= 1
            val = 1 + best[v]
        elif not coloured:
            size_ = 0
            sub = 0
            while True:
                vtop -= 1
                u = vstack[vtop]
                size_ += 1
                if best[u] > sub:
                    sub = best[u]
                if u == v:
                    break
            val = size_ + sub
        else:
            pc = black[p]
            start = vtop
            while True:
                start -= 1
                if vstack[start] == v:
                    break
            count = vtop - start
            same = 0
            for j in range(start, vtop):
                if black[vstack[j]] == pc:
                    same += 1
            other = count - same
            val = 2 * same + 1 if other > same else 2 * other
            if count < val:
                val = count
            even = 2 * min(same, other)
            odd = 2 * min(same, other - 1) + 1
            for j in range(start, vtop):
                u = vstack[j]
                bu = best[u]
                if bu:
                    cap = even if black[u] == pc else odd
                    if cap + bu > val:
                        val = cap + bu
            vtop = start
        if val > best[p]:
            best[p] = val
        v = p
        lv = lp
    return int(best[head])


@njit(_CELLS(_CELLS, types.uint8, types.int64), cache=True, nogil=True)
def _marked(owner: np.ndarray, who: int, size: int) -> np.ndarray:
    """The cells whose ``owner`` is ``who``, one byte per cell."""
    out = np.zeros(size, np.uint8)
    for c in range(size):
        if owner[c] == who:
            out[c] = 1
    return out


@njit(types.int64(_CELLS, types.int64, _COLOURS, types.boolean), cache=True, nogil=True)
def _parity(region: np.ndarray, head: int, black: np.ndarray, parity: bool) -> int:
    """`chambers.parity_bound` of the cells marked in ``region``."""
    size = 0
    same = 0
    for c in range(region.shape[0]):
        if region[c]:
            size += 1
            if parity and black[c] == black[head]:
                same += 1
    if not parity:
        return size
    other = size - same
    capped = 2 * same + 1 if other > same else 2 * other
    return min(size, capped)


@njit(types.int64(types.int64, types.int64, types.int64, types.boolean), cache=True, nogil=True)
def _fillable(n: int, nb: int, start_black: int, parity: bool) -> int:
    """`chambers._fillable` of ``n`` cells, ``nb`` of them black."""
    if not parity:
        return n - 1
    same = nb if start_black else n - nb
    other = n - same
    return 2 * min(same - 1, other) + (1 if other >= same else 0)


@njit(
    types.void(_TABLE, _CELLS, types.int64, types.int32[::1], types.int32[::1]),
    cache=True,
    nogil=True,
)
def _distances(
    nbrs: np.ndarray, inside: np.ndarray, head: int, dist: np.ndarray, queue: np.ndarray
) -> None:
    """Each marked cell's moves from ``head`` through marked cells, into ``dist`` (-1
    where unmarked or unreached); ``queue``: room for every cell."""
    dist[head] = 0
    queue[0] = head
    lo = 0
    hi = 1
    while lo < hi:
        x = queue[lo]
        lo += 1
        for k in range(nbrs.shape[1]):
            w = nbrs[x, k]
            if w < 0:
                break
            if inside[w] and dist[w] < 0:
                dist[w] = dist[x] + 1
                queue[hi] = w
                hi += 1


@njit(
    types.UniTuple(types.int64, 2)(  # type: ignore[no-untyped-call]
        _TABLE, _TABLE, _CELLS, _CELLS, types.int64, _COLOURS, types.boolean, types.boolean
    ),
    cache=True,
    nogil=True,
)
def _front_space(
    nbrs: np.ndarray,
    moves: np.ndarray,
    inside: np.ndarray,
    room: np.ndarray,
    head: int,
    black: np.ndarray,
    parity: bool,
    local: bool,
) -> tuple[int, int]:
    """`chambers.front_space` of the territory marked in ``inside`` (which it marks the
    head in; ``room``: the free cells and both heads): the same cut cells, chambers,
    exits in the same order, and the same best chain."""
    size = nbrs.shape[0]
    width = nbrs.shape[1]
    inside[head] = 1
    disc = np.zeros(size, np.int32)
    low = np.zeros(size, np.int32)
    cut = np.zeros(size, np.uint8)
    work_v = np.empty(size + 1, np.int32)
    work_i = np.empty(size + 1, np.int32)
    disc[head] = 1
    low[head] = 1
    t = 1
    work_v[0] = head
    work_i[0] = 0
    top = 1
    root_children = 0
    while top:
        v = work_v[top - 1]
        i = work_i[top - 1]
        if i < width and nbrs[v, i] >= 0:
            work_i[top - 1] = i + 1
            w = nbrs[v, i]
            if not inside[w]:
                continue
            if disc[w] == 0:
                t += 1
                disc[w] = t
                low[w] = t
                work_v[top] = w
                work_i[top] = 0
                top += 1
            elif disc[w] < low[v]:
                low[v] = disc[w]
            continue
        top -= 1
        if top == 0:
            break
        p = work_v[top - 1]
        if low[v] < low[p]:
            low[p] = low[v]
        if p == head:
            root_children += 1
        elif low[v] >= disc[p]:
            cut[p] = 1
    if root_children > 1:
        cut[head] = 1
    seen = np.zeros(size, np.uint8)
    exits = np.empty(size * width + 1, np.int32)
    n_exits = 0
    stack = np.empty(size + 1, np.int32)
    # frames: entrance, local cells / black cells / front / edges, exits [start, end),
    # next exit, best steps, best chain's cells / black cells / front / edges
    f_entry = np.empty(size + 1, np.int64)
    f_loc = np.empty((size + 1, 4), np.int64)
    f_exit = np.empty((size + 1, 3), np.int64)
    f_steps = np.empty(size + 1, np.int64)
    f_best = np.empty((size + 1, 4), np.int64)
    dist = np.full(size, -1, np.int32)  # from the head, found when first needed
    nf = 0
    v = head
    result = np.zeros(4, np.int64)
    explore = True
    while True:
        if explore:
            # the chamber entered at v (`chambers.front_space`'s explore)
            start = n_exits
            seen[v] = 1
            n = 1
            nb = black[v]
            front = 0
            edges = 0
            for i in range(moves.shape[1]):
                w = moves[v, i]
                if w < 0:
                    break
                edges += room[w]
            open_ = cut[v] == 0
            stack[0] = v
            sp = 1
            while sp:
                sp -= 1
                x = stack[sp]
                for i in range(width):
                    w = nbrs[x, i]
                    if w < 0:
                        break
                    if not room[w]:
                        continue
                    if not inside[w]:
                        front = 1
                    elif not seen[w]:
                        if not open_ or cut[w]:
                            exits[n_exits] = w
                            n_exits += 1
                        else:
                            seen[w] = 1
                            n += 1
                            nb += black[w]
                            for j in range(moves.shape[1]):
                                u = moves[w, j]
                                if u < 0:
                                    break
                                edges += room[u]
                            stack[sp] = w
                            sp += 1
            f_entry[nf] = v
            f_loc[nf, 0] = n
            f_loc[nf, 1] = nb
            f_loc[nf, 2] = front
            f_loc[nf, 3] = edges
            f_exit[nf, 0] = start
            f_exit[nf, 1] = n_exits
            f_exit[nf, 2] = start
            f_steps[nf] = _fillable(n, nb, black[v], parity) if local else 0
            f_best[nf, 0] = n
            f_best[nf, 1] = nb
            f_best[nf, 2] = front
            f_best[nf, 3] = edges
            nf += 1
            explore = False
        f = nf - 1
        i = f_exit[f, 2]
        while i < f_exit[f, 1] and seen[exits[i]]:
            i += 1
        f_exit[f, 2] = i
        if i < f_exit[f, 1]:
            v = exits[i]
            explore = True
            continue
        nf -= 1
        n_exits = f_exit[f, 0]
        for j in range(4):
            result[j] = f_best[f, j]
        if nf == 0:
            break
        p = nf - 1
        e = f_entry[f]
        steps = _fillable(result[0], result[1], black[e], parity)
        if result[2]:
            if dist[head] < 0:
                _distances(nbrs, inside, head, dist, stack)
            steps += dist[e] - 1
        else:
            steps += _fillable(f_loc[p, 0] + 1, f_loc[p, 1] + black[e], black[f_entry[p]], parity)
        if steps > f_steps[p]:
            f_steps[p] = steps
            if result[2]:
                for j in range(4):
                    f_best[p, j] = result[j]
            else:
                for j in range(4):
                    f_best[p, j] = f_loc[p, j] + result[j]
        f_exit[p, 2] += 1
    usable = result[2] + _fillable(result[0], result[1], black[head], parity)
    return usable, result[3]


ROW_BITS = 56
"""The widest grid whose rows `_evaluate` holds as one int64 each (a row's bits are
read from the position's bytes 8 at a time, from any bit offset 0-7)."""

_GEOMETRY = 7
"""Where `evaluator_for`'s parameters give the row layout: width (0: cell by cell),
height, wrap; each cell's checkerboard colour follows."""


@njit(
    types.int64(_TABLE, _TABLE, _CELLS, _CELLS, _CELLS, types.int64, types.int64, types.int64[::1]),
    cache=True,
    nogil=True,
)
def _front_value(
    nbrs: np.ndarray,
    moves: np.ndarray,
    ta: np.ndarray,
    tb: np.ndarray,
    room: np.ndarray,
    a: int,
    b: int,
    params: np.ndarray,
) -> int:
    """The value by `_front_space` of both territories (``ta``, ``tb``; ``room``: the
    free cells, which it adds the heads to): usable cells plus the edge weight times
    the chosen chambers' moves, a's less b's."""
    parity = params[0] != 0
    local = params[6] == 2
    black = params[_GEOMETRY + 3 :]
    room[a] = 1
    room[b] = 1
    ca, ea = _front_space(nbrs, moves, ta, room, a, black, parity, local)
    cb, eb = _front_space(nbrs, moves, tb, room, b, black, parity, local)
    return int(ca - cb + params[4] * (ea - eb))


@njit(
    types.int64(
        _TABLE,
        _CELLS,
        _CELLS,
        types.int64,
        types.int64,
        types.int64,
        types.int64,
        types.int64[::1],
    ),
    cache=True,
    nogil=True,
)
def _separated_value(
    nbrs: np.ndarray,
    ta: np.ndarray,
    tb: np.ndarray,
    sa: int,
    sb: int,
    a: int,
    b: int,
    params: np.ndarray,
) -> int:
    """The value of a separated position: the weight times the difference of the two
    regions' fills (``ta``, ``tb``: their cells; ``sa``, ``sb``: their sizes), each by
    the endgame's chain bound up to ``fill_cells``, by the parity bound above."""
    parity = params[0] != 0
    chambers = params[1] != 0
    fill_cells = params[3]
    black = params[_GEOMETRY + 3 :]
    if chambers and sa <= fill_cells:
        fa = _chain(nbrs, ta, a, black, parity)
    else:
        fa = _parity(ta, a, black, parity)
    if chambers and sb <= fill_cells:
        fb = _chain(nbrs, tb, b, black, parity)
    else:
        fb = _parity(tb, b, black, parity)
    return int(params[5] * (fa - fb))


@njit(types.int64(types.int64), cache=True, nogil=True, inline="always")
def _ones(x: int) -> int:
    """The set bits of a non-negative int64 below 2**63 (no popcount in numba)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@njit(
    types.int64(types.int64, types.int64, types.int64, types.boolean),
    cache=True,
    nogil=True,
    inline="always",
)
def _beside(row: int, width: int, mask: int, wrap: bool) -> int:
    """The cells left and right of a row's set bits (a torus wraps round)."""
    if wrap:
        return ((row << 1) | (row >> (width - 1)) | (row >> 1) | (row << (width - 1))) & mask
    return ((row << 1) | (row >> 1)) & mask


@njit(
    types.int64(types.int64, types.int64, types.int64, types.boolean),
    cache=True,
    nogil=True,
    inline="always",
)
def _next_row(y: int, step: int, height: int, wrap: bool) -> int:
    """The row ``step`` (1 or -1) from row ``y``, or -1 off a walled grid's edge."""
    z = y + step
    if 0 <= z < height:
        return z
    return z % height if wrap else -1


@njit(_CELLS(types.int64[::1], types.int64, types.int64), cache=True, nogil=True)
def _row_cells(rows: np.ndarray, width: int, size: int) -> np.ndarray:
    """Rows of bits as one byte per cell, 1 where set."""
    out = np.zeros(size, np.uint8)
    for y in range(rows.shape[0]):
        r = rows[y]
        x = 0
        while r:
            if r & 1:
                out[y * width + x] = 1
            r >>= 1
            x += 1
    return out


@njit(
    [
        types.int64(_TABLE, _TABLE, types.int64[::1], bits, types.int64, types.int64)
        for bits in (types.Bytes(types.uint8, 1, "C"), _CELLS)
    ],
    cache=True,
    nogil=True,
)
def _evaluate_rows(
    nbrs: np.ndarray, moves: np.ndarray, params: np.ndarray, occ: bytes | np.ndarray, a: int, b: int
) -> int:
    """`_evaluate` on a grid at most `ROW_BITS` wide, bit-parallel like the pure
    `Kernel.voronoi`: each row is one int64, so a layer of both breadth-first searches is
    a few shifts per row instead of a visit per cell (3-4 times faster on an open 30x30
    board). Walled grids and tori alike: a torus rotates its rows and wraps its columns."""
    parity = params[0] != 0
    chambers = params[1] != 0
    chamber_cells = params[2]
    edge_weight = params[4]
    w = params[_GEOMETRY]
    h = params[_GEOMETRY + 1]
    wrap = params[_GEOMETRY + 2] != 0
    black = params[_GEOMETRY + 3 :]
    size = w * h
    mask = (1 << w) - 1
    nbytes = len(occ)
    free = np.empty(h, np.int64)
    nfree = 0
    for y in range(h):
        start = y * w
        first = start >> 3
        v = 0
        for i in range(min(8, nbytes - first)):
            v |= int(occ[first + i]) << (8 * i)
        free[y] = ~(v >> (start & 7)) & mask
        nfree += _ones(free[y])
    avail = free.copy()
    fa = np.zeros(h, np.int64)
    fb = np.zeros(h, np.int64)
    na = np.empty(h, np.int64)
    nb = np.empty(h, np.int64)
    ta = np.zeros(h, np.int64)
    tb = np.zeros(h, np.int64)
    fa[a // w] = 1 << (a % w)
    fb[b // w] = 1 << (b % w)
    neutral = False
    going = True
    while going:
        going = False
        for y in range(h):
            up = _next_row(y, -1, h, wrap)
            down = _next_row(y, 1, h, wrap)
            xa = _beside(fa[y], w, mask, wrap)
            xb = _beside(fb[y], w, mask, wrap)
            if up >= 0:
                xa |= fa[up]
                xb |= fb[up]
            if down >= 0:
                xa |= fa[down]
                xb |= fb[down]
            room = avail[y]
            xa &= room
            xb &= room
            avail[y] = room & ~(xa | xb)
            both = xa & xb
            if both:
                neutral = True
                xa ^= both
                xb ^= both
            na[y] = xa
            nb[y] = xb
            ta[y] |= xa
            tb[y] |= xb
            if xa | xb:
                going = True
        fa, na = na, fa
        fb, nb = nb, fb
    # the heads' cells, for the touch test and the edge count
    ya, xa_ = a // w, a % w
    yb, xb_ = b // w, b % w
    if not neutral:
        # separated unless a's side (head included) touches one of b's cells
        touching = False
        for y in range(h):
            r = ta[y] | ((1 << xa_) if y == ya else 0)
            for z in (y, _next_row(y, -1, h, wrap), _next_row(y, 1, h, wrap)):
                if z >= 0:
                    other = tb[z] | ((1 << xb_) if z == yb else 0)
                    if (_beside(r, w, mask, wrap) if z == y else r) & other:
                        touching = True
            if touching:
                break
        if not touching:
            sa = 0
            sb = 0
            for y in range(h):
                sa += _ones(ta[y])
                sb += _ones(tb[y])
            ma = _row_cells(ta, w, size)
            return _separated_value(nbrs, ma, _row_cells(tb, w, size), sa, sb, a, b, params)
    if chambers and nfree <= chamber_cells:
        if params[6]:
            ma = _row_cells(ta, w, size)
            mb = _row_cells(tb, w, size)
            return _front_value(nbrs, moves, ma, mb, _row_cells(free, w, size), a, b, params)
        value = _chamber(nbrs, _row_cells(ta, w, size), a, black, parity) - _chamber(
            nbrs, _row_cells(tb, w, size), b, black, parity
        )
    else:
        value = 0
        for y in range(h):
            value += _ones(ta[y]) - _ones(tb[y])
    if edge_weight:
        # each territory cell's moves into a free cell or a head (`Kernel.edges`)
        room = free  # no longer needed as the free set
        room[ya] |= 1 << xa_
        room[yb] |= 1 << xb_
        ea = 0
        eb = 0
        for y in range(h):
            r = room[y]
            if wrap:
                across = (((r >> 1) | (r << (w - 1))) & mask, ((r << 1) | (r >> (w - 1))) & mask)
            else:
                across = (r >> 1, (r << 1) & mask)
            for z in (_next_row(y, -1, h, wrap), _next_row(y, 1, h, wrap)):
                if z >= 0:
                    ea += _ones(ta[y] & room[z])
                    eb += _ones(tb[y] & room[z])
            for side in across:
                ea += _ones(ta[y] & side)
                eb += _ones(tb[y] & side)
        value += edge_weight * (ea - eb)
    return value


@njit(
    [
        types.int64(_TABLE, _TABLE, types.int64[::1], bits, types.int64, types.int64)
        for bits in (types.Bytes(types.uint8, 1, "C"), _CELLS)
    ],
    cache=True,
    nogil=True,
)
def _evaluate(
    nbrs: np.ndarray, moves: np.ndarray, params: np.ndarray, occ: bytes | np.ndarray, a: int, b: int
) -> int:
    """`duel.DuelSearch.evaluate`: Voronoi territories (a cell both reach at the same
    distance is neutral and stops both), then the separated value, or the chamber bounds
    or cell counts, plus the edge weight per move inside each territory.

    ``moves`` is the neighbour table as `Kernel.edges` counts it; ``params`` are the
    search's options (see `evaluator_for`) followed by each cell's checkerboard colour;
    ``occ`` is the blocked cells' bitboard, little-endian bytes.
    """
    if params[_GEOMETRY] > 0:
        return _evaluate_rows(nbrs, moves, params, occ, a, b)
    parity = params[0] != 0
    chambers = params[1] != 0
    chamber_cells = params[2]
    edge_weight = params[4]
    black = params[_GEOMETRY + 3 :]
    size = nbrs.shape[0]
    width = nbrs.shape[1]
    free = np.empty(size, np.uint8)
    nfree = 0
    for c in range(size):
        f = 1 - ((occ[c >> 3] >> (c & 7)) & 1)
        free[c] = f
        nfree += f
    # owner: 0 unreached, 1 a's, 2 b's, 3 neutral; stamp: the layer that reached it.
    # Each side's cells in the order reached: ``seen_a[:ka]`` (some turned neutral).
    owner = np.zeros(size, np.uint8)
    stamp = np.zeros(size, np.int32)
    seen_a = np.empty(size + 1, np.int32)
    seen_b = np.empty(size + 1, np.int32)
    seen_a[0] = a
    seen_b[0] = b
    start_a, end_a, ka = 0, 1, 1
    start_b, end_b, kb = 0, 1, 1
    layer = 0
    neutral = 0
    while start_a < end_a or start_b < end_b:
        layer += 1
        for j in range(start_a, end_a):
            v = seen_a[j]
            if owner[v] == 3:
                continue
            for i in range(width):
                w = nbrs[v, i]
                if w < 0:
                    break
                if free[w] and owner[w] == 0:
                    owner[w] = 1
                    stamp[w] = layer
                    seen_a[ka] = w
                    ka += 1
        for j in range(start_b, end_b):
            v = seen_b[j]
            for i in range(width):
                w = nbrs[v, i]
                if w < 0:
                    break
                if free[w]:
                    if owner[w] == 0:
                        owner[w] = 2
                        stamp[w] = layer
                        seen_b[kb] = w
                        kb += 1
                    elif owner[w] == 1 and stamp[w] == layer:
                        owner[w] = 3
                        neutral += 1
        start_a, end_a = end_a, ka
        start_b, end_b = end_b, kb
    sa = ka - 1 - neutral
    sb = kb - 1
    if neutral == 0:
        # separated unless a cell of a's side (head included) touches one of b's
        touching = False
        for j in range(ka):
            c = seen_a[j]
            for i in range(width):
                w = nbrs[c, i]
                if w < 0:
                    break
                if owner[w] == 2 or w == b:
                    touching = True
                    break
            if touching:
                break
        if not touching:
            ta = _marked(owner, 1, size)
            tb = _marked(owner, 2, size)
            return _separated_value(nbrs, ta, tb, sa, sb, a, b, params)
    if chambers and nfree <= chamber_cells:
        ta = _marked(owner, 1, size)
        tb = _marked(owner, 2, size)
        if params[6]:
            return _front_value(nbrs, moves, ta, tb, free, a, b, params)
        value = _chamber(nbrs, ta, a, black, parity) - _chamber(nbrs, tb, b, black, parity)
    else:
        value = sa - sb
    if edge_weight:
        room = free
        room[a] = 1
        room[b] = 1
        mw = moves.shape[1]
        ea = 0
        for j in range(1, ka):
            c = seen_a[j]
            if owner[c] == 1:
                for i in range(mw):
                    w = moves[c, i]
                    if w < 0:
                        break
                    ea += room[w]
        eb = 0
        for j in range(1, kb):
            c = seen_b[j]
            for i in range(mw):
                w = moves[c, i]
                if w < 0:
                    break
                eb += room[w]
        value += edge_weight * (ea - eb)
    return value


def _table(neighbours: Sequence[Sequence[int]]) -> np.ndarray:
    """A neighbour table as an array, each row padded with -1."""
    width = max((len(nb) for nb in neighbours), default=1) or 1
    table = np.full((len(neighbours), width), -1, np.int32)
    for c, nb in enumerate(neighbours):
        table[c, : len(nb)] = nb
    return table


def _cells(bits: int | None, size: int) -> np.ndarray:
    """A bitboard as one byte per cell (all zero for ``None``)."""
    out = np.zeros(size, np.uint8)
    for c in range(size):
        if bits is not None and (bits >> c) & 1:
            out[c] = 1
    return out


def evaluation_tables(
    neighbours: Sequence[Sequence[int]],
    moves: Sequence[Sequence[int]],
    size: int,
    black: int | None,
    chambers: bool,
    chamber_cells: int,
    fill_cells: int,
    edge_weight: int,
    separated: int,
    front: int,
    grid: tuple[int, int, bool] | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_evaluate`'s first three arguments: the neighbour table, the move table and the
    parameters (the options, the row layout, each cell's colour). ``grid``: the board's
    width, height and wrap where it is a grid (evaluated row by row if at most
    `ROW_BITS` wide), ``None`` to evaluate cell by cell."""
    table = _table(neighbours)
    move_table = _table(moves)
    options = [black is not None, chambers, chamber_cells, fill_cells, edge_weight]
    options += [separated, front]
    width, height, wrap = grid if grid is not None and grid[0] <= ROW_BITS else (0, 0, False)
    options += [width, height, wrap]
    params = np.concatenate((np.array(options, np.int64), _cells(black, size).astype(np.int64)))
    return table, move_table, params


def evaluator_for(
    tables: tuple[np.ndarray, np.ndarray, np.ndarray], size: int
) -> Callable[[int, int, int], int]:
    """``evaluate(a, b, occ)`` on one board with one search's options (``tables``: from
    `evaluation_tables`, made once; ``size``: the board's cells): a call passes only the
    position (each argument of a compiled call costs a fraction of a microsecond to
    check). A grid at most `ROW_BITS` wide is evaluated row by row, bit-parallel; other
    boards cell by cell."""
    table, move_table, params = tables
    nbytes = (size + 7) // 8
    compiled = _evaluate

    def evaluate(a: int, b: int, occ: int) -> int:
        return int(compiled(table, move_table, params, occ.to_bytes(nbytes, "little"), a, b))

    return evaluate

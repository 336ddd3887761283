"""Numba kernels behind the endgame solver's bounds (import only through `native`).

Importing this module compiles them (or loads them from numba's cache), and raises
ImportError where numba is not installed. Each is the pure-Python algorithm it stands
for, step for step, on arrays (the chamber bound, `endgame._chain_bound`, is
`_native_kernels._chain`, which the duel's evaluation shares).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numba import njit, types

from lightcycle.bots.search._native_kernels import _COLOURS, _cells, _chain, _table, _unpack

_TABLE = types.int32[:, ::1]
_BYTES = types.Bytes(types.uint8, 1, "C")
_U8 = types.uint8[::1]


@njit(types.int64(_TABLE, _COLOURS, types.boolean, types.int64, _BYTES), cache=True, nogil=True)
def _chain_of(table: np.ndarray, black: np.ndarray, coloured: bool, head: int, free: bytes) -> int:
    """`_native_kernels._chain` of the cells set in ``free`` (a bitboard, little-endian
    bytes)."""
    return _chain(table, _unpack(free, table.shape[0]), head, black, coloured)


def chain_bound_for(
    neighbours: Sequence[Sequence[int]], size: int, black: int | None
) -> Callable[[int, int], int]:
    """``bound(head, free)``: `endgame._chain_bound` on one board. The table is made
    once, and a call passes only the position (each argument of a compiled call costs a
    fraction of a microsecond to check)."""
    table = _table(neighbours)
    colours = _cells(black, size).astype(np.int64)
    coloured = black is not None
    nbytes = (size + 7) // 8
    compiled = _chain_of

    def bound(head: int, free: int) -> int:
        return int(compiled(table, colours, coloured, head, free.to_bytes(nbytes, "little")))

    return bound


# `_refutes`' table: each cell's distinct neighbours other than itself, ascending, in
# columns 0-3 (-1 where fewer), its four grid directions as `Kernel.edges` counts them in
# columns 4-7 (-1 off the board's edge), and its checkerboard colour in column 8.
_SLOT_T = 4  # the bit of a cell's edge to the virtual end among its edge bits


@njit(types.int64(types.int64), cache=True, nogil=True)
def _ones(bits: int) -> int:
    """The bits set in a cell's edges (five bits at most)."""
    k = 0
    while bits:
        bits &= bits - 1
        k += 1
    return k


@njit(types.int64(_TABLE, types.int64, types.int64), cache=True, nogil=True)
def _slot(table: np.ndarray, u: int, v: int) -> int:
    """The bit of the edge ``u``-``v`` among ``u``'s edges (``v`` the end: `_SLOT_T`)."""
    if v == table.shape[0]:
        return 1 << _SLOT_T
    for j in range(4):
        if table[u, j] == v:
            return 1 << j
    return 0


@njit(
    types.int64(
        _TABLE, types.int64, types.int64, types.boolean[::1], types.boolean[::1], types.int32[::1]
    ),
    cache=True,
    nogil=True,
)
def _edges(
    table: np.ndarray,
    v: int,
    head: int,
    live: np.ndarray,
    to_end: np.ndarray,
    adj: np.ndarray,
) -> int:
    """`chambers.forced_refutes`' ``edges(v)`` of a cell: built on first use."""
    a = adj[v]
    if a < 0:
        a = 0
        for j in range(4):
            e = table[v, j]
            if e >= 0 and (live[e] or e == head):
                a |= 1 << j
        if to_end[v]:
            a |= 1 << _SLOT_T
        adj[v] = a
    return int(a)


@njit(types.int64(types.int64[::1], types.int64), cache=True, nogil=True)
def _find(parent: np.ndarray, x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(types.int64[::1](types.int64[::1], types.int64, types.int64), cache=True, nogil=True)
def _push(queue: np.ndarray, top: int, v: int) -> np.ndarray:
    """``queue`` with ``v`` at ``top`` (a copy twice as long when it is full)."""
    if top == queue.shape[0]:
        bigger = np.empty(2 * top, np.int64)
        bigger[:top] = queue
        queue = bigger
    queue[top] = v
    return queue


@njit(
    types.int64[::1](
        _TABLE,
        types.int64,
        types.int32[::1],
        types.boolean[::1],
        types.int64[::1],
        types.int64[::1],
    ),
    cache=True,
    nogil=True,
)
def _drop(
    table: np.ndarray,
    x: int,
    adj: np.ndarray,
    to_end: np.ndarray,
    queue: np.ndarray,
    state: np.ndarray,
) -> np.ndarray:
    """`chambers._drop` of one cell: its built neighbours (and the end) lose the edge
    to it. ``state`` is the queue's length and the end's edge count (updated); returns
    the queue."""
    n = table.shape[0]
    adj[x] = 0
    for j in range(4):
        e = table[x, j]
        if e < 0:
            continue
        if adj[e] > 0:
            bit = _slot(table, e, x)
            if adj[e] & bit:
                adj[e] &= ~bit
                queue = _push(queue, state[0], e)
                state[0] += 1
    if to_end[x]:
        to_end[x] = False
        state[1] -= 1
        queue = _push(queue, state[0], n)
        state[0] += 1
    return queue


@njit(
    [
        types.boolean(_TABLE, types.int64, cells, types.int64, types.int64)
        for cells in (_BYTES, _U8)
    ],
    cache=True,
    nogil=True,
)
def _live(table: np.ndarray, head: int, cells: bytes, xc: int, c: int) -> bool:
    """Whether the region's cell ``c`` is live: a cell of colour ``xc`` always is; one
    of the other colour only if it is not a dead end (it has two neighbours or more in
    the region or at the head, counted as `Kernel.edges` counts them)."""
    if table[c, 8] == xc:
        return True
    k = 0
    for j in range(4, 8):
        e = table[c, j]
        if e >= 0 and (e == head or (cells[e >> 3] >> (e & 7)) & 1):
            k += 1
    return k >= 2


@njit(
    [types.boolean(_TABLE, types.int64, cells, types.int64) for cells in (_BYTES, _U8)],
    cache=True,
    nogil=True,
)
def _refutes(table: np.ndarray, head: int, cells: bytes, length: int) -> bool:
    """`chambers.forced_refutes` of the region set in ``cells`` (a bitboard,
    little-endian bytes or an array of them), step for step: the same queue, in the same
    order, with a cell's edges as bits of its columns (`_SLOT_T`: the virtual end) and the
    end's edges as a flag per cell."""
    n = table.shape[0]
    if length < 1:
        return False
    t = n
    hc = table[head, 8]
    xc = hc ^ (length & 1)
    need0 = length // 2 if hc == 0 else length - length // 2
    need1 = length - need0
    # The region's cells in order: every loop over cells below takes them in this order
    # (the pure code's order of bits), so the queue is the same; and only them (on the
    # bench's rooms the board has twice as many).
    order = np.empty(n, np.int64)
    m = 0
    for i in range((n + 7) >> 3):
        byte = cells[i]
        if byte:
            for b in range(8):
                if (byte >> b) & 1:
                    order[m] = (i << 3) + b
                    m += 1
    # The live cells (a dead end of the other colour is out) of each colour, counted
    # first: half the calls end at these counts.
    avail0 = 0
    avail1 = 0
    live = np.zeros(n + 1, np.bool_)
    for q in range(m):
        c = order[q]
        if _live(table, head, cells, xc, c):
            live[c] = True
            if table[c, 8]:
                avail1 += 1
            else:
                avail0 += 1
    if need0 > avail0 or need1 > avail1:
        return True
    if need0 < avail0 and need1 < avail1:
        return False
    need = np.array((need0, need1), np.int64)
    avail = np.array((avail0, avail1), np.int64)
    on = np.zeros(n + 1, np.bool_)
    one = np.zeros(n + 1, np.bool_)
    one[head] = True
    one[t] = True
    count = np.zeros(2, np.int64)
    adj = np.full(n, -1, np.int32)  # a cell's edges left, as bits of its columns
    fixed = np.zeros(n, np.int32)  # its forced edges, likewise
    to_end = np.zeros(n, np.bool_)  # the end's edges left
    end_fixed = np.zeros(n, np.bool_)  # its forced edges
    n_end = 0
    n_end_fixed = 0
    parent = np.arange(n + 1)
    size = np.ones(n + 1, np.int64)
    for q in range(m):
        c = order[q]
        if live[c] and table[c, 8] == xc:
            to_end[c] = True
            n_end += 1
    queue = np.empty(4 * n + 8, np.int64)
    queue[0] = t
    queue[1] = head
    top = 2
    for col in range(2):
        if need[col] == avail[col]:
            for q in range(m):
                c = order[q]
                if live[c] and table[c, 8] == col:
                    on[c] = True
            count[col] = avail[col]
    inb = live.copy()
    inb[head] = True
    for q in range(m):
        c = order[q]
        if live[c]:
            k = 0
            for j in range(4, 8):
                e = table[c, j]
                if e >= 0 and inb[e]:
                    k += 1
            if k < (2 if table[c, 8] == xc else 3):
                queue = _push(queue, top, c)
                top += 1
    snap = np.zeros(n, np.bool_)
    rest = np.empty(n, np.int64)
    state = np.zeros(2, np.int64)
    while top:
        top -= 1
        v = queue[top]
        if one[v]:
            r = 1
        elif on[v]:
            r = 2
        elif live[v]:
            r = 0
        else:
            continue  # off the path, its edges dropped
        # a: v's edges (for the end: ``snap``), na: how many
        a = 0
        if v == t:
            na = n_end  # its edges are ``to_end`` (copied to ``snap`` where they change)
        else:
            a = _edges(table, v, head, live, to_end, adj)
            na = _ones(a)
        if r:
            nf = n_end_fixed if v == t else _ones(fixed[v])
            if na < r or nf > r:
                return True
            if na == r and nf < r:
                # each new edge, in order of the cell at its other end (the end last)
                if v == t:
                    snap[:] = to_end
                new = 0 if v == t else a & ~fixed[v]
                for jj in range(m if v == t else _SLOT_T + 1):
                    j = order[jj] if v == t else jj
                    if v == t:
                        if not snap[j] or end_fixed[j]:
                            continue
                        u = j
                    else:
                        if not (new >> j) & 1:
                            continue
                        u = t if j == _SLOT_T else table[v, j]
                    ru = _find(parent, u)
                    rv = _find(parent, v)
                    if ru == rv:
                        return True  # a cycle
                    parent[ru] = rv
                    size[rv] += size[ru]
                    if v == t:
                        end_fixed[u] = True
                        n_end_fixed += 1
                    else:
                        fixed[v] |= 1 << j
                    if u == t:
                        if not end_fixed[v]:
                            end_fixed[v] = True
                            n_end_fixed += 1
                    else:
                        fixed[u] |= _slot(table, u, v)
                    if _find(parent, head) == _find(parent, t):
                        # The whole path: it is this chain.
                        return bool(size[_find(parent, t)] != length + 2)
                    queue = _push(queue, top, u)
                    top += 1
                    if not (on[u] or one[u]):
                        if not live[u]:
                            return True
                        on[u] = True
                        col = table[u, 8]
                        count[col] += 1
                        if count[col] > need[col]:
                            return True
                        if count[col] == need[col]:
                            k = 0
                            for q in range(m):
                                x = order[q]
                                if live[x] and table[x, 8] == col and not on[x]:
                                    live[x] = False
                                    rest[k] = x
                                    k += 1
                            avail[col] -= k
                            state[0] = top
                            state[1] = n_end
                            for q in range(k):
                                queue = _drop(table, rest[q], adj, to_end, queue, state)
                            top = state[0]
                            n_end = state[1]
                nf = r
            if nf == r and na > r:
                # v's other edges are not on the path
                if v == t:
                    for q in range(m):
                        x = order[q]
                        if to_end[x] and not end_fixed[x]:
                            _edges(table, x, head, live, to_end, adj)
                            adj[x] &= ~(1 << _SLOT_T)
                            queue = _push(queue, top, x)
                            top += 1
                    n_end = 0
                    for q in range(m):
                        x = order[q]
                        to_end[x] = end_fixed[x]
                        n_end += end_fixed[x]
                else:
                    extra = a & ~fixed[v]
                    adj[v] = fixed[v]
                    for j in range(_SLOT_T + 1):
                        if not (extra >> j) & 1:
                            continue
                        if j == _SLOT_T:
                            if to_end[v]:
                                to_end[v] = False
                                n_end -= 1
                            queue = _push(queue, top, t)
                        else:
                            u = table[v, j]
                            _edges(table, u, head, live, to_end, adj)
                            adj[u] &= ~_slot(table, u, v)
                            queue = _push(queue, top, u)
                        top += 1
        elif na < 2:
            # Not on the path.
            live[v] = False
            col = table[v, 8]
            avail[col] -= 1
            if avail[col] < need[col]:
                return True
            state[0] = top
            state[1] = n_end
            queue = _drop(table, v, adj, to_end, queue, state)
            top = state[0]
            n_end = state[1]
            if avail[col] == need[col]:
                for q in range(m):
                    x = order[q]
                    if live[x] and table[x, 8] == col and not on[x]:
                        on[x] = True
                        queue = _push(queue, top, x)
                        top += 1
                count[col] = need[col]
    return False


def forced_table(
    neighbours: Sequence[Sequence[int]], directions: Sequence[Sequence[int]], black: int
) -> np.ndarray:
    """`_refutes`' table of a grid (``directions``: each cell's four moves as
    `Kernel.edges` counts them)."""
    size = len(neighbours)
    colours = _cells(black, size)
    flat: list[int] = []
    for c in range(size):
        simple = sorted(set(neighbours[c]) - {c})
        moves = directions[c]
        flat += simple
        flat += [-1] * (4 - len(simple))
        flat += moves
        flat += [-1] * (4 - len(moves))
        flat.append(int(colours[c]))
    table = np.array(flat, np.int32).reshape(size, 9)
    return table


def refutes_for(
    neighbours: Sequence[Sequence[int]], directions: Sequence[Sequence[int]], black: int
) -> Callable[[int, int, int], bool]:
    """``refutes(head, region, length)``: `chambers.forced_refutes` on one grid,
    compiled."""
    table = forced_table(neighbours, directions, black)
    nbytes = (len(neighbours) + 7) // 8
    compiled = _refutes

    def refutes(head: int, region: int, length: int) -> bool:
        return bool(compiled(table, head, region.to_bytes(nbytes, "little"), length))

    return refutes

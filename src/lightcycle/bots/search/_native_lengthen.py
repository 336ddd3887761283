"""Numba kernel behind `lengthen.lengthen` (import only through `native`).

The endgame solver lengthens its best path whenever a descent improved it and each
search's probed path every few dozen nodes; once its search loop is compiled, that is
half its time in pure Python. This is the same algorithm, step for step: the same
detours, extensions and rotations in the same order, so the same path. Paths are arrays
of cells, the unused cells of the region one byte a cell.

Importing this module compiles the kernel (or loads it from numba's cache), and raises
ImportError where numba is not installed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit, types

from lightcycle.bots.search._native_kernels import _table, _unpack
from lightcycle.bots.search.spares import Spares

_I64 = types.int64
_TABLE = types.int32[:, ::1]
_U8 = types.uint8[::1]
_I32 = types.int32[::1]
_PATHS = types.int32[:, ::1]


@njit(types.boolean(_TABLE, _I64, _I64), cache=True, nogil=True)
def _next_to(table: np.ndarray, x: int, y: int) -> bool:
    """Whether ``y`` is among ``x``'s neighbours."""
    for j in range(table.shape[1]):
        e = table[x, j]
        if e < 0:
            return False
        if e == y:
            return True
    return False


@njit(types.UniTuple(_I64, 2)(_TABLE, _U8, _I64, _I64), cache=True, nogil=True)  # type: ignore[no-untyped-call]
def _between(table: np.ndarray, free: np.ndarray, a: int, b: int) -> tuple[int, int]:
    """The cells of ``free`` a path can take between the neighbours ``a`` and ``b``, as
    `lengthen._detour` looks for them: ``(u, -1)`` for one (off checkerboards), ``(u,
    v)`` for two, ``(-1, -1)`` for none."""
    width = table.shape[1]
    for j in range(width):
        u = table[a, j]
        if u < 0:
            break
        if not free[u]:
            continue
        if _next_to(table, u, b):
            return u, -1
        for m in range(width):
            v = table[u, m]
            if v < 0:
                break
            if v != u and free[v] and _next_to(table, v, b):
                return u, v
    return -1, -1


@njit(_I64(_TABLE, _I64, _U8, _I32, _I64), cache=True, nogil=True)
def _detour(table: np.ndarray, head: int, free: np.ndarray, path: np.ndarray, n: int) -> int:
    """`lengthen._detour` of the ``n`` cells of ``path`` (in place), ``free`` the unused
    cells of the region (updated); returns the path's new length. (The pure code looks
    only at the steps from a cell beside an unused one; the others find nothing.)"""
    i = 0
    while i < n:
        u_in, v_in = _between(table, free, path[i - 1] if i else head, path[i])
        if u_in < 0:
            i += 1
            continue
        k = 1 if v_in < 0 else 2
        for x in range(n - 1, i - 1, -1):
            path[x + k] = path[x]
        path[i] = u_in
        free[u_in] = 0
        if k == 2:
            path[i + 1] = v_in
            free[v_in] = 0
        n += k  # the new steps may take detours too
    return n


@njit(_I64(_TABLE, _I64, _U8, _I32, _I64), cache=True, nogil=True)
def _extend(table: np.ndarray, head: int, free: np.ndarray, path: np.ndarray, n: int) -> int:
    """`lengthen._extend` of the ``n`` cells of ``path`` (in place); returns its new
    length."""
    width = table.shape[1]
    cur = path[n - 1] if n else head
    while True:
        step = -1
        fewest = 0
        for j in range(width):
            d = table[cur, j]
            if d < 0:
                break
            if not free[d]:
                continue
            onward = 0
            for m in range(width):
                e = table[d, m]
                if e < 0:
                    break
                if e != d and free[e]:
                    onward += 1
            if step < 0 or onward < fewest:
                step = d
                fewest = onward
        if step < 0:
            return n
        path[n] = step
        n += 1
        free[step] = 0
        cur = step


@njit(types.boolean(_TABLE, _U8, _I64), cache=True, nogil=True)
def _opens(table: np.ndarray, free: np.ndarray, cell: int) -> bool:
    """`lengthen._opens`."""
    for j in range(table.shape[1]):
        d = table[cell, j]
        if d < 0:
            break
        if free[d]:
            return True
    return False


@njit(types.boolean(_TABLE, _U8, _I64, _I64), cache=True, nogil=True)
def _beside(table: np.ndarray, free: np.ndarray, a: int, b: int) -> bool:
    """`lengthen._beside`."""
    return _between(table, free, a, b)[0] >= 0


@njit(
    _I64(_TABLE, _I64, _U8, _I32, _I64, _I64, _PATHS, _PATHS, _I32, _I32, _I32, _I32),
    cache=True,
    nogil=True,
)
def _lengthen(
    table: np.ndarray,
    head: int,
    free: np.ndarray,
    best: np.ndarray,
    n: int,
    rotations: int,
    frontier: np.ndarray,
    grown_from: np.ndarray,
    lengths: np.ndarray,
    next_lengths: np.ndarray,
    at: np.ndarray,
    seen: np.ndarray,
) -> int:
    """`lengthen.lengthen` of the ``n`` cells of ``best`` (in place: the longest path
    found), ``free`` the region less the path, at most ``rotations`` rotations
    (`lengthen.ROTATIONS`); returns its length. ``frontier`` and ``grown_from`` hold
    ``rotations`` + 1 paths each, ``at`` is -1 for every cell, ``seen`` four numbers a
    rotation."""
    width = table.shape[1]
    n = _detour(table, head, free, best, n)
    n = _extend(table, head, free, best, n)
    n = _detour(table, head, free, best, n)
    if n == 0:
        return 0
    # The rotations seen: the path's length and its last three cells (-1 for none).
    seen_count = 1
    seen[0] = n
    for k in range(3):
        seen[1 + k] = best[n - 3 + k] if n - 3 + k >= 0 else -1
    frontier[0, :n] = best[:n]
    lengths[0] = n
    count = 1
    tries = 0
    while count and tries < rotations:
        grown = False
        nxt = 0
        for f in range(count):
            p = frontier[f]
            m = lengths[f]
            end = p[m - 1]
            for i in range(m):
                at[p[i]] = i
            for j in range(width):
                q = table[end, j]
                if q < 0:
                    break
                i = at[q]
                if i < 0 or i >= m - 2:
                    continue  # not on the path, or the cell before the end
                r = grown_from[nxt]
                r[: i + 1] = p[: i + 1]
                for x in range(i + 1, m):
                    r[x] = p[m - 1 - (x - i - 1)]
                new = True
                for s in range(seen_count):
                    if (
                        seen[4 * s] == m
                        and seen[4 * s + 1] == (r[m - 3] if m >= 3 else -1)
                        and seen[4 * s + 2] == (r[m - 2] if m >= 2 else -1)
                        and seen[4 * s + 3] == r[m - 1]
                    ):
                        new = False
                        break
                if not new:
                    continue
                seen[4 * seen_count] = m
                seen[4 * seen_count + 1] = r[m - 3] if m >= 3 else -1
                seen[4 * seen_count + 2] = r[m - 2] if m >= 2 else -1
                seen[4 * seen_count + 3] = r[m - 1]
                seen_count += 1
                tries += 1
                if _opens(table, free, r[m - 1]) or _beside(table, free, q, end):
                    k = _extend(table, head, free, r, m)
                    k = _detour(table, head, free, r, k)
                    if k > n:
                        n = k
                        best[:n] = r[:n]
                        grown = True
                        break
                next_lengths[nxt] = m
                nxt += 1
                if tries >= rotations:
                    break
            for i in range(m):
                at[p[i]] = -1
            if grown or tries >= rotations:
                break
        if grown:
            frontier[0, :n] = best[:n]
            lengths[0] = n
            count = 1
        else:
            for f in range(nxt):
                frontier[f, : next_lengths[f]] = grown_from[f, : next_lengths[f]]
                lengths[f] = next_lengths[f]
            count = nxt
    return n


class LengthenBuffers:
    """One caller's scratch for `_lengthen`: the best path and the rotations' rows, which
    it writes as it goes."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.best = np.zeros(size + 2, np.int32)
        self.at = np.full(size, -1, np.int32)
        self._rows(0)

    def _rows(self, rotations: int) -> None:
        rows = rotations + 1
        self.rotations = rotations
        self.frontier = np.zeros((rows, self.size + 2), np.int32)
        self.grown_from = np.zeros((rows, self.size + 2), np.int32)
        self.lengths = np.zeros(rows, np.int32)
        self.next_lengths = np.zeros(rows, np.int32)
        self.seen = np.zeros(4 * rows, np.int32)

    def reserve(self, rotations: int) -> None:
        """Rows for ``rotations`` rotations."""
        if rotations > self.rotations:
            self._rows(rotations)


class Lengthen:
    """`lengthen.lengthen` compiled, on one board (the table made once).

    One is shared by every thread that searches the board (`native.lengthen_for` caches
    it), so it holds only the table; each call takes its scratch from `spares`
    (`lightcycle.bots.search.spares`)."""

    def __init__(self, neighbours: Sequence[Sequence[int]]) -> None:
        size = len(neighbours)
        self.table = _table(neighbours)
        self.nbytes = (size + 7) // 8
        self.size = size
        self.spares: Spares[LengthenBuffers] = Spares(self.buffers)

    def buffers(self) -> LengthenBuffers:
        """New scratch for this board's `_lengthen`."""
        return LengthenBuffers(self.size)

    def lengthen(self, head: int, region: int, path: list[int], rotations: int) -> list[int]:
        """`lengthen.lengthen` with at most ``rotations`` rotations (without a clock: a
        call costs microseconds)."""
        free = _unpack(region.to_bytes(self.nbytes, "little"), self.size)
        n = len(path)
        buf = self.spares.take()
        try:
            buf.reserve(rotations)
            if n:
                cells = np.array(path, np.int32)
                free[cells] = 0
                buf.best[:n] = cells
            n = _lengthen(
                self.table,
                head,
                free,
                buf.best,
                n,
                rotations,
                buf.frontier,
                buf.grown_from,
                buf.lengths,
                buf.next_lengths,
                buf.at,
                buf.seen,
            )
            return buf.best[:n].tolist()  # type: ignore[no-any-return]
        finally:
            self.spares.give(buf)

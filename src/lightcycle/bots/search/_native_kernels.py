"""Numba kernels behind `lightcycle.bots.search.native` (import only through it).

Importing this module compiles them (or loads them from numba's cache), and raises
ImportError where numba is not installed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numba import njit, types

_WORDS = types.Array(types.uint64, 1, "C", readonly=True)


@njit(
    types.int64(types.int32[:, ::1], _WORDS, types.int64, _WORDS, types.boolean),
    cache=True,
    nogil=True,
)
def _fill_bound(
    nbrs: np.ndarray, free: np.ndarray, head: int, black: np.ndarray, parity: bool
) -> int:
    """`chambers.fill_bound`, step for step, on arrays: ``nbrs`` is the neighbour table
    padded with -1, ``free`` and ``black`` are bitboards as little-endian 64-bit words."""
    size = nbrs.shape[0]
    width = nbrs.shape[1]
    one = np.uint64(1)
    inside = np.zeros(size, np.uint8)
    for c in range(size):
        if (free[c >> 6] >> np.uint64(c & 63)) & one:
            inside[c] = 1
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
            pc = one
            if parity:
                pc = (black[p >> 6] >> np.uint64(p & 63)) & one
            while True:
                vtop -= 1
                u = vstack[vtop]
                count += 1
                if best[u] > sub:
                    sub = best[u]
                if parity and ((black[u >> 6] >> np.uint64(u & 63)) & one) == pc:
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


def bound_for(
    neighbours: Sequence[Sequence[int]], size: int, black: int | None
) -> Callable[[int, int], int]:
    """``bound(head, free)`` on one board: its tables made once, each call converting
    the ``free`` bitboard to words (a few hundred nanoseconds)."""
    width = max((len(nb) for nb in neighbours), default=1) or 1
    table = np.full((size, width), -1, np.int32)
    for c, nb in enumerate(neighbours):
        table[c, : len(nb)] = nb
    nbytes = 8 * ((size + 63) // 64)
    frombuffer = np.frombuffer
    uint64 = np.uint64
    parity = black is not None
    black_words = frombuffer((black or 0).to_bytes(nbytes, "little"), dtype=uint64)

    def bound(head: int, free: int) -> int:
        words = frombuffer(free.to_bytes(nbytes, "little"), dtype=uint64)
        return int(_fill_bound(table, words, head, black_words, parity))

    return bound

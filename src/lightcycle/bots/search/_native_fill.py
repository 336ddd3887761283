"""Numba kernels behind the endgame solver's moves and its greedy fill (import only
through `native`).

Importing this module compiles them (or loads them from numba's cache), and raises
ImportError where numba is not installed. Each is the pure-Python code it stands for,
value for value: `_greedy` is `endgame.greedy_fill` (the same moves in the same order,
the same keys, the first best kept), and `_steps` is `endgame._steps` with
`chambers.dead_end_bound` of each move; on arrays, with a flood a part (the moves into
one part share it, as the pure code's do: its region less the move; this took the
moves from about 7.8 to 5.3 us a node on the bench's rooms). The pure code's other
saving, no flood where the ways on are joined round the cell, is not copied: a flood
of a hundred cells costs about a microsecond here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numba import njit, types

from lightcycle.bots.search._native_kernels import _cells, _table, _unpack
from lightcycle.bots.search.spares import Spares

_TABLE = types.int32[:, ::1]
_BYTES = types.Bytes(types.uint8, 1, "C")
_I32 = types.int32[::1]
_U8 = types.uint8[::1]
_I64 = types.int64


@njit(types.int64(_TABLE, _U8, types.int64, _I32, _I32), cache=True, nogil=True)
def _flood(
    table: np.ndarray, free: np.ndarray, start: int, mark: np.ndarray, queue: np.ndarray
) -> int:
    """`Kernel.flood` of one cell: marks the cells of ``free`` reached from ``start``'s
    neighbours with ``mark[start]`` (a stamp the caller sets; ``start`` itself only if it
    is free and reached), and returns how many."""
    stamp = mark[start]
    width = table.shape[1]
    n = 0
    head = 0
    mark[start] = 0  # reached again only through a neighbour
    for j in range(width):
        e = table[start, j]
        if e < 0:
            break
        if free[e] and mark[e] != stamp:
            mark[e] = stamp
            queue[n] = e
            n += 1
    while head < n:
        c = queue[head]
        head += 1
        for j in range(width):
            e = table[c, j]
            if e < 0:
                break
            if free[e] and mark[e] != stamp:
                mark[e] = stamp
                queue[n] = e
                n += 1
    return n


@njit(types.int64(_TABLE, _U8, types.int64, types.int64, _I32, _I32), cache=True, nogil=True)
def _reach(
    table: np.ndarray, free: np.ndarray, d: int, stamp: int, mark: np.ndarray, queue: np.ndarray
) -> int:
    """The region a move to ``d`` reaches, ``flood(1 << d, free & ~(1 << d))``: its cells
    into ``queue`` and marked ``stamp``; returns how many."""
    free[d] = 0
    mark[d] = stamp
    n = _flood(table, free, d, mark, queue)
    free[d] = 1
    return n


@njit(
    types.UniTuple(_I64, 2)(_TABLE, _U8, _I64, _I64, _I64, _I32, _I32),  # type: ignore[no-untyped-call]
    cache=True,
    nogil=True,
)
def _region(
    table: np.ndarray,
    free: np.ndarray,
    d: int,
    part: int,
    stamp: int,
    mark: np.ndarray,
    queue: np.ndarray,
) -> tuple[int, int]:
    """The region of a move to ``d``: its cells first in ``queue``; returns how many, and
    1 if it was flooded afresh (its cells marked ``stamp`` + 1), 0 if ``d`` is in the part
    flooded last (its ``part`` cells first in ``queue``, marked ``stamp``). The moves
    into one part share its flood, as the pure code's do: a move reaches the rest of its
    part (whatever it cuts off still touches it), so its region is the part less ``d``,
    which this moves to the end."""
    if part and mark[d] == stamp:
        i = 0
        while queue[i] != d:
            i += 1
        queue[i] = queue[part - 1]
        queue[part - 1] = d
        return part - 1, 0
    return _reach(table, free, d, stamp + 1, mark, queue), 1


@njit(
    [_I64(_TABLE, _U8, types.boolean, _I64, free, _I64, _I32, _I32) for free in (_BYTES, _U8)],
    cache=True,
    nogil=True,
)
def _greedy(
    table: np.ndarray,
    colours: np.ndarray,
    coloured: bool,
    head: int,
    free_bytes: bytes | np.ndarray,
    max_steps: int,
    out: np.ndarray,
    work: np.ndarray,
) -> int:
    """`endgame.greedy_fill` from ``head`` through ``free_bytes`` (a bitboard,
    little-endian bytes or an array of them), at most ``max_steps`` moves into ``out``;
    returns how many. ``work`` is scratch of three times the board's size."""
    size = table.shape[0]
    width = table.shape[1]
    free = _unpack(free_bytes, size)
    mark = work[:size]
    queue = work[size : 2 * size]
    keep = work[2 * size :]
    for c in range(size):
        mark[c] = 0
    # Only the cells reached matter (as the pure fill keeps them).
    mark[head] = 1
    n = _flood(table, free, head, mark, queue)
    for c in range(size):
        free[c] = 1 if mark[c] == 1 else 0
    stamp = 1
    cur = head
    steps = 0
    while steps < max_steps:
        opts = 0
        only = -1
        for j in range(width):
            e = table[cur, j]
            if e < 0:
                break
            if free[e]:
                opts += 1
                only = e
        if opts == 0:
            break
        if opts == 1:
            d = only
            free[d] = 0
        else:
            best_room = -1
            best_hug = 0
            d = -1
            kept = 0
            part = 0  # the cells of the last part flooded: queue[:part], marked ``stamp``
            black = 0  # how many of them are black
            for j in range(width):
                e = table[cur, j]
                if e < 0:
                    break
                if not free[e]:
                    continue
                n, fresh = _region(table, free, e, part, stamp, mark, queue)
                if fresh:
                    stamp += 1
                    mark[e] = stamp
                    queue[n] = e
                    part = n + 1
                    black = 0
                    for i in range(part):
                        black += colours[queue[i]]
                if not coloured:
                    room = n
                else:
                    # `chambers.parity_bound` of the part less ``e``, from its colours.
                    same = (black if colours[e] else part - black) - 1
                    other = n - same
                    room = min(n, 2 * same + 1 if other > same else 2 * other)
                hug = 0
                for i in range(width):
                    x = table[e, i]
                    if x < 0:
                        break
                    if free[x] and x != e:
                        hug -= 1
                if d < 0 or room > best_room or (room == best_room and hug > best_hug):
                    best_room = room
                    best_hug = hug
                    d = e
                    kept = n
                    for i in range(n):
                        keep[i] = queue[i]
            for c in range(size):
                free[c] = 0
            for i in range(kept):
                free[keep[i]] = 1
        out[steps] = d
        steps += 1
        cur = d
    return steps


@njit(_I64(_TABLE, _U8, _I64, _I64, _I32, _I64, _I32, _I64), cache=True, nogil=True)
def _dead_end_bound(
    moves: np.ndarray,
    colours: np.ndarray,
    kind: int,
    d: int,
    queue: np.ndarray,
    n: int,
    mark: np.ndarray,
    stamp: int,
) -> int:
    """`chambers.dead_end_bound` of a move to ``d`` whose region is the ``n`` cells of
    ``queue`` (marked ``stamp`` in ``mark``); ``kind`` and ``moves`` as for `_steps`."""
    if kind == 0:
        return n
    # A dead end has fewer than two of its moves in the region with the head.
    nd = 0
    same = 0
    same_dead = 0
    for i in range(n):
        c = queue[i]
        ways = 0
        for m in range(moves.shape[1]):
            e = moves[c, m]
            if e < 0:
                break
            if e == d or mark[e] == stamp:
                ways += 1
        dead = 1 if ways < 2 else 0
        nd += dead
        if colours[c] == colours[d]:
            same += 1
            same_dead += dead
    if kind == 1:
        return n - nd + (1 if nd else 0)
    live_same = same - same_dead
    live_other = n - same - (nd - same_dead)
    bound = 2 * live_same + 1 if live_other > live_same else 2 * live_other
    if nd > same_dead:
        bound = max(bound, 2 * min(live_same, live_other) + 1)
    if same_dead:
        bound = max(bound, 2 * min(live_other, live_same + 1))
    return bound


@njit(
    [
        types.int64(_TABLE, _TABLE, _U8, _I64, _I64, reach, _I32, _I32, _I32, _U8, _I32)
        for reach in (_BYTES, _U8)
    ],
    cache=True,
    nogil=True,
)
def _steps(
    table: np.ndarray,
    moves: np.ndarray,
    colours: np.ndarray,
    kind: int,
    cur: int,
    reach_bytes: bytes | np.ndarray,
    out_cell: np.ndarray,
    out_bound: np.ndarray,
    out_sides: np.ndarray,
    out_sub: np.ndarray,
    work: np.ndarray,
) -> int:
    """`endgame._steps` from ``cur`` into ``reach_bytes`` with each move's
    `chambers.dead_end_bound`: the moves into ``out_cell``, their bounds into
    ``out_bound``, their exits and walls as `endgame.solve_fill` orders by them into
    ``out_sides`` (two a move), their regions into ``out_sub`` (one bitboard of
    little-endian bytes after another); returns how many moves.

    ``reach_bytes``: little-endian bytes, or an array of them.
    ``kind``: 0 a graph (the bound is the region's size), 1 a grid without a
    checkerboard, 2 one with. ``moves`` is the table `Kernel.edges` counts by, whose
    neighbours in a region find its dead ends as the pure code's shifts do."""
    size = table.shape[0]
    width = table.shape[1]
    nbytes = (size + 7) // 8
    free = _unpack(reach_bytes, size)
    mark = work[:size]
    queue = work[size : 2 * size]
    for c in range(size):
        mark[c] = 0
    k = 0
    stamp = 0
    part = 0  # the cells of the last part flooded: queue[:part], marked ``stamp``
    for j in range(width):
        d = table[cur, j]
        if d < 0:
            break
        if not free[d]:
            continue
        n, fresh = _region(table, free, d, part, stamp, mark, queue)
        stamp += fresh
        base = k * nbytes
        for i in range(nbytes):
            out_sub[base + i] = 0
        for i in range(n):
            c = queue[i]
            out_sub[base + (c >> 3)] |= np.uint8(1 << (c & 7))
        out_cell[k] = d
        exits = 0
        walls = 0
        for i in range(width):
            e = table[d, i]
            if e < 0:
                break
            if e != d and mark[e] == stamp:
                exits += 1
            elif not free[e] or e == d:
                walls += 1
        out_sides[2 * k] = exits
        out_sides[2 * k + 1] = walls
        mark[d] = stamp  # the part, for the dead ends and the moves after
        queue[n] = d
        part = n + 1
        out_bound[k] = 1 + _dead_end_bound(moves, colours, kind, d, queue, n, mark, stamp)
        k += 1
    return k


class FillBuffers:
    """One caller's scratch for `Fill`'s kernels: what they write as they go."""

    def __init__(self, size: int, width: int, nbytes: int) -> None:
        self.work = np.zeros(3 * size + 1, np.int32)
        self.path = np.zeros(size + 1, np.int32)
        self.cells = np.zeros(width, np.int32)
        self.bounds = np.zeros(width, np.int32)
        self.sides = np.zeros(2 * width, np.int32)
        self.subs = np.zeros(width * nbytes, np.uint8)


class Fill:
    """The compiled greedy fill and moves on one board (made once a board: the tables;
    a call passes only the position).

    One is shared by every thread that searches the board (`native.fill_for` caches it),
    so it holds only what no kernel writes; each call takes its scratch arrays from
    `spares` for its own duration (`lightcycle.bots.search.spares`)."""

    def __init__(
        self,
        neighbours: Sequence[Sequence[int]],
        moves: Sequence[Sequence[int]] | None,
        black: int | None,
    ) -> None:
        size = len(neighbours)
        self.table = _table(neighbours)
        self.coloured = black is not None
        self.colours = _cells(black, size)
        self.kind = 0 if moves is None else (2 if black is not None else 1)
        self.moves = _table(moves) if moves is not None else self.table
        self.nbytes = (size + 7) // 8
        self.size = size
        self.spares: Spares[FillBuffers] = Spares(self.buffers)

    def buffers(self) -> FillBuffers:
        """New scratch arrays for this board's kernels."""
        return FillBuffers(self.size, self.table.shape[1], self.nbytes)

    def greedy(self, head: int, free: int, out_of_time: Callable[[], bool] | None) -> list[int]:
        """`endgame.greedy_fill`; with ``out_of_time``, polled every 32 moves."""
        chunk = self.size if out_of_time is None else 32
        path: list[int] = []
        cur = head
        buf = self.spares.take()
        try:
            while True:
                n = _greedy(
                    self.table,
                    self.colours,
                    self.coloured,
                    cur,
                    free.to_bytes(self.nbytes, "little"),
                    chunk,
                    buf.path,
                    buf.work,
                )
                got = buf.path[:n].tolist()
                path += got
                if n < chunk or (out_of_time is not None and out_of_time()):
                    return path
                for c in got:
                    free &= ~(1 << c)
                cur = path[-1]
        finally:
            self.spares.give(buf)

    def steps(self, cur: int, reach: int) -> list[tuple[int, int, int, int, int]]:
        """`endgame._steps` of ``cur`` into ``reach``, each with 1 plus
        `chambers.dead_end_bound` of the move and its exits and walls:
        ``(move, region, bound, exits, walls)``."""
        buf = self.spares.take()
        try:
            k = _steps(
                self.table,
                self.moves,
                self.colours,
                self.kind,
                cur,
                reach.to_bytes(self.nbytes, "little"),
                buf.cells,
                buf.bounds,
                buf.sides,
                buf.subs,
                buf.work,
            )
            nb = self.nbytes
            raw = buf.subs[: k * nb].tobytes()
            cells = buf.cells.tolist()
            bounds = buf.bounds.tolist()
            sides = buf.sides.tolist()
        finally:
            self.spares.give(buf)
        return [
            (
                cells[i],
                int.from_bytes(raw[i * nb : (i + 1) * nb], "little"),
                bounds[i],
                sides[2 * i],
                sides[2 * i + 1],
            )
            for i in range(k)
        ]

"""Numba kernel behind the endgame solver's depth-first search (import only through
`native`).

`endgame.solve_fill` interleaves many depth-first searches and lengthens what they find;
each search's loop (`endgame.solve_fill`'s ``run``, with its ``moves`` and ``visit``) is
most of the solver's time once the bounds are compiled, and it is here, node for node:
the same moves in the same order, the same cuts, the same learned bounds. Whatever the
loop cannot do without Python (completing and lengthening a path, reading the clock,
growing a table) it hands back as an event, and the solver resumes it where it stopped.

A search's stack is arrays: a frame a row (its cell, depth, moves, next move, promise,
and its region as a bitboard of little-endian bytes), and a frame's moves in rows of
their own. The learned bounds are an open-addressed table keyed by the cell and its
region, exact (the region's bytes are compared, not only hashed).

Importing this module compiles the kernel (or loads it from numba's cache), and raises
ImportError where numba is not installed.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
from numba import njit, types

from lightcycle.bots.search._native_endgame import _refutes, forced_table
from lightcycle.bots.search._native_events import (
    FINISHED,
    FRAMES_FULL,
    KNOWN_FULL,
    POLISH_DUE,
    POLL_DUE,
    PROBE_DUE,
    SHARE_SPENT,
    STOP,
)
from lightcycle.bots.search._native_fill import Fill, _dead_end_bound, _greedy, _steps
from lightcycle.bots.search._native_kernels import _chain, _unpack
from lightcycle.bots.search._native_lengthen import Lengthen, _lengthen
from lightcycle.bots.search.spares import Spares

# The solver's state, shared by all its searches (`Solver.state`).
NODES, BEST, FOUND, LIMIT, ROOT, SPENT, SHARE, TOP = range(8)
KNOWN_COUNT, YIELD, SLACK, DEEP, PROBE = range(8, 13)
_STATE = 13

# A frame's columns (`Search.frames`).
_CELL, _DEPTH, _COUNT, _NEXT, _PROMISE = range(5)
# A move's columns (`Search.moves`): as `endgame._Child`, less its region.
_NEG, _EXITS, _NEG_WALLS, _TO, _DONE = range(5)

_I64 = types.int64
_TABLE = types.int32[:, ::1]
_U8 = types.uint8[::1]
_I32 = types.int32[::1]
_V64 = types.int64[::1]
_PATHS = types.int32[:, ::1]
_KEYS = types.uint8[:, ::1]


@njit(types.uint64(_I64, types.uint8[::1]), cache=True, nogil=True)
def _hash(cell: int, bits: np.ndarray) -> np.uint64:
    """FNV-1a of a cell and its region's bytes."""
    h = np.uint64(14695981039346656037) ^ np.uint64(cell)
    prime = np.uint64(1099511628211)
    h *= prime
    for b in bits:
        h ^= np.uint64(b)
        h *= prime
    return h


@njit(_I64(types.int32[::1], types.uint8[:, ::1], _I64, types.uint8[::1]), cache=True, nogil=True)
def _slot(cells: np.ndarray, keys: np.ndarray, cell: int, bits: np.ndarray) -> int:
    """The slot of (``cell``, ``bits``) in the learned-bounds table: where it is, or the
    empty slot where it would go."""
    mask: int = cells.shape[0] - 1  # a power of two
    i = int(_hash(cell, bits) >> np.uint64(1)) & mask
    nb = bits.shape[0]
    while True:
        c = cells[i]
        if c < 0:
            return i
        if c == cell:
            row = keys[i]
            same = True
            for j in range(nb):
                if row[j] != bits[j]:
                    same = False
                    break
            if same:
                return i
        i = (i + 1) & mask


@njit(
    types.void(_I32, _I32, _KEYS, _I32, _I32, _KEYS),
    cache=True,
    nogil=True,
)
def _rehash(
    cells: np.ndarray,
    values: np.ndarray,
    keys: np.ndarray,
    old_cells: np.ndarray,
    old_values: np.ndarray,
    old_keys: np.ndarray,
) -> None:
    """Move every entry of the old table into the new, empty one."""
    for i in range(old_cells.shape[0]):
        c = old_cells[i]
        if c >= 0:
            j = _slot(cells, keys, c, old_keys[i])
            cells[j] = c
            values[j] = old_values[i]
            keys[j, :] = old_keys[i]


@njit(
    types.UniTuple(_I64, 2)(  # type: ignore[no-untyped-call]
        _TABLE, _TABLE, _U8, _I64, _I64, _U8, _I64, _I64, _I64,
        _I32, _I32, types.uint8[:, ::1],
        types.int64[:, ::1], types.uint8[:, ::1],
        _I32, _I32, _I32, _U8, _I32,
    ),
    cache=True,
    nogil=True,
)  # fmt: skip
def _moves(
    table: np.ndarray,
    moves: np.ndarray,
    colours: np.ndarray,
    kind: int,
    cur: int,
    reach: np.ndarray,
    depth: int,
    cap: int,
    best_len: int,
    known_cells: np.ndarray,
    known_values: np.ndarray,
    known_keys: np.ndarray,
    out: np.ndarray,
    out_sub: np.ndarray,
    cells: np.ndarray,
    bounds: np.ndarray,
    sides: np.ndarray,
    subs: np.ndarray,
    work: np.ndarray,
) -> tuple[int, int]:
    """`endgame.solve_fill`'s ``moves`` (not ``exact``): the moves worth entering from
    ``cur`` into ``out`` and ``out_sub``, best first; returns how many, and the most a cut
    move promises. ``cells`` to ``work`` are `_steps`' outputs and scratch."""
    need = best_len - depth
    nb = reach.shape[0]
    size = table.shape[0]
    if cap >= 0:
        only = -1
        several = False
        for j in range(table.shape[1]):
            d = table[cur, j]
            if d < 0:
                break
            if (reach[d >> 3] >> (d & 7)) & 1:
                if only >= 0 and d != only:
                    several = True
                    break
                only = d
        if not several and only >= 0:
            sub = out_sub[0]
            sub[:] = reach
            sub[only >> 3] &= np.uint8(0xFF ^ (1 << (only & 7)))
            # The corridor's region is the reach less its cell: its cells, marked.
            mark = work[:size]
            queue = work[size : 2 * size]
            n = 0
            for c in range(size):
                if (sub[c >> 3] >> (c & 7)) & 1:
                    mark[c] = 1
                    queue[n] = c
                    n += 1
                else:
                    mark[c] = 0
            bound = min(cap, 1 + _dead_end_bound(moves, colours, kind, only, queue, n, mark, 1))
            i = _slot(known_cells, known_keys, only, sub)
            if known_cells[i] >= 0 and known_values[i] + 1 < bound:
                bound = known_values[i] + 1
            if bound <= need:
                return 0, bound
            out[0, _NEG] = -bound
            out[0, _EXITS] = 0
            out[0, _NEG_WALLS] = 0
            out[0, _TO] = only
            out[0, _DONE] = 1
            return 1, 0
    k = _steps(table, moves, colours, kind, cur, reach, cells, bounds, sides, subs, work)
    top = 0
    m = 0
    for q in range(k):
        d = cells[q]
        bound = bounds[q]
        sub = subs[q * nb : (q + 1) * nb]
        done = 1
        if bound > need and bound > 2:
            i = _slot(known_cells, known_keys, d, sub)
            if known_cells[i] >= 0 and known_values[i] + 1 < bound:
                bound = known_values[i] + 1
            if bound > need:
                done = 0
        if bound <= need:
            if bound > top:
                top = bound
            continue
        neg = -bound
        exits = sides[2 * q]
        neg_walls = -sides[2 * q + 1]
        # Insertion in order (the pure code sorts its tuples; the cells differ, so the
        # first four fields decide).
        j = m
        while j > 0:
            o = out[j - 1]
            if (o[_NEG], o[_EXITS], o[_NEG_WALLS], o[_TO]) <= (neg, exits, neg_walls, d):
                break
            out[j, :] = o
            out_sub[j, :] = out_sub[j - 1]
            j -= 1
        out[j, _NEG] = neg
        out[j, _EXITS] = exits
        out[j, _NEG_WALLS] = neg_walls
        out[j, _TO] = d
        out[j, _DONE] = done
        out_sub[j, :] = sub
        m += 1
    return m, top


@njit(
    _I64(
        _TABLE, _TABLE, _U8, _I64, _V64, types.boolean, _TABLE, types.boolean,
        _V64, _I32,
        types.int64[:, ::1], _KEYS, types.int64[:, :, ::1], types.uint8[:, :, ::1], _I32,
        _I32, _I32, _KEYS,
        _I32, _I32, _I32, _U8, _I32, _U8,
    ),
    cache=True,
    nogil=True,
)  # fmt: skip
def _run(
    table: np.ndarray,
    moves: np.ndarray,
    colours: np.ndarray,
    kind: int,
    black: np.ndarray,
    coloured: bool,
    forced: np.ndarray,
    forcing: bool,
    state: np.ndarray,
    best: np.ndarray,
    frames: np.ndarray,
    regions: np.ndarray,
    children: np.ndarray,
    subs: np.ndarray,
    path: np.ndarray,
    known_cells: np.ndarray,
    known_values: np.ndarray,
    known_keys: np.ndarray,
    s_cells: np.ndarray,
    s_bounds: np.ndarray,
    s_sides: np.ndarray,
    s_subs: np.ndarray,
    work: np.ndarray,
    inside: np.ndarray,
) -> int:
    """`endgame.solve_fill`'s ``run`` on one search until it finishes, spends its share,
    or must hand back (an event: a probe, a polish, a stop, a poll, a full table).

    Every hand-back comes before the step that needs Python changes anything, so the
    solver resumes by calling again."""
    top = state[TOP]
    nb = regions.shape[1]
    while top > 0:
        f = top - 1
        frame = frames[f]
        i = frame[_NEXT]
        if i < frame[_COUNT]:
            if top == frames.shape[0]:
                return FRAMES_FULL
            child = children[f, i]
            neg = child[_NEG]
            d = child[_TO]
            depth = frame[_DEPTH] + 1
            best_len = state[BEST]
            if depth - 1 - neg <= best_len:
                frame[_NEXT] = i + 1
                if -neg > frame[_PROMISE]:
                    frame[_PROMISE] = -neg
                continue
            if child[_DONE] == 0:
                sub = subs[f, i]
                inside_sub = _unpack(sub, table.shape[0])
                chain = min(-neg - 1, _chain(table, inside_sub, d, black, coloured))
                floor = best_len - depth
                slack = state[SLACK] if depth <= state[DEEP] else 1
                if forcing and chain - floor <= slack:
                    while chain > floor and _refutes(forced, d, sub, chain):
                        chain -= 1
                if chain + 1 < -neg:
                    # Back among the moves not tried yet, at its place.
                    key_neg = -1 - chain
                    exits = child[_EXITS]
                    neg_walls = child[_NEG_WALLS]
                    inside[:nb] = sub
                    j = i + 1
                    n = frame[_COUNT]
                    while j < n:
                        o = children[f, j]
                        if (o[_NEG], o[_EXITS], o[_NEG_WALLS], o[_TO]) >= (
                            key_neg,
                            exits,
                            neg_walls,
                            d,
                        ):
                            break
                        children[f, j - 1, :] = o
                        subs[f, j - 1, :] = subs[f, j]
                        j += 1
                    row = children[f, j - 1]
                    row[_NEG] = key_neg
                    row[_EXITS] = exits
                    row[_NEG_WALLS] = neg_walls
                    row[_TO] = d
                    row[_DONE] = 1
                    subs[f, j - 1, :] = inside[:nb]
                    continue
            frame[_NEXT] = i + 1
            path[depth - 1] = d
            # visit
            nodes = state[NODES] + 1
            state[NODES] = nodes
            if state[LIMIT] >= 0 and nodes > state[LIMIT]:
                return STOP
            if depth > best_len:
                state[BEST] = depth
                best[:depth] = path[:depth]
                state[FOUND] = 1
                if depth >= state[ROOT]:
                    return STOP
            new = frames[top]
            new[_CELL] = d
            new[_DEPTH] = depth
            new[_NEXT] = 0
            regions[top, :] = subs[f, i]
            count, promise = _moves(
                table,
                moves,
                colours,
                kind,
                d,
                regions[top],
                depth,
                -neg - 1,
                state[BEST],
                known_cells,
                known_values,
                known_keys,
                children[top],
                subs[top],
                s_cells,
                s_bounds,
                s_sides,
                s_subs,
                work,
            )
            new[_COUNT] = count
            new[_PROMISE] = promise
            top += 1
            state[TOP] = top
            spent = state[SPENT] + 1
            state[SPENT] = spent
            if spent >= state[SHARE]:
                return SHARE_SPENT
            if spent % state[PROBE] == 0:
                return PROBE_DUE
            if state[YIELD] > 0 and nodes % state[YIELD] == 0:
                return POLL_DUE
        else:
            if state[FOUND]:
                return POLISH_DUE
            slot = _slot(known_cells, known_keys, frame[_CELL], regions[f])
            if known_cells[slot] < 0:
                if 2 * (state[KNOWN_COUNT] + 1) > known_cells.shape[0]:
                    return KNOWN_FULL
                state[KNOWN_COUNT] += 1
                known_cells[slot] = frame[_CELL]
                known_keys[slot, :] = regions[f]
            known_values[slot] = frame[_PROMISE]
            top -= 1
            state[TOP] = top
            if top > 0:
                parent = frames[top - 1]
                if 1 + frame[_PROMISE] > parent[_PROMISE]:
                    parent[_PROMISE] = 1 + frame[_PROMISE]
    return FINISHED


@njit(
    types.UniTuple(_I64, 2)(  # type: ignore[no-untyped-call]
        _TABLE, _U8, types.boolean, _I64, _U8, _I32, _I64, _I32, _I32, _I32,
        _I64, _TABLE, _U8, _PATHS, _PATHS, _I32, _I32, _I32, _I32,
    ),
    cache=True,
    nogil=True,
)  # fmt: skip
def _probe(
    table: np.ndarray,
    colours: np.ndarray,
    coloured: bool,
    head: int,
    region: np.ndarray,
    path: np.ndarray,
    n: int,
    out: np.ndarray,
    ending: np.ndarray,
    work: np.ndarray,
    rotations: int,
    lengthen_table: np.ndarray,
    unused: np.ndarray,
    frontier: np.ndarray,
    grown_from: np.ndarray,
    lengths: np.ndarray,
    next_lengths: np.ndarray,
    at: np.ndarray,
    seen: np.ndarray,
) -> tuple[int, int]:
    """`endgame.solve_fill`'s probe of a search's path (its ``n`` cells of ``path``):
    completed by the greedy fill through the rest of ``region`` (a bitboard of bytes)
    and lengthened, into ``out``; returns its length and how many cells the greedy fill
    added. ``unused`` is scratch of a byte a cell, the rest `Lengthen`'s buffers."""
    size = table.shape[0]
    rest = region.copy()
    for i in range(n):
        c = path[i]
        rest[c >> 3] &= np.uint8(0xFF ^ (1 << (c & 7)))
    added = _greedy(table, colours, coloured, path[n - 1], rest, size, ending, work)
    out[:n] = path[:n]
    out[n : n + added] = ending[:added]
    for c in range(size):
        unused[c] = (region[c >> 3] >> (c & 7)) & 1
    for i in range(n + added):
        unused[out[i]] = 0
    length = _lengthen(
        lengthen_table,
        head,
        unused,
        out,
        n + added,
        rotations,
        frontier,
        grown_from,
        lengths,
        next_lengths,
        at,
        seen,
    )
    return length, added


class Search:
    """One of the solver's interleaved searches: its stack as arrays, and its path."""

    def __init__(self, solver: Solver, capacity: int) -> None:
        width = solver.width
        nb = solver.nbytes
        self.solver = solver
        self.frames = np.zeros((capacity, 5), np.int64)
        self.regions = np.zeros((capacity, nb), np.uint8)
        self.children = np.zeros((capacity, width, 5), np.int64)
        self.subs = np.zeros((capacity, width, nb), np.uint8)
        self.path = np.zeros(solver.size + 1, np.int32)
        self.top = 0

    def push(self, cell: int, region: int, depth: int, moves: Sequence[Any], promise: int) -> None:
        """Push a frame of the pure solver's form (its moves `endgame._Child` tuples)."""
        if self.top == self.frames.shape[0]:
            self.grow()
        nb = self.solver.nbytes
        f = self.top
        self.frames[f] = (cell, depth, len(moves), 0, promise)
        self.regions[f] = np.frombuffer(region.to_bytes(nb, "little"), np.uint8)
        for j, (neg, exits, neg_walls, to, sub, done) in enumerate(moves):
            self.children[f, j] = (neg, exits, neg_walls, to, int(done))
            self.subs[f, j] = np.frombuffer(sub.to_bytes(nb, "little"), np.uint8)
        self.top += 1

    def grow(self) -> None:
        """Twice the frames."""
        cap = 2 * self.frames.shape[0]
        for name in ("frames", "regions", "children", "subs"):
            old = getattr(self, name)
            new = np.zeros((cap, *old.shape[1:]), old.dtype)
            new[: old.shape[0]] = old
            setattr(self, name, new)

    def cells(self) -> list[int]:
        """The search's path: the cells of its frames from the root's."""
        if not self.top:
            return []
        depth = int(self.frames[self.top - 1, _DEPTH])
        return [int(c) for c in self.path[:depth]]

    def first_moves(self) -> list[int]:
        """The cells of the moves of the bottom frame."""
        return [int(c) for c in self.children[0, : self.frames[0, _COUNT], _TO]]

    def split(self, best_len: int) -> tuple[Search, list[int], int] | None:
        """`endgame._split` of this search."""
        for f in range(self.top - 1):
            cell, depth, count, nxt, promise = (int(x) for x in self.frames[f])
            rest = [j for j in range(nxt, count) if depth - self.children[f, j, _NEG] > best_len]
            if not rest:
                continue
            promise = max([promise] + [-int(x) for x in self.children[f, :count, _NEG]])
            self.frames[f, _COUNT] = nxt
            self.frames[f, _PROMISE] = promise
            new = Search(self.solver, 64)
            new.frames[0] = (cell, depth, len(rest), 0, promise)
            new.regions[0] = self.regions[f]
            new.children[0, : len(rest)] = self.children[f, rest]
            new.subs[0, : len(rest)] = self.subs[f, rest]
            new.top = 1
            new.path[:depth] = self.path[:depth]
            return new, new.cells(), depth - int(self.children[f, rest[0], _NEG])
        return None


class Solvers:
    """The compiled loop's tables on one board, and its solvers (`lend`).

    One is shared by every thread that searches the board (`native.searcher_for` caches
    it): it holds only what no kernel writes. A solve's state (its nodes, best path,
    learned bounds) and the arrays the kernels write are a `Solver`'s, lent to one solve
    at a time (`lightcycle.bots.search.spares`): two games on one map in the server's
    worker threads shared one solver's arrays, and the process died of it."""

    def __init__(
        self,
        fill: Fill,
        neighbours: Sequence[Sequence[int]],
        directions: Sequence[Sequence[int]] | None,
        black: int | None,
    ) -> None:
        self.fill = fill
        self.size = fill.size
        self.nbytes = fill.nbytes
        self.width = fill.table.shape[1]
        self.black = fill.colours.astype(np.int64)
        self.forcing = directions is not None and black is not None
        self.forced = (
            forced_table(neighbours, directions, black)
            if directions is not None and black is not None
            else np.zeros((1, 9), np.int32)
        )
        self.lengthen = Lengthen(neighbours)
        self.spares: Spares[Solver] = Spares(lambda: Solver(self))

    def lend(self) -> AbstractContextManager[Solver]:
        """A solver for one solve alone, given back when the ``with`` block ends."""
        return self.spares.lend()


class Solver:
    """One solve's state on a board (`start` resets it) and the arrays the compiled loop
    writes; the board's tables are its `Solvers`'."""

    def __init__(self, tables: Solvers) -> None:
        self.tables = tables
        self.fill = tables.fill
        self.size = tables.size
        self.nbytes = tables.nbytes
        self.width = tables.width
        self.black = tables.black
        self.forcing = tables.forcing
        self.forced = tables.forced
        self.lengthen_table = tables.lengthen.table
        self.state = np.zeros(_STATE, np.int64)
        self.best = np.zeros(self.size + 1, np.int32)
        self.s_cells = np.zeros(self.width, np.int32)
        self.s_bounds = np.zeros(self.width, np.int32)
        self.s_sides = np.zeros(2 * self.width, np.int32)
        self.s_subs = np.zeros(self.width * self.nbytes, np.uint8)
        self.work = np.zeros(3 * self.size + 1, np.int32)
        self.inside = np.zeros(max(self.size, self.nbytes), np.uint8)
        self.lengthen = tables.lengthen.buffers()
        self.probed = np.zeros(self.size + 2, np.int32)
        self.ending = np.zeros(self.size + 2, np.int32)
        self.region = np.zeros(self.nbytes, np.uint8)
        self._table(1024)

    def _table(self, capacity: int) -> None:
        self.known_cells = np.full(capacity, -1, np.int32)
        self.known_values = np.zeros(capacity, np.int32)
        self.known_keys = np.zeros((capacity, self.nbytes), np.uint8)

    def start(
        self,
        region: int,
        node_limit: int | None,
        root_bound: int,
        slack: int,
        deep: int,
        probe: int,
        poll: int,
    ) -> None:
        """Reset for a new solve: its region, node budget, the root's bound, `endgame.FORCED_SLACK`,
        `endgame.FORCED_DEPTH` and `endgame.PROBE`, and how many nodes between looks at
        the clock (0: none)."""
        if self.state[KNOWN_COUNT]:
            self.known_cells[:] = -1
        self.state[:] = 0
        self.state[LIMIT] = -1 if node_limit is None else node_limit
        self.state[ROOT] = root_bound
        self.state[SLACK] = slack
        self.state[DEEP] = deep
        self.state[PROBE] = probe
        self.state[YIELD] = poll
        self.region[:] = np.frombuffer(region.to_bytes(self.nbytes, "little"), np.uint8)

    def probe(self, s: Search, head: int, rotations: int) -> tuple[int, int]:
        """`endgame.solve_fill`'s probe of ``s``'s path, through the region `start` was
        given: its length completed by the greedy fill and lengthened
        (`lengthen.lengthen` with ``rotations``), and how many cells the greedy fill
        added; the path is `probed_path`."""
        fill = self.fill
        ln = self.lengthen
        ln.reserve(rotations)
        length, added = _probe(
            fill.table,
            fill.colours,
            fill.coloured,
            head,
            self.region,
            s.path,
            int(s.frames[s.top - 1, _DEPTH]),
            self.probed,
            self.ending,
            self.work,
            rotations,
            self.lengthen_table,
            self.inside,
            ln.frontier,
            ln.grown_from,
            ln.lengths,
            ln.next_lengths,
            ln.at,
            ln.seen,
        )
        self.probed_length = int(length)
        return int(length), int(added)

    def probed_path(self) -> list[int]:
        """The path the last `probe` made."""
        return [int(c) for c in self.probed[: self.probed_length]]

    def search(self, frames: Sequence[Any], path: list[int]) -> Search:
        """A search of the pure solver's stack (``frames``) and path."""
        s = Search(self, max(64, len(frames) + 1))
        for cell, region, depth, moves, nxt, promise in frames:
            s.push(cell, region, depth, moves[nxt:], promise)
        s.path[: len(path)] = path
        return s

    def begin(self, share: int) -> None:
        """Start a search's turn of ``share`` nodes."""
        self.state[SPENT] = 0
        self.state[SHARE] = share

    def run(self, s: Search, nodes: int, best_len: int, found: bool) -> tuple[int, int, int, bool]:
        """Run ``s`` to its next event from the solver's counts; returns the event and the
        counts after it (the nodes, the longest path's length, whether one was found since
        the last polish)."""
        st = self.state
        st[NODES] = nodes
        st[BEST] = best_len
        st[FOUND] = found
        st[TOP] = s.top
        fill = self.fill
        while True:
            event = _run(
                fill.table,
                fill.moves,
                fill.colours,
                fill.kind,
                self.black,
                fill.coloured,
                self.forced,
                self.forcing,
                st,
                self.best,
                s.frames,
                s.regions,
                s.children,
                s.subs,
                s.path,
                self.known_cells,
                self.known_values,
                self.known_keys,
                self.s_cells,
                self.s_bounds,
                self.s_sides,
                self.s_subs,
                self.work,
                self.inside,
            )
            s.top = int(st[TOP])
            if event == FRAMES_FULL:
                s.grow()
            elif event == KNOWN_FULL:
                cells, values, keys = self.known_cells, self.known_values, self.known_keys
                self._table(2 * cells.shape[0])
                _rehash(self.known_cells, self.known_values, self.known_keys, cells, values, keys)
            else:
                return int(event), int(st[NODES]), int(st[BEST]), bool(st[FOUND])

    def best_path(self) -> list[int]:
        """The longest path the loop found (its length is the ``best_len`` `run` returns
        when it found one)."""
        return [int(c) for c in self.best[: self.state[BEST]]]

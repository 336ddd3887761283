"""Numba kernel behind the duel search's alpha-beta (import only through `native`).

`duel.DuelSearch.search` keeps its iterative deepening and its root loop in Python; each
root move's subtree (its ``min_node`` and every ``max_node`` below) is searched here,
node for node as the pure closures do: the same moves in the same order (table move,
killer, history), the same cuts, the same table entries and the same node count, so a
node budget gives the same answer either way. What it cannot do without Python (read
the clock, grow the table) it hands back as an event, and the search resumes it where it
stopped.

The recursion is a stack of arrays, a frame a row: even levels are ``min_node`` frames
(the opponent answering one of our moves), odd levels ``max_node`` frames. The board is
one bitboard of little-endian bytes, set and cleared as the search goes down and up,
with two Zobrist hashes kept alongside. The transposition table is open-addressed: an
entry holds both heads and both hashes, 124 random bits telling one board from another
(two boards of a game's table share them with odds far below one in 10**30), so it
holds and finds the entries the pure table's dict does (it is keyed by the whole board).

Importing this module compiles the kernel (or loads it from numba's cache), and raises
ImportError where numba is not installed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit, types

from lightcycle.bots.search._native_kernels import _evaluate, evaluator_for

WIN = 1_000_000
"""As `duel.WIN`."""

_VALUE_BIAS = 1 << 22
"""As `duel._VALUE_BIAS`: a table entry packs value, depth, bound and move the same way."""

# What `_run` returns.
DONE, ABORT, POLL, FULL = range(4)

# The search's scalars (`Duel.state`).
TOP, NODES, LIMIT, POLL_AT, COUNT, HASH, CHECK, DRAW, USE_TT, USE_KILLERS, VALUE = range(11)
_STATE = 11

# A frame's columns (`Duel.frames`). A max frame's heads are _A and _B; a min frame's
# move (the searching side's, which it answers) is _A.
_A, _B, _DEPTH, _ALPHA, _BETA, _N, _I, _BEST, _MOVE, _A0, _PHASE, _NB = range(12)
_COLUMNS = 12

# A max frame's phases: counted, read, looping over its moves.
_ENTER, _ENTERED, _LOOP = range(3)

POLL_NODES = 64
"""Nodes between two readings of the clock (the pure search reads it at every node). A
node costs a few microseconds; a leaf whose cycles are separated bounds both regions,
9 microseconds on a 30x30 board cut in two and 15 on a 50x50 one: 64 nodes end well
inside a millisecond, and a reading costs about as much as one node."""

_I64 = types.int64
_V64 = types.int64[::1]
_M64 = types.int64[:, ::1]
_TABLE = types.int32[:, ::1]
_U8 = types.uint8[::1]


@njit(types.void(_U8, _V64, _M64, _I64), cache=True, nogil=True, inline="always")
def _flip(occ: np.ndarray, state: np.ndarray, zob: np.ndarray, c: int) -> None:
    """Block or free cell ``c``, and update the board's two hashes."""
    occ[c >> 3] ^= np.uint8(1 << (c & 7))
    state[HASH] ^= zob[c, 0]
    state[CHECK] ^= zob[c, 1]


@njit(_I64(_TABLE, _U8, _I64, _V64), cache=True, nogil=True, inline="always")
def _free_moves(nbrs: np.ndarray, occ: np.ndarray, cell: int, out: np.ndarray) -> int:
    """Write the free neighbours of ``cell`` to ``out``, in the table's order; how many."""
    n = 0
    for k in range(nbrs.shape[1]):
        d = nbrs[cell, k]
        if d < 0:
            break
        if not (occ[d >> 3] >> (d & 7)) & 1:
            out[n] = d
            n += 1
    return n


@njit(_I64(_U8, _M64, _I64), cache=True, nogil=True)
def zobrist(occ: np.ndarray, zob: np.ndarray, column: int) -> int:
    """A hash of a board: the XOR of its blocked cells' keys in ``column`` of ``zob``."""
    h = 0
    for c in range(zob.shape[0]):
        if (occ[c >> 3] >> (c & 7)) & 1:
            h ^= zob[c, column]
    return h


@njit(_I64(_V64, _V64, _V64, _I64, _I64, _I64), cache=True, nogil=True)
def _slot(
    slots: np.ndarray, t_ab: np.ndarray, t_check: np.ndarray, ab: int, h: int, check: int
) -> int:
    """The slot of a position (heads ``ab``, its two hashes ``h`` and ``check``) in the
    table: the one holding its entry, or the empty one where it would go."""
    mask: int = slots.shape[0] - 1  # a power of two
    i: int = h & mask
    while True:
        e = slots[i]
        if e < 0 or (t_ab[e] == ab and t_check[e] == check):
            return i
        i = (i + 1) & mask


@njit(types.void(_V64, _V64, _I64), cache=True, nogil=True)
def reslot(slots: np.ndarray, t_hash: np.ndarray, count: int) -> None:
    """Fill an empty, larger slot array with the first ``count`` entries."""
    mask = slots.shape[0] - 1
    for e in range(count):
        i = t_hash[e] & mask
        while slots[i] >= 0:
            i = (i + 1) & mask
        slots[i] = e


@njit(types.void(_M64, _M64, _V64, _I64, _I64, _I64), cache=True, nogil=True, inline="always")
def _order(
    fmoves: np.ndarray, frames: np.ndarray, hist: np.ndarray, level: int, first: int, killer: int
) -> None:
    """Sort a frame's moves by (not the table's move, not the killer, most history): an
    insertion sort, stable like Python's, on one int per move."""
    n = frames[level, _N]
    keys = np.empty(n, np.int64)
    for i in range(n):
        d = fmoves[level, i]
        keys[i] = ((d != first) * 2 + (d != killer)) * (1 << 50) - hist[d]
    for i in range(1, n):
        d = fmoves[level, i]
        kd = keys[i]
        j = i
        while j > 0 and keys[j - 1] > kd:
            fmoves[level, j] = fmoves[level, j - 1]
            keys[j] = keys[j - 1]
            j -= 1
        fmoves[level, j] = d
        keys[j] = kd


@njit(
    _I64(_TABLE, _TABLE, _V64, _U8, _M64, _M64, _M64, _V64, _V64, _V64, _V64, _V64, _M64,
         _M64, _M64, _M64, _M64, _V64),
    cache=True,
    nogil=True,
)  # fmt: skip
def _run(
    nbrs: np.ndarray,
    emoves: np.ndarray,
    params: np.ndarray,
    occ: np.ndarray,
    zob: np.ndarray,
    za: np.ndarray,
    zb: np.ndarray,
    slots: np.ndarray,
    t_ab: np.ndarray,
    t_val: np.ndarray,
    t_check: np.ndarray,
    t_hash: np.ndarray,
    killers: np.ndarray,
    hist: np.ndarray,
    frames: np.ndarray,
    fmoves: np.ndarray,
    fbm: np.ndarray,
    state: np.ndarray,
) -> int:
    """Search from the stack's top until the root's ``min_node`` has its value (DONE,
    the value in ``state[VALUE]``) or an event needs Python: the node budget is spent
    (ABORT), the clock is due (POLL), the table needs room (FULL)."""
    draw = state[DRAW]
    use_tt = state[USE_TT] != 0
    use_killers = state[USE_KILLERS] != 0
    while True:
        level = state[TOP]
        value = 0
        pop = False
        if level & 1 == 0:  # min_node: the opponent answers frames[level, _A]
            ma = frames[level, _A]
            i = frames[level, _I]
            if i < frames[level, _N]:
                mb = fmoves[level, i]
                if mb == ma:
                    value = draw
                else:
                    up = level + 1
                    frames[up, _A] = ma
                    frames[up, _B] = mb
                    frames[up, _DEPTH] = frames[level, _DEPTH] - 1
                    frames[up, _ALPHA] = frames[level, _ALPHA]
                    frames[up, _BETA] = frames[level, _BETA]
                    frames[up, _PHASE] = _ENTER
                    _flip(occ, state, zob, mb)
                    state[TOP] = up
                    continue
            else:
                _flip(occ, state, zob, ma)
                if level == 0:
                    state[VALUE] = frames[0, _BEST]
                    return DONE
                value = frames[level, _BEST]
                level -= 1
                state[TOP] = level
                # the value of max frame ``level``'s move: its turn
                ply = (level + 1) // 2
                move = fmoves[level, frames[level, _I]]
                if value > frames[level, _BEST]:
                    frames[level, _BEST] = value
                    frames[level, _MOVE] = move
                    if value > frames[level, _ALPHA]:
                        frames[level, _ALPHA] = value
                        if value >= frames[level, _BETA]:
                            if use_killers:
                                killers[0, ply] = move
                                hist[0, move] += frames[level, _DEPTH] ** 2
                            frames[level, _I] = frames[level, _N]
                            continue
                frames[level, _I] += 1
                continue
        else:  # max_node: the searching side's turn at heads _A, _B
            phase = frames[level, _PHASE]
            if phase == _ENTER:
                nodes = state[NODES] + 1
                state[NODES] = nodes
                if nodes == state[LIMIT]:
                    return ABORT
                frames[level, _PHASE] = _ENTERED
                if nodes >= state[POLL_AT]:
                    state[POLL_AT] = nodes + POLL_NODES
                    return POLL
                phase = _ENTERED
            a = frames[level, _A]
            b = frames[level, _B]
            depth = frames[level, _DEPTH]
            ply = (level + 1) // 2
            if phase == _ENTERED:
                na = _free_moves(nbrs, occ, a, fmoves[level])
                nb = _free_moves(nbrs, occ, b, fbm[level])
                if na == 0:
                    value = draw if nb == 0 else ply - WIN
                    pop = True
                elif nb == 0:
                    value = WIN - ply
                    pop = True
                elif depth == 0:
                    value = _evaluate(nbrs, emoves, params, occ, a, b)
                    pop = True
                else:
                    first = -1
                    if use_tt:
                        h = state[HASH] ^ za[a, 0] ^ zb[b, 0]
                        check = state[CHECK] ^ za[a, 1] ^ zb[b, 1]
                        e = slots[_slot(slots, t_ab, t_check, (a << 16) | b, h, check)]
                        if e >= 0:
                            entry = t_val[e]
                            first = entry & 0xFFFF
                            e_flag = ((entry >> 16) & 3) - 1
                            e_depth = (entry >> 18) & 0xFF
                            e_value = (entry >> 26) - _VALUE_BIAS
                            if e_depth >= depth and (
                                e_flag == 0
                                or (e_flag > 0 and e_value >= frames[level, _BETA])
                                or (e_flag < 0 and e_value <= frames[level, _ALPHA])
                            ):
                                value = e_value
                                pop = True
                    if not pop:
                        frames[level, _N] = na
                        frames[level, _NB] = nb
                        if na > 1:
                            killer = killers[0, ply] if use_killers else -1
                            _order(fmoves, frames, hist[0], level, first, killer)
                        frames[level, _I] = 0
                        frames[level, _BEST] = -WIN - 1
                        frames[level, _MOVE] = fmoves[level, 0]
                        frames[level, _A0] = frames[level, _ALPHA]
                        frames[level, _PHASE] = _LOOP
                        continue
            else:  # _LOOP
                i = frames[level, _I]
                if i < frames[level, _N]:
                    ma = fmoves[level, i]
                    up = level + 1
                    nb = frames[level, _NB]
                    for k in range(nb):
                        fmoves[up, k] = fbm[level, k]
                    frames[up, _N] = nb
                    if nb > 1 and use_killers:
                        _order(fmoves, frames, hist[1], up, -1, killers[1, ply])
                    frames[up, _A] = ma
                    frames[up, _DEPTH] = depth
                    frames[up, _ALPHA] = frames[level, _ALPHA]
                    frames[up, _BETA] = frames[level, _BETA]
                    frames[up, _I] = 0
                    frames[up, _BEST] = WIN + 1
                    _flip(occ, state, zob, ma)
                    state[TOP] = up
                    continue
                value = frames[level, _BEST]
                if use_tt:
                    h = state[HASH] ^ za[a, 0] ^ zb[b, 0]
                    check = state[CHECK] ^ za[a, 1] ^ zb[b, 1]
                    s = _slot(slots, t_ab, t_check, (a << 16) | b, h, check)
                    e = slots[s]
                    if e < 0:
                        e = state[COUNT]
                        if e == t_ab.shape[0] or 2 * (e + 1) > slots.shape[0]:
                            return FULL  # resumed here once the table is larger
                        state[COUNT] = e + 1
                        slots[s] = e
                        t_ab[e] = (a << 16) | b
                        t_hash[e] = h
                        t_check[e] = check
                    beta = frames[level, _BETA]
                    flag = 1 if value >= beta else (-1 if value <= frames[level, _A0] else 0)
                    t_val[e] = (
                        ((value + _VALUE_BIAS) << 26)
                        | (min(depth, 255) << 18)
                        | ((flag + 1) << 16)
                        | frames[level, _MOVE]
                    )
                pop = True
        if pop:  # a max frame's value, for the min frame below it
            mb = frames[level, _B]
            _flip(occ, state, zob, mb)
            level -= 1
            state[TOP] = level
        # the value of min frame ``level``'s answer: a max frame's, or a head-on draw
        mb = fmoves[level, frames[level, _I]]
        if value < frames[level, _BEST]:
            frames[level, _BEST] = value
            if value < frames[level, _BETA]:
                frames[level, _BETA] = value
                if value <= frames[level, _ALPHA]:
                    if use_killers:
                        killers[1, level // 2] = mb
                        hist[1, mb] += frames[level, _DEPTH] ** 2
                    frames[level, _I] = frames[level, _N]
                    continue
        frames[level, _I] += 1


class Duel:
    """One board's compiled search: its stack, killers, history and table (the table
    lasts across the searches of a game, as `DuelSearch.table` does)."""

    def __init__(
        self,
        tables: tuple[np.ndarray, np.ndarray, np.ndarray],
        size: int,
        levels: int,
        tt: bool,
        killers: bool,
        draw: int,
    ) -> None:
        """Args:
        tables: the evaluation's neighbour table, move table and parameters
            (`_native_kernels.evaluation_tables`).
        size: the board's cells.
        levels: the stack's depth (two frames per joint move, and the root's).
        tt, killers, draw: the search's options.
        """
        self.nbrs, self.emoves, self.params = tables
        self.evaluate = evaluator_for(tables, size)
        """`DuelSearch.evaluate` on the same tables, for the search's root and callers."""
        width = self.nbrs.shape[1]
        self.nbytes = (size + 7) // 8
        rng = np.random.default_rng(20101)
        # two independent keys a cell (and a head): a position's first hash places it
        # in the table, its second (and its heads) tells it from the others there
        self.zob, self.za, self.zb = (
            rng.integers(0, 1 << 62, (size, 2), dtype=np.int64) for _ in range(3)
        )
        self.frames = np.zeros((levels, _COLUMNS), np.int64)
        self.fmoves = np.zeros((levels, width), np.int64)
        self.fbm = np.zeros((levels, width), np.int64)
        self.killers = np.full((2, levels + 1), -1, np.int64)
        self.hist = np.zeros((2, size), np.int64)
        self.state = np.zeros(_STATE, np.int64)
        self.state[DRAW] = draw
        self.state[USE_TT] = tt
        self.state[USE_KILLERS] = killers
        self.occ = np.zeros(self.nbytes, np.uint8)
        # the entries, in the order written (heads, packed entry, both hashes), and the
        # hashed slots that point at them; both double as needed, a pass over 32 bytes
        # an entry (a millisecond or two at the table's limit, `duel.TABLE_LIMIT`)
        entries = 1 << 12
        self.t_ab = np.zeros(entries, np.int64)
        self.t_val = np.zeros(entries, np.int64)
        self.t_hash = np.zeros(entries, np.int64)
        self.t_check = np.zeros(entries, np.int64)
        self.slots = np.full(2 * entries, -1, np.int64)

    def _grow(self) -> None:
        """Room for more entries: twice the entries if they are full, twice the slots
        if they are half full."""
        count = int(self.state[COUNT])
        if count == len(self.t_ab):
            grown = 2 * count
            for name in ("t_ab", "t_val", "t_hash", "t_check"):
                old = getattr(self, name)
                new = np.zeros(grown, np.int64)
                new[:count] = old
                setattr(self, name, new)
        if 2 * (count + 1) > len(self.slots):
            self.slots = np.full(2 * len(self.slots), -1, np.int64)
            reslot(self.slots, self.t_hash, count)

    def lookup(self, occ: int, a: int, b: int) -> int | None:
        """The table's entry for the board ``occ`` with heads ``a`` and ``b`` (packed as
        `DuelSearch.table`'s), or ``None``."""
        bits = np.frombuffer(occ.to_bytes(self.nbytes, "little"), np.uint8).copy()
        h = zobrist(bits, self.zob, 0) ^ self.za[a, 0] ^ self.zb[b, 0]
        check = zobrist(bits, self.zob, 1) ^ self.za[a, 1] ^ self.zb[b, 1]
        e = self.slots[_slot(self.slots, self.t_ab, self.t_check, (a << 16) | b, h, check)]
        return None if e < 0 else int(self.t_val[e])

    def entries(self) -> int:
        """Positions in the table."""
        return int(self.state[COUNT])

    def clear(self) -> None:
        """Empty the table (keeping its size)."""
        self.slots.fill(-1)
        self.state[COUNT] = 0

    def begin(self, occ: int, node_limit: int | None) -> None:
        """Start a search of the board ``occ``: no nodes yet, killers and history
        forgotten."""
        self.occ[:] = np.frombuffer(occ.to_bytes(self.nbytes, "little"), np.uint8)
        self.state[HASH] = zobrist(self.occ, self.zob, 0)
        self.state[CHECK] = zobrist(self.occ, self.zob, 1)
        self.state[NODES] = 0
        self.state[LIMIT] = -1 if node_limit is None else node_limit
        self.state[POLL_AT] = POLL_NODES
        self.killers.fill(-1)
        self.hist.fill(0)

    @property
    def nodes(self) -> int:
        """Nodes searched since `begin`."""
        return int(self.state[NODES])

    def min_root(
        self,
        ma: int,
        bm: list[int],
        depth: int,
        alpha: int,
        beta: int,
        out_of_time: Callable[[], bool] | None,
    ) -> int | None:
        """``min_node`` at the root for the move ``ma`` (``bm``: the opponent's moves):
        its value, or ``None`` when the node budget or the clock ran out."""
        frames = self.frames
        frames[0, _A] = ma
        frames[0, _DEPTH] = depth
        frames[0, _ALPHA] = alpha
        frames[0, _BETA] = beta
        frames[0, _N] = len(bm)
        self.fmoves[0, : len(bm)] = bm
        if len(bm) > 1 and self.state[USE_KILLERS]:
            _order(self.fmoves, frames, self.hist[1], 0, -1, int(self.killers[1, 0]))
        frames[0, _I] = 0
        frames[0, _BEST] = WIN + 1
        _flip(self.occ, self.state, self.zob, ma)
        self.state[TOP] = 0
        while True:
            event = _run(
                self.nbrs, self.emoves, self.params, self.occ, self.zob, self.za, self.zb,
                self.slots, self.t_ab, self.t_val, self.t_check, self.t_hash, self.killers,
                self.hist, frames, self.fmoves, self.fbm, self.state,
            )  # fmt: skip
            if event == DONE:
                return int(self.state[VALUE])
            if event == ABORT:
                return None
            if event == POLL:
                if out_of_time is not None and out_of_time():
                    return None
            else:  # FULL
                self._grow()

"""The internal step bots use for search: classic simultaneous rules on bitboards.

`lightcycle.rules.step` is the public, validated step: it checks every move, records
causes of death and builds immutable snapshots, which costs microseconds per turn. A search
bot needs millions of turns, so this module gives it the same collision rules for the
duel-style rulesets (``classic``, ``torus``, ``ffa``) stripped to ints: one shared occupancy
bitmask, a list of heads, and a neighbour table. It does no validation; the caller passes
legal destinations (or ``OFF``). Tests check it against the public step move for move.
"""

from __future__ import annotations

from lightcycle.core.state import GameState
from lightcycle.core.topology import OFF

Window = tuple[int, int, dict[int, tuple[int, ...]]]
_WINDOWS: dict[int, tuple[tuple[tuple[int, ...], ...], tuple[Window | None, ...]]] = {}
_MAX_BOARDS = 64
"""Boards whose windows are kept: a long-lived process that loads map after map (a duel
over a pool of random maps, a judge) must not keep every board's tables forever."""


def _window(nbrs: tuple[int, ...]) -> Window | None:
    """For one cell: the lowest neighbour, the neighbours' bits above it, and a table from
    each occupancy pattern of those bits to the free neighbours (in neighbour order).

    One shift and one mask of the occupancy int then give a cell's free neighbours by a
    dict look-up, instead of one shift per neighbour.
    """
    if not nbrs or len(nbrs) > 8:
        return None
    lo = min(nbrs)
    mask = 0
    for d in nbrs:
        mask |= 1 << (d - lo)
    table: dict[int, tuple[int, ...]] = {}
    for pattern in range(1 << len(nbrs)):
        occ = 0
        for k, d in enumerate(nbrs):
            if (pattern >> k) & 1:
                occ |= 1 << (d - lo)
        table[occ] = tuple(d for d in nbrs if not (occ >> (d - lo)) & 1)
    return lo, mask, table


def windows(neighbours: tuple[tuple[int, ...], ...]) -> tuple[Window | None, ...]:
    """The `_window` of every cell, built once per neighbour table and cached."""
    hit = _WINDOWS.get(id(neighbours))
    if hit is None or hit[0] is not neighbours:
        hit = (neighbours, tuple(_window(n) for n in neighbours))
        if len(_WINDOWS) >= _MAX_BOARDS:
            del _WINDOWS[next(iter(_WINDOWS))]  # the oldest board
        _WINDOWS[id(neighbours)] = hit
    return hit[1]


class SearchBoard:
    """A mutable bitboard position for search.

    Attributes:
        neighbours: the topology's neighbour table.
        occupied: walls and trails (heads included) as a bitmask.
        heads: the head cell of each cycle (``OFF`` once dead).
    """

    __slots__ = ("heads", "neighbours", "occupied", "windows")

    def __init__(
        self,
        neighbours: tuple[tuple[int, ...], ...],
        occupied: int,
        heads: list[int],
        _windows: tuple[Window | None, ...] | None = None,
    ):
        self.neighbours = neighbours
        self.occupied = occupied
        self.heads = heads
        self.windows = _windows if _windows is not None else windows(neighbours)

    @classmethod
    def from_state(cls, state: GameState) -> SearchBoard:
        """Copy a public state into a search board (dead cycles get ``OFF``)."""
        heads = [c.head if c.alive else OFF for c in state.cycles]
        return cls(state.board.topology.neighbours, state.occupied, heads)

    def copy(self) -> SearchBoard:
        """Return an independent copy (ints are immutable, so this is cheap)."""
        return SearchBoard(self.neighbours, self.occupied, self.heads[:], self.windows)

    def free_moves(self, cycle: int) -> tuple[int, ...]:
        """The neighbouring cells of ``cycle``'s head that hold no wall or trail."""
        head = self.heads[cycle]
        if head < 0:
            return ()
        w = self.windows[head]
        if w is None:
            occ = self.occupied
            return tuple(d for d in self.neighbours[head] if not (occ >> d) & 1)
        lo, mask, table = w
        return table[(self.occupied >> lo) & mask]

    def step(self, dests: list[int]) -> int:
        """Move every live cycle to ``dests[i]`` at once; return the bitmask of cycles killed.

        The classic rules: a cycle dies entering a wall, a trail, ``OFF``, the same cell as
        another cycle, or by swapping cells with another head. Dead cycles stay on the board
        as trail; their crash cell is not added.
        """
        heads = self.heads
        occ = self.occupied
        n = len(heads)
        if n == 2:  # the duel, unrolled: the hot path of every two-player search
            a, b = dests
            ha, hb = heads
            killed = 0
            if ha >= 0 and (a < 0 or (occ >> a) & 1):
                killed |= 1
            if hb >= 0 and (b < 0 or (occ >> b) & 1):
                killed |= 2
            if ha >= 0 and hb >= 0 and a == b:
                killed |= 3
            if ha >= 0 and not killed & 1:
                occ |= 1 << a
                heads[0] = a
            elif ha >= 0:
                heads[0] = OFF
            if hb >= 0 and not killed & 2:
                occ |= 1 << b
                heads[1] = b
            elif hb >= 0:
                heads[1] = OFF
            self.occupied = occ
            return killed
        killed = 0
        seen: dict[int, int] = {}
        for i in range(n):
            if heads[i] < 0:
                continue
            d = dests[i]
            if d < 0 or (occ >> d) & 1:
                killed |= 1 << i
            if d in seen:
                killed |= (1 << i) | (1 << seen[d])
            else:
                seen[d] = i
        for i in range(n):
            if heads[i] < 0:
                continue
            if (killed >> i) & 1:
                heads[i] = OFF
            else:
                occ |= 1 << dests[i]
                heads[i] = dests[i]
        self.occupied = occ
        return killed

"""Exhaustive answers the search tests check the duel search, the endgame solver and
its bounds against."""

from __future__ import annotations

import random

from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.duel import WIN, DuelSearch
from lightcycle.core.topology import GraphTopology, GridTopology


def longest_path(k: Kernel, head: int, free: int) -> int:
    """The most moves a path from ``head`` through ``free`` can make: exhaustive search,
    memoised on (cell, cells still reachable), so exact and fast enough for regions of a
    few dozen cells."""
    memo: dict[tuple[int, int], int] = {}

    def rec(c: int, f: int) -> int:
        reach = k.flood(1 << c, f)
        key = (c, reach)
        got = memo.get(key)
        if got is None:
            got = 0
            for n in k.neighbours[c]:
                if (reach >> n) & 1:
                    got = max(got, 1 + rec(n, reach & ~(1 << n)))
            memo[key] = got
        return got

    return rec(head, free)


def is_path(k: Kernel, head: int, free: int, path: list[int]) -> bool:
    """Whether ``path`` is a walk of single steps from ``head`` through distinct cells of
    ``free``."""
    cur = head
    for d in path:
        if d not in k.neighbours[cur] or not (free >> d) & 1:
            return False
        free &= ~(1 << d)
        cur = d
    return True


def drawn_board(text: str) -> tuple[Kernel, int, int]:
    """A drawn board: ``A`` the head, ``.`` free, ``#`` wall; no wrap-around. Returns
    the kernel, the head and the free cells."""
    rows = [r.strip() for r in text.strip().splitlines()]
    k = Kernel(GridTopology(len(rows[0]), len(rows)))
    cells = "".join(rows)
    free = sum(1 << c for c, ch in enumerate(cells) if ch == ".")
    return k, cells.index("A"), free


def random_graph(rng: random.Random, lo: int, hi: int) -> tuple[Kernel, int]:
    """A kernel on a random graph of ``lo``-``hi`` vertices (each edge with chance 0.3),
    and its vertex count: boards with no checkerboard for the bounds to count on."""
    n = rng.randint(lo, hi)
    edges = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < 0.3]
    return Kernel(GraphTopology(n, edges)), n


def root_value(search: DuelSearch, a: int, b: int, occ: int, ma: int, depth: int) -> int:
    """The exact value of the root move ``ma`` searched ``depth`` joint moves deep: plain
    minimax over every joint move, with the search's own leaf and end-of-game values and
    no pruning or table, so it checks what alpha-beta reports."""
    nbrs = search.kernel.neighbours
    draw = search.options.draw

    def best_of(a: int, b: int, occ: int, depth: int, ply: int) -> int:
        am = [d for d in nbrs[a] if not (occ >> d) & 1]
        bm = [d for d in nbrs[b] if not (occ >> d) & 1]
        if not am:
            return draw if not bm else ply - WIN
        if not bm:
            return WIN - ply
        if depth == 0:
            return search.evaluate(a, b, occ)
        return max(worst_of(a, b, occ, m, bm, depth, ply) for m in am)

    def worst_of(a: int, b: int, occ: int, ma: int, bm: list[int], depth: int, ply: int) -> int:
        return min(
            draw if mb == ma else best_of(ma, mb, occ | (1 << ma) | (1 << mb), depth - 1, ply + 1)
            for mb in bm
        )

    bm = [d for d in nbrs[b] if not (occ >> d) & 1]
    return worst_of(a, b, occ, ma, bm, depth, 0)


def random_walk(rng: random.Random, k: Kernel, head: int, free: int) -> list[int]:
    """A random self-avoiding walk from ``head`` through ``free`` until it is stuck: the
    kind of dead-ended path a depth-first search finds."""
    path: list[int] = []
    cur = head
    used = 0
    while True:
        opts = [d for d in k.neighbours[cur] if (free >> d) & 1 and not (used >> d) & 1]
        if not opts:
            return path
        cur = rng.choice(opts)
        path.append(cur)
        used |= 1 << cur

"""The endgame: once the cycles are separated, fill your own region with the longest path.

The longest simple path is NP-hard in general, but Tron regions are small and
well-structured, so a depth-first search with good bounds proves most of them quickly:

- the incumbent starts as a greedy wall-hugging fill, so the answer is never worse than
  that;
- a node is cut when the moves made plus a bound on what remains cannot beat the best:
  first the cheap bound (cells reachable, checkerboard parity, both bit-parallel), then
  the chamber-tree bound of `fill_bound` where the cheap one is not enough;
- the same cell with the same reachable region is reached by many move orders; an
  arrival no deeper than an earlier one can never do better, so it is skipped;
- the search stops as soon as the path reaches the root's bound: that path is proven
  optimal.

It is deterministic for a node budget, and obeys a deadline when given one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.chambers import fill_bound, parity_bound


class _Stop(Exception):
    """Out of nodes or time: unwind and keep the best path found."""


@dataclass
class Fill:
    """A fill plan.

    Attributes:
        path: the cells to enter, in order.
        bound: the upper bound on the path length at the start.
        proven: whether ``path`` is known to be the longest possible.
        nodes: search nodes visited.
    """

    path: list[int]
    bound: int
    proven: bool
    nodes: int = 0
    timed_out: bool = field(default=False)


def greedy_fill(
    kernel: Kernel, head: int, free: int, out_of_time: Callable[[], bool] | None = None
) -> list[int]:
    """A greedy wall-hugging fill: never enter a smaller region than needed, and of the
    moves into the largest region take the one with the fewest free neighbours (the
    cell that would otherwise be left behind).

    With ``out_of_time`` it may stop early and return the path so far: on a huge region
    the whole fill costs more than a move's time, and only its first step is played.
    """
    nbrs = kernel.neighbours
    path: list[int] = []
    cur = head
    f = free
    while True:
        if out_of_time is not None and path and out_of_time():
            return path
        opts = [d for d in nbrs[cur] if (f >> d) & 1]
        if not opts:
            return path
        if len(opts) > 1:
            f2 = f
            best_key: tuple[int, int] | None = None
            choice = opts[0]
            for d in opts:
                rest = f2 & ~(1 << d)
                region = kernel.flood(1 << d, rest)
                room = parity_bound(kernel, d, region)
                hug = -sum(1 for e in nbrs[d] if (rest >> e) & 1)
                key = (room, hug)
                if best_key is None or key > best_key:
                    best_key, choice = key, d
            d = choice
        else:
            d = opts[0]
        path.append(d)
        f &= ~(1 << d)
        cur = d


def solve_fill(
    kernel: Kernel,
    head: int,
    free: int,
    node_limit: int | None = None,
    out_of_time: Callable[[], bool] | None = None,
    incumbent: list[int] | None = None,
) -> Fill:
    """Search the longest path from ``head`` through ``free``.

    Args:
        kernel: the board's kernel.
        head: the cycle's cell.
        free: the cells it may enter (only the part reachable from ``head`` matters).
        node_limit: stop after this many nodes (reproducible runs).
        out_of_time: polled at every node (a node can cost milliseconds on a big region).
        incumbent: a valid path to beat (e.g. last turn's plan, shortened by one).

    Returns:
        The best path found, the root bound, and whether it is proven optimal.
    """
    nbrs = kernel.neighbours
    region = kernel.flood(1 << head, free)
    root_bound = min(parity_bound(kernel, head, region), fill_bound(kernel, head, region))
    best = greedy_fill(kernel, head, region, out_of_time)
    if out_of_time is not None and out_of_time():
        if incumbent and len(incumbent) > len(best) and _valid(kernel, head, region, incumbent):
            best = list(incumbent)
        return Fill(best, root_bound, False, 0, True)
    if (
        incumbent is not None
        and len(incumbent) > len(best)
        and _valid(kernel, head, region, incumbent)
    ):
        best = list(incumbent)
    result = Fill(best, root_bound, len(best) >= root_bound)
    if result.proven:
        return result
    path: list[int] = []
    seen: dict[tuple[int, int], int] = {}
    nodes = 0
    best_len = len(best)
    flood = kernel.flood

    def dfs(cur: int, f: int, depth: int) -> None:
        nonlocal nodes, best_len, best
        nodes += 1
        if node_limit is not None and nodes > node_limit:
            raise _Stop
        if out_of_time is not None and out_of_time():
            raise _Stop
        opts = [d for d in nbrs[cur] if (f >> d) & 1]
        if not opts:
            if depth > best_len:
                best_len = depth
                best = list(path)
                if best_len >= root_bound:
                    raise _Stop
            return
        reach = flood(1 << cur, f)
        key = (cur, reach)
        if seen.get(key, -1) >= depth:
            return
        seen[key] = depth
        if depth + parity_bound(kernel, cur, reach) <= best_len:
            return
        if depth + fill_bound(kernel, cur, reach) <= best_len:
            return
        if len(opts) > 1:
            opts.sort(key=lambda d: sum(1 for e in nbrs[d] if (reach >> e) & 1))
        for d in opts:
            path.append(d)
            dfs(d, reach & ~(1 << d), depth + 1)
            path.pop()

    stopped = False
    try:
        dfs(head, region, 0)
    except _Stop:
        stopped = best_len < root_bound
    except RecursionError:  # a region deeper than Python's stack: keep what we have
        stopped = True
    return Fill(best, root_bound, not stopped, nodes, stopped)


def _valid(kernel: Kernel, head: int, free: int, path: list[int]) -> bool:
    cur = head
    f = free
    for d in path:
        if d not in kernel.neighbours[cur] or not (f >> d) & 1:
            return False
        f &= ~(1 << d)
        cur = d
    return True

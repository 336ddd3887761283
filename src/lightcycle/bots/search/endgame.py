"""The endgame: once the cycles are separated, fill your own region with the longest path.

The longest simple path is NP-hard in general, but Tron regions are small and
well-structured, so a depth-first search with good bounds proves most of them quickly:

- the incumbent starts as a greedy wall-hugging fill, so the answer is never worse than
  that;
- each move is bounded before it is entered: the cells it can still reach, their
  checkerboard parity (both bit-parallel), then the chamber tree (`_chain_bound`: of the
  pockets hanging off cut cells only one branch can be filled, and a chamber crossed
  from one cut cell to another gives up the cell its colours cannot pair); a move whose
  bound cannot beat the best path is never entered;
- a position (head, region) searched to the end records the best its moves could still
  promise; reached again by another move order, that learned bound cuts it;
- before the exhaustive search, short probes follow the move ordering but try every
  move at the first few branching points: a wrong turn near the root is what a
  depth-first search takes longest to undo;
- the search stops as soon as the path reaches the root's bound: that path is proven
  optimal. At a deadline it returns the best path found so far.

It is deterministic for a node budget (probes and search count nodes alike), and obeys a
deadline when given one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.chambers import parity_bound

PROBE_NODES_PER_CELL = 4
"""The probes' node budget, per cell of the region. Probes find the optimum of most
regions whose first descent goes wrong near the root; beyond a few nodes per cell they
only delay the exhaustive search that proves it (measured on the bench's regions)."""


_Child = tuple[int, int, int, int, int]
"""A move in the search's order: minus its bound, exits, minus walls, its cell, its region."""


class _Stop(Exception):
    """Out of nodes or time: unwind and keep the best path found."""


class _Probed(Exception):
    """The probes have spent their budget: go on with the exhaustive search."""


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

    A node's moves are bounded before they are searched, in the parent: each move's
    region is flooded and bounded once, moves whose bound cannot beat the best path are
    never entered, and the rest are tried best bound first, then fewest onward exits
    (Warnsdorff: the cell that would otherwise be left behind), then most walls around.
    Ordering by the bound keeps the first descent out of moves that cut off a chamber,
    which is what a greedy fill gets wrong; a bound computed once per move rather than
    once per visit also leaves the child nothing to recompute.

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
    colour = _colours(kernel)
    ncells = kernel.size
    region = kernel.flood(1 << head, free)
    root_bound = min(
        parity_bound(kernel, head, region), _chain_bound(nbrs, colour, ncells, head, region)
    )
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
    known: dict[tuple[int, int], int] = {}
    nodes = 0
    best_len = len(best)
    flood = kernel.flood
    probe_cap = PROBE_NODES_PER_CELL * region.bit_count()
    narrowed = False  # whether a probe left a move untried

    def moves(cur: int, reach: int, depth: int) -> tuple[list[_Child], int]:
        """The moves worth entering, best first, and the most any cut move promises."""
        need = best_len - depth  # a move must promise more than this many cells
        children: list[_Child] = []
        top = 0
        for d in nbrs[cur]:
            if not (reach >> d) & 1:
                continue
            rest = reach & ~(1 << d)
            sub = flood(1 << d, rest)
            bound = 1 + parity_bound(kernel, d, sub)
            if bound > need and bound > 2:
                learned = known.get((d, sub))
                if learned is not None and learned + 1 < bound:
                    bound = learned + 1
                if bound > need:
                    bound = min(bound, 1 + _chain_bound(nbrs, colour, ncells, d, sub))
            if bound <= need:
                top = max(top, bound)
                continue
            exits = 0
            walls = 0
            for e in nbrs[d]:
                if (sub >> e) & 1:
                    exits += 1
                elif not (rest >> e) & 1:
                    walls += 1
            children.append((-bound, exits, -walls, d, sub))
        if len(children) > 1:
            children.sort()
        return children, top

    def visit(depth: int) -> None:
        """Count a node, obey the budget, and keep ``path`` if it is the best yet."""
        nonlocal nodes, best_len, best
        nodes += 1
        if node_limit is not None and nodes > node_limit:
            raise _Stop
        if out_of_time is not None and out_of_time():
            raise _Stop
        if depth > best_len:
            best_len = depth
            best = list(path)
            if best_len >= root_bound:
                raise _Stop

    def probe(cur: int, reach: int, depth: int, spread: int) -> None:
        """Follow the ordering, trying every move at the first ``spread`` branchings."""
        nonlocal narrowed
        visit(depth)
        if nodes > probe_cap:
            raise _Probed
        children, _ = moves(cur, reach, depth)
        if len(children) > 1:
            if spread == 0:
                children = children[:1]
                narrowed = True
            else:
                spread -= 1
        for neg_bound, _, _, d, sub in children:
            if depth - neg_bound > best_len:
                path.append(d)
                probe(d, sub, depth + 1, spread)
                path.pop()

    def dfs(cur: int, reach: int, depth: int) -> int:
        """Search every move; return a bound on the moves left from here, learned."""
        visit(depth)
        children, top = moves(cur, reach, depth)
        for neg_bound, _, _, d, sub in children:
            if depth - neg_bound <= best_len:
                got = -neg_bound
            else:
                path.append(d)
                got = 1 + dfs(d, sub, depth + 1)
                path.pop()
            top = max(top, got)
        known[(cur, reach)] = top
        return top

    stopped = False
    try:
        try:
            for spread in range(1, region.bit_count()):
                narrowed = False
                probe(head, region, 0, spread)
                if not narrowed:  # every move was tried: the best path is the longest
                    return Fill(best, root_bound, True, nodes)
        except _Probed:
            path.clear()
        dfs(head, region, 0)
    except _Stop:
        stopped = best_len < root_bound
    except RecursionError:  # a region deeper than Python's stack: keep what we have
        stopped = True
    return Fill(best, root_bound, not stopped, nodes, stopped)


def _chain_bound(
    nbrs: tuple[tuple[int, ...], ...],
    colour: tuple[int, ...] | None,
    ncells: int,
    head: int,
    free: int,
) -> int:
    """The chamber-tree bound of `fill_bound`, tightened where a path passes a chamber.

    A path that crosses a block from the cut cell ``p`` it entered by to the cut cell
    ``u`` it leaves by starts and ends on known colours: from ``p`` to a cell of the same
    colour it takes as many cells of each colour, to one of the other colour one more of
    that colour. `fill_bound` charges every block its leaf capacity (where the path may end
    on either colour), which is one cell too generous on most regions the search has to
    prove; the endgame needs the tighter figure, as every cell the bound gives away is a
    level of the tree it cannot cut.

    Lists indexed by cell replace `fill_bound`'s dicts (a cell outside ``free`` is marked
    in ``disc``, so no edge tests a bit of a long int), a colour table the colour masks,
    and neighbour iterators its index stack: the bound is computed for nearly every move
    the search considers, so its cost is the solver's speed.

    Args:
        nbrs: the neighbour table.
        colour: each cell's checkerboard colour (`_colours`), or ``None`` off
            checkerboards.
        ncells: the number of cells of the board.
        head: the cycle's cell (not in ``free``).
        free: the cells it may still enter.

    Returns:
        An upper bound on the moves a cycle at ``head`` can make inside ``free``.
    """
    disc = [-1] * ncells
    while free:
        bit = free & -free
        disc[bit.bit_length() - 1] = 0
        free ^= bit
    low = [0] * ncells
    best = [0] * ncells
    disc[head] = low[head] = 1
    t = 1
    vstack: list[int] = []
    stack = [(head, iter(nbrs[head]))]
    while stack:
        v, it = stack[-1]
        for w in it:
            dw = disc[w]
            if dw <= 0:
                if dw < 0:
                    continue
                t += 1
                disc[w] = low[w] = t
                vstack.append(w)
                stack.append((w, iter(nbrs[w])))
                break
            if dw < low[v]:
                low[v] = dw
        else:
            stack.pop()
            if not stack:
                break
            p = stack[-1][0]
            lv = low[v]
            if lv < low[p]:
                low[p] = lv
            if lv < disc[p]:
                continue
            # v's subtree down to v is a block hanging off p: pop it.
            if colour is None:
                size = 0
                sub = 0
                while True:
                    u = vstack.pop()
                    size += 1
                    if best[u] > sub:
                        sub = best[u]
                    if u == v:
                        break
                val = size + sub
            else:
                pc = colour[p]
                members: list[int] = []
                same = 0
                while True:
                    u = vstack.pop()
                    members.append(u)
                    if colour[u] == pc:
                        same += 1
                    if u == v:
                        break
                size = len(members)
                other = size - same
                val = min(size, 2 * same + 1 if other > same else 2 * other)
                even = 2 * min(same, other)  # p to a cell of p's colour
                odd = 2 * min(same, other - 1) + 1  # p to a cell of the other colour
                for u in members:
                    bu = best[u]
                    if bu:
                        cap = even if colour[u] == pc else odd
                        if cap + bu > val:
                            val = cap + bu
            if val > best[p]:
                best[p] = val
    return best[head]


@lru_cache(maxsize=16)
def _colours(kernel: Kernel) -> tuple[int, ...] | None:
    """Each cell's checkerboard colour, or ``None`` where moves need not change colour."""
    black = kernel.black
    if black is None:
        return None
    return tuple((black >> c) & 1 for c in range(kernel.size))


def _valid(kernel: Kernel, head: int, free: int, path: list[int]) -> bool:
    cur = head
    f = free
    for d in path:
        if d not in kernel.neighbours[cur] or not (f >> d) & 1:
            return False
        f &= ~(1 << d)
        cur = d
    return True

"""The endgame: once the cycles are separated, fill your own region with the longest path.

The longest simple path is NP-hard in general, but Tron regions are small and
well-structured, so a depth-first search with good bounds proves most of them quickly:

- the incumbent starts as a greedy wall-hugging fill, so the answer is never worse than
  that;
- each move is bounded before it is entered: the cells it can still reach, their
  checkerboard parity with the dead ends left out (`dead_end_bound`: a cell with one
  way in can only be the last, so at most one is filled; all bit-parallel), then the
  chamber tree (`_chain_bound`: of the pockets hanging off cut cells only one branch can
  be filled, and a chamber crossed from one cut cell to another gives up the cell its
  colours cannot pair), then, where that would cut the move, forced edges
  (`forced_bound`: a path that must take every cell of a colour must take both edges of
  such a cell with two, and staircase edges force zigzags that cannot all join up); a
  move whose bound cannot beat the best path is never entered. The chamber tree costs
  most of a node's time, so it is computed only when the search reaches the move, for a
  move the cheap bounds have not cut already, and not at all for a corridor's one way
  on (its bound is the corridor's less one);
- a position (head, region) searched to the end records the best its moves could still
  promise; reached again by another move order, that learned bound cuts it;
- the root's moves' moves (two moves deep) are searched interleaved, each in turn for a
  share of the nodes (a share that grows by half each round): a wrong turn near the
  root is what a depth-first search takes longest to undo, and the right move is often
  not the one the ordering puts first, at the root or one move down. A search whose
  share runs out hands the moves it has not tried at its shallowest open position to a
  new search (`_split`), so wrong turns further down are undone the same way. The
  root's bound is the best of its moves' bounds;
- the paths found are lengthened by local moves (`lengthen`: detours round unused
  squares beside a step, rotations of the end): the best path, once per descent that
  improved it; and, completed by the greedy fill first, each interleaved search's path
  every `PROBE` nodes and when its share runs out, kept aside. A depth-first search
  fixes a path's end quickly but its first moves slowly, and the paths it is slow to
  find are often a greedy ending, a detour or a rotation away from one it has;
- the search stops as soon as the path reaches the root's bound: that path is proven
  optimal; and when every move is exhausted. At a deadline it returns the best path
  found so far.

It is deterministic for a node budget (every node entered counts), and obeys a deadline
when given one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any

from lightcycle.bots.search import _native_events as events
from lightcycle.bots.search import lengthen as lengthening
from lightcycle.bots.search import native
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.chambers import dead_end_bound, forced_bound, parity_bound
from lightcycle.bots.search.lengthen import lengthen, path_mask

ROOT_SHARE = 128
"""Nodes each of the interleaved searches (one per move two moves from the root) gets in
the first round; each round gives half as many again. Smaller shares find the optimum
later on the regions whose first moves are right, larger ones on those whose first moves
are wrong (measured on the endgame bench's regions: 64 to 512 nodes, growth 1 to 2, when
only the root's moves were interleaved; 48 to 256 since the split is two moves deep).
Splitting two moves deep rather than one took the 20 hardest regions of bench seeds 2-5
that reach their optimum within 80 ms of CPU from 10 to 13 (e.g. seed 4 region 1: over
8,000 nodes to 210; seed 2 region 28: 4,094 to 996), at the cost of a few slower ones
(seed 3 region 4: 1,073 to 2,672 nodes). Three moves deep, or two branching moves deep
(past corridors), won some regions and lost as many."""

SHARE_GROWTH = 1.5

FORCED_SLACK = 9
"""Within `FORCED_DEPTH` moves of the root, a move's bound is tried against
`forced_bound` when refuting this many lengths would cut it; deeper, only when one
would. Deep in the tree a cut saves few nodes, and a refutation costs about a node
(measured on the endgame bench's regions, seeds 1 and 2: slack 1 to 9 everywhere, depth
3 to 16, or by the region's size instead). Near the root a large slack costs little: the
loop stops at the first length it cannot refute, mostly at once by the quick exit, and
each refuted length tightens the bound the move is sorted and learned by (slack 2 to 9:
seed 2 region 2 from 1,419 nodes to the optimum to 92, seed 5 region 26 from 2,535 to
219, no region slower by more than a few ms; slack 2 or 3 deeper, or depth 16: no
better)."""

FORCED_DEPTH = 8

PROBE = 32
"""Every this many nodes of a search's share (and when its share runs out), its path is
completed by the greedy fill and lengthened (`lengthen`), and kept aside if it is the
longest yet. On the endgame bench's hard regions, every 32 nodes took seed 2 region 3
from more than 8,000 nodes to its optimum to 610 and region 6 from 836 to 740, at
10-20% more time a node on regions where it finds nothing (seed 5 region 12: 36 to 42
CPU-ms to its optimum); every 64 nodes: region 3 at 1,378 nodes, 5% more a node; only
when a share runs out: neither, and about 1% more."""

_Child = tuple[int, int, int, int, int, bool]
"""A move in the search's order: minus its bound, exits, minus walls, its cell, its
region, and whether the bound includes the chamber tree yet."""

_Frame = list[Any]
"""A position on a search's stack: [cell, region, depth, its moves, the next move to try,
the most its moves can still promise]."""


_Search = tuple[list[_Frame], list[int], int]
"""One of the interleaved searches: its stack, its path, and the most it can promise."""


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
    kernel: Kernel,
    head: int,
    free: int,
    out_of_time: Callable[[], bool] | None = None,
    compiled: bool = True,
) -> list[int]:
    """A greedy wall-hugging fill: never enter a smaller region than needed, and of the
    moves into the largest region take the one with the fewest free neighbours (the
    cell that would otherwise be left behind).

    With ``out_of_time`` it may stop early and return the path so far: on a huge region
    the whole fill costs more than a move's time, and only its first step is played.
    ``compiled``: where the ``fast`` extra is installed, its compiled copy
    (`native.fill_for`: the same path, polled every few dozen moves) fills instead.
    """
    fast = native.fill_for(kernel) if compiled else None
    if fast is not None:
        return fast.greedy(head, free, out_of_time)
    nbrs = kernel.neighbours
    flood = kernel.flood
    around, links = _links(kernel)
    path: list[int] = []
    cur = head
    # Only the cells reached matter, and keeping just those lets `_steps` skip most
    # floods (the greedy fill is most of a lengthening).
    f = flood(1 << head, free)
    while True:
        if out_of_time is not None and path and out_of_time():
            return path
        opts = [d for d in nbrs[cur] if (f >> d) & 1]
        if not opts:
            return path
        if len(opts) > 1:
            best_key: tuple[int, int] | None = None
            choice = opts[0]
            for d, region in _steps(flood, nbrs[cur], around[cur], links[cur], f):
                rest = f & ~(1 << d)
                room = parity_bound(kernel, d, region)
                hug = -sum(1 for e in nbrs[d] if (rest >> e) & 1)
                key = (room, hug)
                if best_key is None or key > best_key:
                    best_key, choice, f_next = key, d, region
            d = choice
            f = f_next
        else:
            d = opts[0]
            f &= ~(1 << d)
        path.append(d)
        cur = d


def prepare(kernel: Kernel, compiled: bool = True) -> None:
    """Build the board's tables the solver uses, ahead of its first move.

    They are made once per board (cached per kernel), and on a big board they take
    longer than a move may (arena-50: 56 ms for `_links`, 30 ms more for the compiled
    copies' tables); built at a bot's first endgame move they are on its clock, where
    four of strong's moves in 1,000 games overran a 100 ms limit by them. A bot calls
    this from ``start``, which no clock times.
    """
    _links(kernel)
    if compiled:
        native.chain_bound_for(kernel)
        native.forced_refutes_for(kernel)
        native.fill_for(kernel)
        native.searcher_for(kernel)
        native.lengthen_for(kernel)


def solve_fill(
    kernel: Kernel,
    head: int,
    free: int,
    node_limit: int | None = None,
    out_of_time: Callable[[], bool] | None = None,
    incumbent: list[int] | None = None,
    compiled: bool = True,
) -> Fill:
    """Search the longest path from ``head`` through ``free``.

    A node's moves are bounded before they are searched, in the parent: each move's
    region is flooded and bounded once, moves whose bound cannot beat the best path are
    never entered, and the rest are tried best bound first, then fewest onward exits
    (Warnsdorff: the cell that would otherwise be left behind), then most walls around.
    Ordering by the bound keeps the first descent out of moves that cut off a chamber,
    which is what a greedy fill gets wrong. The chamber bound of a move is computed when
    the search comes to it; if it is lower than the cheap bound the move was sorted by,
    the move goes back among the others at its place.

    Args:
        kernel: the board's kernel.
        head: the cycle's cell.
        free: the cells it may enter (only the part reachable from ``head`` matters).
        node_limit: stop after this many nodes (reproducible runs).
        out_of_time: polled at every node and before each chamber or forced bound (one
            can cost milliseconds on a big region).
        incumbent: a valid path to beat (e.g. last turn's plan, shortened by one).
        compiled: where the ``fast`` extra is installed, run each search's depth-first
            loop compiled (`native.searcher_for`: the same nodes in the same order, with
            its moves, learned bounds, chamber and forced-edge bounds in machine code),
            and the root's moves and the greedy fills by their compiled copies
            (`native.chain_bound_for`, `native.forced_refutes_for`, `native.fill_for`):
            the same search, about eight times as many nodes a second as pure Python
            (`bench/strength.py native`); false keeps it all pure Python.

    Returns:
        The best path found, the root bound, and whether it is proven optimal.
    """
    nbrs = kernel.neighbours
    colour = _colours(kernel)
    ncells = kernel.size
    fast = native.chain_bound_for(kernel) if compiled else None
    chain_of = fast if fast is not None else partial(_chain_bound, nbrs, colour, ncells)
    refutes = native.forced_refutes_for(kernel) if compiled else None
    forced_of = partial(forced_bound, kernel, refutes=refutes)
    fill = native.fill_for(kernel) if compiled else None
    region = kernel.flood(1 << head, free)
    root_bound = min(parity_bound(kernel, head, region), chain_of(head, region))
    best = greedy_fill(kernel, head, region, out_of_time, compiled)
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
    known: dict[tuple[int, int], int] = {}
    nodes = 0
    best_len = len(best)
    flood = kernel.flood
    around, links = _links(kernel)

    def pure_steps(cur: int, reach: int) -> list[tuple[int, int, int, int, int]]:
        """Each move into ``reach``, its region, 1 plus its dead-end bound, and -1 for
        its exits and walls (counted by `moves` for the moves it keeps)."""
        return [
            (d, sub, 1 + dead_end_bound(kernel, d, sub), -1, 0)
            for d, sub in _steps(flood, nbrs[cur], around[cur], links[cur], reach)
        ]

    steps_of = fill.steps if fill is not None else pure_steps
    found = False  # a longer path since the last `polish`
    side: list[int] = []  # the longest path `aside` made
    probed = 0  # cells the probes' greedy completions have added

    def moves(
        cur: int, reach: int, depth: int, cap: int = -1, exact: bool = False
    ) -> tuple[list[_Child], int]:
        """The moves worth entering, best first, and the most any cut move promises.

        The chamber bound is left to `run` (``exact``: computed here), so a move cut by
        the cheap bounds, or never reached, does not pay for it.

        ``cap`` is the bound ``cur`` was entered with (moves from ``cur``, at most its
        chamber bound; -1: none). Where ``cur`` has one way on, that way's bound is the
        cap, and its region the reach less that cell (everything is reached through
        it): no flood, no chamber bound. The chamber tree from the next cell is the one
        from ``cur`` less the corridor step, so it could not be tighter; the forced edges
        see the same path less its first edge (on the bench's hard regions the search
        visits the same nodes either way). A third or more of the chamber bounds, the
        solver's main cost, were of such moves: 10-25% less time per node."""
        need = best_len - depth  # a move must promise more than this many cells
        if cap >= 0:
            only = -1
            for d in nbrs[cur]:
                if (reach >> d) & 1:
                    if only >= 0 and d != only:
                        break
                    only = d
            else:
                if only >= 0:
                    sub = reach & ~(1 << only)
                    bound = min(cap, 1 + dead_end_bound(kernel, only, sub))
                    learned = known.get((only, sub))
                    if learned is not None and learned + 1 < bound:
                        bound = learned + 1
                    if bound <= need:
                        return [], bound
                    return [(-bound, 0, 0, only, sub, True)], 0
        children: list[_Child] = []
        top = 0
        for d, sub, bound, exits, walls in steps_of(cur, reach):
            done = True
            if bound > need and bound > 2:
                learned = known.get((d, sub))
                if learned is not None and learned + 1 < bound:
                    bound = learned + 1
                if bound > need:
                    if exact:
                        poll()
                        bound = min(bound, 1 + chain_of(d, sub))
                        bound = 1 + forced_of(d, sub, bound - 1, need - 1, out_of_time)
                        poll()
                    else:
                        done = False
            if bound <= need:
                if bound > top:
                    top = bound
                continue
            if exits < 0:
                rest = reach & ~(1 << d)
                exits = 0
                for e in nbrs[d]:
                    if (sub >> e) & 1:
                        exits += 1
                    elif not (rest >> e) & 1:
                        walls += 1
            children.append((-bound, exits, -walls, d, sub, done))
        if len(children) > 1:
            children.sort()
        return children, top

    def poll() -> None:
        """Stop at the deadline. Polled at every node and before each costly bound (the
        root's moves' bounds cost milliseconds on a big region before the first node)."""
        if out_of_time is not None and out_of_time():
            raise _Stop

    def visit(depth: int, path: list[int]) -> None:
        """Count a node, obey the budget, and keep ``path`` if it is the best yet."""
        nonlocal nodes, best_len, best, found
        nodes += 1
        if node_limit is not None and nodes > node_limit:
            raise _Stop
        poll()
        if depth > best_len:
            best_len = depth
            best = list(path)
            found = True
            if best_len >= root_bound:
                raise _Stop

    def polish() -> None:
        """Lengthen the best path by local moves (`lengthen`): once per descent that
        found a longer one, when the search turns back from it."""
        nonlocal best_len, best, found
        found = False
        poll()
        longer = lengthen(kernel, head, region, best, out_of_time, compiled)
        if len(longer) > best_len:
            best_len = len(longer)
            best = longer
            if best_len >= root_bound:
                raise _Stop

    def aside(path: list[int]) -> None:
        """Complete a search's path by the greedy fill and lengthen it (`lengthen`), and
        keep it aside if it is the longest yet: returned if nothing longer is found, and
        the end of the search if it reaches the root's bound.

        The searches' paths differ in their first moves, which the search's own best
        paths rarely do, and the greedy fill ends them without cutting off a chamber,
        which the depth-first order does not try first (completed by extensions alone,
        seed 2 region 6 of the endgame bench took 6,255 nodes to its optimum; by the
        greedy fill, 836). Kept aside rather than made the best path, it changes no cut,
        so the search visits the same nodes as without it: made the best path, it took
        seed 2 region 16 from 1,479 nodes to its optimum to 1,028, but seed 2 region 10
        from 209 to more than 8,000, as the moves it cut led to the path `polish`
        lengthens to the optimum. Kept aside it does the first and not the second.

        With a node budget (no clock to stop them) the completions may add at most as
        many cells, all probes together, as the budget has nodes: a greedy step costs
        about a node, and on a big region each probe is a whole fill (2,000 nodes on an
        open 40x40 board took 2.0 s with every probe, 0.8 s without any)."""
        nonlocal side, best, best_len, probed
        if node_limit is not None and probed >= node_limit:
            return
        poll()
        rest = flood(1 << path[-1], region & ~path_mask(path))
        ending = greedy_fill(kernel, path[-1], rest, out_of_time, compiled)
        probed += len(ending)
        longer = lengthen(kernel, head, region, path + ending, out_of_time, compiled)
        if len(longer) > max(best_len, len(side)):
            side = longer
            if len(side) >= root_bound:
                best, best_len = side, len(side)
                raise _Stop

    def run(stack: list[_Frame], path: list[int], share: int) -> bool:
        """Go on with a depth-first search for ``share`` nodes; whether it is finished.

        When a position is done, the most its moves could still promise is recorded in
        ``known`` and passed to its parent."""
        spent = 0
        while stack:
            frame = stack[-1]
            children = frame[3]
            i = frame[4]
            if i < len(children):
                neg_bound, exits, walls, d, sub, done = children[i]
                depth = frame[2] + 1
                if depth - 1 - neg_bound <= best_len:
                    frame[4] = i + 1
                    if -neg_bound > frame[5]:
                        frame[5] = -neg_bound
                    continue
                if not done:
                    poll()
                    chain = min(-neg_bound - 1, chain_of(d, sub))
                    floor = best_len - depth  # the child must make more moves
                    if chain - floor <= (FORCED_SLACK if depth <= FORCED_DEPTH else 1):
                        chain = forced_of(d, sub, chain, floor, out_of_time)
                    if chain + 1 < -neg_bound:
                        # Back among the moves not tried yet, at its place.
                        child = (-1 - chain, exits, walls, d, sub, True)
                        j = i + 1
                        n = len(children)
                        while j < n and children[j] < child:
                            children[j - 1] = children[j]
                            j += 1
                        children[j - 1] = child
                        continue
                frame[4] = i + 1
                path.append(d)
                visit(depth, path)
                kids, top = moves(d, sub, depth, -neg_bound - 1)
                stack.append([d, sub, depth, kids, 0, top])
                spent += 1
                if spent >= share:
                    return False
                if spent % PROBE == 0:
                    aside(path)
            else:
                if found:
                    polish()
                stack.pop()
                known[(frame[0], frame[1])] = frame[5]
                if stack:
                    path.pop()
                    parent = stack[-1]
                    if 1 + frame[5] > parent[5]:
                        parent[5] = 1 + frame[5]
        return True

    searchers = native.searcher_for(kernel) if compiled else None
    # The compiled loop's state is this solve's alone, lent below (the board's tables
    # are shared by every thread searching it: `native.searcher_for`).
    deep: native.Searcher | None = None

    def probe(search: native.Search) -> None:
        """`aside` of a compiled search's path, in one compiled call (the same path)."""
        nonlocal side, best, best_len, probed
        assert deep is not None
        if node_limit is not None and probed >= node_limit:
            return
        poll()
        length, added = deep.probe(search, head, lengthening.ROTATIONS)
        probed += added
        if length > max(best_len, len(side)):
            side = deep.probed_path()
            if len(side) >= root_bound:
                best, best_len = side, len(side)
                raise _Stop

    def run_deep(search: native.Search, share: int) -> bool:
        """`run`, by the compiled loop (``deep``): the same nodes in the same order."""
        nonlocal nodes, best_len, best, found
        assert deep is not None
        deep.begin(share)
        while True:
            event, nodes, longest, found = deep.run(search, nodes, best_len, found)
            if longest > best_len:
                best_len = longest
                best = deep.best_path()
            if event == events.FINISHED:
                return True
            if event == events.SHARE_SPENT:
                return False
            if event == events.STOP:
                raise _Stop
            if event == events.PROBE_DUE:
                probe(search)
            elif event == events.POLISH_DUE:
                polish()
            else:
                poll()

    def split_pure(search: tuple[list[_Frame], list[int]]) -> Any:
        """`_split` of a pure search, in `_interleave`'s form."""
        more = _split(search[0], search[1], best_len)
        return None if more is None else ((more[0], more[1]), more[1], more[2])

    stopped = False
    try:
        children, top = moves(head, region, 0, exact=True)
        root_bound = min(root_bound, max([best_len, top] + [-c[0] for c in children]))
        searches: list[_Search] = []
        if best_len < root_bound:
            for neg_bound, _, _, d, sub, _ in children:
                path = [d]
                visit(1, path)
                kids, top = moves(d, sub, 1, -neg_bound - 1)
                if len(kids) < 2:
                    searches.append(([[d, sub, 1, kids, 0, top]], path, -neg_bound))
                    continue
                # Each of its moves a search of its own, under a copy of its frame. The
                # copy's promise starts at the most any of them promises, so what a
                # finished copy records in ``known`` is still an upper bound.
                promise = max([top] + [-kid[0] for kid in kids])
                for kid in kids:
                    frame = [d, sub, 1, [kid], 0, promise]
                    searches.append(([frame], list(path), min(-neg_bound, 1 - kid[0])))
        if searchers is not None:
            looks = 0 if out_of_time is None else 16  # nodes between looks at the clock
            with searchers.lend() as deep:
                deep.start(region, node_limit, root_bound, FORCED_SLACK, FORCED_DEPTH, PROBE, looks)
                _interleave(
                    [(deep.search(stack, path), bound) for stack, path, bound in searches],
                    lambda: best_len,
                    run_deep,
                    lambda search: search.split(best_len),
                    lambda search: search.cells(),
                    lambda search: search.first_moves(),
                    aside,
                )
        else:
            _interleave(
                [((stack, path), bound) for stack, path, bound in searches],
                lambda: best_len,
                lambda search, share: run(search[0], search[1], share),
                split_pure,
                lambda search: search[1],
                lambda search: [child[3] for child in search[0][0][3]],
                aside,
            )
    except _Stop:
        stopped = best_len < root_bound
    if len(side) > best_len:
        best = side
    return Fill(best, root_bound, not stopped, nodes, stopped)


def _interleave(
    searches: list[tuple[Any, int]],
    best_len: Callable[[], int],
    run: Callable[[Any, int], bool],
    split: Callable[[Any], tuple[Any, list[int], int] | None],
    path_of: Callable[[Any], list[int]],
    first_moves: Callable[[Any], list[int]],
    aside: Callable[[list[int]], None],
) -> None:
    """Run the interleaved searches, each with its bound, in rounds (`ROOT_SHARE` nodes
    each in the first, `SHARE_GROWTH` times as many in each next) until every one is
    finished or cannot beat the best path (``best_len``): a search whose share runs out
    has its path probed (``aside``) and is split (``split``, `_split`), and the new
    search's first moves are probed too. ``run`` goes on with a search for a share of
    nodes and says whether it finished. The searches are the pure solver's stacks or the
    compiled loop's; these functions work on either kind."""
    share = float(ROOT_SHARE)
    while searches:
        left = []
        for search, bound in searches:
            if bound > best_len() and not run(search, int(share)):
                left.append((search, bound))
                aside(path_of(search))
                more = split(search)
                if more is not None:
                    # The new search's first moves are new to the probes too.
                    left.append((more[0], more[2]))
                    for cell in first_moves(more[0]):
                        aside(more[1] + [cell])
        searches = left
        share *= SHARE_GROWTH


def _split(stack: list[_Frame], path: list[int], best_len: int) -> _Search | None:
    """Hand the untried moves of a search's shallowest frame that has any (less those
    that cannot beat ``best_len``) to a new search, taking them from the frame; or None.

    A depth-first search undoes a wrong turn only once the turn's whole subtree is done,
    and the interleaving at the root undoes only the first two moves' turns quickly. A
    search whose share has run out is split where it took its earliest turn that is
    still open, so the moves it did not take there are searched from the next round on,
    as the root's are (a limited discrepancy search, in effect, with the discrepancies
    at the top first). On the endgame bench's regions (seeds 1-10, 292 with a known
    optimum) this took seed 5 region 7 from 28,957 nodes to its optimum to 963, seed 8
    region 10 from 2,532 to 387 and seed 10 regions 0, 5 and 8 from 10,989, 2,763 and
    7,440 to 3,492, 2,014 and 3,361, and the CPU time to prove the 271 regions both
    versions prove within 8,000 nodes fell by 8%; on seeds 11-15 no region got slower
    to its optimum, and seed 13 region 18 went from 4,666 nodes to 1,272. Each split
    thins the share of the search that was on the right line: seed 2 region 3 went
    from 610 nodes to 802, seed 9 region 9 from 2,916 to 4,501, and seed 6 region 19
    (found by a probe at 3,875) to more than 8,000.

    Both frames promise, from then on, at least the most any of the frame's moves
    promises, as the copies at the root do: what either records in ``known`` when done
    is still an upper bound (a looser one, for the frame and the frames above it).

    Args:
        stack: the search's stack, its root first; the frame split is taken from it.
        path: the search's path (the cells of the stack's frames).
        best_len: the longest path found.

    Returns:
        The new search: a copy of the frame with the moves taken, the path to its cell,
        and the most it promises.
    """
    for frame in stack[:-1]:  # the top frame's moves are the search's own next steps
        children = frame[3]
        i = frame[4]
        rest = [c for c in children[i:] if frame[2] - c[0] > best_len]
        if rest:
            promise = max([frame[5]] + [-c[0] for c in children])
            frame[3] = children[:i]
            frame[5] = promise
            return (
                [[frame[0], frame[1], frame[2], rest, 0, promise]],
                path[: frame[2]],
                frame[2] - rest[0][0],
            )
    return None


def chain_bound(kernel: Kernel, head: int, free: int) -> int:
    """An upper bound on the moves a cycle at ``head`` can make inside ``free``: the
    chamber tree of `chambers.fill_bound`, with each chamber the path crosses giving up
    the cell its colours cannot pair (`_chain_bound`). Never above `fill_bound`, and on
    the regions strong separates into in its games against the 2010 champion, mostly
    the longest path itself."""
    return _chain_bound(kernel.neighbours, _colours(kernel), kernel.size, head, free)


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
    in ``disc``, so no edge tests a bit of a long int; ``disc`` is made from the region's
    bits as ASCII, a third of the cost of mapping them), a colour table the colour masks,
    and neighbour iterators its index stack; the cell being searched, its iterator and its
    low-link are locals, pushed only while a child is searched (the parent's low-link is
    on the stack with it, so no low-link list). The bound is computed for nearly every
    move the search considers, so its cost is the solver's speed: these took a call from
    about 33 to 24 us on the endgame bench's hard regions (same values, same nodes).

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
    disc = list(format(free, f"0{ncells}b")[::-1].encode())
    best = [0] * ncells
    t = disc[head] = _FIRST
    vstack: list[int] = []
    stack: list[tuple[int, Any, int]] = []
    v = head
    lv = t  # the low-link of v, kept on the stack while v's subtree is searched
    it = iter(nbrs[head])
    while True:
        for w in it:
            dw = disc[w]
            if dw > _FREE:
                if dw < lv:
                    lv = dw
            elif dw == _FREE:
                stack.append((v, it, lv))
                t += 1
                disc[w] = lv = t
                vstack.append(w)
                v = w
                it = iter(nbrs[w])
                break
        else:
            if not stack:
                break
            p, it, lp = stack.pop()
            if lv < disc[p]:
                v = p
                if lp < lv:
                    lv = lp
                continue
            # v's subtree down to v is a block hanging off p: pop it.
            if vstack[-1] == v:
                # A block of one cell (a corridor, a dead end): of the other colour
                # than p's wherever there are colours, so it adds itself.
                vstack.pop()
                val = 1 + best[v]
            elif colour is None:
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
            v = p
            lv = lp
    return best[head]


_FREE = ord("1")
_FIRST = _FREE + 1
"""`_chain_bound`'s discovery times, read from the region's bits written out in ASCII:
``ord("0")`` a cell outside the region, ``ord("1")`` one not reached yet, and from
``_FIRST`` on the order the cells are reached in."""


@lru_cache(maxsize=16)
def _colours(kernel: Kernel) -> tuple[int, ...] | None:
    """Each cell's checkerboard colour, or ``None`` where moves need not change colour."""
    black = kernel.black
    if black is None:
        return None
    return tuple((black >> c) & 1 for c in range(kernel.size))


@lru_cache(maxsize=16)
def _links(kernel: Kernel) -> tuple[tuple[int, ...], tuple[tuple[tuple[int, int], ...], ...]]:
    """Each cell's neighbours (as one bitboard), and its pairs of neighbours that are
    joined without it: (the pair's bits, the cells any one of which joins them; on a
    grid the corner between them, or either of the pair where they touch)."""
    nbrs = kernel.neighbours
    around: list[int] = []
    links: list[tuple[tuple[int, int], ...]] = []
    for c in range(kernel.size):
        ways = sorted(set(nbrs[c]) - {c})
        around.append(sum(1 << a for a in ways))
        pairs: list[tuple[int, int]] = []
        for i, a in enumerate(ways):
            for b in ways[i + 1 :]:
                via = (set(nbrs[a]) & set(nbrs[b])) - {c}
                if b in nbrs[a]:
                    via.add(a)
                if via:
                    pairs.append(((1 << a) | (1 << b), sum(1 << x for x in via)))
        links.append(tuple(pairs))
    return tuple(around), tuple(links)


def _steps(
    flood: Callable[[int, int], int],
    ways_on: Sequence[int],
    around: int,
    links: tuple[tuple[int, int], ...],
    reach: int,
) -> list[tuple[int, int]]:
    """Each move from a cell into ``reach`` (its ``ways_on``, in order) with the region it
    reaches: ``flood(1 << d, reach & ~(1 << d))``, with fewer floods. ``reach`` with the
    cell must be one part (the solver's regions are floods from the head).

    A move reaches its part of ``reach`` less itself (whatever it cuts off still
    touches it), so the moves into one part share one flood; the last way on not in a
    part found yet has the rest of ``reach`` (each cell of it is reached by some way on;
    a way in a part found before the last is flooded again); and where the ways on are
    joined round the cell, ``reach`` is one part (`_joined`): no flood at all. With the
    greedy fill's, the solver made 104,819 floods on 120 of the endgame bench's rooms at
    1,500 nodes each, and makes 23,843: the same nodes in 15% less CPU."""
    ways = reach & around
    comp = covered = reach if _joined(links, ways, reach) else 0
    out: list[tuple[int, int]] = []
    for d in ways_on:
        if not (reach >> d) & 1:
            continue
        if not (comp >> d) & 1:
            if (covered >> d) & 1 or ways & ~covered & ~(1 << d):
                comp = flood(1 << d, reach)
            else:
                comp = reach & ~covered
            covered |= comp | (1 << d)
        out.append((d, comp & ~(1 << d)))
    return out


def _joined(links: tuple[tuple[int, int], ...], ways: int, reach: int) -> bool:
    """Whether the cells of ``ways`` (a cell's neighbours in ``reach``) are joined through
    ``reach`` by the cell's ``links`` (`_links`). If so, and ``reach`` with the cell is
    one part, ``reach`` without it is one part too: every path through the cell can go
    round it. A local test, so it may miss a join further away (then one flood a part)."""
    if not ways & (ways - 1):
        return True
    group = ways & -ways
    grew = True
    while grew:
        grew = False
        for pair, via in links:
            if via & reach and pair & group and pair & ~group and (pair & ways) == pair:
                group |= pair
                grew = True
    return group == ways


def _valid(kernel: Kernel, head: int, free: int, path: list[int]) -> bool:
    cur = head
    f = free
    for d in path:
        if d not in kernel.neighbours[cur] or not (f >> d) & 1:
            return False
        f &= ~(1 << d)
        cur = d
    return True

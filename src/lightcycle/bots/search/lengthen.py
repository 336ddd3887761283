"""Lengthening a fill path by local moves, so the endgame search's best path improves
between its own finds.

The endgame search (`solve_fill`) goes depth first, so the paths it finds differ from
one another near their ends: the first moves, once wrong, stay wrong for thousands of
nodes. A path can often be made longer without going back that far:

- a detour: where two unused cells ``u``, ``v`` sit beside a step ``a``-``b`` of the path
  (``a``-``u``-``v``-``b``, a square on a grid), the path can go round them: two cells more;
- an extension: the last cell may have unused neighbours (after a detour, or a rotation);
- a rotation (Posa's): where the last cell ``e`` touches an earlier cell ``p[i]`` of the
  path, ``p[0..i] e p[n-2] .. p[i+1]`` is a path through the same cells that ends at
  ``p[i+1]`` instead, which may have unused neighbours, or unused squares beside it.

Each only ever adds cells, so the result is never shorter. On the endgame bench's regions
(seeds 1-5, 150 regions) lengthening the search's best paths took seed 2 region 10 from
more than 8,000 nodes to its optimum to 209, and cut the nodes to the optimum of 21
others (e.g. seed 5 region 21: 821 to 52, seed 3 region 14: 611 to 92);
lengthening the searches' paths completed by the greedy fill (`solve_fill`'s probes)
took seed 2 region 16 from 1,479 to 1,028, region 6 from 6,255 to 740 and region 3 from
more than 8,000 to 610. A call costs 0.1-0.2 ms on those regions (a few nodes' worth).
"""

from __future__ import annotations

from collections.abc import Callable

from lightcycle.bots.search import native
from lightcycle.bots.search.bitboard import Kernel

ROTATIONS = 20
"""Rotations tried before giving up on a path. On the bench's regions more (up to 300)
found no longer path."""


def lengthen(
    kernel: Kernel,
    head: int,
    region: int,
    path: list[int],
    out_of_time: Callable[[], bool] | None = None,
    compiled: bool = True,
) -> list[int]:
    """A path from ``head`` through ``region`` at least as long as ``path``, made longer by
    detours, extensions and rotations of its end where it can.

    Args:
        kernel: the board's kernel.
        head: the cycle's cell.
        region: the cells the path may use.
        path: a valid path from ``head`` through ``region`` (not changed).
        out_of_time: polled first and before each rotation; when it says stop, the best
            path so far is returned (each pass of detours and extensions is linear in the
            path's length).
        compiled: where the ``fast`` extra is installed, lengthen by its compiled copy
            (`native.lengthen_for`: the same path, in microseconds; it looks at the
            clock only first).

    Returns:
        The longest path found, a new list (``path``'s cells if nothing was found).
    """
    nbrs = kernel.neighbours
    cur = list(path)
    if out_of_time is not None and out_of_time():
        return cur
    fast = native.lengthen_for(kernel) if compiled else None
    if fast is not None:
        return fast.lengthen(head, region, cur, ROTATIONS)
    used = path_mask(cur)
    used = _detour(kernel, head, region, cur, used)
    used = _extend(nbrs, head, region, cur, used)
    used = _detour(kernel, head, region, cur, used)
    best = cur
    # Breadth first over the rotations of the end, from the best path so far. A rotation
    # keeps the path's cells, so it can only grow at its new end or beside its one new
    # step (from the cell it rotated at to the old end): where neither can, it is not
    # worth the whole path's detours.
    seen = {(len(cur), tuple(cur[-3:]))}
    frontier = [cur] if cur else []
    tries = 0
    while frontier and tries < ROTATIONS:
        grown: list[int] | None = None
        nxt: list[list[int]] = []
        for p in frontier:
            n = len(p)
            end = p[-1]
            at = {c: i for i, c in enumerate(p)}
            for q in nbrs[end]:
                i = at.get(q, n)
                if i >= n - 2:
                    continue  # not on the path, or the cell before the end
                rotated = p[: i + 1] + p[:i:-1]
                key = (n, tuple(rotated[-3:]))
                if key in seen:
                    continue
                seen.add(key)
                tries += 1
                if out_of_time is not None and out_of_time():
                    return best
                free = region & ~used
                if _opens(nbrs, free, rotated[-1]) or _beside(nbrs, free, q, end):
                    u = _extend(nbrs, head, region, rotated, used)
                    u = _detour(kernel, head, region, rotated, u)
                    if len(rotated) > len(best):
                        grown = best = rotated
                        used = u
                        break
                nxt.append(rotated)
                if tries >= ROTATIONS:
                    break
            if grown is not None or tries >= ROTATIONS:
                break
        frontier = [grown] if grown is not None else nxt
    return best


def _opens(nbrs: tuple[tuple[int, ...], ...], free: int, cell: int) -> bool:
    """Whether ``cell`` has a neighbour in ``free``."""
    return any((free >> d) & 1 for d in nbrs[cell])


def _beside(nbrs: tuple[tuple[int, ...], ...], free: int, a: int, b: int) -> bool:
    """Whether cells of ``free`` can go between the neighbours ``a`` and ``b`` (`_detour`)."""
    for u in nbrs[a]:
        if (free >> u) & 1:
            nu = nbrs[u]
            if b in nu:
                return True
            for v in nu:
                if v != u and (free >> v) & 1 and b in nbrs[v]:
                    return True
    return False


def path_mask(path: list[int]) -> int:
    """The cells of ``path`` as a mask."""
    used = 0
    for c in path:
        used |= 1 << c
    return used


def _extend(
    nbrs: tuple[tuple[int, ...], ...], head: int, region: int, path: list[int], used: int
) -> int:
    """Walk on from the end of ``path`` (in place) while it has unused neighbours, to the
    one with the fewest unused neighbours of its own (the cell that would otherwise be
    left behind); the cells used after."""
    cur = path[-1] if path else head
    while True:
        step = -1
        fewest = 0
        for d in nbrs[cur]:
            if (region >> d) & 1 and not (used >> d) & 1:
                onward = sum(
                    1 for e in nbrs[d] if e != d and (region >> e) & 1 and not (used >> e) & 1
                )
                if step < 0 or onward < fewest:
                    step, fewest = d, onward
        if step < 0:
            return used
        path.append(step)
        used |= 1 << step
        cur = step


def _detour(kernel: Kernel, head: int, region: int, path: list[int], used: int) -> int:
    """Put unused cells into ``path`` (in place) beside its steps: ``a``-``u``-``b`` or
    ``a``-``u``-``v``-``b`` for a step ``a``-``b`` (the first step's ``a`` is the head), until
    none is left; the cells used after.

    Only the steps from a cell beside an unused one are looked at (found for the whole
    path by one shift of the unused cells): on a nearly full path, a few of them."""
    nbrs = kernel.neighbours
    free = region & ~used
    touch = kernel.expand(free)  # the cells beside an unused one
    i = 0
    while i < len(path):
        a = path[i - 1] if i else head
        if not (touch >> a) & 1:
            i += 1
            continue
        b = path[i]
        ins: list[int] = []
        for u in nbrs[a]:
            if not (free >> u) & 1:
                continue
            nu = nbrs[u]
            if b in nu:
                ins = [u]  # off checkerboards: one cell between two neighbours
                break
            for v in nu:
                if v != u and (free >> v) & 1 and b in nbrs[v]:
                    ins = [u, v]
                    break
            if ins:
                break
        if ins:
            path[i:i] = ins
            for c in ins:
                used |= 1 << c
            free = region & ~used
            touch = kernel.expand(free)
            continue  # the new steps may take detours too
        i += 1
    return used

"""Is a map fair? Board symmetries that carry start to start, and a territory count.

The Scheme course's ``fair-game?`` wanted to check "symmetry along the axis through both
cycles" and was never written. This is the full version: it tries every symmetry of the
board's shape (the 8 of a square, the 4 of a rectangle, and on a torus each of those
combined with every translation), keeps the ones that map walls onto walls and carry
every player's start onto some player's start, and calls the map symmetric when those
symmetries can carry any start to any other: then no seat has an advantage the others
lack. A second, weaker measure works on any board, graphs included: how many cells each
player reaches strictly first (a multi-source breadth-first search), and the ratio of the
smallest share to the largest.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lightcycle.core.bitset import iter_cells
from lightcycle.core.state import Board
from lightcycle.core.topology import GridTopology
from lightcycle.maps.spec import MapError, MapSpec

BALANCE_THRESHOLD = 0.95
"""A map that is not symmetric still counts as fair when its territory balance reaches this."""

StartsLike = Sequence[Sequence[int]] | Sequence[int]
"""Starts as ``MapSpec.starts`` (cells per player) or as one cell per player."""

_XYMap = Callable[[int, int, int, int], tuple[int, int]]

_SHAPE_MAPS: tuple[tuple[str, _XYMap, bool], ...] = (
    # name, (x, y, w, h) -> (x, y), square grids only
    ("identity", lambda x, y, w, h: (x, y), False),
    ("mirror-vertical", lambda x, y, w, h: (w - 1 - x, y), False),
    ("mirror-horizontal", lambda x, y, w, h: (x, h - 1 - y), False),
    ("point-reflection", lambda x, y, w, h: (w - 1 - x, h - 1 - y), False),
    ("rotate-90", lambda x, y, w, h: (w - 1 - y, x), True),
    ("rotate-270", lambda x, y, w, h: (y, w - 1 - x), True),
    ("transpose", lambda x, y, w, h: (y, x), True),
    ("anti-transpose", lambda x, y, w, h: (w - 1 - y, w - 1 - x), True),
)
"""The symmetries of a rectangle and of a square.

``mirror-vertical`` reflects in the vertical centre line (left <-> right),
``mirror-horizontal`` in the horizontal one (top <-> bottom); ``rotate-90`` turns
clockwise as drawn (row 0 at the top); ``transpose`` swaps x and y (the main diagonal)
and ``anti-transpose`` reflects in the other diagonal.
"""


@dataclass(frozen=True)
class FairnessReport:
    """What `fair_game` found.

    Attributes:
        symmetries: the board's non-identity symmetries that map walls onto walls and
            starts onto starts, e.g. ``point-reflection`` or ``translate(10,0)``.
        permutations: for each of ``symmetries``, where it sends each player's start
            (``permutations[k][i]`` is the player whose start player ``i``'s goes to).
        wall_symmetries: the symmetries that map walls onto walls, starts ignored; they
            show how a map could be made symmetric by moving its starts.
        symmetric: the symmetries carry every start to every other start, so every seat
            is equivalent. Always true for fewer than two players; never on graphs.
        territory: per player, the cells that player reaches strictly before all others.
        contested: cells reached first by two or more players at once.
        balance: the smallest territory divided by the largest (1.0 when all are equal).
        is_fair: ``symmetric`` or ``balance >= BALANCE_THRESHOLD``.
    """

    symmetries: tuple[str, ...]
    permutations: tuple[tuple[int, ...], ...]
    wall_symmetries: tuple[str, ...]
    symmetric: bool
    territory: tuple[int, ...]
    contested: int
    balance: float
    is_fair: bool

    def __str__(self) -> str:
        verdict = "fair" if self.is_fair else "NOT fair"
        shown = ", ".join(self.symmetries[:8]) or "none"
        if len(self.symmetries) > 8:
            shown += f" and {len(self.symmetries) - 8} more"
        return (
            f"{verdict}: {'symmetric' if self.symmetric else 'not symmetric'} "
            f"(symmetries: {shown}); territory {'/'.join(map(str, self.territory))}, "
            f"{self.contested} contested, balance {self.balance:.3f}"
        )


def fair_game(
    target: MapSpec | Board | tuple[Board, StartsLike],
    starts: StartsLike | None = None,
) -> FairnessReport:
    """Check whether a map gives every player the same chances.

    Args:
        target: a `MapSpec` (its own starts are used unless ``starts`` is given), a
            `Board`, or a ``(board, starts)`` pair.
        starts: the starts, per player either a cell or a sequence of cells.

    Raises:
        MapError: when there are no starts to judge (a map that places them at game time:
            pass the placed starts, see `lightcycle.maps.starts.starts_for`).
    """
    if isinstance(target, MapSpec):
        board = target.board
        if starts is None:
            starts = target.starts
    elif isinstance(target, Board):
        board = target
    else:
        board, pair_starts = target
        if starts is None:
            starts = pair_starts
    if not starts:
        raise MapError(
            "fair_game needs starts: this map places them at game time, so pass the placed "
            "ones (lightcycle.maps.starts.starts_for)"
        )
    groups = tuple((s,) if isinstance(s, int) else tuple(s) for s in starts)
    symmetries, permutations, wall_symmetries = _symmetries(board, groups)
    symmetric = _transitive(len(groups), permutations)
    territory, contested = territories(board, groups)
    top = max(territory)
    balance = min(territory) / top if top else 1.0
    return FairnessReport(
        symmetries=symmetries,
        permutations=permutations,
        wall_symmetries=wall_symmetries,
        symmetric=symmetric,
        territory=territory,
        contested=contested,
        balance=balance,
        is_fair=symmetric or balance >= BALANCE_THRESHOLD,
    )


def shape_symmetries(topo: GridTopology) -> dict[str, Callable[[int], int]]:
    """The symmetries of the grid's outline by name, identity first, translations left out.

    They are symmetries of a torus too (about the same centre), so placement code can use
    them on both kinds of grid.
    """
    w, h = topo.width, topo.height
    return {
        name: _cell_map(fn, w, h, 0, 0)
        for name, fn, square_only in _SHAPE_MAPS
        if w == h or not square_only
    }


def keeps_walls(board: Board, symmetry: Callable[[int], int]) -> bool:
    """Whether ``symmetry`` maps every wall of ``board`` onto a wall."""
    return all(board.is_wall(symmetry(c)) for c in iter_cells(board.walls))


def board_symmetries(topo: GridTopology) -> list[tuple[str, Callable[[int], int]]]:
    """Every symmetry of the grid's shape as ``(name, cell -> cell)``, identity first.

    Walls are not considered. On a torus each shape symmetry is also combined with every
    translation, named like ``translate(3,0)`` or ``mirror-vertical+translate(3,0)``.
    """
    w, h = topo.width, topo.height
    result: list[tuple[str, Callable[[int], int]]] = []
    shifts = [(dx, dy) for dy in range(h) for dx in range(w)] if topo.wrap else [(0, 0)]
    for name, fn, square_only in _SHAPE_MAPS:
        if square_only and w != h:
            continue
        for dx, dy in shifts:
            label = name
            if (dx, dy) != (0, 0):
                shift = f"translate({dx},{dy})"
                label = shift if name == "identity" else f"{name}+{shift}"
            result.append((label, _cell_map(fn, w, h, dx, dy)))
    return result


def _cell_map(fn: _XYMap, w: int, h: int, dx: int, dy: int) -> Callable[[int], int]:
    def apply(cell: int) -> int:
        x, y = fn(cell % w, cell // w, w, h)
        return ((y + dy) % h) * w + (x + dx) % w

    return apply


def _symmetries(
    board: Board, groups: tuple[tuple[int, ...], ...]
) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...], tuple[str, ...]]:
    topo = board.topology
    if not isinstance(topo, GridTopology):
        return (), (), ()
    walls = list(iter_cells(board.walls))
    owner = {frozenset(cells): p for p, cells in enumerate(groups)}
    names: list[str] = []
    perms: list[tuple[int, ...]] = []
    wall_names: list[str] = []
    for name, apply in board_symmetries(topo)[1:]:
        if not all(board.is_wall(apply(c)) for c in walls):
            continue
        wall_names.append(name)
        perm = [owner.get(frozenset(apply(c) for c in cells), -1) for cells in groups]
        if -1 not in perm:
            names.append(name)
            perms.append(tuple(perm))
    return tuple(names), tuple(perms), tuple(wall_names)


def _transitive(players: int, permutations: tuple[tuple[int, ...], ...]) -> bool:
    """Whether the permutations connect every player to every other (one orbit).

    The symmetries found form a group, so the union of their cycles is exactly the
    orbit of each start.
    """
    parent = list(range(players))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for perm in permutations:
        for i, j in enumerate(perm):
            parent[root(i)] = root(j)
    return len({root(i) for i in range(players)}) <= 1


def territories(board: Board, starts: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], int]:
    """Count the cells each player reaches strictly first, and the contested ones.

    One breadth-first search per player over free cells (wrap-aware, since it follows
    the topology's neighbours); other players' start cells are blocked, as they are in
    the game. A player's own start cells count as its territory.

    Returns:
        ``(territory per player, cells reached first by several players at once)``.
    """
    topo = board.topology
    all_starts = {c for cells in starts for c in cells}
    far = topo.size + 1
    best = [far] * topo.size
    owner = [-1] * topo.size
    for p, cells in enumerate(starts):
        mine = set(cells)
        dist = {c: 0 for c in cells}
        queue = deque(cells)
        while queue:
            cell = queue.popleft()
            d = dist[cell] + 1
            for n in topo.neighbours[cell]:
                if n in dist or board.is_wall(n) or (n in all_starts and n not in mine):
                    continue
                dist[n] = d
                queue.append(n)
        for cell, d in dist.items():
            if d < best[cell]:
                best[cell], owner[cell] = d, p
            elif d == best[cell]:
                owner[cell] = -2
    territory = [0] * len(starts)
    contested = 0
    for o in owner:
        if o >= 0:
            territory[o] += 1
        elif o == -2:
            contested += 1
    return tuple(territory), contested

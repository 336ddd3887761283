"""Where the cycles start when a map leaves it to the game.

Starts decide games as much as walls do, so placed starts form one orbit of symmetries of
the board whenever its walls allow: for two players the reflection through the centre (or
a mirror), for four the quarter turn of a square (or both mirrors of a rectangle), for
eight all eight symmetries of a square. Then every seat sees the same board. Otherwise the
starts are spread evenly on an ellipse round the centre, in mirrored pairs for even counts,
taking the candidate with the most even territories; as a last resort they are picked far
apart by breadth-first distance (the only method that works on graph boards).

All of it is random only through ``Rng(seed, 0, "starts")``, so a seed names one placement
and a replay re-creates it.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Sequence

from lightcycle.core.rng import Rng
from lightcycle.core.state import Board
from lightcycle.core.topology import GridTopology
from lightcycle.maps.fairness import keeps_walls, shape_symmetries, territories
from lightcycle.maps.spec import MapError, MapSpec

Starts = tuple[tuple[int, ...], ...]
"""Per player, the start cells of that player's cycles."""

_CIRCLE_ATTEMPTS = 200
_FAR = 1 << 30


def place_starts(board: Board, players: int, seed: int) -> Starts:
    """Choose one start cell per player: random, but symmetric where the board allows.

    Every start is a free cell, no two are equal or adjacent, and all lie in one open area.

    Args:
        board: the topology and walls.
        players: how many starts.
        seed: the game seed; the same seed always gives the same starts.

    Returns:
        ``((cell,), (cell,), ...)``, one one-cell tuple per player.

    Raises:
        MapError: when the board has no room for that many separate starts.
    """
    if players < 1:
        raise MapError(f"cannot place starts for {players} players: need at least one")
    field = _Field(board)
    if sum(field.free) < players:
        raise MapError(
            f"cannot place {players} starts on a {board.topology.describe()} with only "
            f"{sum(field.free)} free cells"
        )
    rng = Rng(seed, 0, "starts")
    cells: list[int] | None = None
    topo = board.topology
    if isinstance(topo, GridTopology):
        cells = _grid_symmetric(field, topo, players, rng)
    if cells is None:
        cells = _spread(field, players, rng)
    return tuple((c,) for c in cells)


def starts_for(spec: MapSpec, players: int, seed: int) -> Starts:
    """The starts for a game of ``players`` on ``spec``: the map's own, or placed ones.

    Raises:
        MapError: when the map is not made for that many players, or starts cannot be
            placed.
    """
    own = spec.starts_of(players)
    if own is not None:
        return own
    if players not in spec.players:
        counts = ", ".join(str(p) for p in spec.players)
        raise MapError(f"map {spec.id} is for {counts} players, not {players}")
    return place_starts(spec.board, players, seed)


class _Field:
    """Per-cell facts the placement rules ask about again and again."""

    def __init__(self, board: Board) -> None:
        topo = board.topology
        self.board = board
        self.topo = topo
        self.free = [not board.is_wall(c) for c in range(topo.size)]
        self.open_sides = [
            sum(1 for n in topo.neighbours[c] if self.free[n]) for c in range(topo.size)
        ]
        self.area = [-1] * topo.size
        sizes: list[int] = []
        for c in range(topo.size):
            if self.free[c] and self.area[c] < 0:
                reached = self.distances([c])
                for cell, _ in reached:
                    self.area[cell] = len(sizes)
                sizes.append(len(reached))
        self.sizes = sizes
        """Cells per open area (index = area label)."""
        self.main = {a for a, n in enumerate(sizes) if n == max(sizes, default=0)}
        """The largest open areas: starts go there when they can."""

    def distances(self, sources: Sequence[int]) -> list[tuple[int, int]]:
        """Breadth-first (cell, distance) pairs over free cells from ``sources``."""
        seen = {c: 0 for c in sources}
        order = [(c, 0) for c in sources]
        queue = deque(order)
        neighbours = self.topo.neighbours
        while queue:
            cell, d = queue.popleft()
            for n in neighbours[cell]:
                if self.free[n] and n not in seen:
                    seen[n] = d + 1
                    order.append((n, d + 1))
                    queue.append((n, d + 1))
        return order

    def acceptable(self, cells: Sequence[int]) -> bool:
        """Free, distinct, pairwise not adjacent, and all in one open area."""
        if len(set(cells)) != len(cells):
            return False
        if not all(self.free[c] and self.open_sides[c] > 0 for c in cells):
            return False
        if len({self.area[c] for c in cells}) != 1:
            return False
        neighbours = self.topo.neighbours
        return not any(b in neighbours[a] for i, a in enumerate(cells) for b in cells[i + 1 :])


_GROUPS: dict[int, tuple[tuple[str, ...], ...]] = {
    1: (("identity",),),
    2: (
        ("identity", "point-reflection"),
        ("identity", "mirror-vertical"),
        ("identity", "mirror-horizontal"),
        ("identity", "transpose"),
        ("identity", "anti-transpose"),
    ),
    4: (
        ("identity", "rotate-90", "point-reflection", "rotate-270"),
        ("identity", "mirror-vertical", "point-reflection", "mirror-horizontal"),
        ("identity", "transpose", "point-reflection", "anti-transpose"),
    ),
    8: (
        (
            "identity",
            "rotate-90",
            "point-reflection",
            "rotate-270",
            "transpose",
            "anti-transpose",
            "mirror-vertical",
            "mirror-horizontal",
        ),
    ),
}
"""For each player count, groups of board symmetries whose orbits give that many starts.

A group is used only when each of its maps carries the walls onto walls: then the starts
form one orbit and every seat sees the same board. The first group that fits wins, so a
duel prefers the point reflection, four players the quarter turn.
"""

_CIRCLE_KEEP = 12
"""How many good ellipse placements to compare by territory before taking the best."""


def _grid_symmetric(field: _Field, topo: GridTopology, n: int, rng: Rng) -> list[int] | None:
    shapes = shape_symmetries(topo)
    keeps = {name: keeps_walls(field.board, fn) for name, fn in shapes.items()}
    gap = max(2, (topo.width + topo.height) // (2 * n))
    for names in _GROUPS.get(n, ()):
        if all(keeps.get(name, False) for name in names):
            found = _orbit(field, topo, [shapes[name] for name in names], rng, gap)
            if found is not None:
                return _around(topo, found) if n > 2 else found
    pairs = ("point-reflection", "mirror-vertical", "mirror-horizontal")
    pair = next((shapes[k] for k in pairs if keeps[k]), shapes["point-reflection"])
    return _circle(field, topo, n, rng, pair)


def _gap(topo: GridTopology, a: int, b: int) -> int:
    """Grid distance between two cells, the short way round on a torus."""
    (ax, ay), (bx, by) = topo.xy(a), topo.xy(b)
    dx, dy = abs(ax - bx), abs(ay - by)
    if topo.wrap:
        dx, dy = min(dx, topo.width - dx), min(dy, topo.height - dy)
    return dx + dy


def _tier(field: _Field, topo: GridTopology, cells: Sequence[int], gap: int) -> int:
    """How good acceptable starts are, 0 best.

    0-2 inside the largest open area: 0 in the open and apart, 1 apart, 2 merely legal;
    3-5 the same in a smaller area.
    """
    base = 0 if field.area[cells[0]] in field.main else 3
    if not all(_gap(topo, a, b) >= gap for i, a in enumerate(cells) for b in cells[i + 1 :]):
        return base + 2
    if all(field.open_sides[c] == len(topo.neighbours[c]) for c in cells):
        return base
    return base + (1 if all(field.open_sides[c] >= 2 for c in cells) else 2)


def _orbit(
    field: _Field, topo: GridTopology, group: list[Callable[[int], int]], rng: Rng, gap: int
) -> list[int] | None:
    """Pick one orbit of ``group`` whose cells make acceptable starts, the best tier first."""
    tiers: list[list[list[int]]] = [[] for _ in range(6)]
    for c in range(topo.size):
        if field.free[c]:
            cells = [g(c) for g in group]
            if field.acceptable(cells):
                tiers[_tier(field, topo, cells, gap)].append(cells)
    for pool in tiers:
        if pool:
            return rng.choice(pool)
    return None


def _around(topo: GridTopology, cells: list[int]) -> list[int]:
    """Order starts by angle around the centre, beginning with the first."""
    cx, cy = (topo.width - 1) / 2, (topo.height - 1) / 2

    def angle(c: int) -> float:
        x, y = topo.xy(c)
        return math.atan2(y - cy, x - cx)

    first = angle(cells[0])
    return sorted(cells, key=lambda c: (angle(c) - first) % (2 * math.pi))


def _circle(
    field: _Field, topo: GridTopology, n: int, rng: Rng, pair: Callable[[int], int]
) -> list[int] | None:
    """Spread ``n`` starts evenly on an ellipse round the centre.

    For an even count the second half are the ``pair`` images of the first (a symmetry of
    the board when it has one). Of the first few good placements, the one whose
    territories are most even wins.
    """
    w, h = topo.width, topo.height
    cx, cy = (w - 1) / 2, (h - 1) / 2
    half = n // 2 if n % 2 == 0 else n
    gap = max(3, (w + h) // (2 * n))
    best: tuple[int, float, list[int]] | None = None
    kept = 0
    for _ in range(_CIRCLE_ATTEMPTS):
        scale = 0.3 + 0.6 * rng.below(1001) / 1000
        phase = 2 * math.pi * rng.below(3600) / 3600
        cells: list[int] = []
        for k in range(half):
            a = phase + 2 * math.pi * k / n
            x = min(w - 1, max(0, round(cx + scale * cx * math.cos(a))))
            y = min(h - 1, max(0, round(cy + scale * cy * math.sin(a))))
            cells.append(topo.cell(x, y))
        if half != n:
            cells += [pair(c) for c in cells]
        if not field.acceptable(cells):
            continue
        tier = _tier(field, topo, cells, gap)
        territory, _ = territories(field.board, [(c,) for c in cells])
        balance = min(territory) / max(territory)
        if best is None or (tier, -balance) < (best[0], -best[1]):
            best = (tier, balance, cells)
        if tier in (0, 1):
            kept += 1
            if kept >= _CIRCLE_KEEP:
                break
    return best[2] if best is not None else None


def _spread(field: _Field, n: int, rng: Rng) -> list[int]:
    """Farthest-point placement by breadth-first distance inside the largest open area."""
    topo = field.topo
    biggest = min(field.main)
    pool = [c for c in range(topo.size) if field.area[c] == biggest]
    # On a grid a cell with one open side is a pocket; on a graph it may be all there is.
    room = pool
    if isinstance(topo, GridTopology):
        room = [c for c in pool if field.open_sides[c] >= 2] or pool

    def distance_map(cell: int) -> list[int]:
        dist = [_FAR] * topo.size
        for c, d in field.distances([cell]):
            dist[c] = d
        return dist

    def farthest(maps: list[list[int]]) -> tuple[int, list[int]]:
        best, picks = -1, []
        for c in room:
            d = min((m[c] for m in maps), default=_FAR)
            if d > best:
                best, picks = d, [c]
            elif d == best:
                picks.append(c)
        return best, picks

    chosen = [rng.choice(room)]
    maps = [distance_map(chosen[0])]
    while len(chosen) < n:
        best, picks = farthest(maps)
        if best < 2:
            raise MapError(
                f"cannot place {n} starts on the {topo.describe()}: its largest open area "
                f"has room for only {len(chosen)} starts that are not next to each other"
            )
        chosen.append(rng.choice(picks))
        maps.append(distance_map(chosen[-1]))
    # One improvement pass: move each start to the cell farthest from all the others.
    for i in range(n):
        others = maps[:i] + maps[i + 1 :]
        best, picks = farthest(others)
        current = min((m[chosen[i]] for m in others), default=_FAR)
        if best > current:
            chosen[i] = rng.choice(picks)
            maps[i] = distance_map(chosen[i])
    return chosen


PIN_ROWS = ((0, (0,)), (1, (-1, 1)), (2, (-2, 0, 2)), (3, (-3, -1, 1, 3)))
"""The bowling-pin formation: (rows back from the tip, column offsets), tip first."""


def pin_formation(width: int, height: int) -> Starts:
    """The team course's starts: two bowling-pin formations of ten, north then south.

    Each team's rows of 4, 3, 2 and 1 cycles are centred on its own edge, the row of
    four three cells in from the perimeter row and the single cycle nearest the centre.
    Cycles are listed tip first, row by row from the west (north: ``A`` the tip, ``G`` to
    ``J`` the back row; south: ``K`` to ``T`` likewise), and south mirrors north, so
    both teams see the same court.

    Raises:
        MapError: when the court is too small for two formations that do not touch.
    """
    if width < 9 or height < 15:
        raise MapError(
            f"a {width}x{height} court is too small for two bowling-pin formations: "
            "it needs at least 9x15, the perimeter included"
        )
    cx = (width - 1) // 2
    back = 3  # the row of four, counted from the perimeter row
    tip = back + 3
    north = tuple((tip - depth) * width + cx + dx for depth, offsets in PIN_ROWS for dx in offsets)
    south = tuple(
        (height - 1 - (tip - depth)) * width + cx + dx
        for depth, offsets in PIN_ROWS
        for dx in offsets
    )
    return (north, south)

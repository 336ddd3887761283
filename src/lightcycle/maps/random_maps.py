"""Random two-player maps that are fair by construction.

A duel on the same dozen built-in maps can teach a bot those maps rather than the game;
a pool of fresh random maps keeps a strength test honest. Each map here is drawn so that
neither seat can be favoured, without having to measure it afterwards:

- every wall blob is placed together with its image under the map's symmetry (a
  180-degree turn about the centre, or a mirror in the vertical centre line), and the
  second start is the image of the first, so the symmetry carries each seat's whole
  world onto the other's;
- a blob is kept only if the floor stays one connected region, so nobody starts sealed
  in a pocket and every cell is worth fighting for;
- the cells around each start stay free, so no game is lost on turn one.

All choices come from `lightcycle.core.rng.Rng` keyed by the seed, so ``random-<seed>``
names one map exactly, on every machine, and a replay can be re-created from its name.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Literal

from lightcycle.core.bitset import from_cells
from lightcycle.core.rng import Rng
from lightcycle.core.state import Board
from lightcycle.core.topology import GridTopology
from lightcycle.maps.fairness import fair_game
from lightcycle.maps.spec import MapError, MapSpec

Symmetry = Literal["rot180", "mirror"]
"""``rot180``: a half turn about the centre; ``mirror``: left and right swapped."""

SYMMETRIES: tuple[str, ...] = ("rot180", "mirror")

MIN_SIDE = 8
"""Narrower boards leave no room for blobs once the starts keep their elbow room."""
MAX_SIDE = 64
"""Wider boards make the connectivity check (one search per blob) slow."""
MAX_DENSITY = 0.35
"""Beyond about a third of the floor, connected blob layouts become mazes or fail."""

_XY = tuple[int, int]
_STEPS: tuple[_XY, ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))


def _image_fn(symmetry: str, w: int, h: int) -> Callable[[_XY], _XY]:
    if symmetry == "rot180":
        return lambda p: (w - 1 - p[0], h - 1 - p[1])
    if symmetry == "mirror":
        return lambda p: (w - 1 - p[0], p[1])
    raise MapError(f"unknown symmetry {symmetry!r}: use {' or '.join(SYMMETRIES)}")


def _size_tag(w: int, h: int) -> str:
    side = max(w, h)
    return "small" if side <= 16 else "medium" if side <= 32 else "large"


def _floor_connected(w: int, h: int, walls: set[_XY], start: _XY) -> bool:
    """Whether every non-wall cell is reachable from ``start``."""
    free = w * h - len(walls)
    seen = {start}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        for dx, dy in _STEPS:
            n = (x + dx, y + dy)
            if n not in seen and n not in walls and 0 <= n[0] < w and 0 <= n[1] < h:
                seen.add(n)
                queue.append(n)
    return len(seen) == free


def _blob(rng: Rng, w: int, h: int) -> set[_XY]:
    """A small random shape inside the border: a short random walk or a small block."""
    x, y = 1 + rng.below(w - 2), 1 + rng.below(h - 2)
    if rng.below(3) == 0:
        bw, bh = 1 + rng.below(3), 1 + rng.below(3)
        return {(x + i, y + j) for i in range(bw) for j in range(bh)}
    cells = {(x, y)}
    for _ in range(rng.below(6)):
        dx, dy = _STEPS[rng.below(4)]
        x, y = x + dx, y + dy
        cells.add((x, y))
    return cells


def symmetric_map(
    seed: int,
    width: int | None = None,
    height: int | None = None,
    density: float | None = None,
    symmetry: str = "rot180",
) -> MapSpec:
    """A random walled two-player map, symmetric and connected (see the module docstring).

    Args:
        seed: picks everything not given: the size (15 to 25 cells a side), the wall
            density (6 % to 16 % of the inside), the blobs and the starts.
        width: columns, border included (8 to 64).
        height: rows, border included (8 to 64).
        density: the fraction of the inside to cover with wall blobs (0 to 0.35); the
            result may fall a little short when blobs would split the floor.
        symmetry: ``rot180`` or ``mirror``.

    Returns:
        A map named ``random-<seed>`` (version 1), tagged ``random``, the symmetry and a
        size word, with the size and density in its description.

    Raises:
        MapError: for a size, density or symmetry outside the ranges above.
    """
    rng = Rng(seed, 0, "maps.random")
    w = width if width is not None else 15 + rng.below(11)
    h = height if height is not None else 15 + rng.below(11)
    d = density if density is not None else (6 + rng.below(11)) / 100.0
    for what, side in (("width", w), ("height", h)):
        if not isinstance(side, int) or not MIN_SIDE <= side <= MAX_SIDE:
            raise MapError(f"random map {what} must be {MIN_SIDE} to {MAX_SIDE}, got {side!r}")
    if not 0.0 <= d <= MAX_DENSITY:
        raise MapError(f"random map density must be 0 to {MAX_DENSITY}, got {d!r}")
    image = _image_fn(symmetry, w, h)

    # The first start sits in the left quarter, so its image is far away on the right
    # (and never the start itself, which only the centre could be under a half turn).
    a = (2 + rng.below(max(1, w // 4 - 1)), 2 + rng.below(h - 4))
    b = image(a)
    keep_free = {(p[0] + dx, p[1] + dy) for p in (a, b) for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
    walls: set[_XY] = {(x, y) for x in range(w) for y in (0, h - 1)}
    walls |= {(x, y) for y in range(h) for x in (0, w - 1)}
    border = len(walls)
    target = round(d * (w - 2) * (h - 2))
    placed = 0
    attempts = 0
    while placed < target and attempts < 40 + 8 * target:
        attempts += 1
        shape = _blob(rng, w, h)
        cells = (shape | {image(p) for p in shape}) - walls
        if not cells or cells & keep_free:
            continue
        if any(not (1 <= x <= w - 2 and 1 <= y <= h - 2) for x, y in cells):
            continue
        if placed + len(cells) > target + 4:
            continue  # a last blob may overshoot a little, not double the density
        trial = walls | cells
        if _floor_connected(w, h, trial, a):
            walls = trial
            placed += len(cells)

    topo = GridTopology(w, h)
    spec = MapSpec(
        name=f"random-{seed}",
        board=Board(topo, from_cells(y * w + x for x, y in walls)),
        starts=((a[1] * w + a[0],), (b[1] * w + b[0],)),
        version=1,
        players=(2,),
        tags=("random", symmetry, _size_tag(w, h)),
        description=(
            f"Random {w}x{h} map, seed {seed}, {symmetry} symmetry, "
            f"{len(walls) - border} inner wall cells ({d:.0%} asked)."
        ),
    )
    report = fair_game(spec)
    if not report.symmetric:  # pragma: no cover -- a bug in this module, not bad input
        raise MapError(f"random map {spec.id} came out unfair: {report}")
    return spec

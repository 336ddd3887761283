"""A game state as shapes and colours, before any image format: what SVG and PNG draw.

Grid boards become one colour per cell (floor, wall, a team's trail or head) plus a cross
on the cell where each dead cycle died. Graph boards (3D meshes) become a perspective view
from a fixed angle: edges as lines, vertices as dots sized by depth, heads as large dots,
dead cycles as crosses. The HTML viewer draws the board with the same palette and the
same projection (`orbit`), written again in JavaScript so the browser can turn the view.

A cross is drawn in the dead cycle's own colour with a dark outline, so it shows on any
trail and says whose cycle died there. Exported images put the board on a page that says
what it shows (`lightcycle.render.page`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from lightcycle.core.bitset import iter_cells
from lightcycle.core.state import Cycle, GameState
from lightcycle.core.topology import GraphTopology, GridTopology
from lightcycle.render import palette

DEFAULT_YAW = 0.6
DEFAULT_PITCH = 0.45
CAMERA = 3.2
"""Distance of the eye from the board's centre, in board radii (perspective strength)."""

BOARD_WIDTH = 640
"""Pixels a board is drawn across by default: wide enough to read a 64x48 court, small
enough to paste into a chat message."""
BOARD_HEIGHT = 720
"""The most pixels a tall board is drawn down by default."""
MIN_CELL = 4
"""The smallest default cell: below it a trail is a hairline and a cross a smudge."""
MAX_CELL = 64


def shows_cross(c: Cycle, state: GameState) -> bool:
    """Whether the HTML viewer marks a dead cycle where it died: while its trail stands,
    and on its death turn even when the rules removed the trail at once."""
    if c.alive or c.death is None:
        return False
    return c.trail != 0 or c.death.turn == state.turn


def default_cell(state: GameState) -> int:
    """Pixels per grid cell that draw the board about `BOARD_WIDTH` wide (at most
    `BOARD_HEIGHT` tall), never under `MIN_CELL`; graph boards are drawn ``40 * cell``
    pixels square, so theirs is ``BOARD_WIDTH // 40``."""
    topo = state.board.topology
    if not isinstance(topo, GridTopology):
        return BOARD_WIDTH // 40
    fit = min(BOARD_WIDTH // topo.width, BOARD_HEIGHT // topo.height)
    return max(MIN_CELL, min(MAX_CELL, fit))


@dataclass(frozen=True)
class Cross:
    """The mark of a dead cycle: two strokes of ``colour`` over a wider dark outline.

    Attributes:
        x, y: the centre in pixels.
        arm: half the length of each stroke along either axis.
        width: the stroke width; the outline is `outline` wide.
        colour: the dead cycle's team colour.
    """

    x: float
    y: float
    arm: float
    width: float
    colour: str

    @property
    def outline(self) -> float:
        """The width of the dark stroke under the coloured one."""
        return self.width + 2 * max(1.0, self.width / 2)

    def strokes(self) -> tuple[tuple[float, float, float, float], ...]:
        """The two strokes, ``(x1, y1, x2, y2)`` each."""
        x, y, a = self.x, self.y, self.arm
        return ((x - a, y - a, x + a, y + a), (x + a, y - a, x - a, y + a))


def cross(x: float, y: float, cell: float, colour: str) -> Cross:
    """A cross centred at ``(x, y)`` over a cell ``cell`` pixels wide: a little wider than
    the cell, so it reads at a glance even on a 4-pixel cell."""
    arm = max(cell * 0.6, 4.0)
    return Cross(x, y, arm, max(2.0, cell * 0.25), colour)


@dataclass(frozen=True)
class GridPicture:
    """A grid board as colours.

    Attributes:
        width, height: the board in cells.
        cells: per cell (row-major, ``y * width + x``), its ``#rrggbb`` colour.
        crosses: per dead cycle, the cell where it died and its team's colour.
    """

    width: int
    height: int
    cells: tuple[str, ...]
    crosses: tuple[tuple[int, str], ...]

    def cross_marks(self, cell: int) -> list[Cross]:
        """The crosses, drawn ``cell`` pixels per grid cell."""
        return [
            cross((c % self.width + 0.5) * cell, (c // self.width + 0.5) * cell, cell, colour)
            for c, colour in self.crosses
        ]


def grid_picture(state: GameState) -> GridPicture:
    """The colours of a grid board in ``state``.

    Every dead cycle gets a cross where it died, even after the rules removed its trail: a
    picture is looked at without the turns before it, so it has to tell who died where.

    Raises:
        ValueError: for a graph board (see `graph_picture`).
    """
    topo = state.board.topology
    if not isinstance(topo, GridTopology):
        raise ValueError("grid_picture draws grid boards; use graph_picture for graphs")
    cells = [palette.FLOOR] * topo.size
    for cell in iter_cells(state.board.walls):
        cells[cell] = palette.WALL
    for cell, kind in state.items:
        cells[cell] = palette.item(kind)
    for c in state.cycles:
        colour = palette.trail(c.team)
        for cell in iter_cells(c.trail):
            cells[cell] = colour
    crosses = []
    for c in state.cycles:
        if c.alive:
            cells[c.head] = palette.head(c.team)
        elif c.death is not None:
            crosses.append((c.head, palette.head(c.team)))
    return GridPicture(topo.width, topo.height, tuple(cells), tuple(crosses))


def orbit(
    positions: Sequence[Sequence[float]], yaw: float, pitch: float
) -> list[tuple[float, float, float]]:
    """Project 3D points seen from a camera orbiting the centre.

    The points are centred and scaled into the unit ball, turned by ``yaw`` about the
    vertical axis and by ``pitch`` about the horizontal one, then seen in perspective
    from `CAMERA` radii away.

    Returns:
        Per point ``(x, y, depth)``: ``x`` right and ``y`` down in about -1..1, and
        ``depth`` from 0 (nearest the eye) to 1 (farthest), for sizes and drawing order.
    """
    pts = [(p[0], p[1] if len(p) > 1 else 0.0, p[2] if len(p) > 2 else 0.0) for p in positions]
    if not pts:
        return []
    n = len(pts)
    cx = sum(p[0] for p in pts) / n
    cy = sum(p[1] for p in pts) / n
    cz = sum(p[2] for p in pts) / n
    radius = max(math.dist(p, (cx, cy, cz)) for p in pts) or 1.0
    cyaw, syaw = math.cos(yaw), math.sin(yaw)
    cpitch, spitch = math.cos(pitch), math.sin(pitch)
    out = []
    for x, y, z in pts:
        x, y, z = (x - cx) / radius, (y - cy) / radius, (z - cz) / radius
        x, z = x * cyaw - z * syaw, x * syaw + z * cyaw
        y, z = y * cpitch - z * spitch, y * spitch + z * cpitch
        scale = CAMERA / (CAMERA + z) * 0.85
        out.append((x * scale, -y * scale, (z + 1.0) / 2.0))
    return out


def board_positions(topo: GraphTopology) -> list[tuple[float, float, float]]:
    """The 3D position of every node; boards without positions get rows in a plane."""
    if topo.positions:
        return [
            (p[0], p[1] if len(p) > 1 else 0.0, p[2] if len(p) > 2 else 0.0) for p in topo.positions
        ]
    cols = max(1, math.ceil(math.sqrt(topo.size)))
    return [(float(i % cols), float(-(i // cols)), 0.0) for i in range(topo.size)]


@dataclass(frozen=True)
class GraphPicture:
    """A graph board as shapes in a ``size`` x ``size`` square, far things first.

    Attributes:
        size: the side of the square in pixels.
        lines: ``(x1, y1, x2, y2, colour, width)``.
        dots: ``(x, y, radius, colour)``.
        crosses: one per dead cycle, where it died.
    """

    size: int
    lines: tuple[tuple[float, float, float, float, str, float], ...]
    dots: tuple[tuple[float, float, float, str], ...]
    crosses: tuple[Cross, ...]


def trail_paths(states: Sequence[GameState]) -> tuple[tuple[int, ...], ...]:
    """Per cycle, the nodes its head visited, in order, over ``states`` (one game's states
    from turn 0 up to the one drawn)."""
    if not states:
        return ()
    paths: list[list[int]] = [[] for _ in states[0].cycles]
    for s in states:
        for c in s.cycles:
            path = paths[c.index]
            if not path or path[-1] != c.head:
                path.append(c.head)
    return tuple(tuple(p) for p in paths)


def graph_picture(
    state: GameState,
    size: int = 480,
    yaw: float = DEFAULT_YAW,
    pitch: float = DEFAULT_PITCH,
    paths: Sequence[Sequence[int]] | None = None,
) -> GraphPicture:
    """A perspective view of a graph board in ``state`` (see `orbit`).

    Args:
        state: what to draw.
        size: the side of the square in pixels.
        yaw, pitch: the camera angle.
        paths: per cycle, the nodes it visited in order (`trail_paths`). A trail is then
            drawn along the moves the cycle made; without them every edge between two
            nodes of one team's trail is drawn, which on a mesh of triangles fills the
            triangles the trail ran along.

    Raises:
        ValueError: for a grid board (see `grid_picture`).
    """
    topo = state.board.topology
    if not isinstance(topo, GraphTopology):
        raise ValueError("graph_picture draws graph boards; use grid_picture for grids")
    seen = orbit(board_positions(topo), yaw, pitch)
    half = size / 2

    def at(node: int) -> tuple[float, float]:
        x, y, _ = seen[node]
        return half + x * half, half + y * half

    owner: dict[int, int] = {}
    for c in state.cycles:
        for cell in iter_cells(c.trail):
            owner[cell] = c.team
    items = dict(state.items)
    steps: set[tuple[int, int]] | None = None
    if paths is not None:
        steps = set()
        for c in state.cycles:
            path = paths[c.index] if c.index < len(paths) else ()
            mine = set(iter_cells(c.trail)) | ({c.head} if c.alive else set())
            for a, b in itertools.pairwise(path):
                if a in mine and b in mine:
                    steps.update(((a, b), (b, a)))
    unit = size / 40
    lines = []
    for a, b in sorted(topo.edges, key=lambda e: -(seen[e[0]][2] + seen[e[1]][2])):
        x1, y1 = at(a)
        x2, y2 = at(b)
        team = owner.get(a)
        on_trail = team is not None and owner.get(b) == team
        if on_trail and (steps is None or (a, b) in steps):
            assert team is not None
            lines.append((x1, y1, x2, y2, palette.trail(team), unit * 0.45))
        else:
            lines.append((x1, y1, x2, y2, palette.EDGE, unit * 0.12))
    heads = {c.head: c for c in state.cycles if c.alive}
    dots = []
    for node in sorted(range(topo.size), key=lambda i: -seen[i][2]):
        x, y = at(node)
        near = 1.15 - 0.5 * seen[node][2]
        if node in heads:
            dots.append((x, y, unit * 0.9 * near, palette.head(heads[node].team)))
        elif (state.board.walls >> node) & 1:
            dots.append((x, y, unit * 0.45 * near, palette.WALL))
        elif node in owner:
            dots.append((x, y, unit * 0.5 * near, palette.trail(owner[node])))
        elif node in items:
            dots.append((x, y, unit * 0.6 * near, palette.item(items[node])))
        else:
            dots.append((x, y, unit * 0.22 * near, palette.FLOOR if near < 0.9 else palette.EDGE))
    crosses = tuple(
        cross(*at(c.head), unit * 1.3, palette.head(c.team))
        for c in state.cycles
        if not c.alive and c.death is not None
    )
    return GraphPicture(size, tuple(lines), tuple(dots), crosses)

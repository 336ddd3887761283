"""A game state as shapes and colours, before any image format: what SVG and PNG draw.

Grid boards become one colour per cell (floor, wall, a team's trail or head) plus a cross
on each dead cycle's last cell. Graph boards (3D meshes) become a perspective view from a
fixed angle: edges as lines, vertices as dots sized by depth, heads as large dots, dead
cycles as crosses. The HTML viewer draws the same things with the same palette and the
same projection (`orbit`), written again in JavaScript so the browser can turn the view.
"""

from __future__ import annotations

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


def shows_cross(c: Cycle, state: GameState) -> bool:
    """Whether a dead cycle is marked where it died: while its trail stands, and on its
    death turn even when the rules removed the trail at once."""
    if c.alive or c.death is None:
        return False
    return c.trail != 0 or c.death.turn == state.turn


@dataclass(frozen=True)
class GridPicture:
    """A grid board as colours.

    Attributes:
        width, height: the board in cells.
        cells: per cell (row-major, ``y * width + x``), its ``#rrggbb`` colour.
        crosses: the cells of dead cycles to mark with a cross.
    """

    width: int
    height: int
    cells: tuple[str, ...]
    crosses: tuple[int, ...]


def grid_picture(state: GameState) -> GridPicture:
    """The colours of a grid board in ``state``.

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
    crosses = []
    for c in state.cycles:
        colour = palette.trail(c.team)
        for cell in iter_cells(c.trail):
            cells[cell] = colour
    for c in state.cycles:
        if c.alive:
            cells[c.head] = palette.head(c.team)
        elif shows_cross(c, state):
            crosses.append(c.head)
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
        crosses: ``(x, y, radius)`` in the dead colour.
    """

    size: int
    lines: tuple[tuple[float, float, float, float, str, float], ...]
    dots: tuple[tuple[float, float, float, str], ...]
    crosses: tuple[tuple[float, float, float], ...]


def graph_picture(
    state: GameState, size: int = 480, yaw: float = DEFAULT_YAW, pitch: float = DEFAULT_PITCH
) -> GraphPicture:
    """A perspective view of a graph board in ``state`` (see `orbit`).

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
    unit = size / 40
    lines = []
    for a, b in sorted(topo.edges, key=lambda e: -(seen[e[0]][2] + seen[e[1]][2])):
        x1, y1 = at(a)
        x2, y2 = at(b)
        team = owner.get(a)
        if team is not None and owner.get(b) == team:
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
    crosses = tuple((*at(c.head), unit * 0.8) for c in state.cycles if shows_cross(c, state))
    return GraphPicture(size, tuple(lines), tuple(dots), crosses)

"""Graph boards (3D meshes) as text: a flattened drawing and a list of vertices.

A terminal cannot rotate a mesh, so the drawing flattens it the way a world map
flattens a globe (a board that is flat already is simply drawn from above): each
vertex is placed by its longitude and latitude seen from the mesh's centre (an
equirectangular projection), which keeps neighbours near each other on the closed
solids lightcycle ships. Where several vertices fall on one character, the most telling
wins: a head, then a trail, then an item, then the floor. Boards without positions are
drawn in rows by node number.
"""

from __future__ import annotations

import math

from rich.text import Text

from lightcycle.core.bitset import iter_cells
from lightcycle.core.state import GameState
from lightcycle.core.topology import GraphTopology
from lightcycle.render.text import (
    ASCII,
    TEAM_STYLES,
    TRAIL_STYLES,
    UNICODE,
    cycle_label,
    trail_mark,
)

ITEM_MARKS = {"turbo": "+", "ghost": "~", "points": "$"}
"""Item marks: symbols, so they never look like a cycle's letter."""


def project(topo: GraphTopology, width: int, height: int) -> list[tuple[int, int]]:
    """Per node, its ``(column, row)`` in a ``width`` x ``height`` flattened drawing."""
    n = topo.size
    pos = topo.positions
    if not pos:
        cols = max(1, min(width, math.ceil(math.sqrt(n * 2))))
        return [(i % cols, min(height - 1, i // cols)) for i in range(n)]
    pts = [(p[0], p[1] if len(p) > 1 else 0.0, p[2] if len(p) > 2 else 0.0) for p in pos]
    spans = [max(p[a] for p in pts) - min(p[a] for p in pts) for a in range(3)]
    flat = [a for a in range(3) if spans[a] <= 1e-9 * max(spans)]
    if flat:  # a flat board: draw it from above, one row per edge length at most
        a, b = [k for k in range(3) if k != flat[0]]
        lo_a, lo_b = min(p[a] for p in pts), min(p[b] for p in pts)
        edge = min(
            (
                math.dist(pts[u], pts[v])
                for u in range(n)
                for v in topo.neighbours[u]
                if u < v and math.dist(pts[u], pts[v]) > 0
            ),
            default=1.0,
        )
        scale = min((width - 1) / (2 * spans[a] or 1.0), (height - 1) / (spans[b] or 1.0))
        scale = min(scale, 1.0 / edge)
        return [
            (int((p[a] - lo_a) * scale * 2 + 0.5), int((p[b] - lo_b) * scale + 0.5)) for p in pts
        ]
    cx = sum(p[0] for p in pts) / n
    cy = sum(p[1] for p in pts) / n
    cz = sum(p[2] for p in pts) / n
    out = []
    for x, y, z in pts:
        dx, dy, dz = x - cx, y - cy, z - cz
        r = math.sqrt(dx * dx + dy * dy + dz * dz) or 1.0
        lon = math.atan2(dz, dx)  # -pi..pi
        lat = math.asin(max(-1.0, min(1.0, dy / r)))  # -pi/2..pi/2
        col = int((lon + math.pi) / (2 * math.pi) * (width - 1) + 0.5)
        row = int((math.pi / 2 - lat) / math.pi * (height - 1) + 0.5)
        out.append((col, row))
    return out


def _marks(state: GameState) -> dict[int, tuple[int, str, int]]:
    """Per node: (priority, mark, team) of what stands there; higher priority wins."""
    marks: dict[int, tuple[int, str, int]] = {}
    for cell, kind in state.items:
        marks[cell] = (1, ITEM_MARKS.get(kind, "?"), -1)
    for c in state.cycles:
        for cell in iter_cells(c.trail):
            marks[cell] = (2, trail_mark(c), c.team)
    for c in state.cycles:
        if c.alive:
            marks[c.head] = (3, cycle_label(c)[:1], c.team)
    return marks


def flat_text(
    state: GameState, width: int = 64, height: int = 20, unicode: bool = True, color: bool = True
) -> Text:
    """Draw a graph board flattened (see the module docstring).

    As on grids (`lightcycle.render.text`): heads show their cycle's letter (``A``,
    ``B`` ... by cycle index), trails the same letter in lower case, walls ``█`` (``#``
    in ASCII), free vertices ``·`` (``.``); items are ``+`` (turbo), ``~`` (ghost) and
    ``$`` (points).
    """
    topo = state.board.topology
    if not isinstance(topo, GraphTopology):
        raise ValueError("flat_text draws graph boards; use board_text for grids")
    where = project(topo, width, height)
    marks = _marks(state)
    sym = UNICODE if unicode else ASCII
    floor = sym["floor"]
    canvas: dict[tuple[int, int], tuple[int, str, int]] = {}
    walls = state.board.walls
    for node, xy in enumerate(where):
        here = (2, sym["wall"], -1) if (walls >> node) & 1 else marks.get(node, (0, floor, -1))
        if xy not in canvas or here[0] > canvas[xy][0]:
            canvas[xy] = here
    out = Text()
    for row in range(height):
        line = Text()
        for col in range(width):
            spot = canvas.get((col, row))
            if spot is None:
                line.append(" ")
                continue
            prio, mark, team = spot
            style = None
            if color and team >= 0:
                style = (TEAM_STYLES if prio == 3 else TRAIL_STYLES)[team % len(TEAM_STYLES)]
            elif color and prio == 1:
                style = "bold white"
            elif color:
                style = "bright_black"
            line.append(mark, style=style)
        line.rstrip()
        out.append_text(line)
        out.append("\n")
    out.rstrip()  # blank rows below the drawing
    return out


def vertex_lines(state: GameState, everything: bool = False, heads: bool = False) -> list[str]:
    """One line per vertex that holds something (every vertex with ``everything``; only
    heads and items with ``heads``, the short list a live view shows under the drawing).

    ``12 (0.52, -0.85, 0.00): cycle A (team 1) head; item turbo; next 3 7 13``
    """
    topo = state.board.topology
    holders: dict[int, list[str]] = {}
    for c in state.cycles:
        label = cycle_label(c)
        if not heads:
            for cell in iter_cells(c.trail):
                holders.setdefault(cell, []).append(f"trail of {label}")
        if c.alive:
            holders.setdefault(c.head, []).append(f"cycle {label} (team {c.team + 1}) head")
    items = dict(state.items)
    lines = []
    pos = getattr(topo, "positions", None)
    for node in range(topo.size):
        what = list(holders.get(node, []))
        if node in items:
            what.append(f"item {items[node]}")
        if (state.board.walls >> node) & 1 and not heads:
            what.append("wall")
        if node in state.board.bonus and not heads:
            what.append("bonus vertex")
        if not what and not everything:
            continue
        at = f" ({', '.join(f'{v:.2f}' for v in pos[node])})" if pos else ""
        nxt = " ".join(str(n) for n in topo.neighbours[node])
        lines.append(f"{node}{at}: {'; '.join(what) or 'free'}; next {nxt}")
    return lines

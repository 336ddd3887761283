"""Graph boards (3D meshes) as text: a flattened drawing and a list of vertices.

A terminal cannot rotate a mesh, so the drawing flattens it the way a world map
flattens a globe (a board that is flat already is simply drawn from above): each
vertex is placed by its longitude and latitude seen from the mesh's centre (an
equirectangular projection), which keeps neighbours near each other on the closed
solids lightcycle ships. Where several vertices fall on one character, the most telling
wins: a head, then a trail, then an item, then the floor. Boards without positions are
drawn in rows by node number.

The drawing cannot say which vertex is which, so `vertex_table` lists them (``lightcycle
maps show cube --vertices``): one aligned row per vertex (number, position, the vertices
one move away, what stands there) in a table per face of the solid, so a reader can
look up a vertex a bot names and see where it is and where it leads.
"""

from __future__ import annotations

import math
from collections import Counter

from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from lightcycle.core.bitset import iter_cells
from lightcycle.core.state import GameState
from lightcycle.core.topology import GraphTopology
from lightcycle.render.glyphs import (
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


_EPS = 1e-6
"""Coordinates this close are the same (mesh files round them)."""


def _side_name(side: tuple[int, int]) -> str:
    """``+x`` for ``(0, 1)``, ``-z`` for ``(2, -1)``."""
    return f"{'+' if side[1] > 0 else '-'}{'xyz'[side[0]]}"


def _sides(
    topo: GraphTopology,
) -> tuple[list[tuple[str, list[int]]], dict[int, str], str]:
    """The vertices grouped by the side of the solid they are on, a note per vertex
    where faces meet, and a line saying how the listing is grouped.

    A vertex's side is the axis and direction (``+x`` ... ``-z``) in which it lies
    farthest out from the centre, each axis measured against the solid's extent along
    it: on a cube these are exactly its six faces (a side whose vertices all lie in one
    plane is called a face), on a round solid six caps. A vertex as far out two or three
    ways (a cube's edge or corner) is listed under the first and its note names the
    other faces. A flat board, or one without positions, is one group titled ``""``.
    """
    everything: list[tuple[str, list[int]]] = [("", list(range(topo.size)))]
    if not topo.positions:
        return everything, {}, ""
    pts = [(*p, 0.0, 0.0)[:3] for p in topo.positions]
    lo = [min(p[a] for p in pts) for a in range(3)]
    hi = [max(p[a] for p in pts) for a in range(3)]
    half = [(h - low) / 2 for low, h in zip(lo, hi, strict=True)]
    if min(half) <= _EPS * max(half):
        return everything, {}, ""
    centre = [(h + low) / 2 for low, h in zip(lo, hi, strict=True)]
    order = [(a, sign) for a in range(3) for sign in (1, -1)]  # +x -x +y -y +z -z
    on: dict[tuple[int, int], list[int]] = {k: [] for k in order}
    tied: dict[int, list[tuple[int, int]]] = {}
    for v, p in enumerate(pts):
        out = {(a, sign): sign * (p[a] - centre[a]) / half[a] for a, sign in order}
        far = max(out.values())
        tied[v] = [k for k in order if out[k] >= far - _EPS]
        on[tied[v][0]].append(v)
    groups: list[tuple[str, list[int]]] = []
    face: dict[tuple[int, int], bool] = {}
    for side, members in on.items():
        if not members:
            continue
        axis = side[0]
        at = pts[members[0]][axis]
        face[side] = all(abs(pts[v][axis] - at) <= _EPS for v in members)
        if face[side]:
            title = f"face {_side_name(side)} ({'xyz'[axis]} = {at:.2f})"
        else:
            title = f"side facing {_side_name(side)}"
        count = f"{len(members)} {'vertex' if len(members) == 1 else 'vertices'}"
        groups.append((f"{title}: {count}", members))
    notes: dict[int, str] = {}
    for v, sides in tied.items():
        others = [k for k in sides[1:] if face[sides[0]] and face.get(k, False)]
        if others:
            kind = "corner" if len(others) > 1 else "edge"
            notes[v] = f"{kind}, also on {', '.join(map(_side_name, others))}"
    names = ", ".join(_side_name(k) for k in order if on[k])
    if all(face.values()):
        how = (
            f"Listed face by face ({names}); a vertex where faces meet (an edge or a corner)"
            " comes under its first face and names the others."
        )
    else:
        how = (
            f"Listed by the side of the solid each vertex faces ({names}): the way it lies"
            " farthest out from the centre."
        )
    return groups, notes, how


_ASCII_HEAD = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True)
"""`rich.box.SIMPLE_HEAD` in ASCII: the one rule under the header drawn with ``-``."""

_ON_IT = 16
"""The fewest columns the "on it" column is given before positions are left out."""

_WORD = 8
"""The fewest columns it is given before the neighbours wrap: its longest word."""


class VertexTable:
    """Every vertex of a graph board as aligned tables, one per face of the solid: what
    ``lightcycle maps show cube --vertices`` prints.

    A heading (how many vertices and how many ways out they have) and a legend of the
    columns come first; then per face (`_sides`) one row per vertex: its number, its
    position, the vertices one move away and what stands on it (cycles, trails, walls,
    bonus vertices, items; for a vertex where faces meet, the other faces). Every table
    gets the same column widths, so rows line up down the whole listing, and the layout
    is chosen for the width it is drawn at: where the positions would squeeze the last
    column below `_ON_IT` characters they are left out (the rules ignore them) and the
    legend says how wide a terminal shows them.

    A rich renderable rather than a finished table because the width is known only
    when it is drawn.
    """

    def __init__(self, state: GameState, unicode: bool = True) -> None:
        topo = state.board.topology
        if not isinstance(topo, GraphTopology):
            raise ValueError("VertexTable lists graph boards; grids are drawn whole")
        self.box = box.SIMPLE_HEAD if unicode else _ASCII_HEAD
        self.topo = topo
        self.groups, geometry, self.how = _sides(topo)
        on_it: dict[int, list[Text]] = {}
        for c in state.cycles:
            label = cycle_label(c)
            for cell in iter_cells(c.trail):
                if cell != c.head or not c.alive:
                    trail = Text(f"trail of {label}", style=TRAIL_STYLES[c.team % 8])
                    on_it.setdefault(cell, []).append(trail)
            if c.alive:
                head = Text(f"cycle {label} (team {c.team + 1})", style=TEAM_STYLES[c.team % 8])
                on_it.setdefault(c.head, []).append(head)
        for cell, kind in state.items:
            on_it.setdefault(cell, []).append(Text(f"item {kind}", style="bold white"))
        for cell in iter_cells(state.board.walls):
            on_it.setdefault(cell, []).append(Text("wall", style="bright_black"))
        for cell in state.board.bonus:
            on_it.setdefault(cell, []).append(Text("bonus vertex", style="bold white"))
        for v, note in geometry.items():
            on_it.setdefault(v, []).append(Text(note, style="dim"))
        self.on_it = {v: Text("; ").join(texts) for v, texts in on_it.items()}
        self.digits = len(str(topo.size - 1))
        self.axes = min(3, min((len(p) for p in topo.positions or ()), default=0))
        self.where = [[f"{x:.2f}" for x in p[: self.axes]] for p in topo.positions or ()]
        self.coord_w = max((len(x) for row in self.where for x in row), default=1)
        degree = max(len(ns) for ns in topo.neighbours)
        self.next_w = degree * (self.digits + 1) - 1

    def _heading(self) -> Text:
        """``602 vertices, 1200 edges: 594 vertices have 4 ways out, 8 have 3``: the
        vertices with fewer ways out (a cube's corners) are where cycles get trapped."""
        ways = Counter(len(ns) for ns in self.topo.neighbours)
        (most, k), *rest = sorted(((n, k) for k, n in ways.items()), reverse=True)
        counts = f"{most} {'vertex has' if most == 1 else 'vertices have'} {k} ways out"
        counts += "".join(f", {n} {'has' if n == 1 else 'have'} {k}" for n, k in rest)
        edges = len(self.topo.edges)
        return Text(f"{self.topo.size} vertices, {edges} edges: {counts}", style="bold")

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """The heading, the legend and a table per face, laid out for ``options``'
        width.

        Every column gets its width here rather than from rich, which, short of room,
        crops a table's last column instead of wrapping it; the widths are the same in
        every table, so the rows line up from the first face to the last.
        """
        gap = 3  # SIMPLE_HEAD without its edges: a space, the rule's column, a space
        vertex_w = max(len("vertex"), self.digits)
        next_w = max(len("next"), self.next_w)
        coord_w = self.coord_w + gap
        on_need = max([len("on it"), *(t.cell_len for t in self.on_it.values())])
        on_min = min(_ON_IT, on_need)

        def room(axes: int, next_w: int) -> int:
            return options.max_width - vertex_w - axes * coord_w - next_w - 2 * gap

        axes = self.axes
        if axes and room(axes, next_w) < on_min:
            axes = 0
        # narrower still: "on it" wraps word by word, and below a word's width the
        # neighbours wrap too
        word = min(_WORD, on_need)
        if room(axes, next_w) < word:
            next_w = max(self.digits, next_w - (word - room(axes, next_w)))
        on_w = max(1, min(on_need, room(axes, next_w)))
        yield self._heading()
        legend = Table.grid(padding=(0, 2))
        legend.add_column(no_wrap=True, style="bold")
        legend.add_column()
        legend.add_row("vertex", "its number: what moves, bots and replays name")
        if axes:
            legend.add_row(" ".join("xyz"[:axes]), "its position (the rules ignore it)")
        elif self.axes:
            width = options.max_width - room(self.axes, max(len("next"), self.next_w)) + on_min
            legend.add_row(
                " ".join("xyz"[: self.axes]),
                f"its position: left out at this width ({width} columns show it)",
            )
        legend.add_row("next", "the vertices one move away")
        legend.add_row("on it", "a cycle, a trail, a wall, a bonus vertex or an item")
        yield legend
        if self.how:
            yield Text(self.how, style="dim")
        for title, members in self.groups:
            table = Table(
                box=self.box,
                show_edge=False,
                pad_edge=False,
            )
            table.add_column("vertex", justify="right", no_wrap=True, width=vertex_w)
            for name in "xyz"[:axes]:
                table.add_column(name, justify="right", no_wrap=True, width=self.coord_w)
            table.add_column("next", width=next_w)
            table.add_column("on it", width=on_w)
            for v in members:
                nxt = " ".join(f"{n:>{self.digits}}" for n in self.topo.neighbours[v])
                where = self.where[v][:axes] if axes else []
                table.add_row(str(v), *where, nxt, self.on_it.get(v, ""))
            yield Text()
            if title:  # not the table's title: that would wrap to the table's width
                yield Text(title, style="bold")
            yield table


def vertex_table(state: GameState, unicode: bool = True) -> VertexTable:
    """Every vertex of a graph board, face by face, for a person (`VertexTable`); with
    ``unicode`` off the header rule is ``-`` (``maps show --ascii``)."""
    return VertexTable(state, unicode)

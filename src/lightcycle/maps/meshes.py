"""3D boards: OBJ meshes <-> maps, the built-in solids, and fair starts from their symmetry.

In the 3D variant the board is the graph of a mesh: each vertex is a cell and each side of
a face is a move. `mesh_to_map` turns a parsed `Mesh` into a `MapSpec` (checking that the
graph is connected and the ``lc_start_*`` / ``lc_bonus`` groups make sense) and
`map_to_mesh` goes back, so a board is an ordinary ``.obj`` file that any viewer opens.

The built-in boards are generated here rather than drawn, for the same reason the grid
maps are: fairness is exact by construction. Every solid below is centred on the origin
and symmetric under each of the three mirrors ``x -> -x``, ``y -> -y``, ``z -> -z``, so
the starts can be made fair with isometries instead of hoping a search finds balance:

* 2 players: player 2's cycles are the images of player 1's under the point reflection
  ``p -> -p``;
* 4 players: players 2-4 are the images of player 1 under the three half-turns about the
  axes (the Klein four-group); a point near the direction ``(1, 1, 1)`` lands near the
  four corners of a regular tetrahedron;
* bonus vertices: a set closed under all eight mirror combinations, which contain both
  groups above, so every player sees the same bonus layout.

Each isometry is turned into a vertex permutation and checked to preserve every edge, so
a start layout is a graph automorphism away from every other seat, not just a geometric
one. ``python -m lightcycle.maps.meshes --write DIR`` writes the built-in boards as OBJ
files; the shipped ones in ``lightcycle/maps/data`` are exactly that (a test checks).
"""

from __future__ import annotations

import argparse
import itertools
import math
import re
import sys
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lightcycle.core.state import Board
from lightcycle.core.topology import GraphTopology
from lightcycle.formats.obj import (
    BONUS_GROUP,
    LC_PREFIX,
    Mesh,
    Vec3,
    format_obj,
    mesh_edges,
    parse_obj,
    start_group,
)
from lightcycle.maps.spec import MapError, MapSpec

DATA_DIR = Path(__file__).with_name("data")

Isometry = tuple[tuple[int, int], tuple[int, int], tuple[int, int]]
"""A signed axis permutation: output axis ``k`` is ``sign * input[axis]`` for
``(axis, sign) = iso[k]``. Every symmetry used here is one of these 48 maps."""

IDENTITY: Isometry = ((0, 1), (1, 1), (2, 1))
POINT_REFLECTION: Isometry = ((0, -1), (1, -1), (2, -1))
HALF_TURNS: tuple[Isometry, ...] = (
    IDENTITY,
    ((0, 1), (1, -1), (2, -1)),  # about the x axis
    ((0, -1), (1, 1), (2, -1)),  # about the y axis
    ((0, -1), (1, -1), (2, 1)),  # about the z axis
)
"""The Klein four-group: player ``k``'s starts are ``HALF_TURNS[k]`` of player 1's."""
MIRRORS: tuple[Isometry, ...] = tuple(
    ((0, sx), (1, sy), (2, sz)) for sx in (1, -1) for sy in (1, -1) for sz in (1, -1)
)
"""All eight mirror combinations; they contain the point reflection and the half-turns."""
SIGNED_PERMUTATIONS: tuple[Isometry, ...] = tuple(
    ((a, sa), (b, sb), (c, sc))
    for a, b, c in itertools.permutations(range(3))
    for sa in (1, -1)
    for sb in (1, -1)
    for sc in (1, -1)
)
"""Every symmetry of the cube centred on the origin (rotations and reflections)."""

_QUANTUM = 1e-4  # positions closer than this are the same point when matching images
_DIGITS = 6  # generated coordinates are rounded to this many decimals (tidy files)
_START_GROUP = re.compile(r"lc_start_([1-9][0-9]{0,3})_([1-9][0-9]{0,3})")
_UNSAFE_NAME = re.compile(r"[\x00-\x20\x7f#\\@]+")


# -- meshes <-> maps -------------------------------------------------------------------


def mesh_to_map(mesh: Mesh, source: str = "<mesh>", name: str | None = None) -> MapSpec:
    """Build the board a mesh describes.

    Args:
        mesh: a parsed OBJ mesh; its ``lc_start_<players>_<player>`` groups give the
            starts and ``lc_bonus`` the bonus vertices.
        source: the file name, for error messages.
        name: the map name when the mesh has no ``# lc name``; by default the stem of
            ``source`` (``boards/ring world.obj`` -> ``ring-world``).

    Returns:
        A map on ``GraphTopology(len(vertices), mesh_edges(mesh), positions=vertices)``.
        ``starts`` holds the start set of the smallest player count and ``start_sets``
        the others (increasing); ``players`` is every count with a start set.

    Raises:
        MapError: naming ``source`` when the mesh is not connected, a start group is
            missing, names a player beyond its count, gives players different numbers of
            cycles or uses a vertex twice, a start is on a vertex without edges, a group
            name starts with ``lc_`` but is not one of ours, or there are no start groups.
    """
    if name is None:
        name = Path(source).stem if source and not source.startswith("<") else "unnamed"
    name = mesh.name or _UNSAFE_NAME.sub("-", name).strip("-") or "unnamed"
    topo = GraphTopology(len(mesh.vertices), mesh_edges(mesh), positions=mesh.vertices)
    sets, bonus = _lc_groups(mesh, source)
    for players, starts in sorted(sets.items()):
        for p, cells in enumerate(starts):
            for c in cells:
                if not topo.neighbours[c]:
                    raise MapError(
                        f"{source}: start vertex {c + 1} of player {p + 1} in "
                        f"{start_group(players, p + 1)} has no edges: a cycle there cannot move"
                    )
    _check_connected(topo, source)
    ordered = [starts for _, starts in sorted(sets.items())]
    try:
        return MapSpec(
            name=name,
            board=Board(topo),
            starts=ordered[0],
            version=mesh.version,
            players=tuple(sorted(sets)),
            tags=mesh.tags,
            description=mesh.description,
            bonus=bonus,
            start_sets=tuple(ordered[1:]),
        )
    except MapError as exc:
        raise MapError(f"{source}: {exc}") from None


def _lc_groups(
    mesh: Mesh, source: str
) -> tuple[dict[int, tuple[tuple[int, ...], ...]], tuple[int, ...]]:
    """Read the start sets (player count -> cells per player) and the bonus vertices."""
    found: dict[int, dict[int, tuple[int, ...]]] = {}
    bonus: tuple[int, ...] = ()
    for group, points in mesh.groups:
        if not group.startswith(LC_PREFIX):
            continue
        if group == BONUS_GROUP:
            if len(set(points)) != len(points):
                raise MapError(f"{source}: group {BONUS_GROUP} names a vertex twice")
            bonus = points
            continue
        m = _START_GROUP.fullmatch(group)
        if m is None:
            raise MapError(
                f"{source}: unknown lightcycle group {group!r}: expected lc_start_<players>_"
                f"<player> (e.g. {start_group(2, 1)}) or {BONUS_GROUP}"
            )
        players, player = int(m.group(1)), int(m.group(2))
        if player > players:
            raise MapError(
                f"{source}: group {group} is for player {player} of {players}: players are "
                f"numbered 1 to {players}"
            )
        found.setdefault(players, {})[player] = points
    if not found:
        raise MapError(
            f"{source}: no start groups: add 'g {start_group(2, 1)}' then 'p' with player 1's "
            f"start vertices, and the same for every player (see docs/maps.md)"
        )
    sets: dict[int, tuple[tuple[int, ...], ...]] = {}
    for players, by_player in sorted(found.items()):
        missing = [p for p in range(1, players + 1) if p not in by_player]
        if missing:
            names = ", ".join(start_group(players, p) for p in missing)
            raise MapError(f"{source}: the {players}-player starts lack group(s) {names}")
        starts = tuple(by_player[p] for p in range(1, players + 1))
        if len({len(cells) for cells in starts}) != 1:
            counts = "/".join(str(len(cells)) for cells in starts)
            raise MapError(
                f"{source}: the {players}-player starts give players different numbers of "
                f"cycles ({counts}); every player needs as many as every other"
            )
        cells = [c for group in starts for c in group]
        if len(set(cells)) != len(cells):
            twice = next(c for c in cells if cells.count(c) > 1)
            raise MapError(f"{source}: the {players}-player starts use vertex {twice + 1} twice")
        sets[players] = starts
    return sets, bonus


def _check_connected(topo: GraphTopology, source: str) -> None:
    seen = _distances(topo.neighbours, [0])
    if len(seen) < topo.size:
        lost = next(v for v in range(topo.size) if v not in seen)
        raise MapError(
            f"{source}: the mesh is not connected: vertex {lost + 1} cannot be reached from "
            f"vertex 1 ({topo.size - len(seen)} of {topo.size} vertices are cut off); a "
            "cycle must be able to reach every vertex"
        )


def map_to_mesh(spec: MapSpec) -> Mesh:
    """Write a graph map with 3D positions as a mesh (the reverse of `mesh_to_map`).

    A `MapSpec` keeps the graph, not the faces, so the faces are recovered from it: every
    triangle of the graph and every quadrilateral without a diagonal becomes a face,
    oriented consistently and outwards, and any edge in no face becomes a 2-vertex ``l``
    line. The graph therefore always survives exactly; for meshes of triangles and quads
    (every built-in board) the faces are the original ones too.

    Raises:
        MapError: for a grid map, a graph without positions, walls (an OBJ board has
            none), a player without a start cell, or metadata a `Mesh` cannot hold.
    """
    topo = spec.topology
    if not isinstance(topo, GraphTopology) or topo.positions is None:
        raise MapError(
            f"map {spec.id} is a {topo.describe()} without 3D positions; only graph boards "
            "with positions can be written as OBJ meshes"
        )
    if spec.walls:
        raise MapError(f"map {spec.id} has walls; an OBJ board cannot express them")
    vertices: list[Vec3] = []
    for xyz in topo.positions:
        if len(xyz) not in (2, 3):
            raise MapError(f"map {spec.id}: position {xyz!r} is not 2 or 3 coordinates")
        vertices.append((float(xyz[0]), float(xyz[1]), float(xyz[2]) if len(xyz) == 3 else 0.0))
    faces = graph_faces(topo.neighbours)
    covered = {_edge(a, b) for f in faces for a, b in zip(f, f[1:] + f[:1], strict=True)}
    lines = tuple((a, b) for a, b in topo.edges if (a, b) not in covered)
    groups: list[tuple[str, tuple[int, ...]]] = []
    for starts in sorted((spec.starts, *spec.start_sets), key=len):
        for p, cells in enumerate(starts):
            if not cells:
                raise MapError(f"map {spec.id}: player {p + 1} has no start cell")
            groups.append((start_group(len(starts), p + 1), cells))
    if spec.bonus:
        groups.append((BONUS_GROUP, spec.bonus))
    try:
        return Mesh(
            vertices=tuple(vertices),
            faces=orient_faces(vertices, faces),
            name=spec.name,
            groups=tuple(groups),
            lines=lines,
            version=spec.version,
            description=spec.description,
            tags=spec.tags,
        )
    except ValueError as exc:
        raise MapError(f"map {spec.id} cannot be written as a mesh: {exc}") from None


def map_from_obj(text: str, source: str = "<string>", name: str | None = None) -> MapSpec:
    """Read an OBJ board: `parse_obj` then `mesh_to_map`.

    Raises:
        FormatError: when the text is not valid OBJ.
        MapError: when the mesh is not a playable board.
    """
    return mesh_to_map(parse_obj(text, source), source=source, name=name)


# -- faces from a graph ------------------------------------------------------------------


def _edge(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def graph_faces(neighbours: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """The triangles and the chordless quadrilaterals of a graph, each once.

    On a mesh of triangles or of quads these are exactly its faces (as long as no
    handle or tube is only three or four edges round), which is why `map_to_mesh` can
    rebuild faces that a `MapSpec` does not store.
    """
    adj = [set(ns) for ns in neighbours]
    faces: list[tuple[int, ...]] = []
    for a, ns in enumerate(adj):
        for b in ns:
            if b <= a:
                continue
            for c in adj[b]:
                if c > b and c in ns:
                    faces.append((a, b, c))
                if c <= a or c in ns:
                    continue
                for d in adj[c]:
                    if d > b and d in ns and d not in adj[b]:
                        faces.append((a, b, c, d))
    return faces


def orient_faces(
    vertices: Sequence[Vec3], faces: Sequence[tuple[int, ...]]
) -> tuple[tuple[int, ...], ...]:
    """Wind faces consistently and outwards, start each at its lowest vertex, sort them.

    Neighbouring faces must run along their shared edge in opposite directions (that is
    what makes viewers draw a surface rather than a patchwork of front and back sides);
    each connected patch is then turned so that its signed volume seen from its centroid
    is positive, i.e. its normals point outwards. The canonical order makes the written
    file depend only on the graph and positions, not on how faces were found.
    """
    oriented = [tuple(f) for f in faces]
    by_edge: dict[tuple[int, int], list[int]] = {}
    for i, f in enumerate(oriented):
        for a, b in zip(f, f[1:] + f[:1], strict=True):
            by_edge.setdefault(_edge(a, b), []).append(i)
    done = [False] * len(oriented)
    for first in range(len(oriented)):
        if done[first]:
            continue
        done[first] = True
        patch = [first]
        queue = deque([first])
        while queue:
            i = queue.popleft()
            f = oriented[i]
            for a, b in zip(f, f[1:] + f[:1], strict=True):
                for j in by_edge[_edge(a, b)]:
                    if done[j]:
                        continue
                    g = oriented[j]
                    if any((x, y) == (a, b) for x, y in zip(g, g[1:] + g[:1], strict=True)):
                        oriented[j] = g[::-1]
                    done[j] = True
                    patch.append(j)
                    queue.append(j)
        if _signed_volume(vertices, [oriented[i] for i in patch]) < 0:
            for i in patch:
                oriented[i] = oriented[i][::-1]
    result = []
    for f in oriented:
        k = f.index(min(f))
        result.append(f[k:] + f[:k])
    return tuple(sorted(result))


def _signed_volume(vertices: Sequence[Vec3], faces: Sequence[tuple[int, ...]]) -> float:
    used = sorted({v for f in faces for v in f})
    c = [sum(vertices[v][k] for v in used) / len(used) for k in range(3)]
    total = 0.0
    for f in faces:
        p0 = [vertices[f[0]][k] - c[k] for k in range(3)]
        for i in range(1, len(f) - 1):
            p1 = [vertices[f[i]][k] - c[k] for k in range(3)]
            p2 = [vertices[f[i + 1]][k] - c[k] for k in range(3)]
            total += (
                p0[0] * (p1[1] * p2[2] - p1[2] * p2[1])
                - p0[1] * (p1[0] * p2[2] - p1[2] * p2[0])
                + p0[2] * (p1[0] * p2[1] - p1[1] * p2[0])
            )
    return total


# -- generators --------------------------------------------------------------------------


def _mesh(points: Sequence[Sequence[float]], faces: Sequence[tuple[int, ...]]) -> Mesh:
    """A mesh from raw positions: rounded (so files stay short), faces oriented outwards."""
    vertices = tuple(
        (round(p[0], _DIGITS) + 0.0, round(p[1], _DIGITS) + 0.0, round(p[2], _DIGITS) + 0.0)
        for p in points
    )
    return Mesh(vertices=vertices, faces=orient_faces(vertices, faces))


def cube(n: int) -> Mesh:
    """The surface of the cube ``[-1, 1]^3``, each face cut into ``n`` x ``n`` squares.

    Vertices along the cube's edges are shared by the faces that meet there, so the graph
    is one surface grid: ``6n^2 + 2`` vertices and ``12n^2`` edges. Most vertices have four
    neighbours; the 8 corners have three, which makes corners the places where cycles
    get trapped.

    Raises:
        ValueError: when ``n < 1``.
    """
    if n < 1:
        raise ValueError(f"a cube needs n >= 1 squares per side, got {n}")
    index: dict[tuple[int, int, int], int] = {}
    faces: list[tuple[int, ...]] = []

    def vertex(p: tuple[int, int, int]) -> int:
        return index.setdefault(p, len(index))

    for axis in range(3):
        u_axis, v_axis = (axis + 1) % 3, (axis + 2) % 3
        for side in (n, -n):
            for i, j in itertools.product(range(n), repeat=2):
                corners = []
                for du, dv in ((0, 0), (2, 0), (2, 2), (0, 2)):
                    p = [0, 0, 0]
                    p[axis] = side
                    p[u_axis] = -n + 2 * i + du
                    p[v_axis] = -n + 2 * j + dv
                    corners.append(vertex((p[0], p[1], p[2])))
                faces.append(tuple(corners))
    points = [tuple(c / n for c in p) for p in index]
    return _mesh(points, faces)


_PHI = (1 + math.sqrt(5)) / 2


def _icosahedron_solid() -> tuple[list[tuple[float, float, float]], list[tuple[int, int, int]]]:
    """The 12 vertices ``(0, ±1, ±φ)`` and cyclic shifts, and the 20 triangles (edge 2)."""
    points: list[tuple[float, float, float]] = []
    for a, b in itertools.product((1.0, -1.0), repeat=2):
        points += [(0.0, a, b * _PHI), (a, b * _PHI, 0.0), (b * _PHI, 0.0, a)]
    close = {
        (i, j)
        for i, j in itertools.combinations(range(12), 2)
        if abs(math.dist(points[i], points[j]) - 2.0) < 1e-9
    }
    triangles = [
        (i, j, k)
        for i, j, k in itertools.combinations(range(12), 3)
        if {(i, j), (i, k), (j, k)} <= close
    ]
    return points, triangles


def _subdivided(freq: int, spherical: bool) -> Mesh:
    """An icosahedron of circumradius 1 with each face cut into ``freq^2`` triangles."""
    if freq < 1:
        raise ValueError(f"a subdivision frequency must be at least 1, got {freq}")
    corners, triangles = _icosahedron_solid()
    radius = math.sqrt(1 + _PHI * _PHI)
    index: dict[tuple[tuple[int, int], ...], int] = {}
    points: list[tuple[float, float, float]] = []

    def vertex(weights: dict[int, int]) -> int:
        # A point is named by its integer barycentric weights on the solid's vertices, so
        # a point on a shared edge gets the same name from both faces.
        key = tuple(sorted((v, w) for v, w in weights.items() if w))
        if key not in index:
            index[key] = len(points)
            p = [sum(corners[v][k] * w for v, w in key) / (freq * radius) for k in range(3)]
            if spherical:
                norm = math.sqrt(sum(x * x for x in p))
                p = [x / norm for x in p]
            points.append((p[0], p[1], p[2]))
        return index[key]

    faces: list[tuple[int, ...]] = []
    for a, b, c in triangles:

        def at(i: int, j: int, a: int = a, b: int = b, c: int = c) -> int:
            weights = {a: freq - i - j}
            weights[b] = weights.get(b, 0) + i
            weights[c] = weights.get(c, 0) + j
            return vertex(weights)

        for i in range(freq):
            for j in range(freq - i):
                faces.append((at(i, j), at(i + 1, j), at(i, j + 1)))
                if i + j < freq - 1:
                    faces.append((at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)))
    return _mesh(points, faces)


def icosahedron(freq: int = 1) -> Mesh:
    """A flat-faced icosahedron (circumradius 1), each face cut into ``freq^2`` triangles.

    ``freq=1`` is the 12-vertex solid itself, too small for more than a duel; the
    built-in ``icosahedron`` board uses frequency 4. ``10 freq^2 + 2`` vertices and
    ``30 freq^2`` edges; the 12 original corners have five neighbours, the rest six.

    Raises:
        ValueError: when ``freq < 1``.
    """
    return _subdivided(freq, spherical=False)


def geodesic_sphere(freq: int) -> Mesh:
    """A geodesic sphere: a subdivided icosahedron with every vertex pushed onto the unit
    sphere, so cells are nearly equal all over (no flat faces, no sharp corners).

    Same counts as `icosahedron` of the same frequency.

    Raises:
        ValueError: when ``freq < 1``.
    """
    return _subdivided(freq, spherical=True)


def torus(major_segments: int, minor_segments: int) -> Mesh:
    """A quad grid on a torus round the z axis: no boundary and every vertex of degree 4.

    The radii are ``1`` and ``minor_segments / major_segments`` so the quads are close
    to squares. ``major * minor`` vertices and twice as many edges.

    Raises:
        ValueError: when a count is below 5 (shorter loops would be mistaken for faces
            and leave no room to turn).
    """
    if major_segments < 5 or minor_segments < 5:
        raise ValueError(
            f"a torus needs at least 5 segments each way, got {major_segments}x{minor_segments}"
        )
    big, small = 1.0, minor_segments / major_segments
    points = []
    for i in range(major_segments):
        theta = 2 * math.pi * i / major_segments
        for j in range(minor_segments):
            phi = 2 * math.pi * j / minor_segments
            ring = big + small * math.cos(phi)
            points.append((ring * math.cos(theta), ring * math.sin(theta), small * math.sin(phi)))

    def at(i: int, j: int) -> int:
        return (i % major_segments) * minor_segments + j % minor_segments

    faces = [
        (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1))
        for i in range(major_segments)
        for j in range(minor_segments)
    ]
    return _mesh(points, faces)


def cylinder(around: int, height: int) -> Mesh:
    """A quad grid wrapped round an open tube (radius 1, axis z, centred on the origin).

    Moving round the tube never ends; moving along it stops at the two rims, whose
    vertices have three neighbours. ``around * height`` vertices and
    ``around * (2 height - 1)`` edges.

    Raises:
        ValueError: when ``around < 5`` or ``height < 2``.
    """
    if around < 5 or height < 2:
        raise ValueError(f"a cylinder needs around >= 5 and height >= 2, got {around}x{height}")
    step = 2 * math.pi / around
    points = [
        (math.cos(step * i), math.sin(step * i), (k - (height - 1) / 2) * step)
        for k in range(height)
        for i in range(around)
    ]

    def at(i: int, k: int) -> int:
        return k * around + i % around

    faces = [
        (at(i, k), at(i + 1, k), at(i + 1, k + 1), at(i, k + 1))
        for k in range(height - 1)
        for i in range(around)
    ]
    return _mesh(points, faces)


# -- symmetries and fair starts ----------------------------------------------------------


def apply(iso: Isometry, p: Sequence[float]) -> Vec3:
    """The image of point ``p`` under ``iso``."""
    return (iso[0][1] * p[iso[0][0]], iso[1][1] * p[iso[1][0]], iso[2][1] * p[iso[2][0]])


def vertex_permutation(mesh: Mesh, iso: Isometry) -> tuple[int, ...] | None:
    """The vertex permutation ``iso`` induces, if it is a symmetry of the mesh's graph.

    Returns ``None`` unless ``iso`` maps every vertex onto a vertex (within a tiny
    tolerance) and every edge onto an edge: a geometric symmetry that did not preserve
    the graph would not make two seats equivalent.
    """

    def key(p: Sequence[float]) -> tuple[int, int, int]:
        return (round(p[0] / _QUANTUM), round(p[1] / _QUANTUM), round(p[2] / _QUANTUM))

    where = {key(p): i for i, p in enumerate(mesh.vertices)}
    perm: list[int] = []
    for p in mesh.vertices:
        image = where.get(key(apply(iso, p)))
        if image is None:
            return None
        perm.append(image)
    edges = set(mesh_edges(mesh))
    if len(set(perm)) != len(perm) or any(_edge(perm[a], perm[b]) not in edges for a, b in edges):
        return None
    return tuple(perm)


def _distances(neighbours: Sequence[Sequence[int]], sources: Sequence[int]) -> dict[int, int]:
    dist = dict.fromkeys(sources, 0)
    queue = deque(sources)
    while queue:
        v = queue.popleft()
        for w in neighbours[v]:
            if w not in dist:
                dist[w] = dist[v] + 1
                queue.append(w)
    return dist


def _nearest(mesh: Mesh, target: Sequence[float]) -> int:
    return min(range(len(mesh.vertices)), key=lambda i: (math.dist(mesh.vertices[i], target), i))


@dataclass(frozen=True)
class Layout:
    """Where player 1 starts for one player count; the other players are its images.

    Player 1's cycle ``k`` (of ``c``) starts on the vertex nearest to
    ``home + (k - (c - 1) / 2) * spacing * side``: the cycles sit in a row across the
    player's home, about ``spacing`` apart.
    """

    home: Vec3
    side: Vec3
    spacing: float


@dataclass(frozen=True)
class BoardDesign:
    """One built-in 3D board: its solid, where players start, and its metadata.

    Attributes:
        name: the registry name (and file stem).
        version: bumped whenever the board changes.
        tags: words for ``lightcycle maps list``.
        description: one line for people choosing a board.
        shape: builds the bare mesh.
        duel: player 1's layout with 2 players (player 2 is its point reflection).
        four: player 1's layout with 4 players (players 2-4 are its half-turn images).
        bonus: seed points; the bonus vertices are the nearest vertices and all eight
            mirror images of them.
    """

    name: str
    version: int
    tags: tuple[str, ...]
    description: str
    shape: Callable[[], Mesh]
    duel: Layout
    four: Layout
    bonus: tuple[Vec3, ...]


_S2 = math.sqrt(0.5)
_CYL = 2 * math.pi / 32  # the cylinder board's grid step

BUILTIN_BOARDS: tuple[BoardDesign, ...] = (
    BoardDesign(
        name="cube",
        version=1,
        tags=("3d", "graph", "cube", "medium"),
        description="Surface of a cube, 10x10 squares a face; corners have only three ways out.",
        shape=lambda: cube(10),
        duel=Layout(home=(0.0, 0.0, 1.0), side=(1.0, 0.0, 0.0), spacing=0.8),
        four=Layout(home=(1.0, 1.0, 0.8), side=(_S2, -_S2, 0.0), spacing=1.13),
        bonus=((0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)),
    ),
    BoardDesign(
        name="icosphere",
        version=1,
        tags=("3d", "graph", "sphere", "medium"),
        description="Geodesic sphere of 1280 triangles: no edges, six ways out nearly everywhere.",
        shape=lambda: geodesic_sphere(8),
        duel=Layout(home=(0.0, 0.0, 1.0), side=(1.0, 0.0, 0.0), spacing=0.55),
        four=Layout(home=(0.577, 0.577, 0.577), side=(_S2, -_S2, 0.0), spacing=0.55),
        bonus=((0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)),
    ),
    BoardDesign(
        name="icosahedron",
        version=1,
        tags=("3d", "graph", "icosahedron", "small"),
        description="Flat-faced icosahedron, each face cut into 16 triangles: small and crowded.",
        shape=lambda: icosahedron(4),
        duel=Layout(home=(0.0, 0.0, 0.851), side=(1.0, 0.0, 0.0), spacing=1.0),
        four=Layout(home=(0.459, 0.459, 0.459), side=(_S2, -_S2, 0.0), spacing=0.8),
        bonus=((0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)),
    ),
    BoardDesign(
        name="donut",
        version=1,
        tags=("3d", "graph", "torus", "medium"),
        description="Torus of 40x12 squares: no edges, no corners, four ways out everywhere.",
        shape=lambda: torus(40, 12),
        duel=Layout(home=(1.0, 0.0, 0.3), side=(0.0, 1.0, 0.0), spacing=0.63),
        four=Layout(home=(_S2, _S2, 0.3), side=(-_S2, _S2, 0.0), spacing=0.63),
        bonus=((1.3, 0.0, 0.0), (0.0, 1.3, 0.0), (0.7, 0.0, 0.0), (0.0, 0.7, 0.0)),
    ),
    BoardDesign(
        name="cylinder",
        version=1,
        tags=("3d", "graph", "cylinder", "medium"),
        description="Open tube of 32x16 squares: endless round it, two dead-end rims along it.",
        shape=lambda: cylinder(32, 16),
        duel=Layout(home=(1.0, 0.0, 3.5 * _CYL), side=(0.0, 1.0, 0.0), spacing=4 * _CYL),
        four=Layout(home=(_S2, _S2, 3.5 * _CYL), side=(-_S2, _S2, 0.0), spacing=4 * _CYL),
        bonus=((1.0, 0.0, 0.5 * _CYL), (0.0, 1.0, 0.5 * _CYL)),
    ),
)
"""The shipped 3D boards, in the order `render_all` lists them."""


def orbit_starts(
    mesh: Mesh, layout: Layout, group: Sequence[Isometry], cycles: int = 2
) -> tuple[tuple[int, ...], ...]:
    """Starts for ``len(group)`` players: player 1 from ``layout``, player ``k`` its image
    under ``group[k - 1]`` (``group[0]`` must be the identity).

    Raises:
        MapError: when an isometry is not a symmetry of the mesh, or the starts collide
            or touch (two starts on one vertex or on neighbouring vertices).
    """
    if cycles < 1:
        raise MapError(f"each player needs at least one cycle, got {cycles}")
    hx, hy, hz = layout.home
    sx, sy, sz = layout.side
    seeds = []
    for k in range(cycles):
        t = (k - (cycles - 1) / 2) * layout.spacing
        seeds.append(_nearest(mesh, (hx + t * sx, hy + t * sy, hz + t * sz)))
    starts: list[tuple[int, ...]] = []
    for iso in group:
        perm = vertex_permutation(mesh, iso)
        if perm is None:
            raise MapError(f"{iso} is not a symmetry of the mesh")
        starts.append(tuple(perm[s] for s in seeds))
    cells = [c for group_cells in starts for c in group_cells]
    edges = set(mesh_edges(mesh))
    if len(set(cells)) != len(cells) or any(
        _edge(a, b) in edges for a, b in itertools.combinations(cells, 2)
    ):
        raise MapError(f"starts {starts} put two cycles on one vertex or next to each other")
    return tuple(starts)


def orbit(
    mesh: Mesh, seeds: Sequence[Sequence[float]], group: Sequence[Isometry]
) -> tuple[int, ...]:
    """The vertices nearest to ``seeds`` and all their images under ``group``, sorted.

    Raises:
        MapError: when an isometry is not a symmetry of the mesh.
    """
    found: set[int] = set()
    for iso in group:
        perm = vertex_permutation(mesh, iso)
        if perm is None:
            raise MapError(f"{iso} is not a symmetry of the mesh")
        found.update(perm[_nearest(mesh, s)] for s in seeds)
    return tuple(sorted(found))


def board_mesh(design: BoardDesign, cycles: int = 2) -> Mesh:
    """The design's mesh with its start groups (2 and 4 players), bonus group and metadata.

    Raises:
        MapError: when the layouts do not give valid starts (see `orbit_starts`).
    """
    mesh = design.shape()
    duel = orbit_starts(mesh, design.duel, (IDENTITY, POINT_REFLECTION), cycles)
    four = orbit_starts(mesh, design.four, HALF_TURNS, cycles)
    groups = [
        (start_group(len(starts), p + 1), cells)
        for starts in (duel, four)
        for p, cells in enumerate(starts)
    ]
    groups.append((BONUS_GROUP, orbit(mesh, design.bonus, MIRRORS)))
    return Mesh(
        vertices=mesh.vertices,
        faces=mesh.faces,
        name=design.name,
        groups=tuple(groups),
        version=design.version,
        description=design.description,
        tags=design.tags,
    )


def build_board(name: str, cycles: int = 2) -> MapSpec:
    """The built-in board ``name`` built from its design (not read from the data files).

    Raises:
        MapError: for an unknown name or a design that gives invalid starts.
    """
    for design in BUILTIN_BOARDS:
        if design.name == name:
            return mesh_to_map(board_mesh(design, cycles), source=f"<builtin {name}>")
    known = ", ".join(d.name for d in BUILTIN_BOARDS)
    raise MapError(f"no built-in 3D board {name!r}; the boards are {known}")


def render_all() -> dict[str, str]:
    """File name -> OBJ text of every built-in 3D board, as shipped in the data folder."""
    return {f"{d.name}.obj": format_obj(map_to_mesh(build_board(d.name))) for d in BUILTIN_BOARDS}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lightcycle.maps.meshes [--write DIR]``: list or write the 3D boards."""
    parser = argparse.ArgumentParser(
        prog="python -m lightcycle.maps.meshes", description=main.__doc__
    )
    parser.add_argument(
        "--write", type=Path, metavar="DIR", help=f"write DIR/<name>.obj (shipped: {DATA_DIR})"
    )
    args = parser.parse_args(argv)
    if args.write is None:
        for d in BUILTIN_BOARDS:
            spec = build_board(d.name)
            topo = spec.topology
            assert isinstance(topo, GraphTopology)
            print(
                f"{d.name:12} {topo.size:4} vertices {len(topo.edges):5} edges  "
                f"players {','.join(map(str, spec.players))}  bonus {len(spec.bonus)}"
            )
        return 0
    args.write.mkdir(parents=True, exist_ok=True)
    for filename, text in render_all().items():
        (args.write / filename).write_text(text, encoding="utf-8", newline="\n")
        print(f"wrote {args.write / filename}", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

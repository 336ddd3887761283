"""3D boards: mesh <-> map conversion, the generators, the shipped OBJ files, and fair starts
and bonus vertices on every built-in board."""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path

import pytest

from lightcycle.core.state import Board
from lightcycle.core.topology import GraphTopology, GridTopology
from lightcycle.formats.errors import FormatError
from lightcycle.formats.obj import Mesh, format_obj, mesh_edges, parse_obj
from lightcycle.maps.fairness import territories
from lightcycle.maps.meshes import (
    BUILTIN_BOARDS,
    DATA_DIR,
    HALF_TURNS,
    POINT_REFLECTION,
    SIGNED_PERMUTATIONS,
    board_mesh,
    build_board,
    cube,
    cylinder,
    geodesic_sphere,
    graph_faces,
    icosahedron,
    main,
    map_from_obj,
    map_to_mesh,
    mesh_to_map,
    orbit_starts,
    render_all,
    torus,
    vertex_permutation,
)
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapError, MapSpec

NAMES = [d.name for d in BUILTIN_BOARDS]
SPECS = {name: build_board(name) for name in NAMES}

# name -> (vertices, edges, faces), from the closed formulas of each solid
COUNTS = {
    "cube": (6 * 10**2 + 2, 12 * 10**2, 6 * 10**2),
    "icosphere": (10 * 8**2 + 2, 30 * 8**2, 20 * 8**2),
    "icosahedron": (10 * 4**2 + 2, 30 * 4**2, 20 * 4**2),
    "donut": (40 * 12, 2 * 40 * 12, 40 * 12),
    "cylinder": (32 * 16, 32 * (2 * 16 - 1), 32 * 15),
}


@functools.cache
def _rendered() -> dict[str, str]:
    return render_all()


def _graph(spec: MapSpec) -> GraphTopology:
    topo = spec.topology
    assert isinstance(topo, GraphTopology)
    return topo


def _bfs(topo: GraphTopology, sources: list[int]) -> list[int]:
    dist = [-1] * topo.size
    for s in sources:
        dist[s] = 0
    queue = deque(sources)
    while queue:
        v = queue.popleft()
        for w in topo.neighbours[v]:
            if dist[w] < 0:
                dist[w] = dist[v] + 1
                queue.append(w)
    return dist


def _start_sets(spec: MapSpec) -> dict[int, tuple[tuple[int, ...], ...]]:
    return {len(s): s for s in (spec.starts, *spec.start_sets)}


# -- the generators ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mesh", "vertices", "edges", "degrees"),
    [
        (cube(1), 8, 12, {3: 8}),
        (cube(3), 6 * 9 + 2, 12 * 9, {3: 8, 4: 48}),
        (icosahedron(), 12, 30, {5: 12}),
        (icosahedron(3), 92, 270, {5: 12, 6: 80}),
        (geodesic_sphere(2), 42, 120, {5: 12, 6: 30}),
        (torus(8, 6), 48, 96, {4: 48}),
        (cylinder(6, 4), 24, 42, {3: 12, 4: 12}),
    ],
    ids=["cube1", "cube3", "ico", "ico3", "geo2", "torus", "cylinder"],
)
def test_generator_counts_and_degrees(
    mesh: Mesh, vertices: int, edges: int, degrees: dict[int, int]
) -> None:
    assert len(mesh.vertices) == vertices
    graph = mesh_edges(mesh)
    assert len(graph) == edges
    degree = Counter(v for e in graph for v in e)
    assert dict(Counter(degree.values())) == degrees


def test_sphere_is_on_the_unit_sphere_and_icosahedron_is_flat() -> None:
    assert all(abs(sum(c * c for c in v) - 1) < 1e-5 for v in geodesic_sphere(3).vertices)
    radii = {round(sum(c * c for c in v), 3) for v in icosahedron(3).vertices}
    assert max(radii) == 1.0 and min(radii) < 0.8  # face centres are inside the sphere


@pytest.mark.parametrize(
    "make",
    [
        lambda: cube(0),
        lambda: icosahedron(0),
        lambda: geodesic_sphere(0),
        lambda: torus(4, 8),
        lambda: torus(8, 4),
        lambda: cylinder(4, 5),
        lambda: cylinder(8, 1),
    ],
)
def test_generators_refuse_tiny_sizes(make: Callable[[], Mesh]) -> None:
    with pytest.raises(ValueError):
        make()


def _outward_axis(kind: str, c: list[float]) -> tuple[float, float, float]:
    """The direction away from the solid at point ``c`` (centre, axis or tube core)."""
    if kind == "centre":
        return (c[0], c[1], c[2])
    if kind == "axis":
        return (c[0], c[1], 0.0)
    ring = math.hypot(c[0], c[1])  # torus: away from the core circle of radius 1
    return (c[0] - c[0] / ring, c[1] - c[1] / ring, c[2])


@pytest.mark.parametrize(
    ("mesh", "kind"),
    [
        (cube(3), "centre"),
        (icosahedron(2), "centre"),
        (geodesic_sphere(3), "centre"),
        (torus(12, 6), "tube"),
        (cylinder(8, 3), "axis"),
    ],
    ids=["cube", "ico", "geo", "torus", "cylinder"],
)
def test_faces_are_wound_consistently_and_outwards(mesh: Mesh, kind: str) -> None:
    directed = Counter((a, b) for f in mesh.faces for a, b in zip(f, f[1:] + f[:1], strict=True))
    assert all(n == 1 for n in directed.values())  # neighbours run a shared edge oppositely
    for f in mesh.faces:
        p = [mesh.vertices[i] for i in f]
        u = [p[1][k] - p[0][k] for k in range(3)]
        v = [p[2][k] - p[0][k] for k in range(3)]
        normal = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
        centre = [sum(q[k] for q in p) / len(p) for k in range(3)]
        out = _outward_axis(kind, centre)
        assert sum(n * o for n, o in zip(normal, out, strict=True)) > 0, f


def test_graph_faces_are_the_generator_faces() -> None:
    for mesh in (cube(3), icosahedron(2), geodesic_sphere(3), torus(10, 6), cylinder(7, 3)):
        topo = GraphTopology(len(mesh.vertices), mesh_edges(mesh))
        found = {frozenset(f) for f in graph_faces(topo.neighbours)}
        assert found == {frozenset(f) for f in mesh.faces}


# -- built-in boards ---------------------------------------------------------------------


def test_at_least_five_boards_with_distinct_names() -> None:
    assert len(NAMES) == len(set(NAMES)) >= 5
    assert {"cube", "icosphere", "icosahedron", "donut", "cylinder"} <= set(NAMES)
    assert "torus" not in NAMES  # a grid map called torus-20 exists


@pytest.mark.parametrize("name", NAMES)
def test_board_is_connected_with_expected_counts(name: str) -> None:
    spec = SPECS[name]
    topo = _graph(spec)
    vertices, edges, faces = COUNTS[name]
    assert topo.size == vertices
    assert len(topo.edges) == edges
    assert len(map_to_mesh(spec).faces) == faces
    assert min(_bfs(topo, [0])) == 0  # every vertex reached
    assert 150 <= topo.size <= 700
    assert topo.positions is not None and all(len(p) == 3 for p in topo.positions)


@pytest.mark.parametrize("name", NAMES)
def test_board_metadata(name: str) -> None:
    spec = SPECS[name]
    assert spec.players == (2, 4)
    assert {"3d", "graph"} <= set(spec.tags)
    assert len({"small", "medium", "large"} & set(spec.tags)) == 1
    assert spec.description and spec.version >= 1
    assert spec.walls == 0


@pytest.mark.parametrize("name", NAMES)
def test_shipped_file_is_what_the_generator_writes_now(name: str) -> None:
    path = DATA_DIR / f"{name}.obj"
    assert path.read_text(encoding="utf-8") == _rendered()[f"{name}.obj"], (
        "regenerate with: python -m lightcycle.maps.meshes --write src/lightcycle/maps/data"
    )


@pytest.mark.parametrize("name", NAMES)
def test_registry_serves_the_shipped_board(name: str) -> None:
    spec = get_map(name)
    assert spec == SPECS[name]
    assert get_map(f"{name}@1") is spec
    assert spec.starts_of(2) == spec.starts and spec.starts_of(4) is not None


def test_get_map_cube() -> None:
    spec = get_map("cube")
    assert spec.size_text() == "602 nodes"
    assert spec.topology.describe() == "graph of 602 nodes and 1200 edges"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("players", [2, 4])
def test_starts_exist_and_never_touch(name: str, players: int) -> None:
    spec = SPECS[name]
    topo = _graph(spec)
    starts = spec.starts_of(players)
    assert starts is not None and len(starts) == players
    assert all(len(cells) == 2 for cells in starts)
    cells = [c for group in starts for c in group]
    assert len(set(cells)) == len(cells)
    for a, b in itertools.combinations(cells, 2):
        assert not topo.is_neighbour(a, b), (a, b)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("players", [2, 4])
def test_starts_are_fair_by_distances_and_territory(name: str, players: int) -> None:
    spec = SPECS[name]
    topo = _graph(spec)
    starts = spec.starts_of(players)
    assert starts is not None
    everyone = [c for group in starts for c in group]
    profiles = []
    for cells in starts:
        per_cycle = sorted(tuple(sorted(_bfs(topo, [c])[s] for s in everyone)) for c in cells)
        nearest = _bfs(topo, list(cells))
        profiles.append((per_cycle, sorted(nearest)))
    assert all(p == profiles[0] for p in profiles)
    owned, _contested = territories(spec.board, starts)
    assert len(set(owned)) == 1 and owned[0] > topo.size // (2 * players)


@pytest.mark.parametrize("name", NAMES)
def test_bonus_is_fair_for_both_player_counts(name: str) -> None:
    spec = SPECS[name]
    topo = _graph(spec)
    assert 4 <= len(spec.bonus) <= 12
    assert len(set(spec.bonus)) == len(spec.bonus)
    for starts in (spec.starts, *spec.start_sets):
        assert not set(spec.bonus) & {c for cells in starts for c in cells}
        seen = []
        for cells in starts:
            dist = _bfs(topo, list(cells))
            seen.append(sorted(dist[b] for b in spec.bonus))
        assert all(s == seen[0] for s in seen), seen


@pytest.mark.parametrize("name", NAMES)
def test_a_symmetry_carries_every_seat_to_every_other(name: str) -> None:
    """Found independently of the generator: every signed axis permutation that is an
    automorphism of the graph, kept when it maps the start layout onto itself."""
    mesh = map_to_mesh(SPECS[name])
    autos = [p for iso in SIGNED_PERMUTATIONS if (p := vertex_permutation(mesh, iso)) is not None]
    assert len(autos) >= 8
    spec = SPECS[name]
    for starts in _start_sets(spec).values():
        seats = {frozenset(cells): i for i, cells in enumerate(starts)}
        reach = {0}
        for perm in autos:
            images = [seats.get(frozenset(perm[c] for c in cells)) for cells in starts]
            if images[0] is not None and None not in images:
                reach.add(images[0])
                bonus = {perm[b] for b in spec.bonus}
                assert bonus == set(spec.bonus)
        assert reach == set(range(len(starts)))


def test_four_players_sit_near_the_corners_of_a_tetrahedron() -> None:
    """The half-turns carry a home near (1, 1, 1) to the other three corners of a
    tetrahedron; grid steps make it slightly irregular, but equal for every player."""
    for name in NAMES:
        spec = SPECS[name]
        topo = _graph(spec)
        assert topo.positions is not None
        starts = spec.starts_of(4)
        assert starts is not None
        homes = [
            [sum(topo.positions[c][k] for c in cells) / len(cells) for k in range(3)]
            for cells in starts
        ]
        gaps = [sorted(round(math.dist(a, b), 6) for b in homes if b is not a) for a in homes]
        assert all(g == gaps[0] for g in gaps)
        if name in ("cube", "icosphere", "icosahedron"):
            assert gaps[0][-1] / gaps[0][0] < 1.15, gaps[0]


@pytest.mark.parametrize("cycles", [1, 3])
def test_other_cycle_counts(cycles: int) -> None:
    for name in NAMES:
        spec = build_board(name, cycles)
        assert all(len(cells) == cycles for s in _start_sets(spec).values() for cells in s)


def test_orbit_starts_refuses_non_symmetries_and_collisions() -> None:
    design = next(d for d in BUILTIN_BOARDS if d.name == "cylinder")
    mesh = design.shape()
    swap_xz = ((2, 1), (1, 1), (0, 1))
    with pytest.raises(MapError, match="not a symmetry"):
        orbit_starts(mesh, design.duel, (swap_xz,))
    with pytest.raises(MapError, match="next to each other"):
        orbit_starts(mesh, design.duel.__class__((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), 0.2), HALF_TURNS)
    with pytest.raises(MapError, match="at least one cycle"):
        orbit_starts(mesh, design.duel, (POINT_REFLECTION,), cycles=0)


def test_unknown_builtin_name() -> None:
    with pytest.raises(MapError, match="no built-in 3D board 'torus'; the boards are cube"):
        build_board("torus")


def test_write_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--write", str(tmp_path / "out")]) == 0
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == sorted(f"{n}.obj" for n in NAMES)
    assert (tmp_path / "out" / "cube.obj").read_text() == (DATA_DIR / "cube.obj").read_text()
    assert main([]) == 0
    assert "cube" in capsys.readouterr().out


# -- conversion and loading --------------------------------------------------------------

SQUARE = """\
# lc name square
# lc tags tiny
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 2 0 0
v 2 1 0
f 1 2 3 4
f 2 5 6 3
g lc_start_2_1
p 1
g lc_start_2_2
p 6
"""


def test_mesh_to_map_builds_the_graph_and_starts() -> None:
    spec = map_from_obj(SQUARE, "sq.obj")
    topo = _graph(spec)
    assert spec.name == "square" and spec.tags == ("tiny",)
    assert spec.starts == ((0,), (5,)) and spec.start_sets == ()
    assert spec.players == (2,)
    assert topo.edges == ((0, 1), (0, 3), (1, 2), (1, 4), (2, 3), (2, 5), (4, 5))
    assert topo.positions is not None and topo.positions[4] == (2.0, 0.0, 0.0)


def test_name_defaults_to_the_file_stem() -> None:
    text = SQUARE.replace("# lc name square\n", "")
    assert map_from_obj(text, "boards/my board@2.obj").name == "my-board-2"
    assert map_from_obj(text).name == "unnamed"
    assert map_from_obj(text, "x.obj", name="given").name == "given"


def test_map_to_mesh_round_trips_and_keeps_lines() -> None:
    text = SQUARE + "v 3 3 3\nl 6 7\ng lc_bonus\np 3 7\n"
    spec = map_from_obj(text, "sq.obj")
    mesh = map_to_mesh(spec)
    assert mesh.lines == ((5, 6),)
    assert {frozenset(f) for f in mesh.faces} == {frozenset({0, 1, 2, 3}), frozenset({1, 4, 5, 2})}
    assert mesh_to_map(parse_obj(format_obj(mesh))) == spec


def test_map_to_mesh_refuses_grids_and_walls() -> None:
    with pytest.raises(MapError, match="without 3D positions"):
        map_to_mesh(MapSpec(name="g", board=Board(GridTopology(3, 3))))
    with pytest.raises(MapError, match="without 3D positions"):
        map_to_mesh(MapSpec(name="g", board=Board(GraphTopology(2, [(0, 1)]))))
    walled = Board(GraphTopology(2, [(0, 1)], positions=[(0, 0, 0), (1, 0, 0)]), walls=1)
    with pytest.raises(MapError, match="walls"):
        map_to_mesh(MapSpec(name="w", board=walled))


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda t: t.replace("g lc_start_2_2\np 6\n", ""), r"lack group\(s\) lc_start_2_2"),
        (lambda t: t + "g lc_start_2_3\np 5\n", "player 3 of 2"),
        (lambda t: t.replace("g lc_start_2_1\np 1\ng lc_start_2_2\np 6\n", ""), "no start groups"),
        (
            lambda t: t.replace("g lc_start_2_1\np 1", "v 9 9 9\ng lc_start_2_1\np 7"),
            "vertex 7 of player 1 .* has no edges",
        ),
        (lambda t: t + "v 9 9 9\nv 8 8 8\nl 7 8\n", "not connected: vertex 7"),
        (lambda t: t + "g lc_start_2_2\np 5\n", "different numbers of cycles"),
        (lambda t: t.replace("p 6", "p 1"), "use vertex 1 twice"),
        (lambda t: t + "g lc_bonsu\np 2\n", "unknown lightcycle group 'lc_bonsu'"),
        (lambda t: t + "g lc_bonus\np 2 2\n", "lc_bonus names a vertex twice"),
    ],
    ids=[
        "missing",
        "beyond",
        "none",
        "isolated",
        "disconnected",
        "uneven",
        "twice",
        "typo",
        "bonus",
    ],
)
def test_mesh_to_map_errors_name_the_source(change: object, fragment: str) -> None:
    text = change(SQUARE)  # type: ignore[operator]
    with pytest.raises(MapError, match=f"^sq.obj: .*{fragment}"):
        map_from_obj(text, "sq.obj")


def test_non_lightcycle_groups_are_ignored() -> None:
    spec = map_from_obj(SQUARE + "g markers\np 2 3\n", "sq.obj")
    assert spec.bonus == ()


def test_obj_path_loads_through_the_registry(tmp_path: Path) -> None:
    path = tmp_path / "square board.obj"
    path.write_text(SQUARE.replace("# lc name square\n", ""), encoding="utf-8")
    spec = get_map(str(path))
    assert spec.name == "square-board"
    assert get_map(str(path)) is spec  # cached while unchanged
    shipped = get_map(str(DATA_DIR / "donut.obj"))
    assert shipped == get_map("donut")


def test_obj_path_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nf 1 2 3\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"bad.obj:2:5: expected a vertex index"):
        get_map(str(bad))
    latin = tmp_path / "latin.obj"
    latin.write_bytes(b"# caf\xe9\nv 0 0 0\n")
    with pytest.raises(FormatError, match="UTF-8"):
        get_map(str(latin))
    with pytest.raises(MapError, match="no map file"):
        get_map(str(tmp_path / "missing.obj"))


def test_board_mesh_has_groups_for_both_player_counts() -> None:
    mesh = board_mesh(BUILTIN_BOARDS[0])
    names = [g for g, _ in mesh.groups]
    assert names == [
        "lc_start_2_1",
        "lc_start_2_2",
        "lc_start_4_1",
        "lc_start_4_2",
        "lc_start_4_3",
        "lc_start_4_4",
        "lc_bonus",
    ]


def test_the_example_in_the_docs_is_a_fair_board() -> None:
    docs = Path(__file__).parents[2] / "docs" / "maps.md"
    text = docs.read_text(encoding="utf-8").split("```obj\n", 1)[1].split("```", 1)[0]
    spec = map_from_obj(text, "docs/maps.md")
    topo = _graph(spec)
    assert spec.name == "tiny-cube" and topo.size == 8 and len(topo.edges) == 12
    assert spec.starts == ((0,), (6,)) and spec.bonus == (2, 4)
    seen = [sorted(_bfs(topo, list(cells))[b] for b in spec.bonus) for cells in spec.starts]
    assert seen[0] == seen[1]

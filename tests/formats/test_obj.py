"""Wavefront OBJ: the subset read, lightcycle's groups and directives, round trips, fuzzing
and error vectors (``vectors/obj/bad-*.obj`` open with ``# error: LINE: text``)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightcycle.formats.errors import FormatError
from lightcycle.formats.obj import (
    BONUS_GROUP,
    HEADER,
    Mesh,
    format_obj,
    mesh_edges,
    parse_obj,
    start_group,
)
from lightcycle.maps.meshes import cube, cylinder, geodesic_sphere, icosahedron, torus
from tests.vector_files import mutate

VECTORS = Path(__file__).with_name("vectors") / "obj"
BAD = sorted(VECTORS.glob("bad-*.obj"))
GOOD = sorted(VECTORS.glob("good-*.obj"))

TETRA = """\
# lc name tetra
# lc version 3
# lc description A tetrahedron: four vertices, each next to every other.
# lc tags 3d, tiny
o Tetra
v 1 1 1
v 1 -1 -1
v -1 1 -1
v -1 -1 1
f 1 2 3
f 1 3 4
f 1 4 2
f 2 4 3
g lc_start_2_1
p 1
g lc_start_2_2
p -2
g lc_bonus
p 2 4
"""


def test_parses_vertices_faces_groups_and_directives() -> None:
    mesh = parse_obj(TETRA)
    assert mesh.vertices[1] == (1.0, -1.0, -1.0)
    assert mesh.faces == ((0, 1, 2), (0, 2, 3), (0, 3, 1), (1, 3, 2))
    assert mesh.groups == (("lc_start_2_1", (0,)), ("lc_start_2_2", (2,)), ("lc_bonus", (1, 3)))
    assert mesh.group(BONUS_GROUP) == (1, 3)
    assert mesh.group("nothing") is None
    assert (mesh.name, mesh.version, mesh.tags) == ("tetra", 3, ("3d", "tiny"))
    assert mesh.description == "A tetrahedron: four vertices, each next to every other."
    assert mesh.lines == ()
    assert mesh_edges(mesh) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]


def test_object_name_is_not_the_board_name() -> None:
    assert parse_obj("o Cube\nv 0 0 0\n").name == ""


def test_defaults_without_directives() -> None:
    mesh = parse_obj("v 0 0 0\n")
    assert (mesh.name, mesh.version, mesh.description, mesh.tags) == ("", 1, "", ())
    assert (mesh.faces, mesh.lines, mesh.groups) == ((), (), ())


def test_format_writes_header_directives_and_one_based_indices() -> None:
    text = format_obj(parse_obj(TETRA))
    lines = text.splitlines()
    assert lines[:6] == [
        HEADER,
        "# lc name tetra",
        "# lc version 3",
        "# lc description A tetrahedron: four vertices, each next to every other.",
        "# lc tags 3d,tiny",
        "o tetra",
    ]
    assert "v 1.0 -1.0 -1.0" in lines
    assert "f 2 4 3" in lines
    assert lines[-2:] == ["g lc_bonus", "p 2 4"]
    assert text.endswith("\n")
    assert parse_obj(text) == parse_obj(TETRA)


def test_format_splits_long_point_lists_and_they_join_again() -> None:
    mesh = Mesh(vertices=((0.0, 0.0, 0.0),) * 40, groups=(("lc_bonus", tuple(range(40))),))
    text = format_obj(mesh)
    assert text.count("\np ") == 3
    assert parse_obj(text) == mesh


@pytest.mark.parametrize(
    "variant",
    [
        TETRA.replace("\n", "\r\n"),
        "\ufeff" + TETRA,
        TETRA.rstrip("\n"),
        TETRA.replace("v 1 1 1", "v  1\t1   1.0   # first corner"),
        TETRA.replace("f 1 2 3", "f 1/1/1 2/2/1 3/3/1").replace(
            "o Tetra", "vt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1"
        ),
        TETRA.replace("f 1 2 3", "f 1//1 2//1 3//1").replace("o Tetra", "vn 0 0 1"),
        TETRA.replace("f 1 2 3", "f -4 -3 -2"),
        TETRA.replace("f 1 2 3", "f 1 \\\n 2 \\\n  3"),
        TETRA.replace("o Tetra", "mtllib a.mtl b.mtl\ns 1\nusemtl steel\ng shell\n\n   \n"),
        TETRA.replace("# lc tags 3d, tiny", "#lc tags 3d,tiny\n# lc-ish comments are plain"),
    ],
)
def test_tolerates_what_real_files_do(variant: str) -> None:
    assert parse_obj(variant) == parse_obj(TETRA)


def test_lines_and_points_and_groups() -> None:
    mesh = parse_obj(
        "v 0 0 0\nv 1 0 0\nv 2 0 0\nvt 0 0\nl 1 2 3 1\nl 3/1 2\np 2\ng a b\np 1\ng\np 3\ng b\np 2\n"
    )
    assert mesh.lines == ((0, 1, 2, 0), (2, 1))
    assert mesh_edges(mesh) == [(0, 1), (0, 2), (1, 2)]
    # points before any 'g' and after a bare 'g' are in the default group
    assert mesh.groups == (("default", (1, 2)), ("a", (0,)), ("b", (0, 1)))
    assert parse_obj(format_obj(mesh)) == mesh


def test_continuation_error_points_at_the_physical_line() -> None:
    with pytest.raises(FormatError) as info:
        parse_obj("v 0 0 0\nv 1 0 0\nf 1 \\\n  1 \\\n 2\n", "c.obj")
    err = info.value
    # the face repeats vertex 1: its second '1' is on line 4, column 3
    assert (err.source, err.line, err.column) == ("c.obj", 4, 3)


def test_a_comment_line_never_continues() -> None:
    mesh = parse_obj("# see below \\\nv 0 0 0\n")
    assert mesh.vertices == ((0.0, 0.0, 0.0),)


def test_error_carries_source_line_column_expected_found() -> None:
    with pytest.raises(FormatError) as info:
        parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", "tri.obj")
    err = info.value
    assert (err.source, err.line, err.column) == ("tri.obj", 4, 7)
    assert err.expected.startswith("a vertex index from 1 to 3")
    assert err.found == "'4'"
    assert str(err).startswith("tri.obj:4:7: expected a vertex index")


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_error_vectors(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    m = re.fullmatch(r"# error: ([0-9]+): (.+)", text.splitlines()[0])
    assert m is not None, "a bad vector opens with '# error: LINE: text'"
    with pytest.raises(FormatError) as info:
        parse_obj(text, path.name)
    err = info.value
    assert err.source == path.name
    assert err.line == int(m.group(1)), str(err)
    assert m.group(2) in str(err)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_vectors(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    m = re.fullmatch(r"# expect: (.+)", text.splitlines()[0])
    assert m is not None, "a good vector opens with '# expect: key=value ...'"
    expect = dict(item.split("=", 1) for item in m.group(1).split())
    mesh = parse_obj(text, path.name)
    assert len(mesh.vertices) == int(expect["vertices"])
    assert len(mesh.faces) == int(expect["faces"])
    assert len(mesh.lines) == int(expect["lines"])
    assert len(mesh_edges(mesh)) == int(expect["edges"])
    groups = ",".join(
        f"{name}:{'-'.join(str(i + 1) for i in points)}" for name, points in mesh.groups
    )
    assert groups == expect["groups"]
    assert parse_obj(format_obj(mesh)) == mesh


def test_vectors_cover_every_required_failure() -> None:
    names = {p.name for p in BAD}
    for required in (
        "bad-number.obj",
        "bad-nan.obj",
        "bad-face-zero.obj",
        "bad-face-range.obj",
        "bad-face-two-vertices.obj",
        "bad-face-repeat.obj",
        "bad-few-coordinates.obj",
        "bad-empty.obj",
        "bad-unknown.obj",
    ):
        assert required in names


@pytest.mark.parametrize(
    "mesh",
    [
        cube(1),
        cube(3),
        icosahedron(1),
        icosahedron(2),
        geodesic_sphere(2),
        torus(6, 5),
        cylinder(6, 3),
    ],
    ids=["cube1", "cube3", "ico1", "ico2", "geo2", "torus", "cylinder"],
)
def test_generated_meshes_round_trip(mesh: Mesh) -> None:
    text = format_obj(mesh)
    back = parse_obj(text)
    assert back == mesh
    assert format_obj(back) == text


def test_start_group_names() -> None:
    assert start_group(4, 3) == "lc_start_4_3"


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"vertices": ()}, "at least one vertex"),
        ({"vertices": ((0.0, math.nan, 0.0),)}, "finite"),
        ({"vertices": ((0.0, 0.0),)}, "three finite numbers"),
        ({"faces": ((0, 1),)}, "3 or more distinct"),
        ({"faces": ((0, 1, 0),)}, "3 or more distinct"),
        ({"faces": ((0, 1, 5),)}, "outside 0..2"),
        ({"lines": ((0, 0),)}, "twice in a row"),
        ({"groups": (("a b", (0,)),)}, "group name"),
        ({"groups": (("a", (0,)), ("a", (1,)))}, "group name"),
        ({"groups": (("a", ()),)}, "no point elements"),
        ({"name": "x@1"}, "mesh name"),
        ({"version": 0}, "version"),
        ({"description": "two\nlines"}, "description"),
        ({"description": " padded"}, "description"),
        ({"tags": ("a,b",)}, "tag"),
    ],
)
def test_mesh_checks_itself(kwargs: dict[str, object], fragment: str) -> None:
    fields: dict[str, object] = {"vertices": ((0.0, 0.0, 0.0),) * 3}
    fields.update(kwargs)
    with pytest.raises(ValueError, match=fragment):
        Mesh(**fields)  # type: ignore[arg-type]


# -- fuzzing ---------------------------------------------------------------------------

_KEYWORDS = ["v", "v", "vt", "vn", "f", "f", "l", "p", "g", "s", "o", "#", "# lc", "curv", ""]
_ARGS = [
    "1", "2", "3", "-1", "-2", "0.5", "-0.0", "1e3", "1/1", "1//1", "1/1/1", "lc_bonus",
    "name", "version", "tags", "description", "off", "a,b",
    "0", "99", "1e999", "nan", "x", "2/", "\\", "@", "\t", "",
]  # fmt: skip


@st.composite
def _obj_like(draw: st.DrawFn) -> str:
    """Mostly well-formed statements with sometimes a bad word, so both paths are taken."""
    line = st.tuples(
        st.sampled_from(_KEYWORDS), st.lists(st.sampled_from(_ARGS[:18]), max_size=5)
    ).map(lambda kw: " ".join([kw[0], *kw[1]]))
    bad = st.lists(st.sampled_from(_ARGS), min_size=1, max_size=4).map(" ".join)
    lines = draw(st.lists(st.one_of(line, line, line, bad), max_size=10))
    if draw(st.booleans()):
        lines = ["v 0 0 0", "v 1 0 0", "v 0 1 0", *lines]
    return draw(st.sampled_from(["\n", "\r\n"])).join(lines)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_obj_like(), st.text(max_size=80)))
def test_fuzz_parse_returns_a_mesh_or_raises_format_error(text: str) -> None:
    try:
        mesh = parse_obj(text, "fuzz.obj")
    except FormatError as err:
        assert err.source == "fuzz.obj"
        assert 1 <= err.line <= text.count("\n") + 2
        return
    assert parse_obj(format_obj(mesh)) == mesh


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_fuzz_mutated_valid_text(data: st.DataObject) -> None:
    text = mutate(TETRA, data, " \t\n0123456789-/\\#.pfvlg@,")
    try:
        mesh = parse_obj(text)
    except FormatError:
        return
    assert parse_obj(format_obj(mesh)) == mesh


_NAME_CHARS = st.characters(min_codepoint=0x21, exclude_characters="#\\\x7f")
_floats = st.floats(allow_nan=False, allow_infinity=False)


@st.composite
def _meshes(draw: st.DrawFn) -> Mesh:
    n = draw(st.integers(1, 8))
    vertices = tuple(draw(st.tuples(_floats, _floats, _floats)) for _ in range(n))
    faces = []
    if n >= 3:
        for _ in range(draw(st.integers(0, 4))):
            k = draw(st.integers(3, n))
            faces.append(tuple(draw(st.permutations(range(n)))[:k]))
    lines = []
    if n >= 2:
        for _ in range(draw(st.integers(0, 2))):
            line = [draw(st.integers(0, n - 1))]
            for _ in range(draw(st.integers(1, 4))):
                line.append(draw(st.integers(0, n - 1).filter(lambda v, last=line[-1]: v != last)))
            lines.append(tuple(line))
    names = draw(st.lists(st.text(_NAME_CHARS, min_size=1, max_size=6), unique=True, max_size=3))
    groups = tuple(
        (name, tuple(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=5))))
        for name in names
    )
    text = st.characters(exclude_categories=("Cc",), exclude_characters="\x7f")
    description = draw(st.text(text, max_size=20)).strip(" \t")
    return Mesh(
        vertices=vertices,
        faces=tuple(faces),
        name=draw(st.text(_NAME_CHARS.filter(lambda c: c != "@"), max_size=6)),
        groups=groups,
        lines=tuple(lines),
        version=draw(st.integers(1, 10**9 - 1)),
        description=description,
        tags=tuple(
            draw(
                st.lists(
                    st.text(_NAME_CHARS.filter(lambda c: c != ","), min_size=1, max_size=4),
                    max_size=3,
                )
            )
        ),
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_meshes())
def test_fuzz_random_meshes_round_trip(mesh: Mesh) -> None:
    assert parse_obj(format_obj(mesh)) == mesh

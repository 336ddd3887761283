"""Wavefront OBJ meshes: the polygonal subset 3D boards need, text in and `Mesh` out.

The 3D variant plays on the graph of a mesh (vertices are cells, the sides of faces are
the moves), and OBJ is the one mesh format every modelling tool and viewer reads and
writes as plain text. So a 3D board is an ordinary ``.obj`` file: people can draw one in
Blender and look at ours in any viewer. lightcycle's own data rides on standard
statements that viewers already understand or skip:

* start vertices and bonus vertices are *point elements* (``p``) in named groups:
  ``g lc_start_<players>_<player>`` (player counted from 1) followed by ``p i j ...``
  (that player's cycles, in cycle order), and ``g lc_bonus`` followed by ``p ...``;
* the board's metadata are comment directives, invisible to other tools::

      # lc name cube            one word, no '@' (the registry name)
      # lc version 2            a whole number from 1 (bumped when the layout changes)
      # lc description TEXT     the rest of the line
      # lc tags 3d,graph        comma-separated words

What is read (everything else is a `FormatError`, because a silently skipped statement
would be a silently different board):

``v x y z [w]``
    a vertex; ``w`` (a weight for rational curves) and the common ``v x y z r g b``
    colour extension are accepted and dropped.
``f a b c ...``
    a face of 3 or more distinct vertices, each written ``v``, ``v/vt``, ``v//vn`` or
    ``v/vt/vn``. Indices count from 1, or back from the newest item when negative
    (``-1`` is the last vertex defined); they must name an item defined *above* the face.
``l a b ...``
    a polyline (``v`` or ``v/vt`` references); each consecutive pair is an edge. Kept in
    `Mesh.lines`, separately from the faces, so a file is written back as it was meant.
``p a b ...``
    point elements (plain ``v`` references), collected per active group in `Mesh.groups`.
``g [name ...]``
    makes the named groups active (``default`` when no name is given).
``vt``, ``vn``, ``vp``
    texture, normal and parameter vertices: checked (numbers, count) and counted so face
    references to them can be checked, then dropped.
``o``, ``s``, ``usemtl``, ``mtllib`` and the render attributes ``mg``, ``lod``,
``bevel``, ``c_interp``, ``d_interp``, ``shadow_obj``, ``trace_obj``, ``maplib``, ``usemap``
    accepted and ignored: they change how a mesh looks, not its graph.
``#`` comments, blank lines, and ``\\`` at the end of a line
    a ``#`` starts a comment anywhere on a line; a line whose last non-blank character is
    a backslash continues on the next line (comment lines never continue).

Free-form geometry (``cstype``, ``curv``, ``surf`` ...) is refused: it has no vertices a
cycle could stand on. Only blanks and tabs separate words, only ``\\n`` ends a line (a
trailing ``\\r`` is dropped), and numbers are plain ASCII decimals, so every file means
the same to every reader.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise

from lightcycle.formats.errors import FormatError, show
from lightcycle.formats.gridtext import text_lines

Vec3 = tuple[float, float, float]
"""A vertex position ``(x, y, z)``."""

DEFAULT_GROUP = "default"
"""The group of point elements written before any ``g`` statement (as the OBJ spec says)."""

LC_PREFIX = "lc_"
"""Group names starting with this belong to lightcycle (start and bonus vertices)."""

BONUS_GROUP = "lc_bonus"
"""The group whose point elements are the board's bonus vertices."""

HEADER = "# Wavefront OBJ board for lightcycle: lc_ groups and '# lc' lines are its data"
"""The first line `format_obj` writes, so someone opening a file knows what the extras are."""

DIRECTIVES = ("name", "version", "description", "tags")
"""The ``# lc KEY VALUE`` comment directives, in the order `format_obj` writes them."""

_NAME = re.compile(r"[^\x00-\x20\x7f#\\]+")
_BOARD_NAME = re.compile(r"[^\x00-\x20\x7f#\\@]+")
_TAG = re.compile(r"[^\x00-\x20\x7f#\\,]+")
_TEXT = re.compile(r"[^\x00-\x08\x0a-\x1f\x7f]*")
_WORD = re.compile(r"[^ \t]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INDEX = re.compile(r"-?[0-9]{1,18}")
_VERSION = re.compile(r"[0-9]{1,9}")
_FACE_REF = re.compile(
    r"(-?[0-9]{1,18})(?:/(-?[0-9]{1,18})|//(-?[0-9]{1,18})|/(-?[0-9]{1,18})/(-?[0-9]{1,18}))?"
)
_LINE_REF = re.compile(r"(-?[0-9]{1,18})(?:/(-?[0-9]{1,18}))?")
_SMOOTHING = re.compile(r"off|on|[0-9]{1,18}")

_IGNORED = frozenset(
    {
        "o",
        "usemtl",
        "mtllib",
        "mg",
        "lod",
        "bevel",
        "c_interp",
        "d_interp",
        "shadow_obj",
        "trace_obj",
        "maplib",
        "usemap",
    }
)
_STATEMENTS = "v, vt, vn, vp, f, l, p, g, o, s, usemtl, mtllib"
_POINTS_PER_LINE = 16
_KINDS = {
    "v": ("vertex", "vertices"),
    "vt": ("texture vertex", "texture vertices"),
    "vn": ("normal", "normals"),
}
_NOT_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)


def start_group(players: int, player: int) -> str:
    """The group name holding ``player``'s start vertices (1-based) in a ``players`` game."""
    return f"{LC_PREFIX}start_{players}_{player}"


@dataclass(frozen=True)
class Mesh:
    """A polygon mesh as an OBJ file states it, before anyone decides it is a board.

    Every index is 0-based (the file's ``1`` is ``0`` here). A `Mesh` checks itself when
    built, so whatever exists can be written by `format_obj` and read back equal.

    Attributes:
        vertices: the positions, in file order.
        faces: polygons of 3 or more distinct vertex indices, in winding order.
        name: the board name from ``# lc name`` (``""`` when absent). One word without
            ``@``; the ``o`` statement is *not* used, because modelling tools name every
            object ("Cube") and the file name makes a better default.
        groups: ``(group name, vertex indices)`` for every group that has point elements,
            in order of first appearance; several ``p`` lines of one group are joined.
        lines: polylines from ``l``, each of 2 or more vertex indices, no vertex twice in
            a row (a closed loop repeats its first vertex at the end).
        version: from ``# lc version`` (1 when absent).
        description: from ``# lc description``: one line, no blanks at either end.
        tags: from ``# lc tags``, in file order.

    Raises:
        ValueError: when the fields break those rules, naming the first problem.
    """

    vertices: tuple[Vec3, ...]
    faces: tuple[tuple[int, ...], ...] = ()
    name: str = ""
    groups: tuple[tuple[str, tuple[int, ...]], ...] = ()
    lines: tuple[tuple[int, ...], ...] = ()
    version: int = 1
    description: str = ""
    tags: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        n = len(self.vertices)
        if n == 0:
            raise ValueError("a mesh needs at least one vertex")
        for i, v in enumerate(self.vertices):
            if len(v) != 3 or not all(isinstance(c, int | float) and math.isfinite(c) for c in v):
                raise ValueError(f"vertex {i} is not three finite numbers: {v!r}")
        for face in self.faces:
            _check_indices(face, n, "face")
            if len(face) < 3 or len(set(face)) != len(face):
                raise ValueError(f"face {face!r} needs 3 or more distinct vertices")
        for line in self.lines:
            _check_indices(line, n, "line")
            if len(line) < 2 or any(a == b for a, b in pairwise(line)):
                raise ValueError(f"line {line!r} needs 2 or more vertices, none twice in a row")
        names: set[str] = set()
        for group, points in self.groups:
            if not _NAME.fullmatch(group) or group in names:
                raise ValueError(f"group name {group!r} is not one new word without '#' or '\\'")
            names.add(group)
            _check_indices(points, n, f"group {group}")
            if not points:
                raise ValueError(f"group {group!r} has no point elements")
        if self.name and not _BOARD_NAME.fullmatch(self.name):
            raise ValueError(f"mesh name {self.name!r} is not one word without '@', '#' or '\\'")
        if isinstance(self.version, bool) or not 1 <= self.version <= 999_999_999:
            raise ValueError(f"version {self.version!r} is not a whole number from 1")
        d = self.description
        if not _TEXT.fullmatch(d) or d != d.strip(" \t"):
            raise ValueError(
                f"description {d!r} is not one line without control characters or blanks at "
                "the ends"
            )
        for tag in self.tags:
            if not _TAG.fullmatch(tag):
                raise ValueError(f"tag {tag!r} is not one word without ',', '#' or '\\'")

    def group(self, name: str) -> tuple[int, ...] | None:
        """The point elements of group ``name``, or ``None`` when it has none."""
        for group, points in self.groups:
            if group == name:
                return points
        return None


def _check_indices(indices: tuple[int, ...], n: int, what: str) -> None:
    for i in indices:
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n:
            raise ValueError(f"{what} {indices!r} names vertex {i!r} outside 0..{n - 1}")


def mesh_edges(mesh: Mesh) -> list[tuple[int, int]]:
    """The mesh's graph: every undirected edge once, as ``(a, b)`` with ``a < b``, sorted.

    A face contributes its sides (the last vertex joins the first); a polyline its
    consecutive pairs. Diagonals of quads are *not* edges: on a quad grid a cycle moves
    like on a square grid, which is what makes a cube's surface play like a board.
    """
    edges: set[tuple[int, int]] = set()
    for face in mesh.faces:
        for a, b in zip(face, face[1:] + face[:1], strict=True):
            edges.add((a, b) if a < b else (b, a))
    for line in mesh.lines:
        for a, b in pairwise(line):
            edges.add((a, b) if a < b else (b, a))
    return sorted(edges)


def format_obj(mesh: Mesh) -> str:
    """Write ``mesh`` as OBJ text that `parse_obj` reads back equal.

    Coordinates are written with ``repr``, the shortest text that reads back to the same
    float, so a round trip is exact. The ``o`` line (the name again) is only for viewers.
    Point groups come last, after every face, so their ``g`` lines do not regroup faces.
    """
    out = [HEADER]
    if mesh.name:
        out.append(f"# lc name {mesh.name}")
    out.append(f"# lc version {mesh.version}")
    if mesh.description:
        out.append(f"# lc description {mesh.description}")
    if mesh.tags:
        out.append(f"# lc tags {','.join(mesh.tags)}")
    if mesh.name:
        out.append(f"o {mesh.name}")
    out.extend(f"v {_num(x)} {_num(y)} {_num(z)}" for x, y, z in mesh.vertices)
    out.extend("f " + " ".join(str(i + 1) for i in face) for face in mesh.faces)
    out.extend("l " + " ".join(str(i + 1) for i in line) for line in mesh.lines)
    for group, points in mesh.groups:
        out.append(f"g {group}")
        for k in range(0, len(points), _POINTS_PER_LINE):
            out.append("p " + " ".join(str(i + 1) for i in points[k : k + _POINTS_PER_LINE]))
    return "\n".join(out) + "\n"


def _num(value: float) -> str:
    # repr(float) round-trips exactly; ints are written as floats so the text looks uniform.
    return repr(float(value) + 0.0)


def parse_obj(text: str, source: str = "<string>") -> Mesh:
    """Read the polygonal subset of OBJ described in the module docstring.

    Args:
        text: the whole file.
        source: the file name to put in error messages.

    Returns:
        The mesh, with 0-based indices.

    Raises:
        FormatError: at the first problem, with its line, column and what was expected:
            a bad number, an index that is 0 or names no item defined so far, a face with
            fewer than 3 or repeated vertices, a vertex with too few coordinates, an
            unknown statement, a bad ``# lc`` directive, or no vertices at all.
    """
    return _Parser(text, source).parse()


class _Logical:
    """One statement, possibly joined from several physical lines by ``\\``.

    Positions in the joined text are mapped back to the physical line and column they
    came from, so an error after a continuation still points at the right place.
    """

    def __init__(self, line: int) -> None:
        self.line = line
        self.text = ""
        self.pieces: list[tuple[int, int]] = []  # (offset in text, physical line)

    def add(self, piece: str, line: int) -> None:
        self.pieces.append((len(self.text), line))
        self.text += piece

    def where(self, offset: int) -> tuple[int, int]:
        """The ``(line, column)`` (both 1-based) of ``offset`` in the joined text."""
        start, line = self.pieces[0]
        for s, n in self.pieces:
            if s <= offset:
                start, line = s, n
        return line, offset - start + 1

    def words(self) -> list[tuple[int, str]]:
        """``(offset, word)`` for the words before any ``#`` comment."""
        body = self.text.split("#", 1)[0]
        return [(m.start(), m.group()) for m in _WORD.finditer(body)]


class _Parser:
    """One pass over the statements, keeping only what a `Mesh` holds.

    Texture and normal vertices are counted rather than stored: nothing downstream needs
    them, but a face that points at one that does not exist is still a broken file.
    """

    def __init__(self, text: str, source: str) -> None:
        self.lines = text_lines(text)
        self.source = source
        self.vertices: list[Vec3] = []
        self.counts = {"vt": 0, "vn": 0, "vp": 0}
        self.faces: list[tuple[int, ...]] = []
        self.polylines: list[tuple[int, ...]] = []
        self.groups: dict[str, list[int]] = {}
        self.active: tuple[str, ...] = (DEFAULT_GROUP,)
        self.meta: dict[str, str] = {}
        self.stmt = _Logical(1)

    def error(self, offset: int, expected: str, found: str) -> FormatError:
        """A `FormatError` at ``offset`` in the current statement (its physical line)."""
        line, column = self.stmt.where(offset)
        return FormatError(self.source, line, column, expected, found)

    def statements(self) -> Iterator[_Logical | str]:
        """Yield each statement, or the text after ``#`` for a comment line."""
        lines = self.lines
        i = 0
        while i < len(lines):
            raw = lines[i]
            stripped = raw.lstrip(" \t")
            if stripped.startswith("#"):
                self.stmt = _Logical(i + 1)
                self.stmt.add(raw, i + 1)
                yield stripped[1:]
                i += 1
                continue
            stmt = _Logical(i + 1)
            while True:
                raw = lines[i]
                i += 1
                body = raw.rstrip(" \t")
                continues = body.endswith("\\") and "#" not in raw
                stmt.add(body[:-1] + " " if continues else raw, i)
                if not continues or i == len(lines):
                    break
            self.stmt = stmt
            yield stmt

    def parse(self) -> Mesh:
        for stmt in self.statements():
            if isinstance(stmt, str):
                self.comment(stmt)
                continue
            words = stmt.words()
            if words:
                self.statement(words)
        if not self.vertices:
            raise FormatError(
                self.source,
                len(self.lines) + 1,
                None,
                "at least one vertex 'v x y z'",
                "end of file without vertices",
            )
        meta = self.meta
        return Mesh(
            vertices=tuple(self.vertices),
            faces=tuple(self.faces),
            name=meta.get("name", ""),
            groups=tuple((g, tuple(p)) for g, p in self.groups.items()),
            lines=tuple(self.polylines),
            version=int(meta.get("version", "1")),
            description=meta.get("description", ""),
            tags=tuple(meta["tags"].split(",")) if "tags" in meta else (),
        )

    # -- statements ------------------------------------------------------------------

    def statement(self, words: list[tuple[int, str]]) -> None:
        (at, keyword), args = words[0], words[1:]
        if keyword == "v":
            self.vertex(at, args)
        elif keyword in ("vt", "vp"):
            self.numbers(at, keyword, args, 1, 3, "1 to 3 numbers (u [v [w]])")
            self.counts[keyword] += 1
        elif keyword == "vn":
            self.numbers(at, keyword, args, 3, 3, "3 numbers (x y z)")
            self.counts["vn"] += 1
        elif keyword == "f":
            self.face(at, args)
        elif keyword == "l":
            self.polyline(at, args)
        elif keyword == "p":
            self.points(at, args)
        elif keyword == "g":
            self.group(args)
        elif keyword == "s":
            if len(args) != 1 or not _SMOOTHING.fullmatch(args[0][1]):
                found = show(args[0][1]) if args else "end of line"
                raise self.error(
                    args[0][0] if args else at, "a smoothing group 'off' or a number", found
                )
        elif keyword in _IGNORED:
            if not args:
                raise self.error(at, f"a name after {keyword!r}", "end of line")
        else:
            raise self.error(at, f"an OBJ statement ({_STATEMENTS} ...)", show(keyword))

    def numbers(
        self, at: int, keyword: str, args: list[tuple[int, str]], low: int, high: int, what: str
    ) -> list[float]:
        if len(args) < low:
            raise self.error(at, f"{keyword!r} with {what}", _count(len(args), "number"))
        if len(args) > high:
            offset, word = args[high]
            raise self.error(offset, f"end of line ({keyword!r} takes {what})", show(word))
        return [self.number(offset, word) for offset, word in args]

    def number(self, offset: int, word: str) -> float:
        if _NOT_FINITE.fullmatch(word):
            raise self.error(offset, "a finite number", show(word))
        if not _NUMBER.fullmatch(word):
            raise self.error(offset, "a decimal number such as 1, -0.5 or 2.5e-3", show(word))
        value = float(word)
        if not math.isfinite(value):
            raise self.error(offset, "a number small enough to be finite", show(word))
        return value

    def vertex(self, at: int, args: list[tuple[int, str]]) -> None:
        what = "3 coordinates (x y z, or x y z w, or x y z r g b)"
        if len(args) < 3:
            raise self.error(at, f"'v' with {what}", _count(len(args), "number"))
        if len(args) not in (3, 4, 6):
            offset, word = args[6 if len(args) > 6 else 4]
            raise self.error(offset, f"end of line ('v' takes {what})", show(word))
        values = [self.number(offset, word) for offset, word in args]
        self.vertices.append((values[0], values[1], values[2]))

    def index(self, offset: int, token: str, kind: str) -> int:
        """Resolve a 1-based or negative OBJ reference to a 0-based index."""
        count = len(self.vertices) if kind == "v" else self.counts[kind]
        what, plural = _KINDS[kind]
        if not _INDEX.fullmatch(token):
            raise self.error(offset, f"a {what} index", show(token))
        n = int(token)
        if n == 0:
            raise self.error(
                offset, f"a {what} index other than 0 (OBJ counts from 1)", show(token)
            )
        resolved = n - 1 if n > 0 else count + n
        if not 0 <= resolved < count:
            expected = (
                f"a {what} index from 1 to {count} or -1 to -{count} (the {plural} defined "
                "above this line)"
                if count
                else f"a {what} defined above this line"
            )
            raise self.error(offset, expected, show(token))
        return resolved

    def references(
        self,
        args: list[tuple[int, str]],
        pattern: re.Pattern[str],
        kinds: tuple[str, ...],
        forms: str,
    ) -> list[int]:
        """Resolve ``v[/vt][/vn]`` words to vertex indices, checking the other indices too."""
        result: list[int] = []
        for offset, word in args:
            m = pattern.fullmatch(word)
            if m is None:
                raise self.error(offset, f"a vertex reference ({forms})", show(word))
            result.append(self.index(offset, m.group(1), "v"))
            for g, kind in enumerate(kinds, start=2):
                part = m.group(g)
                if part is not None:
                    self.index(offset + m.start(g), part, kind)
        return result

    def face(self, at: int, args: list[tuple[int, str]]) -> None:
        refs = self.references(
            args, _FACE_REF, ("vt", "vn", "vt", "vn"), "v, v/vt, v//vn or v/vt/vn"
        )
        if len(refs) < 3:
            raise self.error(at, "a face with at least 3 vertices", _count(len(refs), "vertex"))
        seen: set[int] = set()
        for (offset, word), v in zip(args, refs, strict=True):
            if v in seen:
                raise self.error(
                    offset, "a face with no vertex twice", f"{show(word)} (vertex {v + 1} again)"
                )
            seen.add(v)
        self.faces.append(tuple(refs))

    def polyline(self, at: int, args: list[tuple[int, str]]) -> None:
        refs = self.references(args, _LINE_REF, ("vt",), "v or v/vt")
        if len(refs) < 2:
            raise self.error(at, "a line with at least 2 vertices", _count(len(refs), "vertex"))
        for k in range(1, len(refs)):
            if refs[k] == refs[k - 1]:
                offset, word = args[k]
                raise self.error(
                    offset,
                    "a line with no vertex twice in a row",
                    f"{show(word)} (vertex {refs[k] + 1} again)",
                )
        self.polylines.append(tuple(refs))

    def points(self, at: int, args: list[tuple[int, str]]) -> None:
        if not args:
            raise self.error(at, "'p' with at least one vertex index", "end of line")
        for offset, word in args:
            if not _INDEX.fullmatch(word):
                raise self.error(offset, "a plain vertex index ('p' takes no '/')", show(word))
        refs = [self.index(offset, word, "v") for offset, word in args]
        for group in self.active:
            self.groups.setdefault(group, []).extend(refs)

    def group(self, args: list[tuple[int, str]]) -> None:
        for offset, word in args:
            if not _NAME.fullmatch(word):
                raise self.error(
                    offset, "a group name without control characters or '\\'", show(word)
                )
        self.active = tuple(dict.fromkeys(w for _, w in args)) or (DEFAULT_GROUP,)

    # -- lightcycle directives ----------------------------------------------------------

    def comment(self, body: str) -> None:
        words = [(m.start(), m.group()) for m in _WORD.finditer(body)]
        if not words or words[0][1] != "lc":
            return
        base = len(self.stmt.text) - len(body)  # offset of the text after '#'
        if len(words) == 1:
            raise self.error(
                base + words[0][0] + 2,
                f"a directive after '# lc' ({', '.join(DIRECTIVES)})",
                "end of line",
            )
        at, key = words[1]
        at += base
        if key not in DIRECTIVES:
            raise self.error(at, f"a '# lc' directive ({', '.join(DIRECTIVES)})", show(key))
        if key in self.meta:
            raise self.error(at, f"one '# lc {key}' line", f"a second '# lc {key}'")
        rest = body[words[2][0] :].rstrip(" \t") if len(words) > 2 else ""
        value_at = base + words[2][0] if len(words) > 2 else at + len(key)
        if not rest:
            raise self.error(value_at, f"a value after '# lc {key}'", "end of line")
        if key == "name":
            if not _BOARD_NAME.fullmatch(rest):
                raise self.error(
                    value_at, "a board name: one word without '@', '#' or '\\'", show(rest)
                )
        elif key == "version":
            if not _VERSION.fullmatch(rest) or int(rest) < 1:
                raise self.error(value_at, "a version: a whole number from 1", show(rest))
        elif key == "tags":
            tags = [t.strip(" \t") for t in rest.split(",")]
            if not all(_TAG.fullmatch(t) for t in tags):
                raise self.error(
                    value_at, "tags: words separated by commas, e.g. '3d,graph'", show(rest)
                )
            rest = ",".join(tags)
        elif not _TEXT.fullmatch(rest):
            raise self.error(value_at, "a description without control characters", show(rest))
        self.meta[key] = rest


def _count(n: int, noun: str) -> str:
    if n == 0:
        return "end of line"
    plural = "vertices" if noun == "vertex" else noun + "s"
    return f"{n} {noun if n == 1 else plural}"

"""Map files <-> `MapSpec`: format detection, lightcycle's metadata parameters, files.

The formats in `lightcycle.formats` only turn text into a neutral `GridText`; this module
decides what that means for a game. It reads both map formats (telling them apart by the
first line) and writes the multi-player one with our metadata as extra ``key value``
parameters, which the contest format promised every reader would tolerate:

``name``
    the registry name (default: the file stem).
``version``
    a positive integer, bumped whenever the layout changes (default 1).
``players``
    the player counts the map is made for, e.g. ``2,4`` (``2-8`` ranges allowed).
``tags``
    comma-separated words (``open,small``).
``description``
    the rest of the line.
``wrap``
    ``1`` for a torus: moves off one edge come back on the other.
``bonus``
    ``x,y`` cells separated by blanks: the map's bonus cells.
``extra_starts``
    more cycles per player for team variants, e.g. ``a 1,3 1,5; b 8,6 8,4``; the letter
    in the map is each player's first cycle.

Every problem with a parameter is a `FormatError` pointing at the parameter's line.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from lightcycle.core.bitset import from_cells, iter_cells
from lightcycle.core.state import Board
from lightcycle.core.topology import GridTopology
from lightcycle.formats.ascii2010 import format_ascii2010, parse_ascii2010
from lightcycle.formats.errors import FormatError, show
from lightcycle.formats.gridtext import GridText, text_lines
from lightcycle.formats.mpmap import LETTERS, format_mpmap, param_position, parse_mpmap
from lightcycle.maps.spec import MapError, MapSpec

METADATA = ("name", "version", "players", "tags", "description", "wrap", "bonus", "extra_starts")
"""The parameters this module interprets, in the order `map_to_mpmap` writes them."""

_HEADER_2010 = re.compile(r"\s*[0-9]+\s+[0-9]+\s*")
_NAME = re.compile(r"[^\s@]+")
_COUNT = re.compile(r"([0-9]{1,2})(?:-([0-9]{1,2}))?")
_TAG = re.compile(r"[^\s,]+")
_CELL = re.compile(r"([0-9]{1,5}),([0-9]{1,5})")
_WORD = re.compile(r"\S+")
_OBJ_START = re.compile(r"\s*(#(\s|$)|(v|vt|vn|f|l|p|o|g|s|usemtl|mtllib)\s)")


def detect_format(text: str, source: str = "") -> str:
    """Return ``"ascii2010"``, ``"mpmap"`` or ``"obj"`` for map ``text``.

    A ``source`` ending in ``.obj`` is an OBJ board. Otherwise the first non-blank line
    tells: a 2010 map opens with ``WIDTH HEIGHT``; an OBJ file with a ``# `` comment or
    an OBJ statement (``v``, ``f``, ``g`` ...); a multi-player map with a ``key value``
    line whose key is a word.
    """
    if source.lower().endswith(".obj"):
        return "obj"
    for line in text_lines(text):
        if line.strip():
            if _HEADER_2010.fullmatch(line):
                return "ascii2010"
            return "obj" if _OBJ_START.match(line) else "mpmap"
    return "mpmap"


def map_from_text(text: str, source: str = "<string>", name: str | None = None) -> MapSpec:
    """Read a map in either format.

    Args:
        text: the file's text.
        source: the file name for error messages.
        name: the map's name when the text has no ``name`` parameter; by default the stem
            of ``source`` (``maps/ring.txt`` -> ``ring``), or ``unnamed``.

    Raises:
        FormatError: when the text is malformed or a metadata parameter is invalid.
        MapError: when an OBJ mesh is not a playable board.
    """
    fmt = detect_format(text, source)
    if fmt == "obj":
        from lightcycle.maps.meshes import map_from_obj  # meshes builds on this module

        return map_from_obj(text, source=source, name=name)
    if name is None:
        name = Path(source).stem if source and not source.startswith("<") else "unnamed"
    # A name is written back as one word (see map_to_mpmap) and ``@`` separates the
    # version in `get_map`, so a file called ``my map.txt`` becomes ``my-map``.
    name = re.sub(r"[\s@]+", "-", name).strip("-") or "unnamed"
    if fmt == "ascii2010":
        grid = parse_ascii2010(text, source)
        return _grid_spec(grid, name, wrap=False)
    return _Metadata(parse_mpmap(text, source), text, source, name).spec()


def map_from_file(path: str | os.PathLike[str]) -> MapSpec:
    """Read a map file (any of the three formats; UTF-8).

    The map is named after the file stem unless the file has a ``name`` parameter.

    Raises:
        FormatError: when the file is not valid UTF-8 or is malformed.
        MapError: when an OBJ mesh is not a playable board.
        OSError: when the file cannot be read.
    """
    p = Path(path)
    data = p.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise FormatError(
            str(p), line, column, "UTF-8 text", f"the byte {data[exc.start]:#04x}"
        ) from None
    return map_from_text(text, source=str(p), name=p.stem)


def _grid_spec(grid: GridText, name: str, wrap: bool) -> MapSpec:
    topo = GridTopology(grid.width, grid.height, wrap=wrap)
    return MapSpec(
        name=name,
        board=Board(topo, from_cells(y * grid.width + x for x, y in grid.walls)),
        starts=tuple((y * grid.width + x,) for x, y in grid.starts),
        players=(len(grid.starts),) if grid.starts else (2,),
    )


class _Metadata:
    """Interprets the metadata parameters of one parsed multi-player map."""

    def __init__(self, grid: GridText, text: str, source: str, name: str) -> None:
        self.grid = grid
        self.text = text
        self.source = source
        self.name = name

    def error(self, key: str, expected: str, found: str, offset: int = 0) -> FormatError:
        line, column = param_position(self.text, key) or (1, 1)
        return FormatError(self.source, line, column + offset, expected, found)

    def spec(self) -> MapSpec:
        grid = self.grid
        get = grid.param
        name = self.name
        raw = get("name")
        if raw is not None:
            if not _NAME.fullmatch(raw):
                raise self.error("name", "a map name without blanks or '@'", show(raw))
            name = raw
        version = 1
        raw = get("version")
        if raw is not None:
            if not re.fullmatch(r"[0-9]{1,9}", raw) or int(raw) < 1:
                raise self.error("version", "a version number from 1 up", show(raw))
            version = int(raw)
        wrap = False
        raw = get("wrap")
        if raw is not None:
            if raw not in ("0", "1"):
                raise self.error("wrap", "wrap 0 or wrap 1", show(raw))
            wrap = raw == "1"
        tags: tuple[str, ...] = ()
        raw = get("tags")
        if raw is not None:
            tags = tuple(_TAG.findall(raw))
        starts = [[y * grid.width + x] for x, y in grid.starts]
        self._extra_starts(starts)
        players = self._players(len(starts))
        walls = from_cells(y * grid.width + x for x, y in grid.walls)
        return MapSpec(
            name=name,
            board=Board(GridTopology(grid.width, grid.height, wrap=wrap), walls),
            starts=tuple(tuple(cells) for cells in starts),
            version=version,
            players=players,
            tags=tags,
            description=get("description") or "",
            bonus=self._bonus(),
        )

    def _players(self, starts: int) -> tuple[int, ...]:
        raw = self.grid.param("players")
        if raw is None:
            return (starts,) if starts else (2,)
        counts: set[int] = set()
        expected = "player counts such as '2' or '2,4' or '2-8'"
        for part in raw.split(","):
            m = _COUNT.fullmatch(part.strip())
            if m is None or int(m.group(1)) < 1:
                raise self.error("players", expected, show(raw))
            low = int(m.group(1))
            high = int(m.group(2)) if m.group(2) else low
            if high < low:
                raise self.error("players", expected, show(raw))
            counts.update(range(low, high + 1))
        if starts and starts not in counts:
            raise self.error(
                "players",
                f"player counts that include {starts} (the map has {starts} start letters)",
                show(raw),
            )
        return tuple(sorted(counts))

    def _cell(self, key: str, token: str, offset: int, taken: set[int]) -> int:
        grid = self.grid
        m = _CELL.fullmatch(token)
        if m is None:
            raise self.error(key, "a cell 'x,y'", show(token), offset)
        x, y = int(m.group(1)), int(m.group(2))
        if not grid.contains(x, y):
            raise self.error(
                key,
                f"a cell inside the {grid.width}x{grid.height} map "
                f"(0 <= x < {grid.width}, 0 <= y < {grid.height})",
                show(token),
                offset,
            )
        if (x, y) in grid.walls:
            raise self.error(key, "a cell that is not a wall", show(token), offset)
        cell = y * grid.width + x
        if cell in taken:
            raise self.error(key, "a cell not used twice", show(token), offset)
        taken.add(cell)
        return cell

    def _bonus(self) -> tuple[int, ...]:
        raw = self.grid.param("bonus")
        if raw is None:
            return ()
        taken: set[int] = set()
        return tuple(self._cell("bonus", m.group(), m.start(), taken) for m in _WORD.finditer(raw))

    def _extra_starts(self, starts: list[list[int]]) -> None:
        raw = self.grid.param("extra_starts")
        if raw is None:
            return
        taken = {c for cells in starts for c in cells}
        offset = 0
        for part in raw.split(";"):
            words = list(_WORD.finditer(part))
            if words:
                letter = words[0].group()
                player = LETTERS.find(letter) if len(letter) == 1 else -1
                if not 0 <= player < len(starts):
                    raise self.error(
                        "extra_starts",
                        f"a start letter of this map ('a' to {LETTERS[max(len(starts), 1) - 1]!r})"
                        if starts
                        else "no extra starts (the map has no start letters)",
                        show(letter),
                        offset + words[0].start(),
                    )
                for w in words[1:]:
                    starts[player].append(
                        self._cell("extra_starts", w.group(), offset + w.start(), taken)
                    )
            offset += len(part) + 1


def _grid_of(spec: MapSpec, target: str) -> GridTopology:
    topo = spec.topology
    if not isinstance(topo, GridTopology):
        raise MapError(
            f"map {spec.id} is a {topo.describe()}; the {target} format holds rectangular "
            "grids only"
        )
    return topo


def _xy(topo: GridTopology, cells: int) -> frozenset[tuple[int, int]]:
    return frozenset(topo.xy(c) for c in iter_cells(cells))


def map_to_ascii2010(spec: MapSpec) -> str:
    """Write a two-player grid map in the 2010 ASCII format.

    The format has only walls and the two starts: the name, tags and other metadata are
    not written.

    Raises:
        MapError: for a torus, a graph board, or a map without exactly two one-cycle
            starts, none of which the format can express.
    """
    topo = _grid_of(spec, "2010 ASCII")
    if topo.wrap:
        raise MapError(f"map {spec.id} is a torus; the 2010 ASCII format has walled edges only")
    if len(spec.starts) != 2 or any(len(cells) != 1 for cells in spec.starts):
        raise MapError(
            f"map {spec.id} does not have exactly two one-cycle starts; the 2010 ASCII "
            "format needs them (place starts first with lightcycle.maps.starts)"
        )
    grid = GridText(
        topo.width,
        topo.height,
        _xy(topo, spec.walls),
        tuple(topo.xy(cells[0]) for cells in spec.starts),
    )
    return format_ascii2010(grid)


def map_to_text(spec: MapSpec) -> str:
    """The map as text `map_from_text` reads back: the multi-player format for grids, OBJ
    for graph boards (replays carry their map this way)."""
    if isinstance(spec.topology, GridTopology):
        return map_to_mpmap(spec)
    from lightcycle.formats.obj import format_obj
    from lightcycle.maps.meshes import map_to_mesh

    return format_obj(map_to_mesh(spec))


def map_to_mpmap(spec: MapSpec) -> str:
    """Write a grid map in the multi-player format, with all metadata as parameters.

    `map_from_text` reads the result back to an equal `MapSpec`.

    Raises:
        MapError: for a graph board, more than 26 players, a player without a start
            cell, or metadata that cannot be written on one line (a name with blanks or
            ``@``, a tag with blanks or commas, a multi-line description).
    """
    topo = _grid_of(spec, "multi-player map")
    if not _NAME.fullmatch(spec.name):
        raise MapError(f"map name {spec.name!r} cannot be written: use no blanks and no '@'")
    if len(spec.starts) > len(LETTERS):
        raise MapError(f"map {spec.id} has {len(spec.starts)} players; the format has 26 letters")
    for tag in spec.tags:
        if not _TAG.fullmatch(tag):
            raise MapError(f"map {spec.id}: tag {tag!r} cannot be written: use no blanks or commas")
    description = spec.description.strip()
    if description != spec.description or "\n" in description:
        raise MapError(
            f"map {spec.id}: the description must be one line without leading or trailing blanks"
        )
    params: list[tuple[str, str]] = [
        ("name", spec.name),
        ("version", str(spec.version)),
        ("players", ",".join(str(p) for p in spec.players)),
    ]
    if spec.tags:
        params.append(("tags", ",".join(spec.tags)))
    if description:
        params.append(("description", description))
    if topo.wrap:
        params.append(("wrap", "1"))
    if spec.bonus:
        params.append(("bonus", " ".join(_cell_text(topo, c) for c in spec.bonus)))
    extra: list[str] = []
    for player, cells in enumerate(spec.starts):
        if not cells:
            raise MapError(f"map {spec.id}: player {player + 1} has no start cell")
        if len(cells) > 1:
            extra.append(" ".join([LETTERS[player], *(_cell_text(topo, c) for c in cells[1:])]))
    if extra:
        params.append(("extra_starts", "; ".join(extra)))
    grid = GridText(
        topo.width,
        topo.height,
        _xy(topo, spec.walls),
        tuple(topo.xy(cells[0]) for cells in spec.starts),
        tuple(params),
    )
    return format_mpmap(grid)


def _cell_text(topo: GridTopology, cell: int) -> str:
    x, y = topo.xy(cell)
    return f"{x},{y}"

"""The built-in maps, looked up by ``name``, ``name@version``, ``random-SEED`` or a file path.

Built-in maps are plain multi-player map files in ``lightcycle/maps/data`` (shipped in
the wheel as package data and read with `importlib.resources`, so they work from a zip
too). They are parsed once per process: the CLI, the referee and the conformance tests
all ask for maps many times.

``random-SEED`` (``random-42``, ``random-42@1``) names the seeded random symmetric map
of `lightcycle.maps.random_maps`. Duels and tournaments draw such maps into their pools
and list them by that name, so `get_map` takes the same name: every command that takes
a map (``play``, ``maps show``, ``match``) can then show the map a duel listed.
"""

from __future__ import annotations

import difflib
import functools
import re
from importlib import resources
from pathlib import Path

from lightcycle.maps.io import map_from_file, map_from_text
from lightcycle.maps.random_maps import symmetric_map
from lightcycle.maps.spec import MapError, MapSpec

_PACKAGE = "lightcycle.maps"
_DATA_DIR = "data"
_FILE_SUFFIXES = (".map", ".txt", ".obj")
_NAME_AT_VERSION = re.compile(r"([^@]+)@(.*)")
_RANDOM = re.compile(r"random-(\d+)")
RANDOM_SYNTAX = "random-SEED"
"""How a seeded random map is named (``random-42``); error messages show it."""


@functools.cache
def _builtin() -> dict[str, dict[int, MapSpec]]:
    """Parse every data file once: name -> version -> map.

    Raises:
        MapError: when two data files claim the same ``name@version`` (a packaging bug).
    """
    maps: dict[str, dict[int, MapSpec]] = {}
    root = resources.files(_PACKAGE).joinpath(_DATA_DIR)
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith((".map", ".obj")):
            continue
        spec = map_from_text(
            entry.read_text(encoding="utf-8"),
            source=f"lightcycle/maps/data/{entry.name}",
            name=entry.name[:-4],
        )
        versions = maps.setdefault(spec.name, {})
        if spec.version in versions:
            raise MapError(f"two built-in map files define {spec.id}")
        versions[spec.version] = spec
    return maps


def list_maps() -> list[MapSpec]:
    """Every built-in map (every version of it), sorted by name and then version."""
    return [versions[v] for name, versions in sorted(_builtin().items()) for v in sorted(versions)]


def get_map(name_or_path: str) -> MapSpec:
    """Return a built-in map by name, or read a map file.

    Args:
        name_or_path: ``ring`` (the newest version), ``ring@1`` (exactly that version),
            ``random-42`` (the random symmetric map of seed 42, version 1 only), or the
            path of a ``.map`` or ``.txt`` file in either map format, or of an ``.obj``
            3D board.

    Raises:
        MapError: for an unknown name (listing close matches), a version the map does not
            have (listing those it has), or a file that does not exist.
        FormatError: when a map file is malformed.
    """
    text = name_or_path.strip()
    if _looks_like_path(text):
        return _file_map(text)
    name, version = text, None
    m = _NAME_AT_VERSION.fullmatch(text)
    if m is not None:
        name = m.group(1)
        if not m.group(2).isdigit():
            raise MapError(f"bad map version in {text!r}: expected name@number, e.g. {name}@1")
        version = int(m.group(2))
    maps = _builtin()
    versions = maps.get(name)
    if versions is None and _RANDOM.fullmatch(name):
        return _random_map(name, version)
    if versions is None:
        close = difflib.get_close_matches(name, list(maps), n=3, cutoff=0.6)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise MapError(
            f"unknown map {name!r}.{hint} Run `lightcycle maps list` to see the built-in "
            f"maps, name a seeded random map as {RANDOM_SYNTAX} (e.g. random-42), or give "
            "the path of a .map, .txt or .obj file."
        )
    if version is None:
        return versions[max(versions)]
    if version not in versions:
        have = ", ".join(versions[v].id for v in sorted(versions))
        raise MapError(f"map {name!r} has no version {version}; available: {have}")
    return versions[version]


def _random_map(name: str, version: int | None) -> MapSpec:
    """``random-SEED`` (version 1, the only one `symmetric_map` draws)."""
    if version not in (None, 1):
        raise MapError(f"map {name!r} has no version {version}; available: {name}@1")
    return _cached_random(int(name.removeprefix("random-")))


@functools.lru_cache(maxsize=64)
def _cached_random(seed: int) -> MapSpec:
    # Drawing a map runs a connectivity search per wall blob: worth keeping a few.
    return symmetric_map(seed)


def _looks_like_path(text: str) -> bool:
    return text.lower().endswith(_FILE_SUFFIXES) or "/" in text or "\\" in text


def _file_map(text: str) -> MapSpec:
    path = Path(text).expanduser()
    try:
        stat = path.stat()
    except OSError:
        raise MapError(f"no map file at {text!r}") from None
    if not path.is_file():
        raise MapError(f"{text!r} is not a map file")
    return _cached_file(str(path.resolve()), stat.st_mtime_ns, stat.st_size, str(path))


@functools.lru_cache(maxsize=64)
def _cached_file(resolved: str, mtime_ns: int, size: int, shown: str) -> MapSpec:
    # Keyed by modification time and size as well, so an edited file is read again.
    del resolved, mtime_ns, size
    return map_from_file(shown)

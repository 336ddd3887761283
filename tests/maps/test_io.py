"""Map files <-> MapSpec: detection, metadata parameters, round trips and error vectors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightcycle.core.bitset import from_cells
from lightcycle.core.state import Board
from lightcycle.core.topology import GraphTopology, GridTopology
from lightcycle.formats.errors import FormatError
from lightcycle.maps.io import (
    detect_format,
    map_from_file,
    map_from_text,
    map_to_ascii2010,
    map_to_mpmap,
)
from lightcycle.maps.registry import get_map as get_map_by_name
from lightcycle.maps.registry import list_maps
from lightcycle.maps.spec import MapError, MapSpec
from tests.vector_files import read_vector

VECTORS = Path(__file__).with_name("vectors")

DUEL_2010 = "5 4\n#####\n#1 2#\n#   #\n#####\n"

TORUS = """\
no_rows 3
no_cols 4
no_players 2
name tiny-torus
version 3
players 2,4
tags torus, small
description A tiny torus for tests.
wrap 1
turntime 1000
map
a...
.%%.
...b
"""


def test_detects_formats() -> None:
    assert detect_format(DUEL_2010) == "ascii2010"
    assert detect_format("\n  \n 15 15\n") == "ascii2010"
    assert detect_format(TORUS) == "mpmap"
    assert detect_format("") == "mpmap"


def test_reads_a_2010_map() -> None:
    spec = map_from_text(DUEL_2010, source="maps/duel.txt")
    assert spec.name == "duel"
    assert spec.topology == GridTopology(5, 4)
    assert spec.starts == ((6,), (8,))
    assert spec.players == (2,)
    assert spec.board.is_wall(0) and not spec.board.is_wall(11)


def test_reads_metadata() -> None:
    spec = map_from_text(TORUS)
    assert spec.id == "tiny-torus@3"
    assert spec.topology == GridTopology(4, 3, wrap=True)
    assert spec.players == (2, 4)
    assert spec.tags == ("torus", "small")
    assert spec.description == "A tiny torus for tests."
    assert spec.starts == ((0,), (11,))
    assert spec.walls == from_cells([5, 6])


def test_name_falls_back_to_argument_then_source_stem() -> None:
    body = TORUS.replace("name tiny-torus\n", "")
    assert map_from_text(body, name="given").name == "given"
    assert map_from_text(body, source="dir/arena.map").name == "arena"
    assert map_from_text(body).name == "unnamed"
    assert map_from_text(body, source="my map@home.txt").name == "my-map-home"
    assert map_from_text(TORUS, name="ignored").name == "tiny-torus"


def test_players_ranges() -> None:
    text = TORUS.replace("players 2,4", "players 2-4,8")
    assert map_from_text(text).players == (2, 3, 4, 8)


def test_map_without_starts_defaults_to_two_players() -> None:
    spec = map_from_text("no_rows 2\nno_cols 2\nno_players 0\nmap\n..\n..\n")
    assert spec.starts == ()
    assert spec.players == (2,)


def test_mpmap_round_trip_keeps_metadata() -> None:
    spec = map_from_text(TORUS)
    text = map_to_mpmap(spec)
    assert "wrap 1" in text and "tags torus,small" in text
    assert "turntime" not in text  # unknown params are not part of a MapSpec
    assert map_from_text(text) == spec
    assert map_to_mpmap(map_from_text(text)) == text


def test_every_builtin_grid_round_trips_through_mpmap() -> None:
    grids = [s for s in list_maps() if isinstance(s.topology, GridTopology)]
    assert len(grids) >= 16
    for spec in grids:
        assert map_from_text(map_to_mpmap(spec)) == spec, spec.name


def test_graph_maps_are_refused_by_mpmap_with_a_clear_error() -> None:
    with pytest.raises(MapError, match="rectangular grids only"):
        map_to_mpmap(get_map_by_name("cube"))


def test_ascii2010_export_of_duel_maps() -> None:
    exported = 0
    for spec in list_maps():
        topo = spec.topology
        one_cycle = all(len(cells) == 1 for cells in spec.starts)
        if isinstance(topo, GridTopology) and len(spec.starts) == 2 and one_cycle and not topo.wrap:
            back = map_from_text(map_to_ascii2010(spec), name=spec.name)
            assert (back.board, back.starts) == (spec.board, spec.starts)
            exported += 1
    assert exported >= 8


def _spec(**kw: object) -> MapSpec:
    base: dict[str, object] = {"name": "m", "board": Board(GridTopology(4, 3))}
    base.update(kw)
    return MapSpec(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        (_spec(board=Board(GridTopology(4, 3, wrap=True)), starts=((0,), (5,))), "torus"),
        (_spec(starts=((0,), (5,), (10,))), "exactly two"),
        (_spec(), "exactly two"),
        (_spec(starts=((0, 2), (5,))), "exactly two"),
        (_spec(board=Board(GraphTopology(3, [(0, 1), (1, 2)])), starts=((0,), (2,))), "grids"),
    ],
)
def test_ascii2010_export_refuses_what_it_cannot_express(spec: MapSpec, fragment: str) -> None:
    with pytest.raises(MapError, match=fragment):
        map_to_ascii2010(spec)


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        (_spec(board=Board(GraphTopology(3, [(0, 1), (1, 2)]))), "grids only"),
        (_spec(name="two words"), "no blanks"),
        (_spec(tags=("a,b",)), "tag"),
        (_spec(description="line\nbreak"), "one line"),
    ],
)
def test_mpmap_export_refuses_what_it_cannot_express(spec: MapSpec, fragment: str) -> None:
    with pytest.raises(MapError, match=fragment):
        map_to_mpmap(spec)


def test_team_starts_and_bonus_round_trip() -> None:
    spec = _spec(starts=((0, 4, 8), (3, 7, 11)), bonus=(5, 6), players=(2,))
    text = map_to_mpmap(spec)
    assert "extra_starts a 0,1 0,2; b 3,1 3,2" in text
    assert "bonus 1,1 2,1" in text
    assert map_from_text(text) == spec


def test_map_from_file(tmp_path: Path) -> None:
    path = tmp_path / "duel.txt"
    path.write_text(DUEL_2010)
    assert map_from_file(path).name == "duel"
    named = tmp_path / "file-stem.map"
    named.write_text(TORUS)
    assert map_from_file(named).name == "tiny-torus"


def test_map_from_file_reports_bad_utf8(tmp_path: Path) -> None:
    path = tmp_path / "bad.map"
    path.write_bytes(b"no_rows 1\nname caf\xe9\n")
    with pytest.raises(FormatError) as info:
        map_from_file(path)
    assert (info.value.line, info.value.column) == (2, 9)
    assert info.value.expected == "UTF-8 text"
    assert info.value.source == str(path)


@pytest.mark.parametrize("path", sorted(VECTORS.glob("*.txt")), ids=lambda p: p.stem)
def test_malformed_metadata_vectors(path: Path) -> None:
    fields, text = read_vector(path)
    with pytest.raises(FormatError) as info:
        map_from_text(text, fields["source"])
    err = info.value
    assert (err.source, err.line) == (fields["source"], int(fields["line"]))
    column = fields["column"]
    assert err.column == (None if column == "none" else int(column))
    assert err.expected == fields["expected"]
    assert err.found == fields["found"]


_ALPHABET = ".%ab\n 0123456789,;-@namewrpbonusxtigvdc_"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_metadata_parses_or_raises_format_error(data: st.DataObject) -> None:
    text = TORUS.replace("map\n", "bonus 1,0 2,2\nextra_starts a 2,0\nmap\n")
    map_from_text(text)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(text)))
        ch = data.draw(st.sampled_from(_ALPHABET))
        text = text[:i] + ch + text[i + 1 :]
    try:
        map_from_text(text, "fuzz.map")
    except FormatError as err:
        assert err.source == "fuzz.map" and err.line >= 1

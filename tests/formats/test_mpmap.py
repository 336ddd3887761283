"""The multi-player map format: parameters, letters, round trips, fuzzing and error vectors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightcycle.formats.errors import FormatError
from lightcycle.formats.gridtext import GridText
from lightcycle.formats.mpmap import (
    LETTERS,
    RESERVED,
    format_mpmap,
    param_position,
    parse_mpmap,
)
from tests.vector_files import assert_error_matches, mutate, read_vector

VECTORS = Path(__file__).with_name("vectors")

THREE = """\
no_rows 5
no_cols 8
loadtime 3000
no_players 3
future_param some value
map
%%%%%%%%
%a.....%
%..%%..%
%b....c%
%%%%%%%%
"""


def test_parses_letters_walls_and_unknown_params() -> None:
    grid = parse_mpmap(THREE)
    assert (grid.width, grid.height) == (8, 5)
    assert grid.starts == ((1, 1), (1, 3), (6, 3))
    assert (3, 2) in grid.walls and (2, 2) not in grid.walls
    assert grid.params == (("loadtime", "3000"), ("future_param", "some value"))


def test_format_writes_required_params_first() -> None:
    text = format_mpmap(parse_mpmap(THREE))
    assert text.splitlines()[:6] == [
        "no_rows 5",
        "no_cols 8",
        "no_players 3",
        "loadtime 3000",
        "future_param some value",
        "map",
    ]
    assert parse_mpmap(text) == parse_mpmap(THREE)


def test_map_without_starts() -> None:
    grid = parse_mpmap("no_rows 1\nno_cols 3\nno_players 0\nmap\n.%.\n")
    assert grid.starts == ()
    assert grid.walls == frozenset({(1, 0)})


@pytest.mark.parametrize(
    "variant",
    [
        THREE.replace("\n", "\r\n"),
        THREE.rstrip("\n"),
        THREE.replace("no_cols 8", "\n  no_cols    8  \n"),
        THREE.replace("%a.....%", "%a.....%  "),
        THREE + "\n\n",
    ],
)
def test_tolerates_what_real_files_do(variant: str) -> None:
    assert parse_mpmap(variant) == parse_mpmap(THREE)


def test_param_without_value() -> None:
    grid = parse_mpmap("flag\nno_rows 1\nno_cols 1\nno_players 0\nmap\n.\n")
    assert grid.params == (("flag", ""),)
    assert "\nflag\n" in format_mpmap(grid)


def test_param_position_points_at_the_value() -> None:
    assert param_position(THREE, "future_param") == (5, 14)
    assert param_position(THREE, "absent") is None
    # Only parameters before the map count.
    assert param_position("no_rows 1\nmap\nname x\n", "name") is None


def test_format_refuses_reserved_params() -> None:
    for key in RESERVED:
        with pytest.raises(ValueError, match="written by the format"):
            format_mpmap(GridText(1, 1, params=((key, "1"),)))


def test_all_26_letters() -> None:
    cells = tuple((x, 0) for x in range(0, 52, 2))
    grid = GridText(52, 1, starts=cells)
    text = format_mpmap(grid)
    assert LETTERS in text.replace(".", "")
    assert parse_mpmap(text) == grid


_KEY = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1
).filter(lambda k: not any(c.isspace() for c in k) and k not in RESERVED)
_VALUE = st.text(max_size=20).map(str.strip).filter(lambda v: "\n" not in v)


@st.composite
def grids(draw: st.DrawFn) -> GridText:
    width = draw(st.integers(1, 12))
    height = draw(st.integers(1, 12))
    cells = [(x, y) for y in range(height) for x in range(width)]
    count = draw(st.integers(0, min(len(cells), len(LETTERS))))
    starts = tuple(draw(st.permutations(cells))[:count])
    rest = [c for c in cells if c not in starts]
    walls = draw(st.sets(st.sampled_from(rest))) if rest else set()
    params = tuple(draw(st.lists(st.tuples(_KEY, _VALUE), max_size=4)))
    return GridText(width, height, frozenset(walls), starts, params)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grids())
def test_random_grids_round_trip(grid: GridText) -> None:
    text = format_mpmap(grid)
    assert parse_mpmap(text) == grid
    assert format_mpmap(parse_mpmap(text)) == text


def _check_error(err: FormatError, text: str) -> None:
    assert err.source == "fuzz.map"
    assert 1 <= err.line <= text.count("\n") + 2
    assert err.column is None or err.column >= 1
    assert err.expected
    assert str(err).startswith(f"fuzz.map:{err.line}")


_ALPHABET = ".%abcz\n\r\t 0123456789#mapno_rwsclyeX"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=80))
def test_random_text_parses_or_raises_format_error(text: str) -> None:
    try:
        parse_mpmap(text, "fuzz.map")
    except FormatError as err:
        _check_error(err, text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grids(), st.data())
def test_mutated_maps_parse_or_raise_format_error(grid: GridText, data: st.DataObject) -> None:
    text = format_mpmap(grid)
    text = mutate(text, data, ".%abz\n\r 7#")
    try:
        parse_mpmap(text, "fuzz.map")
    except FormatError as err:
        _check_error(err, text)


@pytest.mark.parametrize(
    "path", sorted(VECTORS.glob("mpmap_*.txt")), ids=lambda p: p.stem.removeprefix("mpmap_")
)
def test_malformed_vectors(path: Path) -> None:
    fields, text = read_vector(path)
    with pytest.raises(FormatError) as info:
        parse_mpmap(text, fields["source"])
    assert_error_matches(info.value, fields)


def test_there_are_vectors() -> None:
    assert len(list(VECTORS.glob("mpmap_*.txt"))) >= 10

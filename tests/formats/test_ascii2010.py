"""The 2010 ASCII map format: parsing, tolerance, round trips, fuzzing and error vectors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightcycle.formats.ascii2010 import format_ascii2010, parse_ascii2010
from lightcycle.formats.errors import FormatError
from lightcycle.formats.gridtext import GridText
from tests.vector_files import assert_error_matches, mutate, read_vector

VECTORS = Path(__file__).with_name("vectors")

SMALL = "5 4\n#####\n#1 2#\n#   #\n#####\n"


def test_parses_walls_and_starts() -> None:
    grid = parse_ascii2010(SMALL)
    assert (grid.width, grid.height) == (5, 4)
    assert grid.starts == ((1, 1), (3, 1))
    assert (0, 0) in grid.walls and (1, 2) not in grid.walls
    assert len(grid.walls) == 14
    assert grid.params == ()


def test_formats_back_exactly() -> None:
    assert format_ascii2010(parse_ascii2010(SMALL)) == SMALL


@pytest.mark.parametrize(
    "variant",
    [
        SMALL.replace("\n", "\r\n"),  # Windows line ends
        SMALL.rstrip("\n"),  # no final newline
        "\n\n" + SMALL + "\n  \n",  # blank lines around the map
        SMALL.replace("#1 2#\n", "#1 2#   \t\n"),  # blanks after a row
        "\ufeff" + SMALL,  # byte order mark
        " 5  4 \n" + SMALL.split("\n", 1)[1],  # spacing on the size line
    ],
)
def test_tolerates_what_real_files_do(variant: str) -> None:
    assert parse_ascii2010(variant) == parse_ascii2010(SMALL)


def test_floor_at_row_end_is_kept() -> None:
    text = "3 2\n1 2\n   \n"
    grid = parse_ascii2010(text)
    assert grid.walls == frozenset()
    assert format_ascii2010(grid) == text


def test_format_needs_two_starts() -> None:
    with pytest.raises(ValueError, match="exactly 2 starts"):
        format_ascii2010(GridText(3, 1, starts=((0, 0),)))


def test_format_leaves_out_params() -> None:
    grid = parse_ascii2010(SMALL)
    with_params = GridText(grid.width, grid.height, grid.walls, grid.starts, (("name", "x"),))
    assert format_ascii2010(with_params) == SMALL


@st.composite
def duel_grids(draw: st.DrawFn) -> GridText:
    width = draw(st.integers(1, 12))
    height = draw(st.integers(1, 12))
    cells = [(x, y) for y in range(height) for x in range(width)]
    if len(cells) < 2:
        width, cells = 2, [(0, 0), (1, 0)]
    starts = tuple(draw(st.permutations(cells))[:2])
    rest = [c for c in cells if c not in starts]
    walls = draw(st.sets(st.sampled_from(rest))) if rest else set()
    return GridText(width, height, frozenset(walls), starts)


@settings(max_examples=150, deadline=None)
@given(duel_grids())
def test_random_grids_round_trip(grid: GridText) -> None:
    text = format_ascii2010(grid)
    assert parse_ascii2010(text) == grid
    assert format_ascii2010(parse_ascii2010(text)) == text


def _check_error(err: FormatError, text: str) -> None:
    assert err.source == "fuzz.txt"
    assert 1 <= err.line <= text.count("\n") + 2
    assert err.column is None or err.column >= 1
    assert err.expected
    assert str(err).startswith(f"fuzz.txt:{err.line}")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="#12 \n\r\t0123456789x", max_size=80))
def test_random_text_parses_or_raises_format_error(text: str) -> None:
    try:
        parse_ascii2010(text, "fuzz.txt")
    except FormatError as err:
        _check_error(err, text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(duel_grids(), st.data())
def test_mutated_maps_parse_or_raise_format_error(grid: GridText, data: st.DataObject) -> None:
    text = format_ascii2010(grid)
    text = mutate(text, data, "#12 \n\r\tx9")
    try:
        parse_ascii2010(text, "fuzz.txt")
    except FormatError as err:
        _check_error(err, text)


@pytest.mark.parametrize(
    "path", sorted(VECTORS.glob("ascii2010_*.txt")), ids=lambda p: p.stem.removeprefix("ascii2010_")
)
def test_malformed_vectors(path: Path) -> None:
    fields, text = read_vector(path)
    with pytest.raises(FormatError) as info:
        parse_ascii2010(text, fields["source"])
    assert_error_matches(info.value, fields)
    if "message" in fields:
        assert str(info.value) == fields["message"]


def test_there_are_vectors() -> None:
    assert len(list(VECTORS.glob("ascii2010_*.txt"))) >= 10

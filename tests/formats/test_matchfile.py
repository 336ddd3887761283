"""The contest's match file: the map part, counts, strings, round trips and error vectors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightcycle.formats.errors import FormatError
from lightcycle.formats.gridtext import GridText
from lightcycle.formats.matchfile import (
    ENDINGS,
    MatchText,
    format_match,
    map_section,
    parse_match,
)
from lightcycle.formats.mpmap import LETTERS
from tests.vector_files import assert_error_matches, mutate, read_vector

VECTORS = Path(__file__).with_name("vectors")

# Shaped like the contest's own example: blanks after values and rows, a blank line
# before no_moves, a blank after "moves", strings indented by tabs, forfeit letters.
MATCH = (
    "no_rows 4 \n"
    "no_cols 7\n"
    "no_players 3\n"
    "usernames ann bob cid \n"
    "loadtime 3000\n"
    "map\n"
    ".......\n"
    ".a...b. \n"
    "...%...\n"
    "...c...\n"
    "\n"
    "no_moves 3 1 2\n"
    "\n"
    "moves \n"
    "\tnne\n"
    "\tt\n"
    "\tsi\n"
)


def test_reads_the_map_names_counts_and_strings() -> None:
    m = parse_match(MATCH, "m.match")
    assert (m.grid.width, m.grid.height) == (7, 4)
    assert m.grid.starts == ((1, 1), (5, 1), (3, 3))
    assert m.usernames == ("ann", "bob", "cid")
    assert m.grid.param("loadtime") == "3000"  # unknown, kept
    assert m.moves == ("nne", "t", "si")
    assert set(ENDINGS) == {"t", "i", "f"}


def test_strings_may_share_the_moves_line_and_parameters_may_follow_the_map() -> None:
    text = MATCH.replace("moves \n\tnne\n\tt\n\tsi\n", "turntime 1000\nmoves nne t\n  si\n")
    assert text != MATCH
    m = parse_match(text)
    assert m.moves == ("nne", "t", "si") and m.tail == (("turntime", "1000"),)
    assert parse_match(format_match(m)) == m


def test_a_player_without_moves_has_no_string() -> None:
    text = MATCH.replace("no_moves 3 1 2", "no_moves 3 0 2").replace("\tt\n", "")
    m = parse_match(text)
    assert m.moves == ("nne", "", "si")
    assert parse_match(format_match(m)) == m


def test_format_then_parse_is_the_identity() -> None:
    m = parse_match(MATCH)
    text = format_match(m)
    assert parse_match(text) == m
    assert format_match(parse_match(text)) == text


def test_map_section_is_the_map_file_part() -> None:
    section = map_section(MATCH)
    assert section.splitlines()[-1] == "...c..."
    assert "no_moves" not in section


def test_refuses_what_the_format_cannot_hold() -> None:
    grid = parse_match(MATCH).grid
    with pytest.raises(ValueError, match="3 players"):
        MatchText(grid, ("n", "s"))
    with pytest.raises(ValueError, match="player 2"):
        MatchText(grid, ("n", "tn", "s"))
    with pytest.raises(ValueError, match="written by the format"):
        MatchText(grid, ("n", "s", "e"), (("moves", "x"),))


_MOVES = st.text(alphabet="nesw", max_size=15).flatmap(
    lambda body: st.sampled_from(["", *ENDINGS]).map(lambda end: body + end)
)
_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=8)


@st.composite
def matches(draw: st.DrawFn) -> MatchText:
    width = draw(st.integers(1, 10))
    height = draw(st.integers(1, 8))
    cells = [(x, y) for y in range(height) for x in range(width)]
    count = draw(st.integers(0, min(len(cells), 6)))
    starts = tuple(draw(st.permutations(cells))[:count])
    rest = [c for c in cells if c not in starts]
    walls = draw(st.sets(st.sampled_from(rest))) if rest else set()
    params: list[tuple[str, str]] = []
    if count and draw(st.booleans()):
        params.append(("usernames", " ".join(draw(_WORD) for _ in range(count))))
    params += [("x_" + draw(_WORD), draw(_WORD)) for _ in range(draw(st.integers(0, 2)))]
    tail = tuple(("y_" + draw(_WORD), draw(_WORD)) for _ in range(draw(st.integers(0, 2))))
    grid = GridText(width, height, frozenset(walls), starts, tuple(params))
    return MatchText(grid, tuple(draw(_MOVES) for _ in range(count)), tail)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matches())
def test_random_matches_round_trip(match: MatchText) -> None:
    text = format_match(match)
    assert parse_match(text) == match
    assert format_match(parse_match(text)) == text


def _check_error(err: FormatError, text: str) -> None:
    assert err.source == "fuzz.match"
    assert 1 <= err.line <= text.count("\n") + 2
    assert err.column is None or err.column >= 1
    assert err.expected
    assert str(err).startswith(f"fuzz.match:{err.line}")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matches(), st.data())
def test_mutated_files_parse_or_raise_format_error(match: MatchText, data: st.DataObject) -> None:
    text = mutate(format_match(match), data, ".%abnestif\n\t 7" + LETTERS[:3])
    try:
        parse_match(text, "fuzz.match")
    except FormatError as err:
        _check_error(err, text)


@pytest.mark.parametrize(
    "path",
    sorted(VECTORS.glob("matchfile_*.txt")),
    ids=lambda p: p.stem.removeprefix("matchfile_"),
)
def test_malformed_vectors(path: Path) -> None:
    fields, text = read_vector(path)
    with pytest.raises(FormatError) as info:
        parse_match(text, fields["source"])
    assert_error_matches(info.value, fields)


def test_there_are_vectors() -> None:
    assert len(list(VECTORS.glob("matchfile_*.txt"))) >= 10

"""The JSON Lines envelope: a header, numbered turn lines, errors with their line."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightcycle.formats.errors import FormatError
from lightcycle.formats.turnlines import FORMAT, VERSION, format_turn_lines, parse_turn_lines
from tests.vector_files import assert_error_matches, read_vector

VECTORS = Path(__file__).with_name("vectors")
HEADER = {"format": FORMAT, "version": VERSION, "ruleset": "classic@1"}


def test_round_trip_one_object_per_line() -> None:
    turns = [{"turn": 1, "moves": ["e", "w"]}, {"turn": 2, "moves": ["n", {"forfeit": "x"}]}]
    text = format_turn_lines(HEADER, turns)
    assert len(text.splitlines()) == 3 and text.endswith("\n")
    assert parse_turn_lines(text) == (HEADER, turns)


def test_blank_lines_are_skipped() -> None:
    text = format_turn_lines(HEADER, [{"turn": 1, "moves": []}]).replace("\n", "\n\n")
    assert parse_turn_lines(text)[1] == [{"turn": 1, "moves": []}]


def test_the_writer_refuses_what_the_reader_would() -> None:
    with pytest.raises(ValueError, match="header"):
        format_turn_lines({"format": "x"}, [])
    with pytest.raises(ValueError, match="turn object 1"):
        format_turn_lines(HEADER, [{"turn": 2}])


@pytest.mark.parametrize(
    "path",
    sorted(VECTORS.glob("turnlines_*.txt")),
    ids=lambda p: p.stem.removeprefix("turnlines_"),
)
def test_malformed_vectors(path: Path) -> None:
    fields, text = read_vector(path)
    with pytest.raises(FormatError) as info:
        parse_turn_lines(text, fields["source"])
    assert_error_matches(info.value, fields)

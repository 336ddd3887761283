"""FormatError: the message shape editors understand, and errors that survive pickling."""

from __future__ import annotations

import pickle

import pytest

from lightcycle.formats.errors import FormatError, show


def test_message_names_file_line_column_expected_and_found() -> None:
    err = FormatError("ring.txt", 3, 7, "one of '#', ' ', '1', '2'", "'x'")
    assert str(err) == "ring.txt:3:7: expected one of '#', ' ', '1', '2', found 'x'"
    assert (err.source, err.line, err.column) == ("ring.txt", 3, 7)
    assert err.expected == "one of '#', ' ', '1', '2'"
    assert err.found == "'x'"


def test_message_without_column() -> None:
    err = FormatError("<string>", 4, None, "a 'map' line", "end of file")
    assert str(err) == "<string>:4: expected a 'map' line, found end of file"


def test_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="expected"):
        raise FormatError("f", 1, 1, "x", "y")


def test_pickles_with_its_fields() -> None:
    err = FormatError("f.map", 2, 5, "a digit", "'q'")
    back = pickle.loads(pickle.dumps(err))
    assert isinstance(back, FormatError)
    assert (back.source, back.line, back.column, back.expected, back.found) == (
        "f.map",
        2,
        5,
        "a digit",
        "'q'",
    )
    assert str(back) == str(err)


def test_show_quotes_and_cuts() -> None:
    assert show("\t") == "'\\t'"
    assert show(" ") == "' '"
    long = show("x" * 100)
    assert long.endswith("...'") and len(long) < 50

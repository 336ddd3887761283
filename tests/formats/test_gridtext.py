"""GridText: a neutral grid that refuses contradictions, and the shared line reader."""

from __future__ import annotations

import pytest

from lightcycle.formats.errors import FormatError
from lightcycle.formats.gridtext import GridText, check_param, read_side, text_lines


def test_rows_draw_walls_and_marks() -> None:
    grid = GridText(3, 2, frozenset({(0, 0), (2, 1)}), ((1, 0), (0, 1)))
    assert grid.rows("#", " ", "12") == ["#1 ", "2 #"]


def test_param_returns_first_value() -> None:
    grid = GridText(1, 1, params=(("k", "1"), ("k", "2"), ("empty", "")))
    assert grid.param("k") == "1"
    assert grid.param("empty") == ""
    assert grid.param("missing") is None


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"width": 0, "height": 3}, "outside 1..10000"),
        ({"width": 2, "height": 2, "walls": frozenset({(2, 0)})}, "wall (2, 0) is outside"),
        ({"width": 2, "height": 2, "starts": ((0, 0), (0, 0))}, "share a cell"),
        ({"width": 2, "height": 2, "starts": ((0, 5),)}, "start 1 (0, 5) is outside"),
        (
            {"width": 2, "height": 2, "walls": frozenset({(1, 1)}), "starts": ((1, 1),)},
            "on a wall",
        ),
        ({"width": 1, "height": 1, "params": (("two words", "x"),)}, "one word"),
        ({"width": 1, "height": 1, "params": (("k", " padded"),)}, "one line"),
        ({"width": 1, "height": 1, "params": (("k", "a\nb"),)}, "one line"),
    ],
)
def test_contradictions_are_value_errors(kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        GridText(**kwargs)  # type: ignore[arg-type]


def test_check_param_accepts_inner_blanks() -> None:
    check_param("description", "two  words\tand a tab")


def test_text_lines_tolerates_crlf_bom_and_missing_newline() -> None:
    assert text_lines("\ufeffa\r\nb\r\n") == ["a", "b"]
    assert text_lines("a\nb") == ["a", "b"]
    assert text_lines("a\n\n") == ["a", ""]
    assert text_lines("") == []
    assert text_lines("a\x0cb\n") == ["a\x0cb"]


@pytest.mark.parametrize("token", ["0", "-1", "+5", "1_0", "١٢", "123456", "10001", "x"])
def test_read_side_rejects_everything_but_plain_numbers(token: str) -> None:
    with pytest.raises(FormatError) as info:
        read_side(token, "f", 2, 3, "WIDTH")
    assert (info.value.line, info.value.column) == (2, 3)
    assert "WIDTH as a whole number from 1 to 10000" in str(info.value)


def test_read_side_reads_numbers() -> None:
    assert read_side("0042", "f", 1, 1, "WIDTH") == 42

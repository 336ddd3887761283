"""The Marlboro tron-engine replay: fields, round trips, fuzzing and error vectors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightcycle.formats.errors import FormatError
from lightcycle.formats.gridtext import GridText
from lightcycle.formats.marlboro import (
    MOVE_CHARS,
    RESULTS,
    MarlboroGame,
    format_marlboro,
    parse_marlboro,
)
from tests.vector_files import assert_error_matches, mutate, read_vector

VECTORS = Path(__file__).with_name("vectors")

GAME = """\
+OK|6 4|######
#1  2#
# #  #
######
|felix|freebot|SNEW  |2|+OK
"""


def test_reads_every_field() -> None:
    game = parse_marlboro(GAME)
    assert (game.grid.width, game.grid.height) == (6, 4)
    assert game.grid.starts == ((1, 1), (4, 1))
    assert (2, 2) in game.grid.walls and (1, 2) not in game.grid.walls
    assert game.names == ("felix", "freebot")
    assert game.moves == (("S", "N"), ("E", "W"), (" ", " "))
    assert game.result == "2"


def test_writes_the_engine_s_bytes_back() -> None:
    assert format_marlboro(parse_marlboro(GAME)) == GAME


@pytest.mark.parametrize(
    "variant", [GAME.replace("\n", "\r\n"), GAME.rstrip("\n"), "\ufeff" + GAME]
)
def test_tolerates_line_ends_and_a_missing_final_newline(variant: str) -> None:
    assert parse_marlboro(variant) == parse_marlboro(GAME)


def test_refuses_what_the_format_cannot_hold() -> None:
    grid = parse_marlboro(GAME).grid
    with pytest.raises(ValueError, match="cannot hold"):
        MarlboroGame(grid, ("a|b", "c"), (), "D")
    with pytest.raises(ValueError, match="not two of"):
        MarlboroGame(grid, ("a", "b"), (("n", "S"),), "D")
    with pytest.raises(ValueError, match="result"):
        MarlboroGame(grid, ("a", "b"), (), "X")
    with pytest.raises(ValueError, match="2 starts"):
        MarlboroGame(GridText(3, 1, starts=((0, 0),)), ("a", "b"), (), "D")


_NAME = st.text(
    alphabet=st.characters(blacklist_characters="|\n\r", blacklist_categories=("Cs",)),
    max_size=12,
)


@st.composite
def games(draw: st.DrawFn) -> MarlboroGame:
    width = draw(st.integers(2, 10))
    height = draw(st.integers(1, 8))
    cells = [(x, y) for y in range(height) for x in range(width)]
    starts = tuple(draw(st.permutations(cells))[:2])
    rest = [c for c in cells if c not in starts]
    walls = draw(st.sets(st.sampled_from(rest))) if rest else set()
    move = st.sampled_from(MOVE_CHARS)
    moves = tuple(draw(st.lists(st.tuples(move, move), max_size=30)))
    grid = GridText(width, height, frozenset(walls), starts)
    return MarlboroGame(grid, (draw(_NAME), draw(_NAME)), moves, draw(st.sampled_from(RESULTS)))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_random_games_round_trip(game: MarlboroGame) -> None:
    text = format_marlboro(game)
    assert parse_marlboro(text) == game
    assert format_marlboro(parse_marlboro(text)) == text


def _check_error(err: FormatError, text: str) -> None:
    assert err.source == "fuzz.tron"
    assert 1 <= err.line <= text.count("\n") + 2
    assert err.column is None or err.column >= 1
    assert err.expected
    assert str(err).startswith(f"fuzz.tron:{err.line}")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(), st.data())
def test_mutated_files_parse_or_raise_format_error(game: MarlboroGame, data: st.DataObject) -> None:
    text = mutate(format_marlboro(game), data, "| #12NESWx+OK\n\r7")
    try:
        parse_marlboro(text, "fuzz.tron")
    except FormatError as err:
        _check_error(err, text)


@pytest.mark.parametrize(
    "path", sorted(VECTORS.glob("marlboro_*.txt")), ids=lambda p: p.stem.removeprefix("marlboro_")
)
def test_malformed_vectors(path: Path) -> None:
    fields, text = read_vector(path)
    with pytest.raises(FormatError) as info:
        parse_marlboro(text, fields["source"])
    assert_error_matches(info.value, fields)


def test_there_are_vectors() -> None:
    assert len(list(VECTORS.glob("marlboro_*.txt"))) >= 10

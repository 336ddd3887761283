"""The Unicode board and its ASCII fallback."""

from __future__ import annotations

from lightcycle.core.moves import Move
from lightcycle.render.text import board_string, status_line
from lightcycle.rules.engine import new_game, step
from tests.conftest import grid_map


def test_unicode_and_ascii_boards() -> None:
    s = new_game("classic", grid_map(["#####", "#1.2#", "#####"]))
    assert board_string(s).splitlines()[1] == "⊠ ♠ ◦ ♣ ⊠"
    assert board_string(s, unicode=False).splitlines()[1] == "# 1 . 2 #"


def test_dead_cycles_and_trails() -> None:
    s = new_game("classic", grid_map(["######", "#1..2#", "######"]))
    s = step(s, {0: Move(0, 8), 1: Move(1, 4)})
    assert board_string(s).splitlines()[1] == "⊠ ⊠ ♠ ◦ ✖ ⊠"
    assert "Player 2: dead (wall)" in status_line(s)


def test_letters_beyond_two_players() -> None:
    s = new_game("ffa", grid_map(["1.2", "...", "3.4"]))
    assert board_string(s, unicode=False).splitlines()[0] == "A . B"

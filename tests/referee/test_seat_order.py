"""Seat order never decides a result: failures on one turn are judged together.

Real bot processes follow scripts (``scripted_bot.py``) so that a forfeit, a crash of
the process and a crash into a wall land on exactly the same turn; every case is played
from both seats.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lightcycle.maps.registry import get_map
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import GameRecord, play_game
from lightcycle.referee.players import BotSpec, make_player
from lightcycle.rules.engine import new_game
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import Limits

SCRIPT = Path(__file__).parent / "scripted_bot.py"
MAP = get_map("arena-10")
CLASSIC = get_ruleset("classic")


def turns_to_wall(seat: int, heading: int) -> int:
    """The turn on which ``seat``'s cycle dies going straight towards ``heading`` (0-3)."""
    state = new_game(CLASSIC, MAP, seed=0, players=2)
    cell, turns = state.cycles[seat].head, 0
    while True:
        cell = state.topology.move(cell, heading)
        turns += 1
        if cell < 0 or (state.board.walls >> cell) & 1:
            return turns


def play(
    scripts: list[list[str]], swap: bool = False, control: TimeControl | None = None
) -> tuple[GameRecord, list[int]]:
    """Play scripted bots; return the record and the seat of each script."""
    seats = [1, 0] if swap else [0, 1]
    specs = [
        BotSpec(
            text=f"script{i}",
            kind="program",
            command=(sys.executable, str(SCRIPT), *scripts[i]),
            protocol="tron2010",
        )
        for i in seats
    ]
    players = [make_player(s, Limits(), None) for s in specs]
    try:
        record = play_game(
            players, MAP, CLASSIC, seed=0, controls=control or TimeControl(move=3, first_move=5)
        )
    finally:
        for p in players:
            p.shutdown()
    return record, seats


@pytest.mark.parametrize("swap", [False, True])
def test_both_forfeit_on_one_turn_is_a_draw(swap: bool) -> None:
    record, _ = play([["garbage"], ["garbage"]], swap)
    assert record.outcome.winner is None and record.outcome.ranks == (1, 1)
    assert [s.verdict.kind for s in record.seats] == ["bad_output", "bad_output"]
    assert record.final.turn == 1


@pytest.mark.parametrize("swap", [False, True])
def test_timeout_and_process_crash_on_one_turn_is_a_draw(swap: bool) -> None:
    record, seats = play([["sleep"], ["crash"]], swap, TimeControl(move=3.0, first_move=1.5))
    assert record.outcome.ranks == (1, 1)
    kinds = {seats.index(i): record.seats[seats.index(i)].verdict.kind for i in (0, 1)}
    assert kinds[seats.index(0)] == "timeout"
    assert kinds[seats.index(1)] == "crashed"
    assert "exit code 3" in record.seats[seats.index(1)].verdict.detail


@pytest.mark.parametrize("wall_seat", [0, 1])
def test_forfeit_on_the_turn_the_other_hits_a_wall_is_a_draw(wall_seat: int) -> None:
    """Classic rules: both cycles gone on one turn is a draw, whatever took them."""
    other = 1 - wall_seat
    k = turns_to_wall(wall_seat, 0)  # north into the wall on turn k
    safe = next(h for h in range(4) if turns_to_wall(other, h) >= k)
    scripts: list[list[str]] = [[], []]
    scripts[wall_seat] = ["1"] * k
    scripts[other] = [str(safe + 1)] * (k - 1) + ["garbage"]  # forfeits on turn k
    record, _ = play(scripts)
    assert record.final.turn == k
    assert record.outcome.ranks == (1, 1), record.outcome
    cycles = record.final.cycles
    assert cycles[wall_seat].death is not None and cycles[wall_seat].death.cause.value == "wall"
    assert cycles[other].death is not None and cycles[other].death.cause.value == "forfeit"
    assert record.seats[other].verdict.kind == "bad_output"


@pytest.mark.parametrize("swap", [False, True])
def test_a_lone_forfeit_loses_from_either_seat(swap: bool) -> None:
    record, seats = play([["garbage"], ["2"]], swap)
    loser = seats.index(0)
    assert record.outcome.winner == 1 - loser
    assert record.seats[loser].verdict.kind == "bad_output"
    assert record.final.turn == 1

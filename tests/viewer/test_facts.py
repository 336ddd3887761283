"""The facts every viewer shows: move tokens in words, seat rows, results."""

from __future__ import annotations

import lightcycle
from lightcycle.viewer.facts import move_text, result_text, seat_rows
from tests.replay.test_convert import random_replay


def test_move_text() -> None:
    assert move_text("n") == "↑" and move_text("w", unicode=False) == "w"
    assert move_text("E") == "jump →"
    assert move_text(17) == "node 17"
    assert move_text({"move": "s", "use_item": True}) == "↓ + item"
    assert move_text({"forfeit": "took 2 s"}) == "forfeit (took 2 s)"
    assert move_text(None) == "-"


def test_rows_follow_the_game() -> None:
    replay = lightcycle.play("ring", ["chaser", "runaway"], seed=2).replay
    states = list(replay.states())
    start = seat_rows(replay, states, 0)
    assert [r.moves for r in start] == ["-", "-"]
    assert [r.name for r in start] == ["Chaser", "Runaway"]
    assert all(r.fate == "alive" and r.time is None for r in start)
    last = seat_rows(replay, states, len(states) - 1)
    loser = next(r for r in last if not r.alive)
    assert loser.fate.endswith(f"turn {len(states) - 1}")
    assert "has won" in result_text(replay)


def test_team_rows_name_their_cycles() -> None:
    replay = random_replay("teams", seed=2)
    states = list(replay.states())
    row = seat_rows(replay, states, 1)[0]
    assert row.cycles == 10 and row.moves.split()[0] == "A"


def test_rows_carry_the_cycle_letters_the_board_shows() -> None:
    teams = random_replay("teams", seed=2)
    assert [r.labels for r in seat_rows(teams, list(teams.states()), 0)] == ["A-J", "K-T"]
    duel = lightcycle.play("ring", ["chaser", "runaway"], seed=2).replay
    rows = seat_rows(duel, list(duel.states()), 0)
    assert [r.to_dict()["labels"] for r in rows] == ["A", "B"]

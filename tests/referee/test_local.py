"""Local play: results, result lines, replays written and re-simulated."""

from __future__ import annotations

import json

import lightcycle
from lightcycle.core.moves import Outcome
from lightcycle.referee.local import result_line
from lightcycle.replay.model import Replay


def test_play_from_python_returns_the_result_and_a_valid_replay(tmp_path) -> None:
    path = tmp_path / "g.json"
    r = lightcycle.play("ring", ["random", "wallhugger"], seed=7, replay_path=path)
    assert r.outcome.turn == r.final.turn
    data = json.loads(path.read_text())
    assert data["format"] == "lightcycle-replay" and data["ruleset"] == "classic@1"
    assert data["seed"] == 7 and [s["name"] for s in data["seats"]] == r.names
    final = Replay.load(path).verify()
    assert final == r.final


def test_result_lines() -> None:
    names = ["Random", "WallHugger"]
    assert result_line(Outcome((1, 2), "x", 3), names) == "Random (Player 1) has won!"
    assert result_line(Outcome((1, 1), "x", 3), names) == "The game was a draw."
    three = ["A", "B", "C"]
    assert result_line(Outcome((1, 1, 3), "x", 3), three) == (
        "The game was a draw between A (Player 1), B (Player 2)."
    )


def test_same_seed_gives_byte_identical_replays() -> None:
    a = lightcycle.play("ring", ["random", "chaser"], seed=3).replay.to_json()
    b = lightcycle.play("ring", ["random", "chaser"], seed=3).replay.to_json()
    assert a == b


def test_duplicate_bot_names_are_numbered() -> None:
    r = lightcycle.play("ring", ["random", "random"], seed=1)
    assert r.names == ["Random", "Random 2"]

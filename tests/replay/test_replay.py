"""Replays re-simulate exactly; corrupt or malformed ones are refused with a reason."""

from __future__ import annotations

import json

import pytest

import lightcycle
from lightcycle.replay.model import CorruptReplayError, Replay, ReplayError


def _replay() -> Replay:
    return lightcycle.play("ring", ["chaser", "runaway"], seed=2).replay


def test_round_trip_through_json() -> None:
    r = _replay()
    again = Replay.from_json(r.to_json())
    assert again.to_json() == r.to_json()
    assert again.verify().outcome is not None


def test_a_tampered_move_is_reported_as_corrupt() -> None:
    r = _replay()
    data = json.loads(r.to_json())
    first = data["turns"][0]
    first[0] = {"n": "s", "s": "n", "e": "w", "w": "e"}[first[0]]
    bad = Replay.from_json(json.dumps(data))
    with pytest.raises(CorruptReplayError, match=r"different outcome|before the game ends|after"):
        bad.verify()


def test_a_tampered_outcome_is_reported_as_corrupt() -> None:
    r = _replay()
    r.outcome = dict(r.outcome or {}, ranks=list(reversed(r.outcome["ranks"])))  # type: ignore[index]
    with pytest.raises(CorruptReplayError, match="different outcome"):
        r.verify()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "1:2: expected a property name in double quotes, found 'not json'"),
        ('{"format": "other"}', "expected a JSON object"),
        ('{"format": "lightcycle-replay", "version": 99}', "version 99 is not supported"),
        ('{"format": "lightcycle-replay", "version": 1}', 'expected a "ruleset" field'),
    ],
)
def test_malformed_files_name_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(ReplayError, match=message):
        Replay.from_json(text, source="x.json")


def test_a_bad_move_token_names_the_turn() -> None:
    data = json.loads(_replay().to_json())
    data["turns"][2][0] = "q"
    with pytest.raises(ReplayError, match=r'turn 3: cycle 0: expected a move .*, found "q"'):
        Replay.from_json(json.dumps(data)).verify()


SEAT = {
    "level": "auto",
    "given": "full",
    "full": True,
    "protections": ["bubblewrap", "no network", "seccomp", "own uid 61000", "rlimits"],
}


def test_the_sandbox_of_each_seat_round_trips() -> None:
    r = _replay()
    r.sandbox = [SEAT, None]  # a program, and a bot played in the referee
    again = Replay.from_json(r.to_json())
    assert again.sandbox == [SEAT, None]
    assert json.loads(again.to_json())["sandbox"] == [SEAT, None]
    assert again.verify().outcome is not None


def test_a_replay_without_the_sandbox_field_still_loads() -> None:
    """Replays written before the field existed (and in-process games) have none."""
    data = json.loads(_replay().to_json())
    assert "sandbox" not in data
    again = Replay.from_json(json.dumps(data))
    assert again.sandbox is None
    assert "sandbox" not in json.loads(again.to_json())


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("full", 'expected "sandbox" to be a list with one object'),
        (["full", None], 'expected every entry of "sandbox" to be a {"level", "given"'),
    ],
)
def test_a_malformed_sandbox_field_is_refused(value: object, message: str) -> None:
    data = json.loads(_replay().to_json())
    data["sandbox"] = value
    with pytest.raises(ReplayError, match=message):
        Replay.from_json(json.dumps(data), source="x.json")

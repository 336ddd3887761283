"""The referee on the team and 3D variants: programs over jsonl, CPU time, listed order."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lightcycle.maps.registry import get_map
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import play_game
from lightcycle.referee.players import make_player, parse_bot_spec
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import Limits

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "examples" / "jsonl" / "bot.py"
GRAPH_BOT = Path(__file__).with_name("bots") / "graph_jsonl_bot.py"
GENEROUS = TimeControl(move=5.0, first_move=10.0)


def _play(specs: list[str], map_name: str, ruleset, seed: int, tmp_path: Path):  # type: ignore[no-untyped-def]
    """Play one game between ``specs`` (programs speak jsonl), stopping every process."""
    players = [make_player(parse_bot_spec(s, "jsonl"), Limits(), tmp_path) for s in specs]
    try:
        return play_game(players, get_map(map_name), ruleset, seed=seed, controls=GENEROUS)
    finally:
        for p in players:
            p.shutdown()


def test_team_clock_defaults_come_from_the_ruleset() -> None:
    control = TimeControl.for_ruleset(get_ruleset("teams").clock)
    assert (control.move, control.first_move, control.average) == (None, 5.0, 0.1)
    assert TimeControl.for_ruleset(get_ruleset("classic").clock) == TimeControl()


def test_a_jsonl_program_plays_the_team_course_with_cpu_measured(tmp_path: Path) -> None:
    specs = [f"cmd:{sys.executable} {STARTER}", "builtin:randombot"]
    record = _play(specs, "court-small", get_ruleset("teams"), 4, tmp_path)
    assert record.seats[0].verdict.ok, record.seats[0].verdict
    replay = record.replay
    assert replay.cpu is not None and len(replay.cpu) == len(replay.turns)
    assert sum(turn[0] for turn in replay.cpu) > 0  # the program's CPU time was measured
    assert replay.verify().outcome == record.outcome
    assert record.final.cpu[0] == sum(turn[0] for turn in replay.cpu)


def test_a_jsonl_program_plays_tron3d_keyed_by_name_in_its_own_order(tmp_path: Path) -> None:
    rs = get_ruleset("tron3d").with_settings(nb_rounds=60, bonus_round=6)
    record = _play(
        [f"cmd:{sys.executable} {GRAPH_BOT}", "builtin:dummy"], "icosahedron", rs, 2, tmp_path
    )
    assert record.seats[0].verdict.ok, record.seats[0].verdict
    replay = record.replay
    # the bot lists its two cycles highest id first: the replay keeps that order
    assert replay.orders is not None
    assert any(order[:2] == [1, 0] for order in replay.orders if order)
    # odd rounds: no cycle without turbo moves, so nothing was asked or recorded for it
    assert all(tok is None for tok in replay.turns[1][:2])
    assert replay.verify().outcome == record.outcome
    assert record.outcome.reason.endswith("ranked by score")


@pytest.mark.parametrize("protocol", ["tron2010", "aichallenge", "sexp"])
def test_older_protocols_are_refused_for_the_team_course(protocol: str, tmp_path: Path) -> None:
    from lightcycle.protocols.base import UnsupportedGame

    players = [
        make_player(parse_bot_spec(f"cmd:{sys.executable} -c pass", protocol), Limits(), tmp_path),
        make_player(parse_bot_spec("builtin:randombot"), Limits(), tmp_path),
    ]
    with pytest.raises(UnsupportedGame, match="cannot express the rules of teams@1"):
        play_game(players, get_map("court-small"), get_ruleset("teams"), controls=GENEROUS)

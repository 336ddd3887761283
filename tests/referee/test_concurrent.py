"""Games running at the same time do not disturb each other, even next to hostile bots."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lightcycle.maps.registry import get_map
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import GameRecord, play_game
from lightcycle.referee.players import BotSpec, make_player
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import Limits

ROOT = Path(__file__).resolve().parents[2]
BAD = Path(__file__).parent / "bad_bots"
CONTROL = TimeControl(move=3.0, first_move=5.0)


def program(path: Path) -> BotSpec:
    return BotSpec(
        text=str(path), kind="program", command=(sys.executable, str(path)), protocol="tron2010"
    )


def game(specs: list[BotSpec], control: TimeControl = CONTROL) -> GameRecord:
    players = [make_player(s, Limits(), None) for s in specs]
    try:
        return play_game(players, get_map("arena-15"), get_ruleset("classic"), 5, control)
    finally:
        for p in players:
            p.shutdown()


def test_a_game_beside_hostile_bots_plays_exactly_as_alone() -> None:
    sound = [program(ROOT / "examples/tron2010/bot.py"), BotSpec("builtin:runaway", "inproc")]
    alone = game(sound)
    hostile = [
        [program(BAD / "floods_stdout.py"), BotSpec("builtin:random", "inproc")],
        [program(BAD / "floods_stderr.py"), program(BAD / "loops.py")],
    ]
    with ThreadPoolExecutor(3) as pool:
        bad = [pool.submit(game, h, TimeControl(move=1.0, first_move=3.0)) for h in hostile]
        beside = pool.submit(game, sound)
        results = [f.result(timeout=120) for f in bad]
        together = beside.result(timeout=120)
    assert together.replay.turns == alone.replay.turns
    assert together.outcome == alone.outcome
    assert [s.verdict.kind for s in together.seats] == ["ok", "ok"]
    assert results[0].seats[0].verdict.kind == "bad_output"
    assert results[1].seats[1].verdict.kind == "timeout"

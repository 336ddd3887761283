"""Bots whose moves are fixed by a budget play the same game on a busy machine.

A loaded machine is simulated by a clock that jumps ahead at every reading, so every
move looks far slower than the time control allows: a reproducible built-in bot
(``strong`` or ``medium`` with ``nodes=N``) is timed but not forfeited, and plays
exactly the moves it plays on an idle machine; a clock-driven bot, or a user's bot
that merely declares itself reproducible, is still forfeited for time.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import lightcycle.bots.ladder as ladder
import lightcycle.referee.game as game
from lightcycle.maps.registry import get_map
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import GameRecord, play_game
from lightcycle.referee.players import make_player, parse_bot_spec
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import Limits

DUEL_CONTROL = TimeControl(move=0.1, first_move=1.0)
"""``lightcycle duel``'s default time control."""

BUDGETED = ("builtin:strong:nodes=600", "builtin:medium:nodes=600")


class LoadedClock:
    """A monotonic clock on a machine so busy that every reading comes ``step`` seconds
    after the one before, whatever happened in between."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return time.perf_counter() + self.step * self.readings


def _load(monkeypatch: pytest.MonkeyPatch, step: float = 0.25) -> LoadedClock:
    """Make the referee's clock and the searching bots' clock run as on a busy machine."""
    clock = LoadedClock(step)
    monkeypatch.setattr(game, "_now", clock)
    monkeypatch.setattr(ladder, "time", SimpleNamespace(perf_counter=clock))
    return clock


def _play(specs: tuple[str, ...], map_name: str = "arena-10", seed: int = 3) -> GameRecord:
    players = [make_player(parse_bot_spec(s), Limits(), None) for s in specs]
    return play_game(players, get_map(map_name), get_ruleset("classic"), seed, DUEL_CONTROL)


def _moves(record: GameRecord) -> str:
    """The replay as JSON without the measured move times (the only parts a clock
    writes: the referee's ``times``, the bots' own ``reports``)."""
    data: dict[str, Any] = record.replay.to_dict()
    data.pop("times", None)
    data.pop("reports", None)
    return json.dumps(data, sort_keys=True)


def _verdicts(record: GameRecord) -> list[str]:
    return [str(s.verdict) for s in record.seats]


@pytest.mark.parametrize("map_name", ["arena-10", "chambers"])
def test_budgeted_bots_play_the_same_game_under_load(
    monkeypatch: pytest.MonkeyPatch, map_name: str
) -> None:
    idle = _play(BUDGETED, map_name)
    clock = _load(monkeypatch)
    busy = _play(BUDGETED, map_name)
    assert clock.readings > 0  # the loaded clock was the one read
    assert _verdicts(busy) == ["ok", "ok"] == _verdicts(idle)
    assert _moves(busy) == _moves(idle)
    assert busy.final.turn > 2
    # still timed: the table's move times show how slow the machine was
    assert all(s.clock.max_move >= clock.step for s in busy.seats)
    assert all(s.clock.moves == busy.final.turn for s in busy.seats)


def test_a_clock_driven_bot_is_still_forfeited_for_time(monkeypatch: pytest.MonkeyPatch) -> None:
    _load(monkeypatch)
    busy = _play(("builtin:strong", "builtin:medium:nodes=600"))
    assert busy.seats[0].verdict.kind == "timeout"
    assert busy.seats[1].verdict.ok


def test_a_user_bot_is_held_to_the_clock_whatever_it_declares(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bot = tmp_path / "claims.py"
    bot.write_text(
        "from lightcycle.bots.api import Bot\n"
        "class Claims(Bot):\n"
        "    name = 'Claims'\n"
        "    reproducible = True\n"
        "    def move(self, view):\n"
        "        return (view.safe_headings() or ['n'])[0]\n",
        encoding="utf-8",
    )
    _load(monkeypatch)
    busy = _play((f"py:{bot}", "builtin:wallhugger"))
    assert busy.seats[0].verdict.kind == "timeout"
    assert busy.seats[1].verdict.ok  # a fixed rung of the ladder is reproducible

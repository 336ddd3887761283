"""Programs and in-process bots are asked at the same time, and each clock is its own.

A program's clock starts when its request is written, not when the in-process bots of
the turn have answered: it is neither charged for their thinking nor given it as extra
time. Real processes follow scripts (``scripted_bot.py``); the in-process bot sleeps.
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

import pytest

from lightcycle.bots.api import Bot, MoveAnswer
from lightcycle.maps.registry import get_map
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import GameRecord, play_game
from lightcycle.referee.players import BotSpec, InProcessPlayer, Player, make_player
from lightcycle.rules.observe import View
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import Limits

SCRIPT = Path(__file__).parent / "scripted_bot.py"
THINK = 0.5  # long beside the program's 0.15 s, so a loaded machine cannot blur the two
"""How long the in-process bot thinks on the first turn."""


class Ponderer(Bot):
    """Thinks `THINK` seconds on the first turn, then goes north at once."""

    name = "Ponderer"

    def move(self, view: View) -> MoveAnswer:
        if view.turn == 0:
            time.sleep(THINK)
        return "n"


class PonderPlayer(InProcessPlayer):
    """An in-process seat playing `Ponderer`."""

    def __init__(self) -> None:
        super().__init__(BotSpec(text="builtin:random", kind="inproc", name="Ponderer"))

    def new_game(self) -> Bot:
        self.bot = Ponderer()
        return self.bot


def play(first_move: str, control: TimeControl) -> tuple[GameRecord, float]:
    """A scripted program (seat 1) against `Ponderer` (seat 2); the record and the first
    turn's wall time."""
    spec = BotSpec(
        text="script",
        kind="program",
        command=(sys.executable, str(SCRIPT), first_move),
        protocol="tron2010",
    )
    program = make_player(spec, Limits(), None)
    inproc = PonderPlayer()
    marks: list[float] = []
    try:
        record = play_game(
            [program, inproc],
            get_map("arena-10"),
            get_ruleset("classic"),
            seed=0,
            controls=control,
            on_turn=lambda state: marks.append(time.perf_counter()),
        )
    finally:
        program.shutdown()
        inproc.shutdown()
    return record, marks[1] - marks[0]


def test_a_program_is_charged_its_own_time_not_the_in_process_bots() -> None:
    record, first_turn = play("1+0.15", TimeControl(move=1.0, first_move=1.0))
    times = record.replay.times
    assert times is not None
    program_time, ponder_time = times[0]
    assert program_time is not None and ponder_time is not None
    assert ponder_time >= THINK * 0.9
    # the program answered 0.15 s after it was asked, while the other bot thought
    assert 0.12 <= program_time < THINK, program_time
    # both thought at once: the turn lasts the longer of the two, not their sum
    assert first_turn < THINK + 0.12, first_turn


def test_a_program_gets_no_extra_time_while_an_in_process_bot_thinks() -> None:
    # 0.8 s limit; the program answers after 0.9 s; the in-process bot thinks 0.5 s of it
    record, _ = play("1+0.9", TimeControl(move=0.8, first_move=0.8))
    program = record.seats[0]
    assert program.verdict.kind == "timeout", program.verdict
    assert record.seats[1].verdict.ok


class CollectorProbe(Bot):
    """Notes, at each move, whether the garbage collector could run."""

    name = "CollectorProbe"

    def __init__(self, seen: list[bool]) -> None:
        self.seen = seen

    def move(self, view: View) -> MoveAnswer:
        self.seen.append(gc.isenabled())
        return "n"


class ProbePlayer(InProcessPlayer):
    """An in-process seat playing `CollectorProbe`."""

    def __init__(self, seen: list[bool]) -> None:
        super().__init__(BotSpec(text="builtin:random", kind="inproc", name="CollectorProbe"))
        self.seen = seen

    def new_game(self) -> Bot:
        self.bot = CollectorProbe(self.seen)
        return self.bot


@pytest.mark.parametrize("beside", ["program", "in-process"])
def test_no_garbage_collection_lands_on_a_clock(beside: str) -> None:
    """A full collection takes 60-160 ms in a worker with the compiled search loaded;
    the referee holds it off while in-process bots think (on the worker thread beside a
    program, or on its own), and lets it run after."""
    seen: list[bool] = []
    other: Player
    if beside == "program":
        spec = BotSpec(
            text="script",
            kind="program",
            command=(sys.executable, str(SCRIPT)),
            protocol="tron2010",
        )
        other = make_player(spec, Limits(), None)
    else:
        other = ProbePlayer(seen)
    probe = ProbePlayer(seen)
    assert gc.isenabled()
    try:
        play_game([other, probe], get_map("arena-10"), get_ruleset("classic"), seed=0)
    finally:
        other.shutdown()
        probe.shutdown()
    assert len(seen) >= 2 and not any(seen)
    assert gc.isenabled()

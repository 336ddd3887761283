"""A failed seat never delays the other seats' clocks: its tear-down happens off the loop.

The innocent bot answers in 50 ms under a 0.3 s limit; its neighbour writes garbage on
its third turn (or crashes leaving a child that holds its stderr). Killing and reaping
the failed bot, or reading its last stderr lines, must not happen while the innocent
bot's reply waits to be read: its clock would run on.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from lightcycle.maps.registry import get_map
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.match import run_match
from lightcycle.referee.players import BotSpec
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import BotProcess, Limits
from tests.sandbox.survivors import Recorder, leftovers, zombie_children

BAD = Path(__file__).parent / "bad_bots"
CONTROL = TimeControl(move=0.3, first_move=3.0)

PROMPT = """
import sys, time
sys.path.insert(0, {bad!r})
from _tron import answer, free_heading, read_map

while (rows := read_map()) is not None:
    time.sleep(0.05)
    answer(free_heading(rows) + "\\n")
"""

CRASHES_WITH_A_CHILD = """
import os, sys
sys.path.insert(0, {bad!r})
from _tron import play

play(2)
if os.fork() == 0:  # holds stderr open, so its end is slow to come
    os.close(1)
    import time
    time.sleep(10)
    os._exit(0)
sys.stderr.write("giving up\\n")
sys.stderr.flush()
os._exit(3)
"""


def program(path: Path) -> BotSpec:
    return BotSpec(
        text=str(path), kind="program", command=(sys.executable, str(path)), protocol="tron2010"
    )


def bot(tmp_path: Path, name: str, code: str) -> BotSpec:
    path = tmp_path / f"{name}.py"
    path.write_text(code.format(bad=str(BAD)))
    return program(path)


def play(specs: list[BotSpec], games: int, limits: Limits | None = None) -> list[list[str]]:
    result = run_match(
        specs,
        [get_map("arena-15")],
        get_ruleset("classic"),
        games=games,
        swap_sides=True,
        control=CONTROL,
        limits=limits,
    )
    return [[s.split(":")[0] for s in g.verdicts] for g in result.games]


def innocent_verdicts(verdicts: list[list[str]]) -> list[str]:
    """The prompt bot's verdict in each game (it sits first in even games)."""
    return [v[i % 2] for i, v in enumerate(verdicts)]


def assert_nothing_left(started: list[BotProcess]) -> None:
    assert started
    for proc in started:
        assert leftovers(proc) == [], f"process {proc.pid} of {proc.argv} survived"
    assert zombie_children() == set()


def test_a_prompt_bot_beside_a_garbage_writer_is_never_timed_out(
    recorder: type[Recorder], tmp_path: Path
) -> None:
    verdicts = play([bot(tmp_path, "prompt", PROMPT), program(BAD / "garbage.py")], games=6)
    assert innocent_verdicts(verdicts) == ["ok"] * 6
    assert [v[1 - i % 2] for i, v in enumerate(verdicts)] == ["bad_output"] * 6
    assert_nothing_left(recorder.started)


def test_the_turn_loop_never_waits_for_a_failed_bot_to_be_gone(
    recorder: type[Recorder], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tear-down that takes a whole second (a PID namespace on a loaded machine) is
    still invisible to the clocks: the referee's own thread never waits for one while
    a game is on."""
    game_thread = threading.current_thread()
    waited_in_game: list[str] = []
    in_game = [False]
    slow_kill = BotProcess.kill

    def kill(self: BotProcess, timeout: float = 2.0) -> None:
        if in_game[0] and threading.current_thread() is game_thread:
            waited_in_game.append(" ".join(self.argv))
        time.sleep(1.0)
        slow_kill(self, timeout)

    monkeypatch.setattr(BotProcess, "kill", kill)
    from lightcycle.referee import game as game_mod

    play_game = game_mod.play_game

    def watched(*a, **kw):  # type: ignore[no-untyped-def]
        in_game[0] = True
        try:
            return play_game(*a, **kw)
        finally:
            in_game[0] = False

    monkeypatch.setattr("lightcycle.referee.match.play_game", watched)
    verdicts = play([bot(tmp_path, "prompt", PROMPT), program(BAD / "garbage.py")], games=2)
    assert waited_in_game == [], "a failed bot's tear-down ran on the turn loop"
    assert innocent_verdicts(verdicts) == ["ok"] * 2
    assert_nothing_left(recorder.started)


def test_a_crash_is_judged_once_the_other_replies_are_in(
    recorder: type[Recorder], tmp_path: Path
) -> None:
    """Without a PID namespace the crashed bot's child keeps its stderr open, so its last
    lines take a second to give up on: never while the prompt bot's reply waits."""
    crashing = bot(tmp_path, "crashing", CRASHES_WITH_A_CHILD)
    result = run_match(
        [bot(tmp_path, "prompt", PROMPT), crashing],
        [get_map("arena-15")],
        get_ruleset("classic"),
        games=2,
        swap_sides=True,
        control=CONTROL,
        limits=Limits(isolate="none"),
    )
    verdicts = [g.verdicts for g in result.games]
    assert innocent_verdicts([[s.split(":")[0] for s in v] for v in verdicts]) == ["ok", "ok"]
    crashes = [v[1 - i % 2] for i, v in enumerate(verdicts)]
    assert all(c.startswith("crashed: exit code 3") and "giving up" in c for c in crashes)
    assert_nothing_left(recorder.started)

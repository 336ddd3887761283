"""The keyboard player: keys steer, silence keeps the heading, reversing is ignored."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import lightcycle
from lightcycle.core.topology import Heading
from lightcycle.rules.engine import new_game
from lightcycle.rules.observe import View
from lightcycle.viewer.human import HumanBot, HumanError, check_steerable, steer
from tests.conftest import graph_map, grid_map


class Script:
    """Keys and a clock for the bot: each call to the key source returns the next batch
    and lets ``step`` seconds pass."""

    def __init__(self, batches: list[list[str]], step: float = 0.1) -> None:
        self.batches: Iterator[list[str]] = iter(batches)
        self.now = 0.0
        self.step = step
        self.waits: list[float | None] = []

    def keys(self, timeout: float | None) -> list[str]:
        self.waits.append(timeout)
        self.now += self.step if timeout is None else min(self.step, timeout)
        return next(self.batches, [])

    def clock(self) -> float:
        return self.now


def test_steer() -> None:
    assert steer(None, "up") == Heading.N
    assert steer(Heading.E, "i") == Heading.N
    assert steer(Heading.E, "j") is None  # straight back onto the trail: ignored
    assert steer(Heading.E, "x") is None


def _view() -> View:
    return View(new_game("classic", grid_map(["#######", "#1...2#", "#######"])), 0)


def test_the_first_move_waits_for_a_key_then_the_heading_is_kept() -> None:
    script = Script([[], ["x"], ["right"], [], [], ["k"], []], step=0.125)
    bot = HumanBot(script.keys, tick=0.25, clock=script.clock)
    bot.start(_view())
    assert bot.move(_view()) == "e"
    assert script.waits[:3] == [None, None, None]  # no timeout before the first key
    assert bot.move(_view()) == "e"  # nothing pressed within the tick
    assert bot.move(_view()) == "s"


def test_q_gives_up() -> None:
    script = Script([["up"], ["q"]])
    bot = HumanBot(script.keys, clock=script.clock)
    assert bot.move(_view()) == "n"
    answer = bot.move(_view())
    assert getattr(answer, "reason", "") == "the human quit"


def test_only_one_cycle_on_a_grid_can_be_steered() -> None:
    with pytest.raises(HumanError, match="grid boards"):
        check_steerable(View(new_game("tron3d", graph_map()), 0))
    from lightcycle.maps.registry import get_map

    with pytest.raises(HumanError, match="one cycle"):
        check_steerable(View(new_game("teams", get_map("court-small")), 0))


def test_a_human_plays_a_whole_game_against_a_bot() -> None:
    script = Script([["up"]] + [[]] * 200, step=0.3)
    bot = HumanBot(script.keys, tick=0.25, clock=script.clock)
    result = lightcycle.play("arena-10", [bot, "chaser"], seed=1)
    assert result.replay.seats[0]["bot"].endswith("HumanBot")
    first = [t[0] for t in result.replay.turns if t[0] is not None]
    assert set(first) == {"n"}  # kept heading north until the wall

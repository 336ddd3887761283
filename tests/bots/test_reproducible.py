"""Which built-in bots play the same moves whatever the clock says (`Bot.reproducible`).

A clock racing ahead (every reading a quarter second after the last) stands for a
machine so loaded that every deadline has passed: a bot whose play is fixed by a node
budget must not notice it, a clock-driven one does.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

import lightcycle.bots.ladder as ladder
from lightcycle.bots.api import Bot, plays_reproducibly
from lightcycle.bots.ladder import Medium, Strong
from lightcycle.bots.registry import BUILTIN, make_bot
from lightcycle.referee.local import play

CLOCK_DRIVEN = {"medium", "strong"}
"""The rungs that search until a deadline unless given ``nodes=N``."""


def _race(monkeypatch: pytest.MonkeyPatch, step: float = 0.25) -> None:
    readings = [0]

    def racing() -> float:
        readings[0] += 1
        return time.perf_counter() + step * readings[0]

    monkeypatch.setattr(ladder, "time", SimpleNamespace(perf_counter=racing))


def _game(bots: list[str], map_name: str = "arena-15", seed: int = 1) -> str:
    return play(map_name, bots, seed=seed).replay.to_json()


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_every_builtin_bot_but_the_searching_rungs_is_reproducible(name: str) -> None:
    bot = make_bot(name)
    assert bot.reproducible is (name not in CLOCK_DRIVEN)
    assert plays_reproducibly(bot) is bot.reproducible


@pytest.mark.parametrize("cls", [Medium, Strong])
def test_a_node_budget_makes_a_searching_rung_reproducible(
    cls: type[Medium] | type[Strong],
) -> None:
    assert cls(nodes=500).reproducible
    assert not cls().reproducible
    # a depth cap alone is not enough: the endgame solver still stops on the clock
    assert not cls(depth=3).reproducible
    assert make_bot(f"builtin:{cls.__name__.lower()}:nodes=500").reproducible


def test_strong_beyond_the_duel_is_clock_driven_whatever_its_budget() -> None:
    bot = Strong(nodes=300)
    play("ffa4", [bot, "random", "random", "random"], seed=2)
    assert not bot.reproducible  # MultiStrong stops on its CPU clock


def test_a_bot_from_outside_lightcycle_is_not_taken_at_its_word() -> None:
    class Claims(Bot):
        reproducible = True

    Claims.__module__ = "students_bot"
    assert not plays_reproducibly(Claims())


@pytest.mark.parametrize(
    "bots",
    [
        ["builtin:strong:nodes=2000", "builtin:medium:nodes=2000"],
        ["builtin:medium:nodes=2000", "builtin:strong:nodes=2000"],
    ],
)
def test_budgeted_rungs_make_the_same_moves_when_every_deadline_has_passed(
    monkeypatch: pytest.MonkeyPatch, bots: list[str]
) -> None:
    idle = _game(bots)
    _race(monkeypatch)
    assert _game(bots) == idle


def test_medium_without_a_budget_plays_by_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why the documented reproducible duel gives medium ``nodes=N`` too."""
    bots = ["builtin:medium", "builtin:territory"]
    idle = _game(bots)
    _race(monkeypatch)
    assert _game(bots) != idle

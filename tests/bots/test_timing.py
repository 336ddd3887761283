"""`lightcycle.bots.timing`: the move budget from the clock, tested with plain numbers.

The policy's cases are plain-text vectors in ``vectors/timing.txt`` (see its header);
the rest checks how strong's clock uses it without reading any wall time into an
assertion: a move whose start lies a second back is out of time at once, one that has
just begun is not.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import pytest

from lightcycle.bots import timing
from lightcycle.bots.ladder import DuelPosition, Strong
from lightcycle.bots.registry import make_bot
from lightcycle.maps.registry import get_map
from lightcycle.rules.engine import new_game
from lightcycle.rules.observe import ClockView, View
from lightcycle.rules.variants import get_ruleset

VECTORS = Path(__file__).parent / "vectors" / "timing.txt"


def _lines() -> list[Any]:
    cases = []
    for number, raw in enumerate(VECTORS.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if line and not line.startswith("#"):
            cases.append(pytest.param(line, id=f"line{number}"))
    return cases


def _pairs(text: str) -> dict[str, str]:
    out = {}
    for token in text.split():
        key, sep, value = token.partition("=")
        assert sep, f"expected key=value, got {token!r}"
        out[key] = value
    return out


def _number(text: str) -> float | None:
    return None if text == "none" else float(text)


def _clock(args: dict[str, str]) -> ClockView | None:
    if args.pop("clock", None) == "none":
        return None
    names = {"first": "first_move", "bank": "bank_left"}
    kw: dict[str, Any] = {}
    for key, value in args.items():
        field = names.get(key, key)
        kw[field] = int(value) if field == "moves" else _number(value)
    return ClockView(**kw)


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("line", _lines())
def test_timing_vector(line: str) -> None:
    kind, _, rest = line.partition(" ")
    args_text, _, want_text = (p.strip() for p in rest.partition("|"))
    args = _pairs(args_text)
    if kind == "plan":
        limit = _number(args.pop("limit"))
        turn = int(args.pop("turn"))
        left = int(args.pop("left"))
        crit = float(args.pop("crit"))
        got = timing.plan(limit, _clock(args), turn, left, crit)
        want = _pairs(want_text)
        assert _close(got.target, float(want["target"])), got
        assert _close(got.hard, float(want["hard"])), got
        assert got.target <= got.hard
    elif kind == "criticality":
        gap = None if args["gap"] == "none" else int(args["gap"])
        value = timing.criticality(int(args["safe"]), gap, float(args["swing"]))
        assert _close(value, float(want_text))
    elif kind == "next_cost":
        before = _number(args["before"])
        assert _close(timing.next_cost(float(args["last"]), before), float(want_text))
    elif kind == "start_next":
        got = timing.start_next(
            float(args["elapsed"]), float(args["predicted"]), float(args["target"])
        )
        assert got == {"yes": True, "no": False}[want_text], line
    else:
        pytest.fail(f"unknown vector kind {kind!r}: {line}")


@pytest.mark.parametrize("limit", [0.001, 0.05, 0.1, 1.0, 30.0])
@pytest.mark.parametrize("crit", [0.0, 0.5, 1.0])
def test_no_budget_passes_the_limit_less_the_margin(limit: float, crit: float) -> None:
    clocks = [
        None,
        ClockView(move=limit, moves=3),
        ClockView(move=limit / 2, bank_left=limit / 2, moves=3),
        ClockView(average=limit / 3, moves=3),
        ClockView(move=limit, cpu=10.0, cpu_left=5.0, moves=3),
    ]
    for clock in clocks:
        for left in (0, 1, 30, 10_000):
            b = timing.plan(limit, clock, 7, left, crit)
            assert timing.FLOOR <= b.target <= b.hard
            assert b.hard <= max(timing.FLOOR, limit - timing.MARGIN)


def test_a_critical_move_never_gets_less() -> None:
    clock = ClockView(move=0.1, bank_left=3.0, moves=12)
    quiet = timing.plan(3.1, clock, 12, 40, 0.0)
    tense = timing.plan(3.1, clock, 12, 40, 1.0)
    assert tense.target > quiet.target and tense.hard > quiet.hard


def test_moves_left_is_shared_and_capped() -> None:
    assert timing.moves_left(90) == 45
    assert timing.moves_left(90, cycles=3) == 30
    assert timing.moves_left(0) == 1
    assert timing.moves_left(10**6) == timing.HORIZON_MAX


def _view(turn_limit: float | None = 0.1, clock: ClockView | None = None) -> View:
    state = new_game(get_ruleset("classic"), get_map("arena-15"), seed=1)
    return View(state, 0, turn_limit, clock)


@pytest.mark.parametrize("mode", ["plan", "legacy"])
def test_the_clock_runs_out_from_the_moves_start(mode: str) -> None:
    bot = Strong(timing=mode)
    view = _view(0.1, ClockView(move=0.1, first_move=1.0, moves=5))
    pos = DuelPosition(view)
    out_of_time, soft_stop = bot._clock(view, time.perf_counter() - 1.0, pos)
    assert out_of_time is not None and soft_stop is not None
    assert out_of_time()
    assert soft_stop(2, 0)  # no further iteration: the move is already over its budget
    out_of_time, soft_stop = bot._clock(view, time.perf_counter() + 60.0, pos)
    assert out_of_time is not None and soft_stop is not None
    assert not out_of_time()
    assert not soft_stop(2, 0)


def test_a_node_budget_has_no_clock() -> None:
    bot = Strong(nodes=500)
    view = _view()
    assert bot._clock(view, time.perf_counter() - 1.0, DuelPosition(view)) == (None, None)


def test_the_timing_setting() -> None:
    assert make_bot("builtin:strong:timing=legacy").timing == "legacy"  # type: ignore[attr-defined]
    assert Strong().timing == "plan"
    with pytest.raises(ValueError, match="timing must be plan or legacy"):
        Strong(timing="fast")


def test_strong_reports_its_time_and_plies_per_move() -> None:
    bot = Strong(nodes=400)
    view = _view()
    for _ in range(3):
        bot.move(view)
    report = bot.report()
    assert len(report["move_ms"]) == len(report["move_plies"]) == 3
    assert all(p > 0 for p in report["move_plies"])  # an open board: searched
    assert report["think_ms"] == pytest.approx(sum(report["move_ms"]) / 3)

"""`TimeControl` and `Clock`: arithmetic on measured times, tested without any clock.

Games of one seat are plain-text vectors in ``vectors/clock.txt`` (see its header): a
time control, the seconds each move took with the expected ``ok``/``timeout``, checks of
the allowance before a move and of the clock's counters after the last move.
"""

from __future__ import annotations

import math
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from lightcycle.bots.api import Bot, MoveAnswer
from lightcycle.maps.registry import get_map
from lightcycle.referee.clock import Clock, TimeControl, TimeControlError
from lightcycle.referee.game import play_game
from lightcycle.referee.players import InProcessPlayer, make_player, parse_bot_spec
from lightcycle.replay.model import Replay
from lightcycle.rules.observe import ClockView, View
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import Limits

VECTORS = Path(__file__).parent / "vectors" / "clock.txt"


def _number(text: str) -> float | None:
    return None if text == "none" else float(text)


def _pairs(text: str) -> dict[str, str]:
    out = {}
    for token in text.split():
        key, sep, value = token.partition("=")
        assert sep, f"expected key=value, got {token!r}"
        out[key] = value
    return out


def _lines() -> list[Any]:
    cases = []
    for number, raw in enumerate(VECTORS.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if line and not line.startswith("#"):
            cases.append(pytest.param(line, id=f"line{number}"))
    return cases


def _approx(a: float, b: float) -> bool:
    return a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("line", _lines())
def test_clock_vector(line: str) -> None:
    parts = [p.strip() for p in line.split("|")]
    assert len(parts) in (2, 3), f"malformed vector: {line}"
    control = TimeControl(**{k: _number(v) for k, v in _pairs(parts[0]).items()})
    control.validate()
    clock = Clock(control)
    tokens = parts[1].split()
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.startswith("allow="):
            want = float(token.removeprefix("allow="))
            got = clock.allowance()
            assert _approx(got, want), f"move {clock.moves + 1}: allowance {got}, want {want}"
            i += 1
            continue
        elapsed, expected = float(token), tokens[i + 1]
        assert expected in ("ok", "timeout"), f"malformed vector: {line}"
        in_time = clock.charge(elapsed)
        assert in_time == (expected == "ok"), (
            f"move {clock.moves} of {elapsed} s: {'ok' if in_time else 'timeout'}, want {expected}"
        )
        i += 2
    for key, value in _pairs(parts[2] if len(parts) == 3 else "").items():
        got = getattr(clock, key)
        assert _approx(got, float(value)), f"{key} = {got}, want {value}"


def test_the_vector_file_covers_every_kind_of_limit() -> None:
    text = VECTORS.read_text(encoding="utf-8")
    for needle in ("first_move=none", "bank=", "average=0.1", "timeout", "allow=inf"):
        assert needle in text


def test_charge_counts_every_move() -> None:
    clock = Clock(TimeControl(move=1.0, first_move=3.0))
    for elapsed in (2.5, 0.25, 0.75, 1.5):
        clock.charge(elapsed)
    assert clock.moves == 4
    assert clock.total == 5.0
    assert clock.used == 2.5  # the first move is not in ``used``
    assert clock.max_move == 2.5


@pytest.mark.parametrize(
    ("cpu", "seconds", "exceeded"),
    [
        (None, 0.0, False),
        (None, 1e9, False),
        (2.0, 0.0, False),
        (2.0, 1.99, False),
        (2.0, 2.0, False),
        (2.0, 2.01, True),
        (0.0, 0.0, False),
        (0.0, 0.01, True),
    ],
)
def test_cpu_exceeded(cpu: float | None, seconds: float, exceeded: bool) -> None:
    assert Clock(TimeControl(cpu=cpu)).cpu_exceeded(seconds) is exceeded


def test_cpu_does_not_depend_on_the_moves_charged() -> None:
    clock = Clock(TimeControl(cpu=1.0))
    clock.charge(0.5)
    clock.charge(5.0)  # a wall-clock timeout says nothing of CPU
    assert not clock.cpu_exceeded(0.5)
    assert clock.cpu_exceeded(1.5)


# -- TimeControl ------------------------------------------------------------------------


@pytest.mark.parametrize("name", [f.name for f in fields(TimeControl)])
def test_validate_refuses_negative_values(name: str) -> None:
    control = TimeControl(**{name: -0.5})
    with pytest.raises(TimeControlError, match=rf"{name} must be >= 0 seconds, got -0.5"):
        control.validate()


@pytest.mark.parametrize(
    "control",
    [
        TimeControl(),
        TimeControl(move=0.0, first_move=0.0),
        TimeControl(move=None, average=0.1),
        TimeControl(move=1.0, first_move=None, bank=5.0, average=0.5, cpu=10.0),
    ],
    ids=["defaults", "zeros", "average-only", "everything"],
)
def test_validate_accepts(control: TimeControl) -> None:
    control.validate()


@pytest.mark.parametrize(
    "control",
    [
        TimeControl(move=None, average=None),
        TimeControl(move=None, first_move=5.0, average=None, bank=1.0, cpu=1.0),
    ],
    ids=["nothing", "cpu-and-first-move-only"],
)
def test_validate_needs_a_wall_clock_limit(control: TimeControl) -> None:
    with pytest.raises(TimeControlError, match="--move-time or --average-time") as err:
        control.validate()
    assert "sleeps" in str(err.value)


def test_time_control_error_is_a_value_error() -> None:
    assert issubclass(TimeControlError, ValueError)


def test_with_overrides_replaces_only_the_named_controls() -> None:
    base = TimeControl(move=1.0, first_move=3.0, bank=2.0)
    new = base.with_overrides({"move": 0.5, "cpu": 30.0, "first_move": None})
    assert new == TimeControl(move=0.5, first_move=None, bank=2.0, average=None, cpu=30.0)
    assert base == TimeControl(move=1.0, first_move=3.0, bank=2.0)  # unchanged
    assert base.with_overrides({}) == base


def test_with_overrides_names_the_unknown_keys_and_lists_the_known_ones() -> None:
    with pytest.raises(TimeControlError) as err:
        TimeControl().with_overrides({"moves": 1.0, "zz": 2.0, "move": 1.0})
    message = str(err.value)
    assert "unknown time control moves, zz" in message
    assert "known: average, bank, cpu, first_move, move" in message


def test_to_dict() -> None:
    assert TimeControl().to_dict() == {
        "move": 1.0,
        "first_move": 3.0,
        "bank": 0.0,
        "average": None,
        "cpu": None,
    }
    control = TimeControl(move=None, first_move=5.0, bank=0.0, average=0.1, cpu=60.0)
    data = control.to_dict()
    assert data == {"move": None, "first_move": 5.0, "bank": 0.0, "average": 0.1, "cpu": 60.0}
    assert TimeControl(**data) == control


def test_the_view_of_a_clock_is_its_account() -> None:
    clock = Clock(TimeControl(move=1.0, first_move=3.0, bank=2.0, cpu=10.0))
    first = clock.view()
    assert (first.moves, first.mean, first.first_move, first.bank_left) == (0, 0.0, 3.0, 2.0)
    assert first.cpu_left == 10.0
    clock.charge(2.5)  # the first move: neither the bank nor the mean
    clock.charge(0.5)
    clock.charge(1.5)  # half a second off the bank
    seen = clock.view(cpu_used=4.0)
    assert seen.moves == 3 and seen.move == 1.0 and seen.average is None
    assert seen.mean == pytest.approx(1.0)
    assert seen.bank_left == pytest.approx(1.5)
    assert seen.cpu == 10.0 and seen.cpu_left == pytest.approx(6.0)
    assert clock.view(cpu_used=12.0).cpu_left == 0.0
    assert Clock(TimeControl(move=None, first_move=5.0, average=0.1)).view().first_move == 5.0
    assert Clock(TimeControl(move=0.5, first_move=None)).view().first_move == 0.5
    assert Clock(TimeControl()).view().cpu_left is None


class _Watcher(Bot):
    """Keeps the clock each move was shown, and reports a per-move list."""

    name = "Watcher"

    def __init__(self) -> None:
        self.seen: list[tuple[float | None, ClockView | None]] = []

    def move(self, view: View) -> MoveAnswer:
        self.seen.append((view.time_limit, view.clock))
        return view.safe_headings()[0] if view.safe_headings() else "N"

    def report(self) -> dict[str, Any]:
        return {"moves": len(self.seen), "limits": [t or 0.0 for t, _ in self.seen]}


class _Given(InProcessPlayer):
    """An in-process seat that plays the bot instance given (to look inside it)."""

    def __init__(self, bot: Bot) -> None:
        super().__init__(parse_bot_spec("random"))
        self.given = bot

    def new_game(self) -> Bot:
        self.bot = self.given
        return self.given


def test_the_referee_shows_an_in_process_bot_its_clock_and_keeps_its_report() -> None:
    watcher = _Watcher()
    players = [_Given(watcher), make_player(parse_bot_spec("wallhugger"), Limits(), None)]
    control = TimeControl(move=0.5, first_move=2.0, bank=1.0, cpu=30.0)
    record = play_game(players, get_map("arena-10"), get_ruleset("classic"), 1, control)
    clocks = [c for _, c in watcher.seen]
    assert len(clocks) >= 3 and all(c is not None for c in clocks)
    assert [c.moves for c in clocks if c] == list(range(len(clocks)))
    assert watcher.seen[0][0] == 2.0 and watcher.seen[1][0] == 1.5  # the bank included
    last = clocks[-1]
    assert last is not None and last.move == 0.5 and last.bank_left == 1.0
    assert last.cpu == 30.0 and last.cpu_left is not None and 0 < last.cpu_left <= 30.0
    # numbers go to the tables, and everything to the replay, the list included
    assert record.seats[0].info == {"moves": float(len(clocks))}
    reports = record.replay.reports
    assert reports is not None and reports[1] == {}
    assert reports[0]["limits"] == [t for t, _ in watcher.seen]
    again = Replay.from_json(record.replay.to_json())
    assert again.reports == reports

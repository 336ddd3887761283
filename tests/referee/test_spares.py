"""Spare processes and opt-in reuse in matches: the same games, no survivors, exact clocks."""

from __future__ import annotations

import re
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lightcycle.bots.api import BotError
from lightcycle.maps.registry import get_map
from lightcycle.referee import players as players_mod
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import GameRecord, play_game
from lightcycle.referee.match import MatchResult, run_match
from lightcycle.referee.players import BotSpec, ProgramPlayer, parse_bot_spec, read_bot_file
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import BotProcess, Limits
from tests.sandbox.survivors import Recorder, leftovers, zombie_children
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
BAD = Path(__file__).parent / "bad_bots"
PY2010 = ROOT / "examples/tron2010/bot.py"
JSONL = ROOT / "examples/jsonl/bot.py"
CONTROL = TimeControl(move=2.0, first_move=4.0)
WALLHUGGER = BotSpec(text="builtin:wallhugger", kind="inproc")


def program(path: Path, protocol: str = "tron2010", **kw: object) -> BotSpec:
    return BotSpec(
        text=str(path),
        kind="program",
        command=(sys.executable, str(path)),
        protocol=protocol,
        **kw,  # type: ignore[arg-type]
    )


def assert_nothing_left(started: list[BotProcess]) -> None:
    assert started, "no process was started"
    for proc in started:
        assert leftovers(proc) == [], f"process {proc.pid} of {proc.argv} survived the match"
    assert zombie_children() == set()


def match(specs: list[BotSpec], games: int, spares: int, **kw: object) -> MatchResult:
    return run_match(
        specs,
        [get_map("arena-15")],
        get_ruleset("classic"),
        games=games,
        swap_sides=True,
        control=CONTROL,
        spares=spares,
        **kw,  # type: ignore[arg-type]
    )


def summary(result: MatchResult) -> list[tuple[list[int], str, int, list[str]]]:
    return [(g.ranks, g.reason, g.turns, g.verdicts) for g in result.games]


def test_spares_play_the_same_games_and_leave_nothing(
    recorder: type[Recorder], tmp_path: Path
) -> None:
    cold = match([program(PY2010), WALLHUGGER], games=4, spares=0)
    assert len(recorder.started) == 4
    recorder.started = []
    warm = match([program(PY2010), WALLHUGGER], games=4, spares=2, out_dir=tmp_path)
    assert summary(warm) == summary(cold)
    assert all(v == ["ok", "ok"] for *_, v in summary(warm))
    assert warm.stats[0].starts == 4
    assert len(recorder.started) == 6, "4 games and 2 spares left over at the end"
    assert_nothing_left(recorder.started)
    logs = sorted(p.name for p in (tmp_path / "logs").glob("*.log"))
    assert logs == [f"game-00{i}-seat{1 + (i - 1) % 2}.log" for i in range(1, 5)]


def test_an_interrupted_match_leaves_no_spare_behind(recorder: type[Recorder]) -> None:
    def interrupt(i: int, record: object) -> None:
        if i == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        match([program(PY2010), program(PY2010)], games=5, spares=2, on_game=interrupt)
    assert len(recorder.started) >= 4
    assert_nothing_left(recorder.started)


def _vs_wallhugger(player: ProgramPlayer, control: TimeControl) -> GameRecord:
    """One game of ``player`` against the in-process wallhugger on arena-15, seed 1."""
    return play_game(
        [player, players_mod.make_player(WALLHUGGER, Limits(), None)],
        get_map("arena-15"),
        get_ruleset("classic"),
        seed=1,
        controls=control,
    )


def test_a_spare_start_up_cpu_counts_like_a_fresh_process(recorder: type[Recorder]) -> None:
    spec = program(PY2010)
    player = ProgramPlayer(spec, Limits(), None, spares=1)
    control = TimeControl(move=2.0, first_move=4.0, cpu=30.0)
    try:
        records = [_vs_wallhugger(player, control) for _ in range(2)]
    finally:
        player.shutdown()
    for rec in records:
        seat = rec.seats[0]
        assert seat.fresh_process and seat.cpu_base == 0.0
        assert seat.cpu > 0.01, "the interpreter's start-up is part of the game's CPU"
    assert player.pool is None and player.spares_unused == 1
    assert_nothing_left(recorder.started)


def test_a_kept_process_counts_cpu_per_game(recorder: type[Recorder]) -> None:
    player = ProgramPlayer(program(JSONL, "jsonl"), Limits(), None, spares=1)
    control = TimeControl(move=2.0, first_move=4.0, cpu=30.0)
    try:
        records = [_vs_wallhugger(player, control) for _ in range(2)]
        assert player.process is not None
        total = player.process.cpu_time()
    finally:
        player.shutdown()
    first, second = records[0].seats[0], records[1].seats[0]
    assert first.fresh_process and not second.fresh_process
    assert second.cpu_base >= first.cpu > 0
    assert second.cpu <= total - first.cpu + 1e-9, "the first game's CPU is not charged again"
    assert len(recorder.started) == 1, "a kept process needs no spare"
    assert_nothing_left(recorder.started)


def test_tron2010_reuse_plays_every_game_in_one_process(recorder: type[Recorder]) -> None:
    cold = match([program(PY2010), WALLHUGGER], games=4, spares=0)
    recorder.started = []
    kept = match([program(PY2010, reuse=True), WALLHUGGER], games=4, spares=1)
    assert summary(kept) == summary(cold), "a stateless bot plays the same games"
    assert kept.stats[0].starts == 1 and len(recorder.started) == 1
    assert_nothing_left(recorder.started)


CHATTY = """
import sys, threading
sys.path.insert(0, {bad!r})
from _tron import answer, free_heading, read_map

timer = None
while (rows := read_map()) is not None:
    if timer is not None:
        timer.cancel()
    answer(free_heading(rows) + "\\n")
    timer = threading.Timer(0.3, answer, ["late\\n"])  # only fires between games
    timer.start()
"""


def test_a_kept_process_that_writes_between_games_is_caught(
    recorder: type[Recorder], tmp_path: Path
) -> None:
    bot = tmp_path / "chatty.py"
    bot.write_text(CHATTY.format(bad=str(BAD)))
    player = ProgramPlayer(program(bot, reuse=True), Limits(), None)
    verdicts = []
    try:
        for _ in range(2):
            record = play_game(
                [player, players_mod.make_player(WALLHUGGER, Limits(), None)],
                get_map("arena-15"),
                get_ruleset("classic"),
                seed=1,
                controls=CONTROL,
            )
            verdicts.append(record.seats[0].verdict)
            time.sleep(0.6)
    finally:
        player.shutdown()
    assert verdicts[0].kind == "ok"
    assert verdicts[1].kind == "bad_output" and "late" in verdicts[1].detail
    assert player.starts == 1
    assert_nothing_left(recorder.started)


SPARE_CASES = ["crashes", "sleeps", "daemonises", "ignores_sigterm", "burns_cpu_in_child"]


@pytest.mark.parametrize("name", SPARE_CASES)
def test_bad_bots_get_their_verdict_in_every_game_with_spares(
    name: str, recorder: type[Recorder]
) -> None:
    path = BAD / f"{name}.py"
    text = path.read_text()
    verdict = re.search(r"# verdict: (\w+)", text)
    assert verdict is not None
    cpu = re.search(r"cpu=([\d.]+)", text)
    control = TimeControl(move=1.0, first_move=3.0, cpu=float(cpu[1]) if cpu else None)
    result = run_match(
        [program(path), WALLHUGGER],
        [get_map("arena-15")],
        get_ruleset("classic"),
        games=2,
        control=control,
        spares=1,
    )
    assert [g.verdicts[0].split(":")[0] for g in result.games] == [verdict[1]] * 2
    assert_nothing_left(recorder.started)


# -- specs -----------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["aichallenge", "sexp"])
def test_reuse_is_refused_where_the_protocol_cannot_allow_it(protocol: str, tmp_path: Path) -> None:
    with pytest.raises(BotError, match=f"{protocol} bots cannot play two games"):
        parse_bot_spec("cmd:./bot", protocol, reuse=True)
    path = tmp_path / "bot.toml"
    path.write_text(f'command = "./bot"\nprotocol = "{protocol}"\nreuse = true\n')
    with pytest.raises(BotError, match=f"{protocol} bots cannot play two games"):
        read_bot_file(path)


@pytest.mark.parametrize("protocol", ["tron2010", "jsonl"])
def test_reuse_is_accepted_where_the_protocol_allows_it(protocol: str, tmp_path: Path) -> None:
    assert parse_bot_spec("cmd:./bot", protocol, reuse=True).reuse
    path = tmp_path / "bot.toml"
    path.write_text(f'command = "./bot"\nprotocol = "{protocol}"\nreuse = true\n')
    assert read_bot_file(path).reuse


def test_a_bot_file_reuse_key_wins_over_the_match_option(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_text('command = "./bot"\nprotocol = "tron2010"\nreuse = false\n')
    assert not parse_bot_spec(str(path), reuse=True).reuse
    path.write_text('command = "./bot"\nprotocol = "tron2010"\nreuse = "yes"\n')
    with pytest.raises(BotError, match='"reuse" must be true or false'):
        read_bot_file(path)


def test_only_programs_that_need_it_get_spares() -> None:
    plain = ProgramPlayer(program(PY2010), Limits(), None, spares=2)
    kept = ProgramPlayer(program(PY2010, reuse=True), Limits(), None, spares=2)
    jsonl = ProgramPlayer(program(JSONL, "jsonl"), Limits(), None, spares=2)
    assert (plain.reuses, plain.spares) == (False, 2)
    assert (kept.reuses, kept.spares) == (True, 0)
    assert (jsonl.reuses, jsonl.spares) == (True, 0)
    assert replace(program(PY2010), reuse=True).reuse


def test_match_command_refuses_reuse_for_aichallenge() -> None:
    from lightcycle.cli.main import app

    result = CliRunner().invoke(
        app,
        [
            "match",
            "--bot",
            "cmd:python3 examples/aichallenge/bot.py",
            "--bot",
            "builtin:chaser",
            "--protocol",
            "aichallenge",
            "--reuse-processes",
        ],
    )
    assert result.exit_code != 0
    assert "cannot play two games" in result.output


# -- hostile spares ----------------------------------------------------------------------

WRITES_AHEAD = """
import sys
sys.path.insert(0, {bad!r})
from _tron import answer, free_heading, read_map

answer("1\\n")  # before anything was asked
read_map()  # the first request, answered already
while (rows := read_map()) is not None:
    answer(free_heading(rows) + "\\n")
"""

GARBAGE_THEN_EXIT = """
import sys
sys.stdout.write("garbage\\n")
"""

EXITS_EARLY = """
import sys
sys.stderr.write("cannot load my weights\\n")
sys.exit(7)
"""

SPINS = """
import os, sys
open(sys.argv[1], "a").close()
while True:
    pass
"""


def _pending_output(proc: BotProcess) -> int:
    """Bytes waiting in ``proc``'s stdout pipe, unread."""
    import fcntl
    import struct
    import termios

    raw = fcntl.ioctl(proc.stdout_fd, termios.FIONREAD, struct.pack("i", 0))
    return int(struct.unpack("i", raw)[0])


def test_a_spare_runs_nothing_while_another_game_is_timed(
    recorder: type[Recorder], tmp_path: Path
) -> None:
    marker = tmp_path / "spinning"
    bot = tmp_path / "spins.py"
    bot.write_text(SPINS)
    spec = BotSpec(
        text=str(bot),
        kind="program",
        command=(sys.executable, str(bot), str(marker)),
        protocol="tron2010",
    )
    player = ProgramPlayer(spec, Limits(), None, spares=1)
    try:
        record = _vs_wallhugger(player, TimeControl(move=0.5, first_move=1.0))
        assert record.seats[0].verdict.kind == "timeout"
        assert wait_for(lambda: len(recorder.started) == 2, 10.0)
        spare = recorder.started[1]
        marker.unlink()
        time.sleep(0.5)
        assert spare.limits.held and not marker.exists(), "the spare ran before its game"
        assert spare.cpu_time() < 0.05
    finally:
        player.shutdown()
    assert_nothing_left(recorder.started)


@pytest.mark.parametrize(
    ("code", "verdict"),
    [
        (WRITES_AHEAD, "bad_output: wrote before being asked: b'1\\n'"),
        (GARBAGE_THEN_EXIT, "bad_output: wrote before being asked: b'garbage\\n'"),
        (EXITS_EARLY, "crashed: exit code 7; stderr tail: 'cannot load my weights'"),
    ],
    ids=["writes-ahead", "garbage-then-exit", "exits-early"],
)
def test_what_a_process_did_before_its_game_is_judged_in_it(
    code: str, verdict: str, recorder: type[Recorder], tmp_path: Path, monkeypatch
) -> None:
    """Without the hold (spares that run at once, as before), a spare's misbehaviour
    before its game gets the verdict it deserves in that game, not 'exit code 0'."""
    monkeypatch.setattr(ProgramPlayer, "_start_spare", ProgramPlayer._start, raising=False)
    bot = tmp_path / "bot.py"
    bot.write_text(code.format(bad=str(BAD)))
    player = ProgramPlayer(program(bot), Limits(), None, spares=1)
    try:
        _vs_wallhugger(player, CONTROL)  # a cold start; its spare starts meanwhile
        assert wait_for(lambda: len(recorder.started) == 2, 10.0)
        spare = recorder.started[1]
        assert wait_for(lambda: spare.poll() is not None or _pending_output(spare) > 0, 10.0)
        if code is not WRITES_AHEAD:
            assert wait_for(lambda: spare.poll() is not None, 10.0)
        record = _vs_wallhugger(player, CONTROL)
        assert player.pool is not None and player.pool.from_spares == 1
    finally:
        player.shutdown()
    assert str(record.seats[0].verdict) == verdict
    assert_nothing_left(recorder.started)

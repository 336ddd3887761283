"""The 3D course's submission in the judge: one ``AIWhatever.cc`` of the C++ kit.

The tron3d contest builds a kit player (a file with ``RegisterPlayer``, no ``main``) with
the kit's ``Game.cc`` into a program whose seat mode speaks ``jsonl``
(`lightcycle.judge.service.languages.tron3d_kit`), and validates it as the course did: a
game of 4 copies, then 4 games against 3 Dummies. The bots are in ``bots/tron3d/``: a
good one qualifies; one that does not compile, crashes, loops, takes too much CPU is
stopped where it fails; one that writes to cout still plays, its output in the log.
The bad ones play a small game (2 copies, short limits) so that each takes a second or two.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from lightcycle.judge.service import contests
from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.contest_file import load_contest
from lightcycle.judge.service.languages import CPP, is_kit_player, language_for
from lightcycle.judge.service.pipeline import StepResult, build_source, qualify, seed_for, self_play
from lightcycle.kits.tron3d import files_dir
from lightcycle.replay.model import Replay
from lightcycle.sandbox.check import bwrap_usable

BOTS = Path(__file__).parent / "bots" / "tron3d"
EXAMPLE = load_contest(Path(contests.__file__).parent / "tron3d.toml")
TRON3D = replace(
    EXAMPLE, judge=replace(EXAMPLE.judge, sandbox="full" if bwrap_usable() else "auto")
)
"""The contest file as shipped (cube and cylinder, 2 s of CPU a game, 4 copies, 4
qualifying games against 3 Dummies) in the strongest sandbox this host has."""
SMALL = replace(
    TRON3D,
    maps=("cube",),
    players=2,
    limits=replace(TRON3D.limits, move_time=0.5, first_move_time=0.5, cpu_time=0.5),
    validation=replace(TRON3D.validation, self_play_copies=2),
)
"""Two copies on the cube with short limits: where a bad player fails fast."""

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="the kit's builds need g++")


def _build(filename: str, contest: Contest = SMALL) -> tuple[StepResult, bytes]:
    source = (BOTS / filename).read_bytes()
    lang = language_for("cpp", source, contest.ruleset, dict(contest.languages))
    return build_source(lang, filename, source, contest), source


def _self_play(filename: str, contest: Contest = SMALL) -> StepResult:
    built, source = _build(filename, contest)
    assert built.ok and built.artifact is not None, built.log
    lang = language_for("cpp", source, contest.ruleset, dict(contest.languages))
    return self_play(lang, filename, built.artifact, contest)


def test_a_kit_player_is_told_from_a_whole_program() -> None:
    player = (BOTS / "AIGrabber.cc").read_bytes()
    program = b'#include <cstdio>\nint main() { puts("{}"); }\n'
    assert is_kit_player(player) and not is_kit_player(program)
    kit = language_for("cpp", player, "tron3d@1", dict(TRON3D.languages))
    assert kit.run == ("./bot", "--seat") and kit.protocol == "jsonl"
    assert kit.read_only == (files_dir(),) and str(files_dir() / "Game.cc") in kit.build
    assert "-O2" in kit.build
    assert language_for("cpp", program, "tron3d@1", dict(TRON3D.languages)) is CPP
    assert language_for("cpp", player, "classic@1", {}) is CPP  # only the 3D course's


def test_a_good_player_is_built_with_the_kit_and_qualifies() -> None:
    """The shipped contest's games for this file (seeded from its hash): 4 copies play
    all 200 rounds within 2 s of CPU each, then it beats 3 Dummies 4 times."""
    built, source = _build("AIGrabber.cc", TRON3D)
    assert built.ok and built.artifact is not None, built.log
    assert "Game.cc" in built.log and "-O2" in built.log
    lang = language_for("cpp", source, TRON3D.ruleset, dict(TRON3D.languages))
    seed = seed_for(hashlib.sha256(source).hexdigest())
    tested = self_play(lang, "AIGrabber.cc", built.artifact, TRON3D, seed=seed)
    assert tested.ok, tested.reason
    (game,) = tested.games
    assert len(Replay.from_json(game.replay).turns) == 200
    assert all(s["verdict"] == "ok" and 0 < s["cpu_used"] <= 2.0 for s in game.seats)
    qualified = qualify(lang, "AIGrabber.cc", built.artifact, TRON3D, "grabber", seed=seed)
    assert qualified.ok and qualified.state == "accepted", qualified.reason
    assert [g.result for g in qualified.games] == ["win"] * 4


def test_a_player_that_does_not_compile_is_build_failed_with_its_line() -> None:
    built, _ = _build("AISyntax.cc")
    assert built.state == "build_failed" and not built.ok
    assert built.reason.startswith("AISyntax.cc:9:13: error:"), built.reason


def test_a_player_that_crashes_fails_self_play() -> None:
    tested = _self_play("AICrash.cc")
    assert tested.state == "test_failed"
    assert "copy 1: crashed on turn 1" in tested.reason and "SIGSEGV" in tested.reason
    assert "about to crash on round 0" in tested.games[0].seats[0]["stderr_tail"]


@pytest.mark.parametrize("filename", ["AILoop.cc", "AIHog.cc"])
def test_a_player_that_loops_or_hogs_the_cpu_is_stopped(filename: str) -> None:
    tested = _self_play(filename)
    assert tested.state == "test_failed"
    seats = tested.games[0].seats
    assert {s["verdict"] for s in seats} <= {"timeout", "disqualified"}, seats
    assert "copy 1: " in tested.reason and ("0.5 s" in tested.reason), tested.reason


def test_a_player_writing_to_cout_still_plays_its_output_in_the_log() -> None:
    tested = _self_play("AIChatty.cc")
    assert tested.ok, tested.reason
    seats = tested.games[0].seats
    assert all(s["verdict"] == "ok" for s in seats)
    assert "chatty on cout, round 0" in seats[0]["stderr_tail"]
    assert "cin gave" not in seats[0]["stderr_tail"]  # cin reads end of file

"""``scheme:FILE.scm``: a brain of the Scheme course's library plays as a seat.

The seat is the library's runner (``seat.scm``) on Guile or Chez, speaking ``sexp`` on
stdin and stdout; the student writes only the brain. The tests play the course's example
brain with ``lightcycle play`` in the full sandbox where bubblewrap works (else with
none), on both Schemes, and check what the runner does with files that are not one
brain: several brains, a brain named by ``:PROC``, a file that also plays locally.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lightcycle.bots.api import BotError
from lightcycle.cli.main import app
from lightcycle.kits.scheme import (
    SchemeMissing,
    find_scheme,
    library_dir,
    seat_command,
    split_brain_spec,
)
from lightcycle.referee.specs import parse_bot_spec
from lightcycle.sandbox.check import bwrap_usable
from tests.conftest import readable
from tests.kits.scheme.runner import EXAMPLE, SCHEMES, program_or_skip

SANDBOX = "full" if bwrap_usable() else "none"
"""The full sandbox (bubblewrap) where this host has it, else none."""

TWO_BRAINS = """
(define-tron-brain (north ("North" size walls play ppos opos) (s #f)) (play 'n))
(define-tron-brain (west ("West Wind" size walls play ppos opos) (s #f)) (play 'w))
;; a student's local test left in the file: skipped while the file plays as a seat
(display "hello from the file")
(play-tron '(5 . 5) '() '(1 . 1) '(3 . 3) north west)
"""

GAME = b"(5 . 5)\n((0 . 0))\n(1 . 1)\n(3 . 3)\nwin\n"


@pytest.fixture
def brain_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "brains"
    folder.mkdir()
    shutil.copy(EXAMPLE, folder / "random-move-bot.scm")
    (folder / "two.scm").write_text(TWO_BRAINS, encoding="utf-8")
    (folder / "program.scm").write_text('(display "me")(newline)(read)\n', encoding="utf-8")
    return readable(folder)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_lightcycle_play_seats_the_example_brain(
    scheme: str, brain_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program_or_skip(scheme)
    monkeypatch.setenv("LIGHTCYCLE_SCHEME", scheme)
    monkeypatch.chdir(tmp_path)
    spec = f"scheme:{brain_dir / 'random-move-bot.scm'}"
    args = ["play", "--map", "torus-20", "--bots", f"{spec},chaser", "--seed", "3"]
    result = CliRunner().invoke(app, [*args, "--no-render", "--sandbox", SANDBOX])
    assert result.exit_code == 0, result.output
    assert "random-move-bot.scm" in result.output and "Chaser" in result.output
    assert "has won!" in result.output or "draw" in result.output
    replay = json.loads(next((tmp_path / "replays").glob("*.json")).read_text())
    assert replay["seats"][0]["bot"] == spec
    verdicts = [v for turn in replay.get("verdicts") or [] for v in turn if v]
    assert all(v.get("verdict") == "ok" for v in verdicts), verdicts


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_seat_plays_the_last_brain_or_the_one_named(scheme: str, brain_dir: Path) -> None:
    program_or_skip(scheme)
    last = _seat(seat_command(brain_dir / "two.scm", choice=scheme))
    assert last.stdout.splitlines() == ["West Wind", "w"], last.stderr
    assert "hello from the file" in last.stderr and "play-tron: skipped" in last.stderr
    assert "West Wind has won after 1 move." in last.stderr
    named = _seat(seat_command(brain_dir / "two.scm", "north", choice=scheme))
    assert named.stdout.splitlines() == ["North", "n"], named.stderr
    missing = _seat(seat_command(brain_dir / "two.scm", "east", choice=scheme))
    assert missing.returncode != 0 and "defines no brain east" in missing.stderr
    check = _seat(seat_command(brain_dir / "two.scm", choice=scheme, check=True), b"")
    assert check.returncode == 0 and "plays the brain west" in check.stdout


def _seat(argv: tuple[str, ...], given: bytes = GAME) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, input=given, capture_output=True, timeout=30, check=False)
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def test_specs_name_the_file_and_the_brain(brain_dir: Path) -> None:
    try:
        find_scheme()
    except SchemeMissing:
        pytest.skip("neither Guile nor Chez Scheme is installed: scripts/install-guile")
    assert split_brain_spec("a/b.scm:west") == (Path("a/b.scm"), "west")
    assert split_brain_spec("a/b.scm") == (Path("a/b.scm"), None)
    spec = parse_bot_spec(f"scheme:{brain_dir / 'two.scm'}:north")
    assert spec.kind == "program" and spec.protocol == "sexp"
    assert spec.name == "two.scm:north" and spec.command[-1] == "north"
    assert spec.folder == brain_dir.resolve() and spec.read_only == (library_dir(),)


def test_a_spec_that_is_not_a_brain_is_refused_with_the_way_out(
    brain_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(BotError, match="no file"):
        parse_bot_spec(f"scheme:{brain_dir / 'nope.scm'}")
    with pytest.raises(BotError, match=r"defines no brain.*cmd:'guile FILE\.scm'"):
        parse_bot_spec(f"scheme:{brain_dir / 'program.scm'}")
    monkeypatch.setenv("PATH", str(brain_dir))
    monkeypatch.delenv("LIGHTCYCLE_SCHEME", raising=False)
    with pytest.raises(BotError, match=r"apt-get install guile-3\.0.*chezscheme"):
        parse_bot_spec(f"scheme:{brain_dir / 'random-move-bot.scm'}")
    monkeypatch.setenv("LIGHTCYCLE_SCHEME", "mit")
    with pytest.raises(BotError, match="expected guile or chez"):
        parse_bot_spec(f"scheme:{brain_dir / 'random-move-bot.scm'}")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_brain_the_kit_ships_plays_as_a_seat(
    scheme: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kit's brains load on both Schemes (Chez refuses a definition after an
    expression in a body, which Guile allows) and play a whole game with no bad verdict."""
    program_or_skip(scheme)
    monkeypatch.setenv("LIGHTCYCLE_SCHEME", scheme)
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "kit"
    shutil.copytree(library_dir(), folder, ignore=shutil.ignore_patterns("__pycache__"))
    readable(folder)
    brains = sorted(p.name for p in folder.glob("*-bot.scm"))
    assert brains == ["flood-fill-bot.scm", "random-move-bot.scm"]
    bots = ",".join(f"scheme:{folder / b}" for b in brains)
    args = ["play", "--map", "torus-20", "--bots", bots, "--seed", "5", "--no-render"]
    result = CliRunner().invoke(app, [*args, "--sandbox", SANDBOX])
    assert result.exit_code == 0, result.output
    replay = json.loads(next((tmp_path / "replays").glob("*.json")).read_text())
    verdicts = [v for turn in replay.get("verdicts") or [] for v in turn if v]
    assert all(v.get("verdict") == "ok" for v in verdicts), verdicts
    assert len(replay["turns"]) > 5

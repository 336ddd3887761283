"""Ctrl-C during ``match``, ``duel`` and ``grade``: the games finished so far are kept.

Each test starts the real command in its own session, waits until some games were
written, and sends SIGINT to the whole process group, as a terminal's Ctrl-C does (a duel's
pool workers get it too). The command must print the games finished, marked partial,
write its JSON marked incomplete, exit with status 130, and leave no bot process behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SLOW = ROOT / "tests/cli/bots/slow_tron.py"
LIGHTCYCLE = [sys.executable, "-c", "from lightcycle.cli.main import app; app()"]


def _bot(marker: Path) -> str:
    """A slow tron2010 program whose command line carries ``marker``."""
    return f"cmd:{sys.executable} {SLOW} {marker}"


def _alive_with(marker: Path) -> list[int]:
    """Live (not zombie) processes whose command line mentions ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if str(marker).encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def _interrupt(args: list[str], ready: Callable[[], bool]) -> subprocess.CompletedProcess[str]:
    """Run ``lightcycle ARGS``, Ctrl-C it once ``ready()``, and return how it ended."""
    proc = subprocess.Popen(
        [*LIGHTCYCLE, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    try:
        deadline = time.monotonic() + 60
        while not ready():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no game finished in 60 s"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _gone(marker: Path) -> None:
    """Every bot process of the run has ended (spares and pool workers' bots included)."""
    deadline = time.monotonic() + 5
    while _alive_with(marker):
        assert time.monotonic() < deadline, f"bot processes left: {_alive_with(marker)}"
        time.sleep(0.05)


def test_ctrl_c_during_a_match_keeps_the_games_finished(tmp_path: Path) -> None:
    out, marker = tmp_path / "m", tmp_path / "marker"
    args = ["match", "--map", "ring", "--bot", _bot(marker), "--bot", "builtin:chaser"]
    args += ["-p", "tron2010", "--games", "200", "--swap-sides", "--out", str(out)]
    done = _interrupt(args, lambda: (out / "game-002.json").exists())
    assert done.returncode == 130, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    data = json.loads((out / "results.json").read_text())
    played = data["games_played"]
    assert data["complete"] is False and data["interrupted"] is True
    assert data["games_planned"] == 200 and 2 <= played < 200 and len(data["games"]) == played
    assert sorted(p.name for p in out.glob("game-*.json")) == [
        f"game-{i:03d}.json" for i in range(1, played + 1)
    ]
    assert sum(b["games"] for b in data["bots"]) == 2 * played
    # every plain log is a finished game's (it has a replay); the cut game's log says so
    logs = sorted(p.name for p in (out / "logs").glob("*.log"))
    finished = {f"game-{i:03d}-seat{s}.log" for i in range(1, played + 1) for s in (1, 2)}
    plain = [n for n in logs if not n.endswith(".interrupted.log")]
    assert set(plain) <= finished, plain
    cut = [n for n in logs if n.endswith(".interrupted.log")]
    assert all(n.startswith(f"game-{played + 1:03d}-") for n in cut), cut
    assert data["unfinished_logs"] == [f"logs/{n}" for n in cut]
    text = " ".join(done.stdout.split())
    assert f"partial: {played} of 200 games (interrupted)" in text
    assert "Chaser" in text and f"results.json in {out}/" in text
    _gone(marker)


def test_ctrl_c_during_a_duel_with_pool_workers(tmp_path: Path) -> None:
    out, marker = tmp_path / "d", tmp_path / "marker"
    args = ["duel", _bot(marker), "builtin:chaser", "-p", "tron2010", "--maps", "ring"]
    args += ["-n", "200", "--workers", "2", "--move-time", "1", "--out", str(out), "--json"]
    replays = out / "replays"
    done = _interrupt(args, lambda: replays.is_dir() and len(list(replays.glob("*.json"))) >= 2)
    assert done.returncode == 130, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    printed = json.loads(done.stdout)
    on_disk = json.loads((out / "results.json").read_text())
    assert printed == on_disk
    assert on_disk["complete"] is False and on_disk["interrupted"] is True
    pairs = on_disk["pairs_played"]
    assert on_disk["games"] == 2 * pairs and on_disk["games_planned"] == 200 and pairs < 100
    kept = {g["replay"] for p in on_disk["pairs"] for g in p["games"]}
    assert all((out / r).is_file() for r in kept) and len(kept) == 2 * pairs
    _gone(marker)


def test_ctrl_c_during_a_duel_prints_the_partial_table(tmp_path: Path) -> None:
    out, marker = tmp_path / "d", tmp_path / "marker"
    args = ["duel", _bot(marker), "builtin:chaser", "-p", "tron2010", "--maps", "ring"]
    args += ["-n", "200", "--workers", "1", "--move-time", "1", "--out", str(out)]
    replays = out / "replays"
    done = _interrupt(args, lambda: replays.is_dir() and len(list(replays.glob("*.json"))) >= 2)
    assert done.returncode == 130, (done.stdout, done.stderr)
    games = json.loads((out / "results.json").read_text())["games"]
    text = " ".join(done.stdout.split())
    assert f"partial: {games} of 200 games" in text and "(interrupted)" in text, text
    assert "Chaser" in text and "Elo" in text
    _gone(marker)


def test_ctrl_c_during_grading_keeps_the_series_so_far(tmp_path: Path) -> None:
    out, marker = tmp_path / "g", tmp_path / "marker"
    rubric = tmp_path / "r.toml"
    rubric.write_text(
        'title = "Long"\nruleset = "classic"\nmaps = ["ring"]\n[[series]]\n'
        'opponent = "builtin:chaser"\ngames = 200\nrows = [ { wins = 1, points = 1 } ]\n'
    )
    args = ["grade", _bot(marker), "-r", str(rubric), "-p", "tron2010", "--out", str(out)]
    series = out / "01-chaser"
    done = _interrupt(args, lambda: (series / "game-002.json").exists())
    assert done.returncode == 130, (done.stdout, done.stderr)
    grade = json.loads((out / "grade.json").read_text())
    assert grade["complete"] is False and grade["total"] is None
    played = grade["series"][0]["games"]
    assert grade["games_planned"] == 200 and played >= 2
    assert json.loads((series / "results.json").read_text())["games_played"] == played
    text = " ".join(done.stdout.split())
    assert f"partial: {played} of 200 games (interrupted)" in text and "not graded" in text
    assert f"{played} of 200" in text
    _gone(marker)

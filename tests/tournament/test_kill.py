"""``kill -9`` a running tournament at several moments, run it again: nothing lost or doubled.

The runner is a real ``lightcycle tournament run`` process (playing in its own process,
or with two pool workers). The test watches its database and kills it at three moments:
as soon as the database exists (set-up, migrations, scheduling), after a few results
(the runner alone, as the OOM killer would: its two pool workers must then exit by
themselves), and past the middle; each time the whole process group is killed, as a
power cut would. Each kill after the first lands in a resumed run. A final run with two
workers completes the tournament, and its results and every rating update must equal
those of an uninterrupted run.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from lightcycle.tournament.runner import run_tournament
from tests.tournament.test_runner import plan_of, snapshot

CONFIG = """\
name = "killed"
format = "round-robin"
bots = ["builtin:random", "builtin:wallhugger", "builtin:chaser", "builtin:floodfill",
        "builtin:runaway"]
maps = ["arena-10", "ring"]
seed = 11
[time]
move = 5.0
first_move = 5.0
"""
TOTAL = 5 * 4 * 2


def results_in(db: Path) -> int:
    if not db.exists():
        return -1
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT count(*) FROM results").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0


LIGHTCYCLE = [sys.executable, "-c", "from lightcycle.cli.main import main; main()"]
"""The ``lightcycle`` command of this interpreter (``python -m lightcycle.cli.main`` would
run before the sub-commands registered at the end of the module)."""


def command(config: Path, workers: int = 2) -> list[str]:
    return [*LIGHTCYCLE, "tournament", "run", str(config), "-j", str(workers)]


def alive_in_group(pgid: int) -> list[int]:
    """Processes of the group that are not dead (zombies left to init count as dead)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            out.append(int(stat.parent.name))
    return out


def kill_when(
    config: Path, db: Path, at_least: int, runner_only: bool = False, workers: int = 2
) -> int:
    """Start a run and kill -9 it once ``at_least`` results are stored.

    Kills the whole process group (a power cut), or with ``runner_only`` the runner alone
    (the OOM killer), checking that its pool workers then exit by themselves.
    """
    proc = subprocess.Popen(
        command(config, workers),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if results_in(db) >= at_least:
                break
            time.sleep(0.005)
        assert proc.poll() is None, f"finished before the kill: {proc.stderr.read()!r}"  # type: ignore[union-attr]
        if runner_only:
            assert len(alive_in_group(proc.pid)) >= 3  # the runner and two workers
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
            deadline = time.monotonic() + 10
            while alive_in_group(proc.pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert alive_in_group(proc.pid) == [], "pool workers outlived their runner"
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        assert proc.stderr is not None
        proc.stderr.close()
    return results_in(db)


def test_kill_9_at_several_moments_then_resume(tmp_path: Path) -> None:
    reference = plan_of(tmp_path / "reference", CONFIG, "killed")
    run_tournament(reference, workers=1)

    folder = tmp_path / "killed"
    folder.mkdir()
    config = folder / "killed.toml"
    config.write_text(CONFIG, encoding="utf-8")
    db = folder / "killed" / "tournament.db"
    seen = [
        kill_when(config, db, 0, workers=1),
        kill_when(config, db, 5, runner_only=True),
        kill_when(config, db, TOTAL // 2, workers=1),
    ]
    assert seen[-1] < TOTAL, seen  # the last kill still left work to do
    assert seen == sorted(seen), seen  # nothing stored was lost between runs

    done = subprocess.run(command(config), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"{TOTAL - seen[-1]} games played by this run" in " ".join(done.stdout.split())
    assert snapshot(plan_of(folder, CONFIG, "killed")) == snapshot(reference)

    checked = subprocess.run(
        [*LIGHTCYCLE, "tournament", "check", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "consistent" in checked.stdout


def test_duel_workers_exit_when_their_runner_is_killed(tmp_path: Path) -> None:
    args = ["duel", "builtin:floodfill", "builtin:chaser", "-n", "4000", "-m", "arena-30"]
    proc = subprocess.Popen(
        [*LIGHTCYCLE, *args, "-j", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(alive_in_group(proc.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(alive_in_group(proc.pid)) >= 3  # the duel and its two workers
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 5
        while alive_in_group(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert alive_in_group(proc.pid) == []
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def test_a_worker_started_after_its_runner_died_exits_too() -> None:
    """The watchdog watches the runner it was given, not whoever is its parent by then."""
    code = (
        "import os, sys, time\n"
        "from lightcycle.tournament.play import init_worker\n"
        "init_worker(parent=os.getppid() + 1_000_000)  # a runner that is already gone\n"
        "time.sleep(30)\n"
        "sys.exit(0)\n"
    )
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], timeout=30)
    assert done.returncode == 1 and time.monotonic() - t0 < 20

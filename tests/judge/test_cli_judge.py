"""``lightcycle judge worker`` and ``lightcycle judge admin add`` (src/lightcycle/cli/judge.py)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from lightcycle.cli.main import app
from lightcycle.judge.service.store import JudgeStore

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

CONTEST = """\
[contest]
name = "duel"
ruleset = "torus@1"
maps = ["torus-20"]
[judge]
database = "sqlite:///judge.db"
sandbox = "auto"
"""


def write_contest(tmp_path: Path, more: str = "") -> Path:
    """``tmp_path/duel.toml``: the duel, its database beside it, and ``more`` tables
    (the CLI tests of the judge's other commands add theirs)."""
    path = tmp_path / "duel.toml"
    path.write_text(CONTEST + more)
    return path


def test_help_shows_the_commands_with_examples() -> None:
    result = runner.invoke(app, ["judge", "--help"])
    assert result.exit_code == 0
    assert "worker" in result.output and "admin" in result.output
    for args in (["judge", "worker", "--help"], ["judge", "admin", "add", "--help"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and "Example: lightcycle judge" in result.output


def test_admin_add_by_contest_file_or_by_url(tmp_path: Path) -> None:
    contest = write_contest(tmp_path)
    url = f"sqlite:///{tmp_path / 'judge.db'}"
    result = runner.invoke(app, ["judge", "admin", "add", "teacher@example.org", str(contest)])
    assert result.exit_code == 2
    assert "no user teacher@example.org" in result.output and "sign up" in result.output
    with JudgeStore(url) as store:
        store.create_user("Teacher@Example.org", "h")
    result = runner.invoke(app, ["judge", "admin", "add", "TEACHER@example.org", str(contest)])
    assert result.exit_code == 0 and "teacher@example.org is an admin" in result.output
    other = f"sqlite:///{tmp_path / 'other.db'}"
    with JudgeStore(other) as store:
        store.create_user("ta@example.org", "h")
    result = runner.invoke(app, ["judge", "admin", "add", "ta@example.org", "--db", other])
    assert result.exit_code == 0
    with JudgeStore(other) as store:
        user = store.user_by_email("ta@example.org")
        assert user is not None and user.is_admin
    result = runner.invoke(app, ["judge", "admin", "add", "ta@example.org"])
    assert result.exit_code == 2 and "give the contest file or --db" in result.output


def test_bad_contest_and_database_are_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[contest]\nname = "x"\nruleset = "torus@9"\nmaps = ["torus-20"]\n')
    result = runner.invoke(app, ["judge", "worker", str(bad)])
    assert result.exit_code == 2 and "line 3: [contest] ruleset" in result.output
    assert "Traceback" not in result.output
    missing = f"sqlite:///{tmp_path / 'no' / 'judge.db'}"
    result = runner.invoke(app, ["judge", "worker", str(write_contest(tmp_path)), "--db", missing])
    assert result.exit_code == 2 and "does not exist" in result.output


def test_a_worker_process_stops_on_sigterm(tmp_path: Path) -> None:
    contest = write_contest(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "lightcycle", "judge", "worker", str(contest), "--name", "w1"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("worker w1 judging duel on sqlite:///"), first
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out
    assert "worker w1 stopped: 0 jobs done" in out
    assert (tmp_path / "judge.db").exists()

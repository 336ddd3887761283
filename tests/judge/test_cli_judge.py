"""``lightcycle judge init``, ``worker`` and ``admin add`` (src/lightcycle/cli/judge.py)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
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


def test_init_lists_the_courses_and_writes_one_never_over_a_file(tmp_path: Path) -> None:
    for args in (["judge", "init"], ["judge", "init", "--list"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        listed = [line.split()[0] for line in result.output.splitlines()[:5]]
        assert listed == ["tron3d", "teams", "classic", "torus", "ffa"]
    target = tmp_path / "my-course.toml"
    result = runner.invoke(app, ["judge", "init", "tron3d", str(target)])
    assert result.exit_code == 0, result.output
    assert f"lightcycle judge serve {target}" in result.output  # the next command
    assert 'ruleset = "tron3d@1"' in target.read_text()
    target.write_text("# edited\n")
    result = runner.invoke(app, ["judge", "init", "ffa", str(target)])
    assert result.exit_code == 2 and "exists" in result.output
    assert target.read_text() == "# edited\n"
    result = runner.invoke(app, ["judge", "init", "chess", str(tmp_path / "x.toml")])
    assert result.exit_code == 2 and "no course 'chess'" in result.output
    result = runner.invoke(app, ["judge", "init", "teams"])
    assert result.exit_code == 2 and "give the file to write" in result.output


def test_an_initialised_contest_keeps_its_judge_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The written file's database lands beside it, not in the folder the commands run
    from: ``judge admin add`` opens (and makes) the database in the file's folder."""
    (tmp_path / "course").mkdir()
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["judge", "init", "classic", "course/duel.toml"])
    assert result.exit_code == 0, result.output
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = runner.invoke(app, ["judge", "admin", "add", "t@example.org", "../course/duel.toml"])
    assert result.exit_code == 2 and "no user t@example.org" in result.output
    assert (tmp_path / "course" / "classic.db").exists()
    assert not (elsewhere / "classic.db").exists()

"""``lightcycle judge round start|status`` (src/lightcycle/cli/judge.py)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from typer.testing import CliRunner

from lightcycle.cli.main import app
from lightcycle.judge.service import queue
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.service.tables import submissions
from lightcycle.storage import begin_write

runner = CliRunner()

CONTEST = """\
[contest]
name = "duel"
ruleset = "torus@1"
maps = ["torus-20"]
[official]
finalists = 2
[judge]
database = "sqlite:///judge.db"
sandbox = "auto"
"""


def _contest(tmp_path: Path) -> Path:
    path = tmp_path / "duel.toml"
    path.write_text(CONTEST)
    return path


def _players(url: str, n: int) -> None:
    """``n`` users with an accepted program each, inserted as if judged."""
    with JudgeStore(url) as store:
        for i in range(n):
            uid = store.create_user(f"u{i}@example.org", "h")
            with begin_write(store.engine) as conn:
                sha = queue.put_blob(conn, f"bot {i}".encode())
                conn.execute(
                    sa.insert(submissions).values(
                        user_id=uid,
                        name=f"Bot{i}",
                        language="python",
                        filename="bot.py",
                        source_sha256=sha,
                        state="accepted",
                        reason="",
                        created_at="2026-01-01T00:00:00Z",
                        updated_at="2026-01-01T00:00:00Z",
                        accepted_at="2026-01-01T00:00:00Z",
                    )
                )


def test_round_commands_have_help_with_examples() -> None:
    for args in (["judge", "round", "start", "--help"], ["judge", "round", "status", "--help"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and "Example: lightcycle judge round" in result.output


def test_start_and_status(tmp_path: Path) -> None:
    contest = _contest(tmp_path)
    url = f"sqlite:///{tmp_path / 'judge.db'}"
    _players(url, 2)
    result = runner.invoke(app, ["judge", "round", "start", str(contest)])
    assert result.exit_code == 2
    assert "no round started: 2 players are in the competition" in result.output
    assert "\n" not in result.output.strip()
    other = f"sqlite:///{tmp_path / 'other.db'}"
    _players(other, 5)
    result = runner.invoke(app, ["judge", "round", "start", str(contest), "--db", other])
    assert result.exit_code == 0, result.output
    assert "round 1 started: 5 players in 3 groups of 2" in result.output
    result = runner.invoke(app, ["judge", "round", "start", str(contest), "--db", other])
    assert result.exit_code == 2 and "round 1 is running (stage 1)" in result.output
    result = runner.invoke(app, ["judge", "round", "status", str(contest), "--db", other])
    assert result.exit_code == 0, result.output
    assert "5 players in the competition, 1 rounds" in result.output
    assert "round 1 running: stage 1, 0 of 3 matches ended" in result.output
    assert "Bot4" in result.output
    # the contest's own database has no round
    result = runner.invoke(app, ["judge", "round", "status", str(contest)])
    assert result.exit_code == 0 and "2 players in the competition, 0 rounds" in result.output

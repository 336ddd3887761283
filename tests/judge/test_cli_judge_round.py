"""``lightcycle judge round start|status`` (src/lightcycle/cli/judge.py)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from lightcycle.cli.main import app
from lightcycle.judge.service.store import JudgeStore
from tests.judge.service.programs import accepted_players
from tests.judge.test_cli_judge import write_contest

runner = CliRunner()

OFFICIAL = """\
[official]
finalists = 2
"""


def _players(url: str, n: int) -> None:
    """``n`` users with an accepted program each (Bot0, Bot1, ...), inserted as if judged."""
    with JudgeStore(url) as store:
        accepted_players(store, n, "Bot")


def test_round_commands_have_help_with_examples() -> None:
    for args in (["judge", "round", "start", "--help"], ["judge", "round", "status", "--help"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and "Example: lightcycle judge round" in result.output


def test_start_and_status(tmp_path: Path) -> None:
    contest = write_contest(tmp_path, OFFICIAL)
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

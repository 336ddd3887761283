"""``lightcycle grade``: the table, --json, --out, a program bot, and the errors."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from typer.testing import CliRunner

from lightcycle.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests/tournament/rubrics/tiny.toml"
runner = CliRunner()


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_grade_prints_rows_and_the_total() -> None:
    result = runner.invoke(app, ["grade", "builtin:lookbot", "--rubric", str(TINY)])
    assert result.exit_code == 0, result.output
    out = _flat(result.output)
    assert "Tiny team grade: LookBot" in out
    assert "vs RandomBot" in out and re.search(r"W \d D \d L \d", out)
    assert "wins 2 of 2 games vs RandomBot" in out and "achieved" in out
    assert re.search(r"total \S* ?\S* ?\d+ / 7", out), out


def test_grade_json_and_out(tmp_path: Path) -> None:
    args = ["grade", "builtin:lookbot", "-r", str(TINY), "--json", "--seed", "3"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["seed"] == 3 and data["maximum"] == 7
    rows = data["series"][0]["rows"]
    assert data["total"] == sum(row["points"] for row in rows)
    assert json.loads((tmp_path / "grade.json").read_text()) == data
    assert (tmp_path / "01-randombot" / "game-002.json").is_file()


def test_a_program_bot_with_a_protocol(tmp_path: Path) -> None:
    rubric = tmp_path / "duel.toml"
    rubric.write_text(
        'title = "Duel"\nruleset = "classic"\nmaps = ["ring"]\n[[series]]\n'
        'opponent = "builtin:random"\ngames = 2\nrows = [ { wins = 0, points = 1 } ]\n'
    )
    bot = f"cmd:{sys.executable} {ROOT / 'examples/jsonl/bot.py'}"
    result = runner.invoke(app, ["grade", bot, "-r", str(rubric), "-p", "jsonl", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["bot"] == "jsonl/bot.py"
    assert data["series"][0]["games"] == 2 and data["total"] == 1


def test_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = ROOT / "tests/tournament/rubrics/bad-wins-over-games.toml"
    cases = [
        (["builtin:lookbot", "-r", str(bad)], f"{bad}:9: expected wins = a whole number"),
        (["builtin:lookbot", "-r", "nope"], "nope: expected a rubric file or a shipped rubric"),
        (["cmd:./mybot", "-r", str(TINY)], "needs a protocol: add --protocol"),
        (["builtin:nobody", "-r", str(TINY)], "unknown bot 'builtin:nobody'"),
    ]
    for args, message in cases:
        result = runner.invoke(app, ["grade", *args])
        assert result.exit_code == 2, (args, result.output)
        assert message in _flat(result.output), (args, result.output)
        assert "Traceback" not in result.output


def test_help_has_an_example() -> None:
    result = runner.invoke(app, ["grade", "--help"])
    assert result.exit_code == 0
    assert "Example: lightcycle grade" in _flat(result.output)


def test_grade_refuses_a_negative_seed() -> None:
    # rubric files refuse one too (tests/tournament/rubrics/bad-seed-negative.toml)
    result = runner.invoke(app, ["grade", "builtin:lookbot", "--rubric", str(TINY), "--seed", "-1"])
    assert result.exit_code == 2
    assert "--seed" in result.output


def test_an_out_folder_with_results_is_refused(tmp_path: Path) -> None:
    args = ["grade", "builtin:lookbot", "-r", str(TINY), "--out", str(tmp_path)]
    assert runner.invoke(app, args).exit_code == 0
    before = (tmp_path / "grade.json").read_text()
    result = runner.invoke(app, [*args, "--seed", "4"])
    assert result.exit_code == 2, result.output
    text = _flat(result.output)
    assert text.startswith("error: --out") and "choose another folder or delete this one" in text
    assert (tmp_path / "grade.json").read_text() == before


def test_a_complete_grade_says_so() -> None:
    result = runner.invoke(app, ["grade", "builtin:lookbot", "-r", str(TINY), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["complete"] is True and data["interrupted"] is False

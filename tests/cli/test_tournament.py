"""``lightcycle tournament run | report | check``: tables, files, JSON, resume and errors."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lightcycle.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()
CONFIG = """\
name = "cli"
format = "round-robin"
bots = ["builtin:random", "builtin:wallhugger", { spec = "builtin:chaser", name = "Chase" }]
maps = ["arena-10"]
seed = 2
[time]
move = 5.0
"""


def flat(text: str) -> str:
    """Output with the terminal's line wrapping undone."""
    return " ".join(text.split())


@pytest.fixture
def played(tmp_path: Path) -> Path:
    path = tmp_path / "cli.toml"
    path.write_text(CONFIG, encoding="utf-8")
    r = runner.invoke(app, ["tournament", "run", str(path), "-j", "1"])
    assert r.exit_code == 0, r.output
    return path


@pytest.mark.parametrize("command", [[], ["run"], ["report"], ["check"]])
def test_help_has_an_example(command: list[str]) -> None:
    r = runner.invoke(app, ["tournament", *command, "--help"])
    assert r.exit_code == 0, r.output
    assert "Example" in r.output


def test_run_prints_standings_and_resumes(played: Path) -> None:
    r = runner.invoke(app, ["tournament", "run", str(played), "-j", "1"])
    assert r.exit_code == 0, r.output
    text = flat(r.output)
    assert "Nothing left to play: all 6 matches were already stored." in text
    for word in ("Random", "WallHugger", "Chase", "Elo", "pts"):
        assert word in r.output
    assert (played.parent / "cli" / "tournament.db").is_file()
    assert len(list((played.parent / "cli" / "replays").glob("*.json"))) == 6


def test_report_writes_html_png_and_json(played: Path) -> None:
    r = runner.invoke(app, ["tournament", "report", str(played)])
    assert r.exit_code == 0, r.output
    assert "crosstable" in r.output and "ratings" in r.output and "mu - 3 sigma" in r.output
    out = played.parent / "cli"
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count("<svg") == 2 and "<polyline" in page
    assert page.count('<a href="games/') == 6 and page.count('href="replays/') == 6
    assert len(list((out / "games").glob("*.html"))) == 6  # a viewer page per game
    for name in ("elo.png", "openskill.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = runner.invoke(app, ["tournament", "report", str(out), "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["name"] == "cli" and data["matches_done"] == 6
    assert [s["games"] for s in data["standings"]] == [4, 4, 4]
    assert sum(s["points"] for s in data["standings"]) == 6
    assert len(data["crosstable"]["names"]) == 3
    assert all(len(h) == 7 for h in data["history"]["elo"].values())  # start + 6 games
    assert data["standings"][0]["openskill"]["ordinal"] == pytest.approx(
        data["standings"][0]["openskill"]["mu"] - 3 * data["standings"][0]["openskill"]["sigma"]
    )
    by_db = runner.invoke(app, ["tournament", "report", str(out / "tournament.db"), "--json"])
    assert json.loads(by_db.stdout)["standings"] == data["standings"]
    elsewhere = played.parent / "pages" / "week3"
    r = runner.invoke(app, ["tournament", "report", str(played), "--html", str(elsewhere)])
    assert r.exit_code == 0, r.output
    hrefs = re.findall(r'href="([^"]+)"', (elsewhere / "report.html").read_text())
    assert len(hrefs) == 12 and hrefs[0].startswith("games/")
    assert hrefs[1].startswith("../../cli/replays/")
    assert all((elsewhere / h).is_file() for h in hrefs)  # the links work from there


def test_check_finds_a_split_commit_and_repairs_it(played: Path) -> None:
    r = runner.invoke(app, ["tournament", "check", str(played)])
    assert r.exit_code == 0, r.output
    assert "consistent: 6 of 6 matches played" in flat(r.output)
    db = played.parent / "cli" / "tournament.db"
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM rating_updates WHERE result_id = 4")
    r = runner.invoke(app, ["tournament", "check", str(played)])
    assert r.exit_code == 1, r.output
    assert "split commit" in flat(r.output) and "--repair" in r.output
    r = runner.invoke(app, ["tournament", "run", str(played), "-j", "1"])
    assert r.exit_code == 2 and "consistency check" in flat(r.output) and "--repair" in r.output
    r = runner.invoke(app, ["tournament", "check", str(played), "--repair"])
    assert r.exit_code == 0 and "deleted 3 results" in flat(r.output)
    r = runner.invoke(app, ["tournament", "run", str(played), "-j", "1"])
    assert r.exit_code == 0 and "3 games played by this run" in flat(r.output)
    assert runner.invoke(app, ["tournament", "check", str(played)]).exit_code == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('bots = ["random", "chaser"]\nmaps = ["ring"]\nrounds = "two"\n', "line 3: rounds"),
        ('bots = ["random", "chaser"\nmaps = ["ring"]\n', "not valid TOML"),
        ('bots = ["random", "chaser"]\nmaps = ["nomap"]\n', "unknown map 'nomap'"),
        (
            'bots = ["random", "chaser"]\nmaps = ["ring"]\nruleset = "nope"\n',
            "line 3: unknown ruleset",
        ),
        ('bots = ["random", "chaser"]\nmaps = ["ring"]\n[time]\nmoev = 1\n', "unknown [time] key"),
        (
            'bots = ["random", "chaser"]\nmaps = ["ring"]\n[rules]\nturn_limit = 9\nfoo = 2\n',
            "line 5: rules: classic@1 has no setting foo",
        ),
    ],
)
def test_errors_are_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    r = runner.invoke(app, ["tournament", "run", str(path)])
    assert r.exit_code == 2, r.output
    assert r.output.strip().startswith("error:") and "Traceback" not in r.output
    assert message in flat(r.output)


def test_report_of_nothing_says_what_to_do(tmp_path: Path) -> None:
    r = runner.invoke(app, ["tournament", "report", str(tmp_path)])
    assert r.exit_code == 2 and "give the tournament file" in r.output


def test_the_classroom_example_is_valid() -> None:
    from lightcycle.tournament.config import load_config
    from lightcycle.tournament.plan import make_plan

    plan = make_plan(load_config(ROOT / "examples/tournaments/classroom.toml"))
    assert len(plan.bots) >= 4


def test_python_dash_m_knows_every_command() -> None:
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "lightcycle.cli.main", "tournament", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr


def test_report_and_check_before_the_first_run_leave_nothing_behind(tmp_path: Path) -> None:
    path = tmp_path / "fresh.toml"
    path.write_text(CONFIG, encoding="utf-8")
    for command in ("report", "check"):
        r = runner.invoke(app, ["tournament", command, str(path)])
        assert r.exit_code == 2 and "has not been run yet" in flat(r.output), r.output
        assert f"lightcycle tournament run {path}" in flat(r.output)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.toml"]  # no empty database


def test_run_on_a_folder_asks_for_the_file(played: Path) -> None:
    r = runner.invoke(app, ["tournament", "run", str(played.parent / "cli")])
    assert r.exit_code == 2 and "is a folder: give the tournament file" in flat(r.output)


def test_the_crosstable_numbers_its_columns(played: Path) -> None:
    r = runner.invoke(app, ["tournament", "report", str(played)])
    assert r.exit_code == 0, r.output
    assert "columns: the bots by their row number" in flat(r.output)


BROKEN = """\
name = "class"
maps = ["arena-10"]
protocol = "jsonl"
bots = [
  "builtin:random",
  { spec = "cmd:nosuch-lightcycle-bot --fast", name = "alice" },
]
[time]
move = 5.0
"""


def test_a_bot_that_cannot_start_writes_nothing_and_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "class.toml"
    path.write_text(BROKEN, encoding="utf-8")
    r = runner.invoke(app, ["tournament", "run", str(path), "-j", "1"])
    assert r.exit_code == 2, r.output
    assert flat(r.output).startswith(
        f"error: {path}, line 6, bot 'alice': command 'nosuch-lightcycle-bot' not found"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["class.toml"]  # no folder, no db
    # a script an interpreter would run must exist too
    path.write_text(BROKEN.replace("nosuch-lightcycle-bot --fast", "sh alice.sh"), "utf-8")
    r = runner.invoke(app, ["tournament", "run", str(path), "-j", "1"])
    assert r.exit_code == 2 and "line 6, bot 'alice': script 'alice.sh'" in flat(r.output)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["class.toml"]
    # fixed, the same file runs at once
    fixed = BROKEN.replace("cmd:nosuch-lightcycle-bot --fast", "builtin:chaser")
    path.write_text(fixed, encoding="utf-8")
    r = runner.invoke(app, ["tournament", "run", str(path), "-j", "1"])
    assert r.exit_code == 0 and "2 games played by this run" in flat(r.output), r.output


def test_a_folder_left_by_a_run_that_played_nothing_takes_the_corrected_file(
    tmp_path: Path,
) -> None:
    """A stored tournament without a finished game (a run stopped before its first game)
    is not "a different file": the corrected file replaces it."""
    from lightcycle.tournament.config import load_config
    from lightcycle.tournament.plan import make_plan
    from lightcycle.tournament.runner import open_tournament
    from lightcycle.tournament.store import Store

    path = tmp_path / "class.toml"
    path.write_text(CONFIG.replace('name = "cli"', 'name = "class"'), encoding="utf-8")
    plan = make_plan(load_config(path))
    with Store(plan.config.database_url) as store:
        open_tournament(plan, store)  # what a run that stopped before its first game left
    fixed = CONFIG.replace('name = "cli"', 'name = "class"').replace("seed = 2", "seed = 3")
    path.write_text(fixed.replace('"builtin:wallhugger", ', ""), encoding="utf-8")
    r = runner.invoke(app, ["tournament", "run", str(path), "-j", "1"])
    assert r.exit_code == 0, r.output
    assert "2 games played by this run" in flat(r.output)
    r = runner.invoke(app, ["tournament", "report", str(path), "--json"])
    assert json.loads(r.stdout)["config"]["seed"] == 3


def test_a_cmd_bot_without_a_protocol_is_told_the_toml_key(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text('maps = ["ring"]\nbots = ["random", "cmd:./bot"]\n', encoding="utf-8")
    r = runner.invoke(app, ["tournament", "run", str(path)])
    assert r.exit_code == 2, r.output
    text = flat(r.output)
    assert '{ spec = "cmd:./bot", protocol = "tron2010" }' in text and "--protocol" not in text
    assert 'protocol = "tron2010" at the top level of the file' in text

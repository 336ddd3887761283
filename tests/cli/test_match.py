"""``lightcycle match``: a series between programs and built-in bots, and its errors."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lightcycle.cli.main import app
from lightcycle.cli.match import short_detail

ROOT = Path(__file__).resolve().parents[2]
BOT = f"cmd:{sys.executable} {ROOT / 'examples/tron2010/bot.py'}"
runner = CliRunner()


def test_match_plays_a_series_and_writes_everything(tmp_path: Path) -> None:
    out = tmp_path / "m"
    args = ["match", "--map", "ring", "--bot", BOT, "--bot", "builtin:chaser"]
    args += ["--protocol", "tron2010", "--games", "3", "--swap-sides", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "tron2010/bot.py" in result.output and "Chaser" in result.output
    data = json.loads((out / "results.json").read_text())
    assert len(data["games"]) == 3
    assert [g["bots"][0] for g in data["games"]] == ["tron2010/bot.py", "Chaser", "tron2010/bot.py"]
    bots = {b["name"]: b for b in data["bots"]}
    assert bots["tron2010/bot.py"]["games"] == 3
    assert bots["tron2010/bot.py"]["process_starts"] == 3  # tron2010: a process per game
    total = bots["Chaser"]
    assert total["wins"] + total["losses"] + total["draws"] == 3
    for g in data["games"]:
        assert (out / g["replay"]).is_file()
    assert len(list((out / "logs").glob("*.log"))) == 3


def test_jsonl_program_is_reused_across_games(tmp_path: Path) -> None:
    bot = f"cmd:{sys.executable} {ROOT / 'examples/jsonl/bot.py'}"
    args = ["match", "--map", "arena-15", "--bot", bot, "--bot", "builtin:random"]
    args += ["--protocol", "jsonl", "--games", "3", "--out", str(tmp_path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["bots"][0]["process_starts"] == 1


def test_a_bot_file(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text(
        f'name = "Starter"\ncommand = ["{sys.executable}", "{ROOT / "examples/sexp/bot.py"}"]\n'
        'protocol = "sexp"\n[time]\nmove = 2.0\n'
    )
    args = ["match", "--map", "torus-20", "--bot", str(tmp_path / "bot.toml")]
    args += ["--bot", "builtin:wallhugger", "--out", str(tmp_path / "out")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Starter" in result.output


def test_errors_say_what_to_do(tmp_path: Path) -> None:
    cases = [
        (["--bot", "cmd:./mybot", "--bot", "random"], "needs a protocol: add --protocol"),
        (["--bot", "cmd:./x", "--bot", "random", "--protocol", "tron"], "Did you mean tron2010"),
        (["--bot", "random", "--bot", "chaser", "--move-time", "-1"], "must be >= 0"),
        (["--bot", "random", "--bot", "chaser", "--memory", "0"], "--memory 0: give a limit"),
        (["--bot", "random"], "error: give at least two --bot options"),
        (
            [
                "--bot",
                f"cmd:{sys.executable} x.py",
                "--bot",
                "random",
                "-p",
                "tron2010",
                "--map",
                "torus-20",
            ],
            "walled rectangular grids only",
        ),
        (
            ["--bot", "cmd:/nonexistent/bot", "--bot", "random", "-p", "tron2010"],
            "cannot start '/nonexistent/bot': no such file",
        ),
        (
            ["--bot", "cmd:no-such-program-x", "--bot", "random", "-p", "jsonl"],
            "no such program on the PATH",
        ),
    ]
    for args, message in cases:
        result = runner.invoke(app, ["match", *args, "--out", str(tmp_path)])
        assert result.exit_code == 2, (args, result.output)
        assert message in " ".join(result.output.split()), (args, result.output)


AICHALLENGE = f"cmd:{sys.executable} {ROOT / 'examples/aichallenge/bot.py'}"
FOUR = ["--bot", AICHALLENGE, "--bot", "builtin:chaser", "--bot", "builtin:random"]
FOUR += ["--bot", "builtin:wallhugger", "-p", "aichallenge", "--games", "4"]


def test_a_map_the_bots_cannot_all_play_fails_before_the_first_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's old example: ffa6 takes six players, found only after game 1."""
    monkeypatch.chdir(tmp_path)
    for out in ([], ["--out", str(tmp_path / "given")]):
        result = runner.invoke(app, ["match", "--map", "ffa4", "--map", "ffa6", *FOUR, *out])
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: cannot play ffa6@1 with 4 bots")
        assert "for 6 players, not 4" in lines[0] and "lightcycle maps list" in lines[0]
    assert list(tmp_path.iterdir()) == []  # no matches/, no --out folder


def test_the_readme_four_player_pool_plays(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    assert "--map ffa4 --map arena-15 --bot 'cmd:python3 examples/aichallenge/bot.py'" in readme
    args = ["match", "--map", "ffa4", "--map", "arena-15", *FOUR, "--out", str(tmp_path / "m")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "m" / "results.json").read_text())
    assert [g["map"] for g in data["games"]] == ["ffa4@1", "arena-15@1"] * 2
    assert data["complete"] is True and data["games_played"] == 4


def test_two_matches_in_the_same_second_get_two_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(time, "strftime", lambda fmt, *a: "20250101-120000")
    args = ["match", "--map", "arena-10", "--bot", "builtin:chaser", "--bot", "builtin:random"]
    for _ in range(2):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
    folders = sorted(p.name for p in (tmp_path / "matches").iterdir())
    assert folders == ["20250101-120000", "20250101-120000-2"]
    assert "matches/20250101-120000-2/" in " ".join(result.output.split())
    for f in folders:
        assert (tmp_path / "matches" / f / "game-001.json").is_file()


def test_an_out_folder_with_results_is_refused(tmp_path: Path) -> None:
    args = ["match", "--map", "arena-10", "--bot", "builtin:chaser", "--bot", "builtin:random"]
    args += ["--out", str(tmp_path / "m")]
    assert runner.invoke(app, args).exit_code == 0
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "m").rglob("*")}
    result = runner.invoke(app, [*args, "--games", "3"])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert text.startswith("error: --out") and "is not empty" in text
    assert "choose another folder or delete this one" in text
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "m").rglob("*")} == before


def test_a_bot_that_cannot_start_leaves_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["match", "--bot", "cmd:/nonexistent/bot", "--bot", "random", "-p", "tron2010"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "cannot start" in result.output
    assert not (tmp_path / "matches").exists() or not list((tmp_path / "matches").iterdir())


CRASHES = f"cmd:{sys.executable} {ROOT / 'tests/referee/bad_bots/crashes.py'}"


def test_the_summary_says_why_a_bot_crashed(tmp_path: Path) -> None:
    args = ["match", "--map", "ring", "--bot", CRASHES, "--bot", "builtin:chaser"]
    args += ["-p", "tron2010", "--games", "2", "--out", str(tmp_path / "m")]
    result = runner.invoke(app, args, env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if ln.startswith("bad_bots/crashes.py"))
    assert "crashed in 2 games (first: game 1): exit code 1" in line, line
    assert line.endswith("ZeroDivisionError: division by zero"), line


def test_json_prints_the_results_file(tmp_path: Path) -> None:
    args = ["match", "--map", "ring", "--bot", CRASHES, "--bot", "builtin:chaser"]
    args += ["-p", "tron2010", "--out", str(tmp_path / "m"), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data == json.loads((tmp_path / "m" / "results.json").read_text())
    crash = data["bots"][0]["verdict_examples"]["crashed"]
    assert crash["game"] == 1 and "ZeroDivisionError" in crash["detail"]
    assert "results.json in" in result.stderr


def test_one_game_is_one_game(tmp_path: Path) -> None:
    args = ["match", "--map", "arena-10", "--bot", "builtin:chaser", "--bot", "builtin:random"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    assert "1 game" in result.output and "1 games" not in result.output


@pytest.mark.parametrize(
    ("line", "short"),
    [
        ("took 1.204 s", "took 1.204 s"),
        (
            'exit code 1; stderr tail: \'Traceback (most recent call last):\\n  File "b.py"\\n'
            "    x = 1 / 0\\nZeroDivisionError: division by zero'",
            'exit code 1; stderr: File "b.py" | x = 1 / 0 | ZeroDivisionError: division by zero',
        ),
        (
            "killed by signal 9 (SIGKILL); stderr tail: 'x' ",
            "killed by signal 9 (SIGKILL); stderr: x",
        ),
    ],
)
def test_short_detail(line: str, short: str) -> None:
    assert short_detail(line) == short
    assert len(short_detail("exit code 1; stderr tail: '" + "y" * 900 + "'")) <= 200

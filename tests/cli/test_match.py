"""``lightcycle match``: a series between programs and built-in bots, and its errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from typer.testing import CliRunner

from lightcycle.cli.main import app

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

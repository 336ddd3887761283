"""The command line as a user meets it: help, a match, a replay, maps, errors."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

import lightcycle
from lightcycle.cli.main import app

runner = CliRunner()


def test_every_command_has_help_with_an_example() -> None:
    for args in (
        ["--help"],
        ["play", "--help"],
        ["replay", "--help"],
        ["maps", "list", "--help"],
        ["maps", "show", "--help"],
        ["rules", "list", "--help"],
        ["match", "--help"],
        ["kit", "--help"],
    ):
        r = runner.invoke(app, args)
        assert r.exit_code == 0, r.output
        assert "Example" in r.output, args
        # a flag takes no value: Typer 0.29 showed `--no-render <bool>` (pinned below it)
        assert "<bool>" not in r.output and "BOOLEAN" not in r.output, args


def test_play_never_writes_over_a_replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same command twice keeps both games (the second is ``...-2.json``); a named
    replay that exists is refused before the game."""
    monkeypatch.chdir(tmp_path)
    args = ["play", "--map", "ring", "--bots", "chaser,runaway", "--seed", "7", "--no-render"]
    first = runner.invoke(app, args)
    second = runner.invoke(app, [*args, "--turn-limit", "10"])
    assert first.exit_code == 0 and second.exit_code == 0, second.output
    a = tmp_path / "replays" / "ring-1_chaser-runaway_seed7.json"
    b = tmp_path / "replays" / "ring-1_chaser-runaway_seed7-2.json"
    assert a.read_text() != b.read_text()
    again = runner.invoke(app, [*args, "--replay", str(a)])
    assert again.exit_code == 2 and "never written over" in again.output
    assert "has won" not in again.output  # refused before playing


def test_play_with_an_unwritable_replay_path_keeps_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    args = ["play", "--map", "ring", "--bots", "chaser,runaway", "--no-render", "--replay"]
    early = runner.invoke(app, [*args, "afile/x.json"])
    assert early.exit_code == 2 and "afile is a file, not a folder" in early.output
    late = runner.invoke(app, [*args, "/proc/x.json"])
    assert late.exit_code == 2 and "Traceback" not in late.output
    kept = re.search(r"the game is kept in (\S+\.json)", late.output.replace("\n", ""))
    assert kept, late.output
    assert runner.invoke(app, ["replay", kept.group(1), "--no-render"]).exit_code == 0
    one = runner.invoke(app, ["play", "--map", "ring", "--bots", "chaser"])
    assert one.exit_code == 2 and "error: give at least two bots" in one.output


def test_play_prints_the_result_and_writes_a_replay(tmp_path) -> None:
    out = tmp_path / "g.json"
    r = runner.invoke(
        app,
        [
            "play",
            "--map",
            "ring",
            "--bots",
            "chaser,wallhugger",
            "--seed",
            "7",
            "--replay",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    assert "has won!" in r.output or "The game was a draw." in r.output
    assert out.exists()
    r2 = runner.invoke(app, ["replay", str(out), "--no-render"])
    assert r2.exit_code == 0, r2.output
    r3 = runner.invoke(app, ["replay", str(out), "--turn", "3", "--ascii"])
    assert r3.exit_code == 0 and "turn 3" in r3.output


def test_user_errors_are_one_line_and_exit_2(tmp_path) -> None:
    r = runner.invoke(
        app, ["play", "--map", "rnig", "--no-render", "--replay", str(tmp_path / "x.json")]
    )
    assert r.exit_code == 2 and "ring" in r.output and "Traceback" not in r.output
    r = runner.invoke(app, ["play", "--turn-limit", "0", "--no-render"])
    assert r.exit_code == 2 and "turn_limit must be a positive" in r.output
    r = runner.invoke(app, ["play", "--bots", "random,nobot", "--no-render"])
    assert r.exit_code == 2 and "unknown bot" in r.output
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    r = runner.invoke(app, ["replay", str(bad)])
    assert r.exit_code == 2 and "bad.json:1:2" in r.output


def test_maps_and_rules_listings() -> None:
    r = runner.invoke(app, ["maps", "list"])
    assert r.exit_code == 0 and "ring" in r.output
    # 80 columns leave the descriptions room: a phrase stays on one line
    assert max(len(line) for line in r.output.splitlines()) <= 80
    assert "An empty 10x10 room with walls" in r.output
    r = runner.invoke(app, ["maps", "show", "ring", "--ascii"])
    assert r.exit_code == 0 and "#" in r.output
    r = runner.invoke(app, ["rules", "list"])
    assert r.exit_code == 0 and "classic@1" in r.output and "ffa@1" in r.output


def _commands() -> list[tuple[list[str], Any]]:
    """Every command of the app with its path: ``(["maps", "show"], command)``."""
    found: list[tuple[list[str], Any]] = []

    def walk(command: Any, path: list[str]) -> None:
        found.append((path, command))
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


def test_help_text_survives_the_markdown_renderer() -> None:
    # help is rendered as markdown: `replays/<game>.json` came out as `replays/.json`
    bracketed = re.compile(r"<[^<>\n]+>|\[[^\[\]\n]+\]")
    checked = 0
    for path, command in _commands():
        out = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "250"}).output
        flat = " ".join(out.replace("│", " ").split())
        texts = [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]
        for text in texts:
            for token in bracketed.findall(text):
                checked += 1
                assert token.replace("\\[", "[") in flat, (path, token)
    assert checked  # the check saw something: the tournament's 'lightcycle[cluster]'


def test_maps_show_gives_the_size_once() -> None:
    r = runner.invoke(app, ["maps", "show", "ring", "--ascii"])
    header = r.output.splitlines()[0]
    assert header.startswith("ring@1 15x15 grid") and header.count("15x15") == 1


def test_rules_list_shows_every_stage_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    from lightcycle.cli.common import console
    from lightcycle.rules.variants import list_rulesets

    stages = {s for r in list_rulesets() for s in r.stages}
    for width in (80, 120):
        monkeypatch.setattr(console, "width", width)
        r = runner.invoke(app, ["rules", "list"])
        assert r.exit_code == 0, r.output
        assert max(len(line) for line in r.output.splitlines()) <= width
        words = set(r.output.split())
        assert stages <= words, (width, stages - words)
        assert "…" not in r.output


def test_version_and_python_dash_m() -> None:
    from importlib.metadata import version

    r = runner.invoke(app, ["--version"])
    assert r.exit_code == 0 and r.output.strip() == f"lightcycle {version('lightcycle')}"
    done = subprocess.run(
        [sys.executable, "-m", "lightcycle", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"lightcycle {version('lightcycle')}"


def test_a_negative_speed_is_refused(tmp_path: Path) -> None:
    r = runner.invoke(
        app, ["play", "--speed", "-1", "--no-render", "--replay", str(tmp_path / "g.json")]
    )
    assert r.exit_code == 2 and "--speed" in r.output
    assert not (tmp_path / "g.json").exists()


def test_random_maps_are_maps_everywhere(tmp_path: Path) -> None:
    # duel and tournament pools list maps as random-SEED: play and maps show take them
    r = runner.invoke(app, ["maps", "show", "random-42", "--ascii"])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("random-42@1 ")
    out = tmp_path / "g.json"
    r = runner.invoke(
        app,
        ["play", "--map", "random-42@1", "--bots", "chaser,runaway", "--replay", str(out)],
    )
    assert r.exit_code == 0, r.output
    assert out.exists()
    r = runner.invoke(app, ["maps", "show", "rnadom-42"])
    assert r.exit_code == 2 and "random-SEED" in r.output


def test_the_deaths_table_names_cycles_as_the_board_does(tmp_path: Path) -> None:
    tiny = tmp_path / "tiny.txt"
    tiny.write_text("5 3\n#####\n#1 2#\n#####\n")
    g = tmp_path / "g.json"
    r = runner.invoke(
        app,
        ["play", "--map", str(tiny), "--bots", "chaser,chaser", "--ascii", "--replay", str(g)],
    )
    assert r.exit_code == 0, r.output
    rows = [line.split() for line in r.output.splitlines() if "with cycle" in line]
    # seat, cycle, fate, turn, detail: the letters of the board, the viewer's turn
    assert [row[-6:] for row in rows] == [
        ["A", "same_cell", "1", "with", "cycle", "B"],
        ["B", "same_cell", "1", "with", "cycle", "A"],
    ]
    assert "# * . * #" in r.output


def test_team_deaths_name_cycles_by_letter() -> None:
    from lightcycle.cli.main import deaths_table

    result = lightcycle.play("court-small", ["lookbot", "linebot"], seed=1)
    console = Console(width=120, record=True, color_system=None)
    console.print(deaths_table(result.final))
    text = console.export_text()
    assert re.search(r"with cycle [A-T]\b", text), text
    assert not re.search(r"with cycle \d", text)
    cycles = [line.split()[1] for line in text.splitlines()[1:] if line.strip()]
    assert cycles == [chr(ord("A") + i) for i in range(20)]


def _lines(renderable: Any, width: int = 80, height: int = 24) -> list[str]:
    console = Console(width=width, height=height, record=True, color_system=None)
    console.print(renderable)
    return console.export_text().splitlines()


def test_the_player_is_marked_and_followed_on_a_board_bigger_than_the_terminal() -> None:
    from lightcycle.cli.human import frame
    from lightcycle.referee.local import default_ruleset
    from lightcycle.rules.engine import new_game

    spec = lightcycle.get_map("arena-50")
    state = new_game(default_ruleset(spec, 2), spec, seed=0, players=2)
    lines = _lines(frame(state, True, [0], 80, 24))
    assert len(lines) < 24 and max(len(line) for line in lines) <= 80
    text = "\n".join(lines)
    assert "".join(lines[:20]).count("@") == 1 and "@ you (Player 1): alive" in text
    assert "the view follows you" in text
    small = lightcycle.get_map("ring")
    state = new_game(default_ruleset(small, 2), small, seed=0, players=2)
    text = "\n".join(_lines(frame(state, False, [1], 80, 24)))
    assert "@ you (Player 2)" in text and "follows" not in text and "A" in text


def test_play_scales_the_court_to_an_80x24_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from lightcycle.cli import main
    from lightcycle.referee.local import default_ruleset
    from lightcycle.rules.engine import new_game

    spec = lightcycle.get_map("court")
    state = new_game(default_ruleset(spec, 2), spec, seed=0, players=2)
    monkeypatch.setattr(main.console, "width", 80)
    monkeypatch.setattr(main.console, "height", 24)
    lines = _lines(main._frame(state, True, live=True))
    assert len(lines) < 24 and lines[-1].startswith("turn 0 | A-J Player 1")
    assert "1 character = 1x3 cells" in lines[-2]
    assert len(_lines(main._frame(state, True))) == 48 + 1  # printed once: whole, full size


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["play", "--speed", "-1"], "Invalid value for '--speed'"),
        (["duel", "builtin:chaser", "builtin:random", "--games", "0"], "'--games'"),
        (["play", "--bots", "chaser"], "give at least two bots"),
        (["play", "--bogus"], "No such option: --bogus"),
        (["replay"], "Missing argument"),
    ],
)
def test_every_usage_error_is_one_error_line(args: list[str], said: str) -> None:
    """Typer's own checks (ranges, unknown options, missing arguments) print as every
    other error does: one ``error:`` line that says where the help is; no box."""
    r = runner.invoke(app, args)
    assert r.exit_code == 2
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and said in lines[0], r.output
    assert "╭" not in r.output

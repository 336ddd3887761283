"""The command line as a user meets it: help, a match, a replay, maps, errors."""

from __future__ import annotations

from typer.testing import CliRunner

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
    ):
        r = runner.invoke(app, args)
        assert r.exit_code == 0, r.output
        assert "Example" in r.output, args


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

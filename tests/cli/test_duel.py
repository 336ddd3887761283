"""``lightcycle duel``: the report, JSON, the output folder, and the errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lightcycle.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests/tournament/duel_bots.py"
runner = CliRunner()
QUICK = ["--maps", "arena-10", "--workers", "1"]


def test_help_has_an_example() -> None:
    r = runner.invoke(app, ["duel", "--help"])
    assert r.exit_code == 0, r.output
    assert "Example" in r.output and "--sprt" in r.output


def test_a_duel_prints_the_table() -> None:
    r = runner.invoke(app, ["duel", "builtin:wallhugger", "builtin:random", "-n", "8", *QUICK])
    assert r.exit_code == 0, r.output
    for text in (
        "WallHugger",
        "Random",
        "Elo (95% CI)",
        "LOS",
        "avg ms",
        "8 games",
        "4 side-swapped",
    ):
        assert text in r.output, text
    assert "depth" not in r.output.split("Elo of A")[0]  # nobody reports a depth
    assert "SPRT" not in r.output
    assert "too few pairs" in r.output and "no interval yet: 4 pairs, at least 5" in r.output


def test_the_table_gives_the_interval_the_line_below_gives() -> None:
    """The table's Elo cell is the interval printed under it (a ± half-width was not:
    the interval is asymmetric in Elo), from each bot's side."""
    r = runner.invoke(app, ["duel", "builtin:wallhugger", "builtin:chaser", "-n", "12", *QUICK])
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    ci = re.search(r"95% CI ([-+][\d.inf]+) \.\. ([-+][\d.inf]+)", text)
    assert ci, text
    low, high = ci.groups()
    assert f"({low} .. {high})" in text  # A's row
    flip = {"+": "-", "-": "+"}
    assert f"({flip[high[0]]}{high[1:]} .. {flip[low[0]]}{low[1:]})" in text  # B's row
    assert "±" not in text.split("Elo of A")[0]


def test_the_depth_column_appears_when_a_bot_reports_it() -> None:
    r = runner.invoke(app, ["duel", f"py:{BOTS}:DeepBot", "builtin:random", "-n", "2", *QUICK])
    assert r.exit_code == 0, r.output
    assert "depth" in r.output and "7.5" in r.output


def test_by_map_adds_a_table_per_map_and_json_has_it_always() -> None:
    args = ["duel", "builtin:wallhugger", "builtin:random", "-n", "4", "-j", "1"]
    r = runner.invoke(app, [*args, "--maps", "arena-10,ring", "--by-map"])
    assert r.exit_code == 0, r.output
    by_map = r.output.split("By map")[1]
    assert "arena-10@1" in by_map and "ring@1" in by_map and "A ms" in by_map
    phases = r.output.split("Time per move by phase")[1]
    assert "first" in phases and "middle" in phases
    r = runner.invoke(app, [*args, "--maps", "arena-10,ring", "--json"])
    data = json.loads(r.stdout)
    assert sorted(line["map"] for line in data["by_map"]) == ["arena-10@1", "ring@1"]
    assert sum(line["games"] for line in data["by_map"]) == 4
    # the time per move by phase: every timed move of every game, each in one phase
    for line in data["by_map"]:
        assert "first" in line["a_phases"] and line["a_phases"]["first"]["moves"] == line["games"]
    for pair in data["pairs"]:
        for game in pair["games"]:
            for side in (0, 1):
                timed = sum(moves for moves, _ in game["phase_time"][side].values())
                assert timed == game["moves"][side]


def test_sprt_decision_is_reported() -> None:
    args = ["duel", "builtin:wallhugger", "builtin:random", "-n", "400", "--sprt", "0", "100"]
    r = runner.invoke(app, [*args, "--maps", "arena-10,arena-15,ring", "-j", "1"])
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())  # lines wrap at the terminal width
    assert "SPRT: H1 accepted (elo0=0 elo1=100)" in text and "(stopped early)" in text


def test_json_and_out_folder(tmp_path: Path) -> None:
    args = ["duel", "builtin:chaser", "builtin:random", "-n", "4", *QUICK, "--json"]
    r = runner.invoke(app, [*args, "--out", str(tmp_path), "--seed", "5"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["games"] == 4 and data["seed"] == 5 and data["a"]["name"] == "Chaser"
    assert data["control"]["move"] == 0.1
    on_disk = json.loads((tmp_path / "results.json").read_text())
    assert on_disk["pairs"] == data["pairs"]
    assert len(list((tmp_path / "replays").glob("*.json"))) == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["builtin:nobot", "builtin:random"], "unknown bot 'builtin:nobot'"),
        (["cmd:./mybot", "builtin:random"], "needs a protocol: add --protocol"),
        (["builtin:random", "builtin:chaser", "-m", "ring,nomap"], "bad map pool item 'nomap'"),
        (["builtin:random", "builtin:chaser", "-m", "random:0"], "random:N needs a count"),
        (
            ["builtin:random", "builtin:chaser", "-m", "torus-20", "-r", "classic"],
            "cannot duel on torus-20@1",
        ),
        (["builtin:random", "builtin:chaser", "--move-time", "-1"], "must be >= 0"),
    ],
)
def test_errors_are_one_line(args: list[str], message: str) -> None:
    r = runner.invoke(app, ["duel", *args, "-n", "2", "-j", "1"])
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output
    assert r.output.strip().startswith("error:")


def test_bad_sprt_is_a_usage_error() -> None:
    r = runner.invoke(app, ["duel", "random", "chaser", "--sprt", "10", "0", "-n", "2"])
    assert r.exit_code == 2 and "elo0 < elo1" in r.output


def test_match_help_shows_its_defaults() -> None:
    # rich markup would eat a bracketed "[default: ...]", so the help uses parentheses
    r = runner.invoke(app, ["match", "--help"], env={"COLUMNS": "200"})
    assert r.exit_code == 0
    assert "Seconds per move (default: 1; teams: none)" in r.output


def test_an_odd_game_count_is_refused_with_what_to_give() -> None:
    """``--games 3`` used to play 4 games without a word."""
    r = runner.invoke(app, ["duel", "builtin:chaser", "builtin:random", "-n", "3", *QUICK])
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())
    assert "--games 3: duels play side-swapped pairs; give an even number, e.g. --games 4" in text
    r = runner.invoke(app, ["duel", "builtin:chaser", "builtin:random", "-n", "1", *QUICK])
    assert r.exit_code == 2 and "e.g. --games 2" in " ".join(r.output.split())


def test_one_pair_on_one_map_is_worded_in_the_singular() -> None:
    r = runner.invoke(app, ["duel", "builtin:chaser", "builtin:random", "-n", "2", *QUICK])
    assert r.exit_code == 0, r.output
    assert "2 games (1 side-swapped pair) on 1 map," in " ".join(r.output.split())


def test_an_out_folder_with_results_is_refused(tmp_path: Path) -> None:
    args = ["duel", "builtin:chaser", "builtin:random", "-n", "2", *QUICK, "--out", str(tmp_path)]
    assert runner.invoke(app, args).exit_code == 0
    before = (tmp_path / "results.json").read_text()
    r = runner.invoke(app, [*args, "--seed", "9"])
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())
    assert "is not empty" in text and "choose another folder or delete this one" in text
    assert (tmp_path / "results.json").read_text() == before

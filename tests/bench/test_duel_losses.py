"""The duel-loss classifier (bench/duel_losses.py) on a real, small duel's folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench.duel_losses import classify, main
from typer.testing import CliRunner

from lightcycle.cli.main import app


@pytest.fixture(scope="module")
def duel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Strong (a node budget: the same games anywhere) against the wall hugger and,
    for a loss, the wall hugger against strong."""
    out = tmp_path_factory.mktemp("duel")
    args = ["duel", "builtin:wallhugger", "builtin:strong:nodes=500", "-n", "2", "-j", "1"]
    r = CliRunner().invoke(app, [*args, "--maps", "arena-10", "--seed", "3", "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out


def test_every_decided_game_gets_a_category_and_a_loss_a_cause(duel_dir: Path) -> None:
    results = json.loads((duel_dir / "results.json").read_text())
    games = [g for p in results["pairs"] for g in p["games"]]
    decided = classify(duel_dir, back=2, long=0.05, move_time=0.02, only_losses=False)
    assert len(decided) == sum(g["score"] != 0.5 for g in games) > 0
    categories = {
        "never cut apart",
        "cut apart with less room",
        "cut apart with as much room",
        "cut apart with more room",
    }
    for d in decided:
        assert d.category in categories
        if d.category != "never cut apart":
            assert d.cut_turn is not None and d.fills is not None
            mine, theirs = d.fills
            won_room = "more" in d.category
            assert (mine > theirs) == won_room
        if d.score < 0.5 and d.category == "cut apart with less room":
            assert d.cause in ("longer search differs", "proven loss", "no difference found")


def test_the_command_prints_its_table_and_writes_json(
    duel_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "losses.json"
    argv = [str(duel_dir), "--back", "1", "--long", "0.05", "--move-time", "0.02"]
    assert main([*argv, "--json", str(target)]) == 0
    out = capsys.readouterr().out
    assert "lost" in out and "won" in out
    assert isinstance(json.loads(target.read_text()), list)


def test_a_folder_without_a_duel_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main([str(tmp_path)])
    assert exc.value.code == 2
    assert "no results.json (give the --out folder of a finished duel)" in capsys.readouterr().err

"""A policy is a seat: ``py:FILE.py:NAME`` where the file makes a `PolicyBot`.

A trained agent is measured as any bot is, by the commands every bot goes through:
``lightcycle play``, ``match``, ``duel`` and tournaments, here with the small policies
of ``tests/envs/policy_bots.py`` and the example of docs/rl.md.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from lightcycle.cli.main import app
from lightcycle.replay.model import Replay

ROOT = Path(__file__).resolve().parents[2]
POLICIES = ROOT / "tests/envs/policy_bots.py"
SAFE = f"py:{POLICIES}:safe"
CRASHER = f"py:{POLICIES}:crasher"
runner = CliRunner()


def flat(text: str) -> str:
    """Output with the terminal's line wrapping undone."""
    return " ".join(text.split())


def test_a_policy_duels_and_gets_the_statistics_of_any_bot(tmp_path: Path) -> None:
    args = ["duel", SAFE, CRASHER, "-n", "8", "--maps", "arena-10", "--workers", "1"]
    r = runner.invoke(app, [*args, "--out", str(tmp_path / "duel"), "--json"])
    assert r.exit_code == 0, r.output
    result = json.loads((tmp_path / "duel" / "results.json").read_text(encoding="utf-8"))
    assert (result["a"]["name"], result["b"]["name"]) == ("SafePolicy", "NorthPolicy")
    assert result["a"]["spec"] == SAFE and result["games"] == 8
    # north into the wall loses every game to a policy that avoids walls and trails
    assert result["result"] == {"wins": 8, "draws": 0, "losses": 0}
    assert result["a"]["verdicts"] == {} and result["b"]["verdicts"] == {}
    table = runner.invoke(app, args)
    assert table.exit_code == 0, table.output
    text = flat(table.output)
    for words in ("SafePolicy", "NorthPolicy", "Elo (95% CI)", "8 games", "A = SafePolicy"):
        assert words in text, words


def test_a_policy_plays_and_its_replay_names_it(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    args = ["play", "--map", "arena-10", "--bots", f"{SAFE},random", "--seed", "3"]
    r = runner.invoke(app, [*args, "--no-render", "--replay", str(path)])
    assert r.exit_code == 0, r.output
    replay = Replay.load(path)
    assert replay.seats[0] == {"name": "SafePolicy", "bot": SAFE}
    replay.verify()


def test_a_policy_plays_a_match(tmp_path: Path) -> None:
    args = ["match", "--map", "arena-10", "--bot", SAFE, "--bot", "builtin:random"]
    r = runner.invoke(app, [*args, "--games", "2", "--out", str(tmp_path / "m"), "--json"])
    assert r.exit_code == 0, r.output
    assert "SafePolicy" in r.output


def test_a_policy_plays_in_a_tournament(tmp_path: Path) -> None:
    config = tmp_path / "rl.toml"
    config.write_text(
        'name = "rl"\nformat = "round-robin"\n'
        f'bots = ["{SAFE}", "builtin:random", "builtin:wallhugger"]\n'
        'maps = ["arena-10"]\nseed = 1\n',
        encoding="utf-8",
    )
    r = runner.invoke(app, ["tournament", "run", str(config), "-j", "1"])
    assert r.exit_code == 0, r.output
    assert "SafePolicy" in r.output


def test_the_documented_example_policy_is_a_seat() -> None:
    example = f"py:{ROOT / 'examples/rl/first_safe.py'}:bot"
    r = runner.invoke(
        app, ["duel", example, "random", "-n", "2", "--maps", "arena-10", "--workers", "1"]
    )
    assert r.exit_code == 0, r.output
    assert "FirstSafe" in r.output

"""The 3D course's C++ kit: written, built with ``make all``, played with ``./Game``.

One kit is written and built per module (``lightcycle kit tron3d`` compiles the Dummy,
``make all`` the rest, with this folder's AIProbe.cc added); the games are played by the
kit's own ``Game``, which runs lightcycle's referee (``$LIGHTCYCLE``: this interpreter)
with each player as ``./Game --seat NAME`` speaking jsonl.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lightcycle.kits import KitError, get_kit, write_kit
from lightcycle.kits.tron3d import DUMMY_SOURCE
from lightcycle.referee.local import play
from lightcycle.replay.model import Replay

HERE = Path(__file__).parent
BONUS_CODES = {"turbo": 1, "ghost": 2, "points": 3}
"""AIProbe's numbers of the kinds (Board.hh's enum Bonus)."""

pytestmark = [
    pytest.mark.skipif(
        shutil.which("g++") is None or shutil.which("make") is None,
        reason="the kit is built with g++ and make",
    ),
    pytest.mark.xdist_group("tron3d-kit"),  # one worker builds the module's kit once
]


def _env() -> dict[str, str]:
    return {**os.environ, "LIGHTCYCLE": f"{sys.executable} -m lightcycle", "NO_COLOR": "1"}


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A kit written and built once: Demo, Null, the Dummy object and AIProbe."""
    folder = tmp_path_factory.mktemp("kit") / "my-tron3d"
    report = write_kit("tron3d", folder)
    assert {"Player.hh", "Board.hh", "Action.hh", "AIDemo.cc", "AINull.cc", "Makefile"} <= {
        str(p) for p in report.written
    }
    assert (folder / "AIDummy.o").is_file() and not (folder / "AIDummy.cc").exists()
    shutil.copy(HERE / "AIProbe.cc", folder)
    done = subprocess.run(["make", "all"], cwd=folder, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" not in done.stderr, done.stderr
    yield folder


def _game(kit: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["./Game", *args], cwd=kit, capture_output=True, text=True, env=_env(), timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_the_game_lists_its_players_and_helps(kit: Path) -> None:
    listed = _game(kit, "--list").stdout.split()
    assert sorted(listed) == ["Demo", "Dummy", "Null", "Probe"]
    assert "python3 -m lightcycle" in _game(kit, "--help").stdout
    wrong = subprocess.run(["./Game", "Nobody", "Demo"], cwd=kit, capture_output=True, text=True)
    assert wrong.returncode == 2 and "no player 'Nobody'" in wrong.stderr


def test_demo_and_null_play_a_game_lightcycle_replays(kit: Path) -> None:
    """Demo against three Dummies, then Null (no moves: its bikes explode at once)."""
    done = _game(kit, "Demo", "Dummy", "Dummy", "Dummy", "--board", "cube", "--seed", "3")
    assert "replay: game.json" in done.stdout and "results.json in" not in done.stdout
    replay = Replay.load(kit / "game.json")
    assert replay.ruleset == "tron3d@1" and replay.seed == 3
    assert [s["name"] for s in replay.seats] == ["Demo", "Dummy", "Dummy 2", "Dummy 3"]
    assert len(replay.turns) == 200
    _game(kit, "Null", "Demo", "-b", "icosahedron", "-o", "games/null.json")
    null = Replay.load(kit / "games" / "null.json")
    final = null.verify()
    assert final.outcome is not None and final.outcome.ranks == (2, 1)
    assert all(not c.alive for c in final.cycles if c.team == 0)
    checked = subprocess.run(
        [sys.executable, "-m", "lightcycle", "replay", "games/null.json", "--no-render"],
        cwd=kit,
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Demo (Player 2) has won" in checked.stdout


def test_the_dummy_is_lightcyclesdummy_move_for_move(kit: Path, tmp_path: Path) -> None:
    """The C++ Dummy draws Python's coin from the same seed: the same game, every move."""
    for board, seed in (("cube", 11), ("donut", 4)):
        _game(kit, "Dummy", "Dummy", "Dummy", "Dummy", "-b", board, "-s", str(seed))
        ours = Replay.load(kit / "game.json")
        path = tmp_path / f"{board}.json"
        play(board, ["builtin:dummy"] * 4, seed=seed, ruleset="tron3d", replay_path=path)
        theirs = Replay.load(path)
        assert ours.turns == theirs.turns, f"{board} seed {seed}"
    assert "builtin:dummy" in DUMMY_SOURCE.read_text()


def test_board_shows_lightcycles_state_and_cout_cin_cannot_break_it(kit: Path) -> None:
    """AIProbe prints, every round, a checksum of what Board shows (the vertices not
    free, the bonuses); each must be the engine's own state of that round. It uses every
    bonus at once (turbos, ghosts), writes to cout and reads cin: the game goes on, its
    cout lands in the debug output ./Game prints after the game, and cin is at its end."""
    done = _game(kit, "Probe", "Probe", "Probe", "Probe", "-b", "cube", "-s", "2")
    assert "---- seat 1, Probe: cout and cerr" in done.stderr
    assert "probe writes to cout on round 0" in done.stderr
    assert "cin gave" not in done.stderr
    states = list(Replay.load(kit / "game.json").states())
    used = {c.item for s in states for c in s.cycles} | {
        c.turbo > 0 for s in states for c in s.cycles
    }
    assert True in used  # a turbo was used: odd rounds with moves happened
    seen = 0
    for line in done.stderr.splitlines():
        if not line.startswith("PROBE "):
            continue
        _seat, rnd, count, occupied, bonuses = (int(w) for w in line.split()[1:])
        state = states[rnd]
        cells = [v for v in range(state.board.topology.size) if (state.occupied >> v) & 1]
        assert count == len(cells), f"round {rnd}"
        assert occupied == sum((v + 1) * (v + 7) for v in cells) % 1_000_000_007, f"round {rnd}"
        expected = sum((v + 1) * (BONUS_CODES[k] + 3) for v, k in state.items) % 1_000_000_007
        assert bonuses == expected, f"round {rnd}"
        seen += 1
    assert seen > 100


def test_without_gpp_the_kit_is_written_and_the_error_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    with pytest.raises(KitError, match=r"g\+\+ is not installed"):
        write_kit("tron3d", tmp_path)
    assert (tmp_path / "Board.hh").is_file() and not (tmp_path / "AIDummy.o").exists()
    assert any("make all" in step for step in get_kit("tron3d").next_steps)

"""A program told its team is out while the game goes on may exit: that is no crash.

The multi-player protocol (``aichallenge``) sends ``end`` to a seat whose cycle died
while the others play on; the contest's example bot (examples/aichallenge/bot.c) then
exits with status 0, as it was told to, so its seat keeps the verdict of its death (ok)
instead of ``crashed, exit code 0``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from lightcycle.maps.registry import get_map
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import play_game
from lightcycle.referee.players import make_player, parse_bot_spec
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import Limits

SOURCE = Path(__file__).resolve().parents[2] / "examples" / "aichallenge" / "bot.c"


@pytest.fixture(scope="module")
def aibot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is missing: apt-get install gcc")
    out = tmp_path_factory.mktemp("aibot") / "aibot"
    subprocess.run(["gcc", "-O2", "-o", str(out), str(SOURCE)], check=True)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bots_that_exit_when_told_they_are_out_did_not_crash(
    aibot: Path, seed: int, tmp_path: Path
) -> None:
    specs = [parse_bot_spec(f"cmd:{aibot}", "aichallenge") for _ in range(4)]
    players = [make_player(s, Limits(), tmp_path) for s in specs]
    try:
        record = play_game(
            players,
            get_map("arena-15"),
            get_ruleset("ffa"),
            seed=seed,
            controls=TimeControl(move=5.0, first_move=10.0),
        )
    finally:
        for p in players:
            p.shutdown()
    assert len(set(record.outcome.ranks)) > 1, "someone must go out before the end"
    assert [s.verdict.kind for s in record.seats] == ["ok"] * 4

"""Every misbehaving bot in ``bad_bots/`` gets its verdict and nothing more.

For each bot the test checks the verdict (and its detail), that the game still finished
with a result, that the referee's memory stayed bounded, that no process of the bot is
left (daemons included) and that the referee has no zombie child.
"""

from __future__ import annotations

import re
import resource
import sys
from pathlib import Path

import pytest

from lightcycle.maps.registry import get_map
from lightcycle.referee import players as players_mod
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import play_game
from lightcycle.referee.players import BotSpec, make_player
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import Limits
from tests.sandbox.survivors import Recorder, leftovers, zombie_children

HERE = Path(__file__).parent / "bad_bots"
BOTS = sorted(p for p in HERE.glob("*.py") if not p.name.startswith("_"))


def headers(path: Path) -> dict[str, str]:
    """The ``# key: value`` lines at the top of a bad bot."""
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        m = re.match(r"# (\w+): (.*)", line)
        if not m:
            break
        out[m.group(1)] = m.group(2).strip()
    return out


@pytest.mark.parametrize("path", BOTS, ids=[p.stem for p in BOTS])
def test_bad_bot_gets_its_verdict_and_nothing_more(path: Path, monkeypatch, tmp_path) -> None:
    h = headers(path)
    protocol = h.get("protocol", "tron2010")
    options = dict(kv.split("=") for kv in h.get("options", "").split())
    Recorder.started = []
    monkeypatch.setattr(players_mod, "BotProcess", Recorder)
    if protocol == "sexp":
        spec, ruleset = get_map("torus-20"), get_ruleset("torus")
    else:
        spec, ruleset = get_map("arena-15"), get_ruleset("classic")
    bad = BotSpec(
        text=str(path),
        kind="program",
        command=(sys.executable, str(path)),
        protocol=protocol,
        memory=int(options["memory"]) << 20 if "memory" in options else None,
    )
    control = TimeControl(
        move=1.0, first_move=3.0, cpu=float(options["cpu"]) if "cpu" in options else None
    )
    players = [
        make_player(bad, Limits(), tmp_path / "logs"),
        make_player(BotSpec(text="builtin:runaway", kind="inproc"), Limits(), None),
    ]
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        record = play_game(players, spec, ruleset, seed=3, controls=control)
    finally:
        for p in players:
            p.shutdown()
    rss_growth_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
    verdict = record.seats[0].verdict
    assert verdict.kind == h["verdict"], f"{path.name}: {verdict}"
    if "detail" in h:
        assert re.search(h["detail"], verdict.detail), f"{path.name}: {verdict.detail}"
    assert record.outcome is not None
    if verdict.kind not in ("ok", "illegal_move"):
        assert record.outcome.ranks[0] == 2, "a seat that failed must lose to a sound bot"
    record.replay.verify()  # the recorded game re-simulates to the same result
    assert rss_growth_mib < 100, f"referee grew by {rss_growth_mib:.0f} MiB"
    assert Recorder.started, "the bot was never started"
    for proc in Recorder.started:
        assert leftovers(proc) == [], f"{path.name} left processes running"
    assert zombie_children() == set()
    log = next((tmp_path / "logs").glob("*.log"), None)
    if log is not None:
        assert log.stat().st_size < 80 * 1024, "stderr logs keep only a bounded tail"

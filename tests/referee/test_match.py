"""``run_match``: the map pool is checked before any game, each map keeps its own rules,
and a crash's reason is kept for the summary."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapError
from lightcycle.referee.local import default_ruleset
from lightcycle.referee.match import (
    BotStats,
    MatchResult,
    check_pool,
    interrupts_deferred,
    run_match,
    unplayable,
)
from lightcycle.referee.players import parse_bot_spec
from lightcycle.rules.variants import get_ruleset

CRASHES = Path(__file__).parent / "bad_bots" / "crashes.py"
FOUR = [parse_bot_spec(f"builtin:{b}") for b in ("chaser", "random", "wallhugger", "runaway")]


def test_a_map_for_other_player_counts_fails_before_any_game(tmp_path: Path) -> None:
    """ffa6 after ffa4 used to fail after game 1, leaving half an output folder."""
    maps = [get_map("ffa4"), get_map("ffa6")]
    ffa = get_ruleset("ffa")
    with pytest.raises(MapError, match=r"cannot play ffa6@1 with 4 bots.*for 6 players, not 4"):
        run_match(FOUR, maps, ffa, games=4, out_dir=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_every_problem_of_a_pool_is_found_without_playing() -> None:
    two = FOUR[:2]
    tron = [parse_bot_spec("cmd:./bot", "tron2010"), FOUR[0]]
    classic = get_ruleset("classic")
    assert unplayable(get_map("ring"), classic, two) is None
    assert "walled grid" in str(unplayable(get_map("torus-20"), classic, two))
    assert "for 2 to 2 players, not 4" in str(unplayable(get_map("arena-15"), classic, FOUR))
    torus = get_ruleset("torus")
    assert "tron2010" in str(unplayable(get_map("torus-20"), torus, tron))
    check_pool(two, [get_map("ring"), get_map("arena-10")], [classic, classic])
    with pytest.raises(MapError, match="no maps"):
        check_pool(two, [], [])


def test_each_map_plays_under_its_own_ruleset() -> None:
    two = FOUR[:2]
    maps = [get_map("ring"), get_map("torus-20")]
    rulesets = [default_ruleset(m, 2) for m in maps]
    result = run_match(two, maps, rulesets, games=2)
    assert [(g.map, g.ruleset) for g in result.games] == [
        ("ring@1", "classic@1"),
        ("torus-20@1", "torus@1"),
    ]
    assert result.complete and result.to_dict()["complete"] is True


def test_a_crash_keeps_its_exit_code_and_stderr_for_the_summary() -> None:
    crash = parse_bot_spec(f"cmd:{sys.executable} {CRASHES}", "tron2010")
    result = run_match([crash, FOUR[0]], [get_map("ring")], get_ruleset("classic"), games=2)
    stats = result.stats[0]
    assert stats.verdicts == {"crashed": 2}
    game, detail = stats.verdict_examples["crashed"]
    assert game == 1 and "exit code 1" in detail and "ZeroDivisionError" in detail
    example = result.to_dict()["bots"][0]["verdict_examples"]["crashed"]
    assert example["game"] == 1 and "ZeroDivisionError" in example["detail"]


def test_a_ctrl_c_while_a_game_is_recorded_waits_for_the_record() -> None:
    done: list[str] = []
    with pytest.raises(KeyboardInterrupt), interrupts_deferred():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the signal arrives here, and is held
        done.append("replay written, game tallied")
    assert done == ["replay written, game tallied"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_partial_match_says_so() -> None:
    stats = [BotStats("A", games=1, wins=1), BotStats("B", games=1, losses=1)]
    result = MatchResult(stats, [], games_planned=10, interrupted=True)
    data = result.to_dict()
    assert not result.complete
    assert (data["complete"], data["interrupted"], data["games_planned"]) == (False, True, 10)

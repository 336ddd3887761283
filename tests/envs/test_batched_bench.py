"""bench/envs_speed.py: its figures are counted right (the timings themselves are never
asserted: tests do not judge wall-clock time)."""

from __future__ import annotations

import pytest
from bench.envs_speed import main, memory_per_game, run_batched

from lightcycle.envs.batched import BatchedGames


def test_a_batched_run_counts_turns_games_and_agent_steps() -> None:
    figures = run_batched(8, True, 0.05, 1)
    assert figures["turns"] == 8 * figures["steps"]
    assert figures["agent_step_rate"] == pytest.approx(2 * figures["step_rate"])
    assert figures["step_rate"] >= figures["total_rate"] > 0


def test_memory_per_game_counts_the_planes_only_when_observing() -> None:
    bare = memory_per_game(BatchedGames("classic", "arena-30", 4, seed=0, observe=False))
    seen = memory_per_game(BatchedGames("classic", "arena-30", 4, seed=0))
    assert 901 <= bare < 2000  # one byte per cell and the sentinel, and a few per cycle
    assert seen - bare >= 2 * 5 * 900  # two agents' five planes of 30x30 bytes


def test_bad_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--seconds", "0"])
    assert exc.value.code == 2
    assert "--seconds" in capsys.readouterr().err

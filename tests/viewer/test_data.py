"""The HTML viewer's data tells every turn exactly as re-simulation does."""

from __future__ import annotations

import pytest

from lightcycle.core.bitset import iter_cells
from lightcycle.viewer.data import trail_intervals, viewer_data
from tests.replay.test_convert import random_replay


def owned(intervals: list[list[int | None]], turn: int, cycle: int) -> set[int]:
    return {
        int(cell)  # type: ignore[arg-type]
        for cell, who, start, end in intervals
        if who == cycle and start is not None and start <= turn and (end is None or turn < end)
    }


@pytest.mark.parametrize("ruleset", ["classic", "ffa", "teams", "tron3d"])
def test_trail_intervals_give_back_every_turn_s_trails(ruleset: str) -> None:
    replay = random_replay(ruleset, seed=7)
    states = list(replay.states())
    intervals = trail_intervals(states)
    for state in states:
        for c in state.cycles:
            assert owned(intervals, state.turn, c.index) == set(iter_cells(c.trail))


@pytest.mark.parametrize("ruleset", ["classic", "tron3d"])
def test_heads_marks_rows_and_the_replay_are_there(ruleset: str) -> None:
    replay = random_replay(ruleset, seed=8)
    states = list(replay.states())
    data = viewer_data(replay, states)
    assert data["last"] == len(states) - 1
    assert len(data["heads"]) == len(data["marks"]) == len(data["rows"]) == len(states)
    final = states[-1]
    assert data["heads"][-1] == [c.head for c in final.cycles]
    assert [m == 1 for m in data["marks"][-1]] == [c.alive for c in final.cycles]
    assert data["replay"]["turns"] == replay.turns
    assert data["board"]["kind"] == ("graph" if ruleset == "tron3d" else "grid")
    assert data["result"]

"""The search board's per-board tables (`lightcycle.rules.fast`)."""

from __future__ import annotations

from lightcycle.core.topology import GridTopology
from lightcycle.rules import fast


def test_window_tables_are_bounded_and_stay_right() -> None:
    kept = []
    for k in range(3 * fast._MAX_BOARDS):
        topo = GridTopology(5 + k % 7, 4 + k % 5)
        kept.append(topo)  # alive, so no id is reused
        wins = fast.windows(topo.neighbours)
        assert len(fast._WINDOWS) <= fast._MAX_BOARDS
        cell = topo.cell(2, 2)
        window = wins[cell]
        assert window is not None
        _lo, mask, table = window
        nbrs = topo.neighbours[cell]
        assert table[0] == tuple(nbrs)  # nothing occupied: all neighbours free
        assert table[mask] == ()  # all occupied
    # an evicted board is rebuilt on demand and still right
    first = kept[0]
    assert fast.windows(first.neighbours)[first.cell(1, 1)] is not None

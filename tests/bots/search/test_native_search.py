"""The endgame solver's compiled search loop (`native.searcher_for`, the ``fast`` extra)
against the pure one: `solve_fill` with a node budget gives the same fill, the same
nodes and the same proof either way, on the endgame bench's hardest rooms at budgets
that fill its tables past their first size, on an open room deeper than its first
stack, and on other boards (`test_native_endgame.py`, `test_endgame_split.py`). They
skip, saying why, where numba is not installed or ``LIGHTCYCLE_NATIVE=0``."""

from __future__ import annotations

from typing import Any

import pytest
from bench.strength import endgame_regions

from lightcycle.bots.search import native
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.endgame import solve_fill
from lightcycle.core.topology import GridTopology
from tests.bots.search.brute import is_path

pytestmark = pytest.mark.skipif(not native.available(), reason=f"{native.why_not()}")


def _runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the compiled loop's runs (``[count]``)."""
    runs = [0]
    solver = native._search.Solver  # type: ignore[union-attr]
    real = solver.run

    def run(self: Any, *args: Any) -> Any:
        runs[0] += 1
        return real(self, *args)

    monkeypatch.setattr(solver, "run", run)
    return runs


@pytest.mark.parametrize(("seed", "room"), [(6, 19), (9, 9), (3, 4)])
def test_the_compiled_loop_makes_the_same_search_on_hard_rooms(
    monkeypatch: pytest.MonkeyPatch, seed: int, room: int
) -> None:
    """Rooms the solver needs thousands of nodes on: the same fill and nodes at every
    budget, and the learned bounds outgrow the table's first size on the way."""
    k, head, region = endgame_regions(30, seed)[room]
    searcher = native.searcher_for(k)
    assert searcher is not None
    runs = _runs(monkeypatch)
    for budget in (40, 700, 3000):
        fast = solve_fill(k, head, region, node_limit=budget)
        assert fast == solve_fill(k, head, region, node_limit=budget, compiled=False)
        assert fast.nodes == budget + 1  # stopped by the budget, not finished
    assert runs[0] > 50
    # One thread's solves all borrow the one solver made with the tables, and its
    # learned bounds outgrew their first table.
    assert searcher.spares.spare() == 1  # type: ignore[attr-defined]
    with searcher.lend() as solver:
        assert solver.known_cells.shape[0] > 1024  # type: ignore[attr-defined]


def test_the_compiled_loop_grows_its_stack_on_an_open_room() -> None:
    """An open 12x12 room: the first descent is over a hundred moves deep, past the 64
    frames a search starts with."""
    k = Kernel(GridTopology(12, 12))
    head = 5 * 12 + 6
    free = k.full & ~(1 << head) & ~(1 << 3) & ~(1 << 100)  # two walls: not fillable
    for budget in (150, 900):
        fast = solve_fill(k, head, free, node_limit=budget)
        assert fast == solve_fill(k, head, free, node_limit=budget, compiled=False)
        assert len(fast.path) > 100


def test_the_compiled_loop_obeys_a_clock() -> None:
    """With a clock, the loop hands back every few nodes to read it, and stops when it
    says so with a valid path (not proven)."""
    k, head, region = endgame_regions(30, 6)[19]
    looks = 0

    def out_of_time() -> bool:
        nonlocal looks
        looks += 1
        return looks > 300

    fill = solve_fill(k, head, region, out_of_time=out_of_time)
    assert fill.timed_out and not fill.proven
    assert is_path(k, head, k.flood(1 << head, region), fill.path)
    assert 0 < fill.nodes < 16 * 300

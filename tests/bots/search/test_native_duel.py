"""The duel search's compiled alpha-beta (`native.duel_for`, the ``fast`` extra) against
the pure closures: with a node budget, `DuelSearch.search` gives the same move, value,
plies and nodes either way, and leaves the same transposition table behind, move after
move of a game; on open and tight boards, tori and graphs, with strong's and medium's
options, with contempt, across table growth and the table's clearing. They skip, saying
why, where numba is not installed or ``LIGHTCYCLE_NATIVE=0``."""

from __future__ import annotations

import random
import time

import pytest

from lightcycle.bots.ladder import Medium, Strong
from lightcycle.bots.registry import make_bot
from lightcycle.bots.search import duel, native
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.duel import DuelSearch, SearchOptions
from lightcycle.core.topology import GridTopology
from lightcycle.maps.registry import get_map
from lightcycle.referee.local import collect_moves
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.observe import View
from tests.bots.search.positions import read_positions

pytestmark = pytest.mark.skipif(not native.available(), reason=f"{native.why_not()}")


def _same_table(fast: DuelSearch, pure: DuelSearch) -> None:
    """The compiled search's table holds the pure table's entries, and only those."""
    c = fast._compiled
    assert c is not None
    assert c.entries() == len(pure.table)
    for key, entry in pure.table.items():
        assert c.lookup(key >> 32, (key >> 16) & 0xFFFF, key & 0xFFFF) == entry


def _game(map_name: str, seed: int, turns: int) -> list[View]:
    """Seat 0's views over a game of a chaser against a wall hugger."""
    state = new_game("classic", get_map(map_name), seed=seed)
    bots = [make_bot("chaser"), make_bot("wallhugger")]
    views = []
    for _ in range(turns):
        view = View(state, 0)
        if len(view.safe_headings()) > 1:
            views.append(view)
        nxt = step(state, collect_moves(state, bots))
        if nxt.outcome is not None:
            break
        state = nxt
    return views


def _same(views: list[View], options: SearchOptions, budget: int) -> int:
    """`_same_positions` of seat 0's views."""
    k = Kernel(views[0].topology)
    return _same_positions(
        k, [(v.me.head, v.opponents[0].head, v.state.occupied) for v in views], options, budget
    )


def _same_positions(
    k: Kernel, positions: list[tuple[int, int, int]], options: SearchOptions, budget: int
) -> int:
    """Search every position with one pure and one compiled search (kept across the
    positions, as a game keeps its table): the same results and tables. Returns the
    table's size."""
    pure = DuelSearch(k, options, compiled=False)
    fast = DuelSearch(k, options)
    assert fast._compiled is not None and pure._compiled is None
    for a, b, occ in positions:
        expected = pure.search(a, b, occ, node_limit=budget)
        assert fast.search(a, b, occ, node_limit=budget) == expected, (a, b, occ)
        assert fast.nodes == pure.nodes
    _same_table(fast, pure)
    return len(pure.table)


@pytest.mark.parametrize(
    ("map_name", "budget"),
    [("arena-30", 3000), ("arena-15", 4000), ("arena-10", 2500), ("chambers", 3000),
     ("arena-50", 1500)],
)  # fmt: skip
def test_a_game_searched_compiled_is_the_pure_search(map_name: str, budget: int) -> None:
    views = _game(map_name, 3, 60)[::3]
    assert len(views) >= 4
    _same(views, Strong.options, budget)


def test_medium_and_contempt_and_other_options() -> None:
    views = _game("arena-15", 5, 40)[::3]
    for options in (
        Medium.options,
        SearchOptions(draw=-30),
        SearchOptions(killers=False),
        SearchOptions(tt=False),
        SearchOptions(chambers=False, edge_weight=0, max_depth=5),
    ):
        _same(views, options, 2500)


def test_tori_and_graphs() -> None:
    """Random positions (walls at random, two heads) on a torus, a narrow torus and a
    3D board's graph."""
    rng = random.Random(4)
    for topology in (
        get_map("torus-20").topology,
        GridTopology(5, 9, True),
        get_map("cube").topology,
    ):
        k = Kernel(topology)
        positions = []
        while len(positions) < 8:
            occ = sum(1 << c for c in range(k.size) if rng.random() < 0.25)
            a, b = rng.sample(range(k.size), 2)
            occ |= 1 << a | 1 << b
            if sum(not (occ >> d) & 1 for d in k.neighbours[a]) > 1:
                positions.append((a, b, occ))
        _same_positions(k, positions, Strong.options, 1500)


def test_the_duel_vectors() -> None:
    for pos in read_positions("duel.txt"):
        view = pos.view()
        if len(view.safe_headings()) > 1:
            _same([view], Strong.options, 3000)


def test_the_compiled_table_grows_as_it_must() -> None:
    """The table grows its entries and its slots on the way, entries intact."""
    views = _game("arena-15", 6, 40)[::3]
    assert _same(views, Strong.options, 3000) > 5000  # past 4,096 entries and slots


def test_the_table_is_cleared_past_its_limit_in_both(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(duel, "TABLE_LIMIT", 500)
    views = _game("arena-15", 2, 40)[::3]
    assert _same(views, Strong.options, 1500) < 2000  # cleared on the way


def test_the_clock_is_read_every_few_hundred_nodes() -> None:
    """With a clock, the compiled search asks it every `POLL_NODES` nodes and stops at
    once when it says so, answering with the last finished iteration."""
    view = _game("arena-30", 1, 20)[-1]
    k = Kernel(view.topology)
    a, b, occ = view.me.head, view.opponents[0].head, view.state.occupied
    calls = [0]

    def out_of_time() -> bool:
        calls[0] += 1
        return calls[0] > 10

    search = DuelSearch(k)
    result = search.search(a, b, occ, out_of_time=out_of_time)
    poll = native._duel.POLL_NODES  # type: ignore[union-attr]
    assert calls[0] == 11
    assert 10 * poll < result.nodes <= 11 * poll
    assert result.move in k.neighbours[a] and result.plies >= 2
    # and a real deadline is kept
    start = time.perf_counter()
    DuelSearch(k).search(a, b, occ, out_of_time=lambda: time.perf_counter() > start + 0.05)
    assert time.perf_counter() - start < 0.5

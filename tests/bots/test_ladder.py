"""The searching rungs' set-up: which evaluation strong's duel search uses where."""

from __future__ import annotations

import pytest

from lightcycle.bots.ladder import Strong
from lightcycle.bots.search import native
from lightcycle.maps.registry import get_map
from lightcycle.rules.engine import new_game
from lightcycle.rules.observe import View
from lightcycle.rules.variants import get_ruleset


@pytest.mark.parametrize(
    ("compiled", "nodes", "chambers"),
    [
        (False, None, False),  # pure Python on the clock: no chamber count (deeper)
        (False, 400, True),  # a node budget: the same moves with or without the extra
        (True, None, True),  # the compiled search keeps it
    ],
)
def test_pure_python_on_the_clock_leaves_out_the_chamber_count(
    monkeypatch: pytest.MonkeyPatch, compiled: bool, nodes: int | None, chambers: bool
) -> None:
    monkeypatch.setattr(native, "available", lambda: compiled)
    bot = Strong(nodes=nodes, move_time=None if nodes else 0.03)
    state = new_game(get_ruleset("classic"), get_map("arena-15"), seed=1)
    bot.move(View(state, 0, 0.1))
    search = bot._search
    assert search is not None and search.options.chambers is chambers


@pytest.mark.parametrize("name", ["strong", "medium"])
def test_start_builds_the_boards_tables_before_any_clock(name: str) -> None:
    """The search and every endgame table of the board are made by ``start``: made at
    the first separated move they cost 90 ms on arena-50, on that move's clock (four
    time-outs in 1,000 games)."""
    from lightcycle.bots.ladder import Medium
    from lightcycle.bots.search import endgame

    tables = [endgame._links]
    if native.available():
        tables += [
            native.chain_bound_for,
            native.forced_refutes_for,
            native.fill_for,
            native.searcher_for,
            native.lengthen_for,
        ]
    for table in tables:
        table.cache_clear()
    bot = Strong() if name == "strong" else Medium()
    state = new_game(get_ruleset("classic"), get_map("arena-15"), seed=1)
    bot.start(View(state, 0, 0.1))
    search = bot._search
    assert search is not None
    built = [table.cache_info().misses for table in tables]
    assert built == [1] * len(tables)
    endgame.solve_fill(search.kernel, state.cycles[0].head, search.kernel.full & ~state.occupied)
    assert [table.cache_info().misses for table in tables] == built
    assert bot._search is search
    bot.move(View(state, 0, 0.1))
    assert bot._search is search  # the first move makes no new search

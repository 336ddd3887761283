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

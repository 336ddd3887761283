"""The duel search and the ladder bots on the plain-text tactical positions."""

from __future__ import annotations

import time

import pytest

from lightcycle.bots.ladder import Medium, Strong
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.duel import WIN, DuelSearch
from lightcycle.core.topology import Heading
from tests.bots.search.positions import read_positions


@pytest.mark.parametrize("pos", read_positions("duel.txt"), ids=lambda p: p.name)
@pytest.mark.parametrize("bot", [Strong, Medium])
def test_duel_vectors(pos, bot) -> None:  # type: ignore[no-untyped-def]
    view = pos.view()
    move = Heading.parse(bot(nodes=4000).move(view)).letter
    if "best" in pos.fields:
        assert move in pos.fields["best"].split()
    if "avoid" in pos.fields:
        assert move not in pos.fields["avoid"].split()


def test_search_sees_a_forced_win_and_a_forced_loss() -> None:
    (pos,) = [p for p in read_positions("duel.txt") if p.name.startswith("take the big")]
    view = pos.view()
    k = Kernel(view.topology)
    search = DuelSearch(k)
    a, b = view.me.head, view.opponents[0].head
    res = search.search(a, b, view.state.occupied, node_limit=20000)
    assert res.move is not None and res.plies >= 4
    # a cycle walled in on every side has lost
    walled = view.state.occupied | sum(1 << d for d in k.neighbours[a])
    lost = DuelSearch(k).search(a, b, walled)
    assert lost.move is None and lost.value == -WIN


def test_node_budget_makes_play_reproducible() -> None:
    (pos,) = [p for p in read_positions("duel.txt") if p.name.startswith("take the big")]
    view = pos.view()
    moves = {Heading.parse(Strong(nodes=3000).move(view)) for _ in range(3)}
    assert len(moves) == 1
    a = Strong(nodes=3000)
    a.move(view)
    assert a.report()["depth"] >= 2


def test_time_limit_is_respected() -> None:
    (pos,) = [p for p in read_positions("duel.txt") if p.name.startswith("take the big")]
    view = pos.view()
    view.time_limit = 0.05
    bot = Strong()
    t0 = time.perf_counter()
    bot.move(view)
    assert time.perf_counter() - t0 < 0.05

"""The searching rungs' plumbing: contempt for draws, medium's options, and no garbage
collection during (or garbage left by) a move."""

from __future__ import annotations

import gc
import time
import weakref

from lightcycle.bots import ladder
from lightcycle.bots.ladder import Medium, Strong
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.duel import DuelSearch, SearchOptions
from lightcycle.core.topology import Heading
from tests.bots.search.positions import Position, read_positions


def _board(rows: list[str]) -> Position:
    return Position("test", rows=rows)


# Turn 5 of a medium-territory game on random-531613 that ended in a head-on crash: the
# heads are diagonal, and under the search's model (the opponent answers knowing the
# move) every move but the two into the shared cells looks worse than a draw.
FACING = _board(
    [
        "##################",
        "##.........###...#",
        "#..........###...#",
        "#..........###..##",
        "#...............##",
        "#...............##",
        "#................#",
        "#............#...#",
        "#........#..##...#",
        "#........#.......#",
        "#................#",
        "#........B#####..#",
        "#..#####A........#",
        "#................#",
        "#.......#........#",
        "#...##..#........#",
        "#...#............#",
        "#................#",
        "##...............#",
        "##...............#",
        "##..###..........#",
        "#...###..........#",
        "#...###.........##",
        "##################",
    ]
)

# Each has a dead end of one cell or the cell between them, which leads on to a room:
# whoever takes the middle alone wins, so both take it and crash (a draw), which is A's
# best result, contempt or not.
CORNERED = _board(
    [
        "#####",
        "#.#.#",
        "#A.B#",
        "##.##",
        "##..#",
        "#####",
    ]
)


def _shared(view) -> set[int]:  # type: ignore[no-untyped-def]
    k = Kernel(view.topology)
    return set(k.neighbours[view.me.head]) & set(k.neighbours[view.opponents[0].head])


def test_contempt_avoids_a_head_on_crash_it_does_not_need() -> None:
    view = FACING.view()
    k = Kernel(view.topology)
    a, b, occ = view.me.head, view.opponents[0].head, view.state.occupied
    for draw, crash in ((0, True), (-10, True), (-20, False)):
        opts = SearchOptions(
            tt=False, killers=False, chambers=False, max_depth=3, draw=draw, edge_weight=0
        )
        res = DuelSearch(k, opts).search(a, b, occ)
        assert (res.move in _shared(view)) is crash


def test_strongs_contempt_setting_avoids_the_crash() -> None:
    # strong's evaluation prices the moves out of the shared cells about 100 below even
    # here: at contempt 0 it takes the draw, at 200 it keeps clear
    view = FACING.view()
    cells = {}
    for contempt in (0, 200):
        bot = Strong(nodes=5000, contempt=contempt)
        assert bot.options.draw == -contempt
        heading = Heading.parse(bot.move(FACING.view()))
        cells[contempt] = view.topology.move(view.me.head, heading)
    assert cells[0] in _shared(view) and cells[200] not in _shared(view)
    assert Strong.options.draw == 0  # the class's options are left alone


def test_contempt_still_takes_the_draw_when_everything_else_loses() -> None:
    view = CORNERED.view()
    k = Kernel(view.topology)
    a, b, occ = view.me.head, view.opponents[0].head, view.state.occupied
    for draw in (0, -20):
        res = DuelSearch(k, SearchOptions(max_depth=4, draw=draw)).search(a, b, occ)
        assert res.move in _shared(view)
        assert res.value == draw


def test_medium_is_a_capped_search_without_strongs_extras() -> None:
    opts = Medium.options
    assert opts.max_depth == 3 and opts.draw < 0
    assert not (opts.tt or opts.killers or opts.chambers)
    assert Strong.options.tt and Strong.options.killers and Strong.options.chambers
    (pos,) = [p for p in read_positions("duel.txt") if p.name.startswith("take the big")]
    bot = Medium()  # on its clock: a 3-joint-move search finishes well within it
    bot.move(pos.view())
    assert bot.depths and max(bot.depths) <= 6
    search = bot._search
    assert search is not None and not search.table
    assert search._compiled is None or search._compiled.entries() == 0


def test_a_move_leaves_no_cyclic_garbage() -> None:
    """The search's mutually recursive closures must not keep the table alive: it goes
    with its bot, by reference counting, not at some collection during another move."""
    positions = read_positions("duel.txt")
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for pos in positions[:4]:
            for cls in (Strong, Medium):
                bot = cls(nodes=2000)
                bot.move(pos.view())
                search = weakref.ref(bot._search) if bot._search is not None else None
                del bot
                assert search is None or search() is None
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()


def test_no_collection_during_a_move_and_enabled_after() -> None:
    seen: list[bool] = []
    (pos,) = [p for p in read_positions("duel.txt") if p.name.startswith("take the big")]

    class Probe(Strong):
        def _duel_move(self, view, start):  # type: ignore[no-untyped-def]
            seen.append(gc.isenabled())
            return super()._duel_move(view, start)

    assert gc.isenabled()
    Probe(nodes=500).move(pos.view())
    assert seen == [False] and gc.isenabled()
    # a collector that was off stays off
    gc.disable()
    try:
        Probe(nodes=500).move(pos.view())
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_clock_runs_from_the_call_not_from_the_search(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the position set-up is on the referee's clock: a set-up slower than the move's
    # budget (60% of 0.1 s) leaves the search out of time from its first node
    (pos,) = [p for p in read_positions("duel.txt") if p.name.startswith("take the big")]
    real = ladder.DuelPosition
    seen: list[bool] = []

    def slow_position(view):  # type: ignore[no-untyped-def]
        time.sleep(0.07)
        return real(view)

    def probe(self, a, b, occ, out_of_time=None, **kw):  # type: ignore[no-untyped-def]
        seen.append(out_of_time is not None and out_of_time())
        return real_search(self, a, b, occ, out_of_time=out_of_time, **kw)

    real_search = DuelSearch.search
    monkeypatch.setattr(ladder, "DuelPosition", slow_position)
    monkeypatch.setattr(DuelSearch, "search", probe)
    Strong(move_time=0.1).move(pos.view())
    assert seen == [True]

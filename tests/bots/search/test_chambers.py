"""`chambers.front_space`, the 2010 champion's front-aware count of a territory, on
hand-checked boards (vectors/front.txt), and in `DuelSearch.evaluate`."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.chambers import fill_bound, front_space
from lightcycle.bots.search.duel import DuelSearch, SearchOptions
from tests.bots.search.positions import Position, read_positions

VECTORS = read_positions("front.txt")


def _split(pos: Position) -> tuple[Kernel, int, int, int, int, int]:
    view = pos.view()
    k = Kernel(view.topology)
    a, b, occ = view.me.head, view.opponents[0].head, view.state.occupied
    free = k.full & ~occ
    ta, tb, _ = k.voronoi(1 << a, 1 << b, free)
    return k, a, b, ta, tb, free | 1 << a | 1 << b


@pytest.mark.parametrize("pos", VECTORS, ids=[p.name for p in VECTORS])
def test_the_vectors(pos: Position) -> None:
    k, a, b, ta, tb, room = _split(pos)
    assert front_space(k, a, ta, room) == tuple(map(int, pos.fields["a"].split()))
    assert front_space(k, b, tb, room) == tuple(map(int, pos.fields["b"].split()))
    assert front_space(k, a, ta, room, True) == tuple(map(int, pos.fields["a2"].split()))
    assert front_space(k, b, tb, room, True) == tuple(map(int, pos.fields["b2"].split()))


def test_the_champions_rule_differs_from_the_chamber_tree() -> None:
    """The chamber tree counts A's whole room and corridor; the champion's count keeps
    only the corridor's end on the front."""
    (pos,) = [p for p in VECTORS if p.name.startswith("the champion's rule")]
    k, a, _, ta, _, room = _split(pos)
    assert fill_bound(k, a, ta) > 8
    assert front_space(k, a, ta, room)[0] == 0
    assert front_space(k, a, ta, room, local=True)[0] == 10  # the room kept


def test_the_evaluation_uses_it_where_the_board_is_tight() -> None:
    """With ``front`` and the board at or under ``chamber_cells`` free cells, the value
    is the difference of the usable cells plus the edge weight times the difference of
    the chosen chambers' moves."""
    for mode in (1, 2):
        _evaluation_by_front_space(replace(SearchOptions(), front=mode, chamber_cells=10_000))


def _evaluation_by_front_space(opts: SearchOptions) -> None:
    for pos in VECTORS:
        k, a, b, ta, tb, room = _split(pos)
        local = opts.front == 2
        (ca, ea), (cb, eb) = front_space(k, a, ta, room, local), front_space(k, b, tb, room, local)
        view = pos.view()
        search = DuelSearch(k, opts, compiled=False)
        got = search.evaluate(a, b, view.state.occupied)
        assert got == ca - cb + opts.edge_weight * (ea - eb), pos.name

"""The compiled chamber bound (the ``fast`` extra) against the pure-Python one.

The issue allows a compiled kernel only if the pure-Python fallback plays the same moves
for the same node budget; these tests hold the compiled `fill_bound` to equal values on
thousands of regions, and the search to equal results with either. They skip, saying
why, where numba is not installed or ``LIGHTCYCLE_NATIVE=0``.
"""

from __future__ import annotations

import random
from functools import partial

import pytest

from lightcycle.bots.ladder import Strong
from lightcycle.bots.registry import make_bot
from lightcycle.bots.search import native
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.chambers import fill_bound
from lightcycle.bots.search.duel import DuelSearch, SearchOptions
from lightcycle.core.topology import GridTopology
from lightcycle.maps.registry import get_map
from lightcycle.referee.local import collect_moves
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.observe import View
from tests.bots.search.brute import random_graph
from tests.bots.search.positions import read_positions

pytestmark = pytest.mark.skipif(not native.available(), reason=f"{native.why_not()}")


def _regions(rng: random.Random, k: Kernel, count: int) -> list[tuple[int, int]]:
    """Random regions of ``k`` (each the part of a random free set a head reaches)."""
    out = []
    for _ in range(count):
        density = rng.choice((0.5, 0.65, 0.8, 0.95))
        free = sum(1 << c for c in range(k.size) if rng.random() < density)
        head = rng.randrange(k.size)
        free &= ~(1 << head)
        out.append((head, k.flood(1 << head, free)))
    return out


@pytest.mark.parametrize(
    ("width", "height", "wrap"),
    [
        (1, 1, False),
        (1, 7, False),
        (5, 4, False),
        (15, 15, False),
        (30, 30, False),
        (64, 3, False),
        (50, 50, False),
        (2, 2, True),
        (2, 9, True),
        (6, 6, True),
        (7, 5, True),
        (20, 20, True),
    ],
)
def test_compiled_bound_equals_the_pure_one_on_grids(width: int, height: int, wrap: bool) -> None:
    k = Kernel(GridTopology(width, height, wrap))
    compiled = native.chamber_bound(k)
    assert not isinstance(compiled, partial)  # the compiled one, not the fallback
    rng = random.Random(width * 1000 + height * 10 + wrap)
    for head, region in _regions(rng, k, 150):
        assert compiled(head, region) == fill_bound(k, head, region), (head, region)
        # a region holding its head, and the whole board
        assert compiled(head, region | 1 << head) == fill_bound(k, head, region | 1 << head)
    assert compiled(0, k.full & ~1) == fill_bound(k, 0, k.full & ~1)


def test_compiled_bound_equals_the_pure_one_on_graphs() -> None:
    rng = random.Random(5)
    for _ in range(200):
        k, _ = random_graph(rng, 1, 40)
        compiled = native.chamber_bound(k)
        for head, region in _regions(rng, k, 5):
            assert compiled(head, region) == fill_bound(k, head, region)
    cube = Kernel(get_map("cube").topology)
    compiled = native.chamber_bound(cube)
    for head, region in _regions(rng, cube, 100):
        assert compiled(head, region) == fill_bound(cube, head, region)


def _midgame_views(count: int) -> list[View]:
    """Seat-0 views of small rooms after 4-40 turns of a wall hugger against a chaser:
    tight boards, where the evaluation uses the chamber bound."""
    views: list[View] = []
    for i in range(count):
        state = new_game("classic", get_map(("arena-10", "arena-15")[i % 2]), seed=i)
        bots = [make_bot("wallhugger"), make_bot("chaser")]
        for _ in range(4 + 3 * i):
            nxt = step(state, collect_moves(state, bots))
            if nxt.outcome is not None:
                break
            state = nxt
        if len(View(state, 0).safe_headings()) > 1:
            views.append(View(state, 0))
    return views


def test_the_search_gives_the_same_result_with_either_bound() -> None:
    opts = SearchOptions()
    for view in _midgame_views(12) + [p.view() for p in read_positions("duel.txt")]:
        k = Kernel(view.topology)
        a, b = view.me.head, view.opponents[0].head
        occ = view.state.occupied
        fast = DuelSearch(k, opts)
        pure = DuelSearch(k, opts)
        pure.fill_bound = partial(fill_bound, k)
        assert fast.search(a, b, occ, node_limit=1500) == pure.search(a, b, occ, node_limit=1500)


def test_strong_loads_the_compiled_bound_when_made() -> None:
    Strong(nodes=10)
    assert native.available() and native.why_not() is None

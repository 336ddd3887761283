"""The compiled `lengthen.lengthen` (`native.lengthen_for`, the ``fast`` extra) against
the pure one: the same path from random dead-ended walks on walled grids, tori one and
two cells wide (a neighbour listed twice, a cell its own), odd tori and random graphs,
and from the endgame solver's probes on the bench's rooms. They skip, saying why, where
numba is not installed or ``LIGHTCYCLE_NATIVE=0``."""

from __future__ import annotations

import random

import pytest
from bench.strength import endgame_regions

from lightcycle.bots.search import native
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.endgame import greedy_fill
from lightcycle.bots.search.lengthen import ROTATIONS, lengthen
from lightcycle.core.topology import GridTopology
from tests.bots.search.brute import random_graph, random_walk

pytestmark = pytest.mark.skipif(not native.available(), reason=f"{native.why_not()}")


def _boards() -> list[Kernel]:
    rng = random.Random(7)
    grids = [(1, 1, False), (1, 8, False), (5, 4, False), (14, 14, False), (30, 30, False),
             (2, 2, True), (1, 6, True), (2, 9, True), (6, 6, True), (9, 7, True)]  # fmt: skip
    out = [Kernel(GridTopology(w, h, wrap)) for w, h, wrap in grids]
    return out + [random_graph(rng, 8, 30)[0] for _ in range(4)]


@pytest.mark.parametrize("k", _boards(), ids=lambda k: f"{k.topology}")
def test_the_compiled_lengthen_equals_the_pure_one(k: Kernel) -> None:
    fast = native.lengthen_for(k)
    assert fast is not None
    rng = random.Random(k.size)
    grew = 0
    for _ in range(200):
        free = sum(1 << c for c in range(k.size) if rng.random() < rng.choice((0.6, 0.8, 1.0)))
        head = rng.randrange(k.size)
        free &= ~(1 << head)
        region = k.flood(1 << head, free)
        path = random_walk(rng, k, head, region)[: rng.choice((None, 3, 10))]
        pure = lengthen(k, head, region, path, compiled=False)
        assert fast.lengthen(head, region, path, ROTATIONS) == pure, (head, region, path)
        assert lengthen(k, head, region, path) == pure
        grew += len(pure) > len(path)
    assert grew > 20 or k.size < 10


def test_the_compiled_lengthen_equals_the_pure_one_on_the_bench_rooms() -> None:
    """Walks completed by the greedy fill, as the solver's probes lengthen them."""
    rng = random.Random(2)
    grew = 0
    for seed in (1, 6, 9):
        for k, head, region in endgame_regions(30, seed):
            for _ in range(5):
                walk = random_walk(rng, k, head, region)[: rng.randrange(1, 40)]
                rest = k.flood(1 << walk[-1], region & ~sum(1 << c for c in walk))
                path = walk + greedy_fill(k, walk[-1], rest)
                pure = lengthen(k, head, region, path, compiled=False)
                assert lengthen(k, head, region, path) == pure
                grew += len(pure) > len(path)
    assert grew > 50

"""The compiled greedy fill and solver moves (`native.fill_for`, the ``fast`` extra)
against the pure-Python ones: `endgame.greedy_fill`, and `endgame._steps` with
`chambers.dead_end_bound`, exits and walls of each move. Equal on walled grids, tori
one and two cells wide (a neighbour listed twice), odd tori (no checkerboard) and
random graphs; the greedy fill also when polled in chunks. They skip, saying why, where numba is not
installed or ``LIGHTCYCLE_NATIVE=0`` (`test_native_endgame.py` holds `solve_fill` to
the same fill either way)."""

from __future__ import annotations

import random

import pytest

from lightcycle.bots.search import native
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.chambers import dead_end_bound
from lightcycle.bots.search.endgame import _links, _steps, greedy_fill
from lightcycle.core.topology import GridTopology
from tests.bots.search.brute import random_graph

pytestmark = pytest.mark.skipif(not native.available(), reason=f"{native.why_not()}")


def _kernels() -> list[Kernel]:
    rng = random.Random(3)
    grids = [(1, 1, False), (1, 7, False), (5, 4, False), (14, 14, False), (40, 40, False),
             (2, 2, True), (1, 6, True), (2, 9, True), (6, 6, True), (9, 7, True)]  # fmt: skip
    out = [Kernel(GridTopology(w, h, wrap)) for w, h, wrap in grids]
    return out + [random_graph(rng, 8, 30)[0] for _ in range(4)]


KERNELS = _kernels()


def _sides(k: Kernel, d: int, sub: int, rest: int) -> tuple[int, int]:
    """A move's exits (neighbours in its region) and walls (neither there nor free)."""
    exits = sum(1 for e in k.neighbours[d] if (sub >> e) & 1)
    walls = sum(1 for e in k.neighbours[d] if not (sub >> e) & 1 and not (rest >> e) & 1)
    return exits, walls


@pytest.mark.parametrize("k", KERNELS, ids=lambda k: f"{k.topology}")
def test_compiled_fill_and_steps_equal_the_pure_ones(k: Kernel) -> None:
    fast = native.fill_for(k)
    assert fast is not None
    around, links = _links(k)
    rng = random.Random(k.size)
    chunked = 0
    for _ in range(150):
        free = sum(1 << c for c in range(k.size) if rng.random() < rng.choice((0.5, 0.8, 1.0)))
        head = rng.randrange(k.size)
        pure = greedy_fill(k, head, free, compiled=False)
        assert fast.greedy(head, free, None) == pure
        assert fast.greedy(head, free, lambda: False) == pure  # in chunks of 32 moves
        assert greedy_fill(k, head, free) == pure
        chunked += len(pure) > 32
        if rng.random() < 0.9:
            free &= ~(1 << head)
        reach = k.flood(1 << head, free)
        want = [
            (d, sub, 1 + dead_end_bound(k, d, sub), *_sides(k, d, sub, reach & ~(1 << d)))
            for d, sub in _steps(k.flood, k.neighbours[head], around[head], links[head], reach)
        ]
        assert fast.steps(head, reach) == want
    assert chunked or k.size < 100  # fills longer than a chunk were resumed


def test_the_polled_fill_stops_when_told() -> None:
    k = Kernel(GridTopology(40, 40))
    fast = native.fill_for(k)
    assert fast is not None
    calls = []

    def out_of_time() -> bool:
        calls.append(1)
        return len(calls) >= 2

    path = fast.greedy(0, k.full & ~1, out_of_time)
    assert len(path) == 64  # two chunks of 32 moves, then told to stop
    assert path == greedy_fill(k, 0, k.full & ~1, compiled=False)[:64]

"""The endgame solver's compiled bounds (the ``fast`` extra) against the pure-Python ones.

The issue allows a compiled kernel only if the pure-Python fallback plays the same moves
for the same node budget; these tests hold the compiled chamber bound
(`endgame._chain_bound`) and forced-edge refutations (`chambers.forced_refutes`) to equal
values on thousands of regions (walled grids, tori 1 and 2 cells wide, odd tori, graphs,
the endgame bench's rooms), and `solve_fill` with a node budget to the same fill with
either. They skip, saying why, where numba is not installed or ``LIGHTCYCLE_NATIVE=0``.
"""

from __future__ import annotations

import random

import pytest
from bench.strength import endgame_regions

from lightcycle.bots.ladder import Strong
from lightcycle.bots.search import native
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.chambers import forced_bound, forced_refutes
from lightcycle.bots.search.endgame import _chain_bound, _colours, solve_fill
from lightcycle.core.topology import GridTopology
from tests.bots.search.brute import random_graph

pytestmark = pytest.mark.skipif(not native.available(), reason=f"{native.why_not()}")

GRIDS = [
    (1, 1, False), (2, 1, False), (1, 7, False), (5, 4, False), (9, 9, False),
    (14, 14, False), (30, 30, False), (64, 3, False), (2, 2, True), (1, 6, True),
    (2, 9, True), (6, 6, True), (7, 5, True), (3, 8, True), (10, 10, True),
]  # fmt: skip


def _regions(rng: random.Random, k: Kernel, count: int) -> list[tuple[int, int]]:
    """Random ``(head, region)`` pairs of ``k``: walls at a random density, the region the
    cells reachable from the head (as the solver asks), or now and then all free cells
    (reachable or not, which the bounds must ignore)."""
    out = []
    for _ in range(count):
        density = rng.choice((0.0, 0.05, 0.15, 0.3, 0.45, 0.6))
        free = sum(1 << c for c in range(k.size) if rng.random() >= density)
        head = rng.randrange(k.size)
        free &= ~(1 << head)
        region = free if rng.random() < 0.15 else k.flood(1 << head, free) & ~(1 << head)
        out.append((head, region))
    return out


def _sub_regions(
    rng: random.Random, k: Kernel, head: int, region: int, count: int
) -> list[tuple[int, int]]:
    """Positions the solver meets inside ``region``: a random walk from ``head`` cut short,
    its end the head and what it can still reach the region."""
    out = []
    for _ in range(count):
        cur, free = head, region
        for _ in range(rng.randrange(region.bit_count() + 1)):
            opts = [d for d in k.neighbours[cur] if (free >> d) & 1]
            if not opts:
                break
            cur = rng.choice(opts)
            free &= ~(1 << cur)
        out.append((cur, k.flood(1 << cur, free) & ~(1 << cur)))
    return out


def _check_chain(k: Kernel, positions: list[tuple[int, int]]) -> None:
    fast = native.chain_bound_for(k)
    assert fast is not None
    colour = _colours(k)
    for head, region in positions:
        want = _chain_bound(k.neighbours, colour, k.size, head, region)
        assert fast(head, region) == want, (head, region)


def _check_forced(k: Kernel, positions: list[tuple[int, int]]) -> int:
    """Assert equal refutations of every length (and equal `forced_bound`s); how many
    lengths were refuted."""
    from lightcycle.bots.search import _native_endgame

    fast = native.forced_refutes_for(k)
    if k.black is None or not isinstance(k.topology, GridTopology):
        assert fast is None  # nothing to refute: the pure one returns at once
        return 0
    assert fast is not None
    table = _native_endgame.forced_table(k.neighbours, native._edge_moves(k), k.black)
    nbytes = (k.size + 7) // 8
    refuted = 0
    for head, region in positions:
        cells = region.to_bytes(nbytes, "little")
        top = region.bit_count() + 2
        for length in range(-1, top + 1):
            want = forced_refutes(k, head, region, length)
            assert _native_endgame._refutes(table, head, cells, length) == want, (
                head,
                region,
                length,
            )
            refuted += want
        floor = top // 3
        got = forced_bound(k, head, region, top, floor, refutes=fast)
        assert got == forced_bound(k, head, region, top, floor)
    return refuted


@pytest.mark.parametrize(("width", "height", "wrap"), GRIDS)
def test_the_compiled_bounds_equal_the_pure_ones_on_grids(
    width: int, height: int, wrap: bool
) -> None:
    k = Kernel(GridTopology(width, height, wrap))
    rng = random.Random(width * 1000 + height * 10 + wrap)
    positions = _regions(rng, k, 150)
    _check_chain(k, positions)
    refuted = _check_forced(k, positions if k.size <= 200 else positions[:40])
    if k.black is not None and k.size >= 25:
        assert refuted  # the refutations' every branch is reached, not only the exits


def test_the_compiled_bounds_equal_the_pure_ones_on_graphs() -> None:
    rng = random.Random(7)
    for _ in range(200):
        k, _ = random_graph(rng, 1, 40)
        positions = _regions(rng, k, 5)
        _check_chain(k, positions)
        _check_forced(k, positions)


def test_the_compiled_bounds_equal_the_pure_ones_on_the_bench_rooms() -> None:
    rng = random.Random(11)
    refuted = 0
    for seed in (1, 2):
        for k, head, region in endgame_regions(30, seed):
            positions = [(head, region), *_sub_regions(rng, k, head, region, 12)]
            _check_chain(k, positions)
            refuted += _check_forced(k, positions[:4])
    assert refuted > 100


@pytest.mark.parametrize("seed", [1, 6, 10])
def test_solve_fill_gives_the_same_fill_with_either_bounds(seed: int) -> None:
    for k, head, region in endgame_regions(30, seed):
        fast = solve_fill(k, head, region, node_limit=600)
        pure = solve_fill(k, head, region, node_limit=600, compiled=False)
        assert fast == pure, (seed, head, region)


def test_solve_fill_gives_the_same_fill_on_other_boards() -> None:
    rng = random.Random(3)
    boards = [Kernel(GridTopology(w, h, wrap)) for w, h, wrap in GRIDS if w * h >= 4]
    for _ in range(40):
        boards.append(random_graph(rng, 4, 30)[0])
    for k in boards:
        for head, region in _regions(rng, k, 3):
            free = region | 1 << head
            incumbent = None
            if rng.random() < 0.3:
                incumbent = solve_fill(k, head, free, node_limit=5, compiled=False).path[:-1]
            for budget in (1, 50, 400):
                fast = solve_fill(k, head, free, node_limit=budget, incumbent=incumbent)
                pure = solve_fill(
                    k, head, free, node_limit=budget, incumbent=incumbent, compiled=False
                )
                assert fast == pure, (k.size, head, region, budget)


def test_strong_loads_the_compiled_endgame_when_made() -> None:
    """The kernels are compiled (or loaded from numba's cache) when a searching bot is
    made, before any game's clock starts, not in the first endgame move."""
    Strong(nodes=10)
    assert native._endgame is not None
    k = Kernel(GridTopology(5, 5))
    assert native.chain_bound_for(k) is not None
    assert native.forced_refutes_for(k) is not None

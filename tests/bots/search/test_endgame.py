"""Fill bounds and the endgame solver against exhaustive search."""

from __future__ import annotations

import random

import pytest

from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.chambers import fill_bound, parity_bound
from lightcycle.bots.search.endgame import _chain_bound, _colours, greedy_fill, solve_fill
from lightcycle.core.topology import GridTopology
from tests.bots.search.brute import is_path, longest_path
from tests.bots.search.positions import read_positions


@pytest.mark.parametrize("pos", read_positions("fills.txt"), ids=lambda p: p.name)
def test_fill_vectors(pos) -> None:  # type: ignore[no-untyped-def]
    view = pos.view()
    k = Kernel(view.topology)
    head = view.me.head
    free = k.full & ~view.state.occupied
    optimum = int(pos.fields["optimum"])
    assert longest_path(k, head, free) == optimum, "the vector file is wrong"
    assert fill_bound(k, head, free) >= optimum
    fill = solve_fill(k, head, free)
    assert fill.proven and len(fill.path) == optimum
    assert is_path(k, head, free, fill.path)


def test_bounds_and_solver_on_random_regions() -> None:
    rng = random.Random(11)
    for _ in range(250):
        w, h, wrap = rng.randint(2, 5), rng.randint(2, 5), rng.random() < 0.3
        k = Kernel(GridTopology(w, h, wrap))
        head = rng.randrange(w * h)
        free = sum(1 << c for c in range(w * h) if rng.random() < 0.75) & ~(1 << head)
        optimum = longest_path(k, head, free)
        region = k.flood(1 << head, free)
        assert fill_bound(k, head, free) >= optimum
        assert parity_bound(k, head, region) >= optimum
        greedy = greedy_fill(k, head, free)
        assert is_path(k, head, free, greedy)
        fill = solve_fill(k, head, free)
        assert fill.proven and len(fill.path) == optimum
        assert is_path(k, head, free, fill.path)
        assert len(fill.path) >= len(greedy)


def test_node_budget_is_reproducible_and_never_worse_than_greedy() -> None:
    rng = random.Random(5)
    k = Kernel(GridTopology(12, 12))
    for _ in range(5):
        head = rng.randrange(144)
        free = sum(1 << c for c in range(144) if rng.random() < 0.8) & ~(1 << head)
        a = solve_fill(k, head, free, node_limit=300)
        b = solve_fill(k, head, free, node_limit=300)
        assert a.path == b.path and a.proven == b.proven
        assert len(a.path) >= len(greedy_fill(k, head, free))
        assert len(a.path) <= a.bound
        assert is_path(k, head, free, a.path)


def test_stops_when_told() -> None:
    k = Kernel(GridTopology(14, 14))
    rng = random.Random(2)
    free = sum(1 << c for c in range(196) if rng.random() < 0.85) & ~1
    calls = 0

    def out_of_time() -> bool:
        nonlocal calls
        calls += 1
        return True

    fill = solve_fill(k, 0, free, out_of_time=out_of_time)
    assert fill.nodes <= 256 or fill.proven
    assert is_path(k, 0, free, fill.path)


def _random_region(rng: random.Random, k: Kernel) -> tuple[int, int]:
    head = rng.randrange(k.size)
    density = rng.choice((0.65, 0.75, 0.85))
    free = sum(1 << c for c in range(k.size) if rng.random() < density) & ~(1 << head)
    return head, free


@pytest.mark.parametrize("seed", range(4))
def test_solver_matches_brute_force_on_larger_regions(seed: int) -> None:
    """Regions of up to 30 cells, where the chamber-crossing bound and the probes matter."""
    rng = random.Random(100 + seed)
    for _ in range(30):
        w, h = rng.randint(4, 6), rng.randint(4, 6)
        wrap = w * h <= 16 and rng.random() < 0.3  # brute force on a dense 6x6 torus: 15 s
        k = Kernel(GridTopology(w, h, wrap))
        head, free = _random_region(rng, k)
        optimum = longest_path(k, head, free)
        fill = solve_fill(k, head, free)
        assert fill.bound >= optimum
        assert fill.proven and len(fill.path) == optimum
        assert is_path(k, head, free, fill.path)


def test_chain_bound_is_never_below_the_optimum() -> None:
    """On checkerboards and off them (odd tori have no colouring), with every head."""
    rng = random.Random(7)
    for _ in range(200):
        w, h = rng.randint(2, 5), rng.randint(2, 5)
        k = Kernel(GridTopology(w, h, rng.random() < 0.4))
        head, free = _random_region(rng, k)
        optimum = longest_path(k, head, free)
        region = k.flood(1 << head, free)
        bound = _chain_bound(k.neighbours, _colours(k), k.size, head, region)
        assert bound >= optimum
        assert bound <= fill_bound(k, head, region)  # never looser than the plain tree


@pytest.mark.parametrize("limit", [0, 1, 3, 10, 40])
def test_tiny_budgets_never_fill_worse_than_greedy(limit: int) -> None:
    rng = random.Random(limit)
    k = Kernel(GridTopology(10, 10))
    for _ in range(10):
        head, free = _random_region(rng, k)
        fill = solve_fill(k, head, free, node_limit=limit)
        assert len(fill.path) >= len(greedy_fill(k, head, free))
        assert is_path(k, head, free, fill.path)
        assert fill.nodes <= limit + 1  # the node that found the budget spent
        again = solve_fill(k, head, free, node_limit=limit)
        assert again.path == fill.path and again.nodes == fill.nodes


@pytest.mark.parametrize("pos", read_positions("hard_fills.txt"), ids=lambda p: p.name)
def test_reaches_the_proven_optimum_of_bench_regions(pos) -> None:  # type: ignore[no-untyped-def]
    view = pos.view()
    k = Kernel(view.topology)
    head = view.me.head
    free = k.full & ~view.state.occupied
    optimum = int(pos.fields["optimum"])
    fill = solve_fill(k, head, free, node_limit=int(pos.fields["nodes"]))
    assert len(fill.path) == optimum
    assert fill.bound >= optimum
    assert is_path(k, head, free, fill.path)

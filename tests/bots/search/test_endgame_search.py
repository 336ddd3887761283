"""The endgame search: its deadline polls, its split two moves deep and its corridor
steps, against exhaustive search."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightcycle.bots.search import chambers, endgame, native
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.chambers import dead_end_bound, forced_bound, forced_refutes
from lightcycle.bots.search.endgame import solve_fill
from lightcycle.core.topology import GridTopology
from tests.bots.search.brute import is_path, longest_path


def _region(rng: random.Random, k: Kernel, density: float) -> tuple[int, int]:
    head = rng.randrange(k.size)
    free = sum(1 << c for c in range(k.size) if rng.random() < density) & ~(1 << head)
    return head, free


@pytest.mark.parametrize(("side", "density", "seed"), [(14, 0.9, 1), (30, 0.95, 2)])
def test_the_clock_is_polled_between_costly_bounds(
    monkeypatch: pytest.MonkeyPatch, side: int, density: float, seed: int
) -> None:
    """A chamber bound or a forced refutation can cost milliseconds on a big region: at
    most one of each may run between two polls of the clock, from the first node on (the
    root's moves are bounded before the first node)."""
    calls = {"chain": 0, "forced": 0}
    worst = {"chain": 0, "forced": 0}
    real_chain, real_refutes = endgame._chain_bound, chambers.forced_refutes

    def chain(*args: object) -> int:
        calls["chain"] += 1
        return real_chain(*args)  # type: ignore[arg-type]

    def refutes(*args: object) -> bool:
        calls["forced"] += 1
        return real_refutes(*args)  # type: ignore[arg-type]

    polls = 0

    def out_of_time() -> bool:
        nonlocal polls
        polls += 1
        for key in calls:
            worst[key] = max(worst[key], calls[key])
            calls[key] = 0
        return polls > 400

    monkeypatch.setattr(endgame, "_chain_bound", chain)
    monkeypatch.setattr(chambers, "forced_refutes", refutes)
    k = Kernel(GridTopology(side, side))
    head, free = _region(random.Random(seed), k, density)
    fill = solve_fill(k, head, free, out_of_time=out_of_time)
    out_of_time()  # the calls after the last poll
    assert fill.timed_out or fill.proven
    # The root's own chamber bound comes before the greedy fill, which polls as it goes.
    assert worst["chain"] <= 1
    assert worst["forced"] <= 1
    assert is_path(k, head, free, fill.path)


def test_a_clock_that_never_runs_out_changes_nothing() -> None:
    """With a node budget, polling a clock that never says stop gives the same fill."""
    k = Kernel(GridTopology(10, 10))
    rng = random.Random(8)
    for _ in range(6):
        head, free = _region(rng, k, 0.85)
        for limit in (50, 400):
            a = solve_fill(k, head, free, node_limit=limit)
            b = solve_fill(k, head, free, node_limit=limit, out_of_time=lambda: False)
            assert (a.path, a.bound, a.proven, a.nodes) == (b.path, b.bound, b.proven, b.nodes)


def test_forced_bound_stopped_early_is_still_an_upper_bound() -> None:
    """Told to stop, `forced_bound` returns the bound it has got to, after at least one
    refutation: never below the longest path."""
    rng = random.Random(31)
    stopped = 0
    for _ in range(300):
        w, h = rng.randint(2, 6), rng.randint(2, 6)
        k = Kernel(GridTopology(w, h))
        head, free = _region(rng, k, rng.choice((0.7, 0.85, 1.0)))
        region = k.flood(1 << head, free)
        optimum = longest_path(k, head, region)
        bound = dead_end_bound(k, head, region)
        asked = 0

        def out_of_time() -> bool:
            nonlocal asked
            asked += 1
            return True

        got = forced_bound(k, head, region, bound, 0, out_of_time)
        assert optimum <= got <= bound
        # One refutation at most, then the clock says stop.
        assert got == (bound - 1 if forced_refutes(k, head, region, bound) else bound)
        if asked and forced_refutes(k, head, region, got):
            stopped += 1  # the loop would have gone on
    assert stopped >= 3  # some loops were really cut short


@settings(max_examples=120, deadline=None)
@given(
    w=st.integers(2, 6),
    h=st.integers(2, 6),
    wrap=st.booleans(),
    seed=st.integers(0, 10**6),
    density=st.sampled_from((0.6, 0.75, 0.9, 1.0)),
    limit=st.sampled_from((None, 3, 20)),
)
def test_the_two_deep_split_keeps_the_solver_exact(
    w: int, h: int, wrap: bool, seed: int, density: float, limit: int | None
) -> None:
    """Each of the root's moves' moves is its own search, and a finished one records its
    position's learned bound from a copy of the position's frame: the fill must still be
    optimal when proven, never worse than greedy, and its bound never below the optimum;
    the same for any node budget, twice alike."""
    k = Kernel(GridTopology(w, h, wrap and w * h <= 20))
    head, free = _region(random.Random(seed), k, density)
    region = k.flood(1 << head, free)
    optimum = longest_path(k, head, region)
    fill = solve_fill(k, head, free, node_limit=limit)
    again = solve_fill(k, head, free, node_limit=limit)
    assert (fill.path, fill.bound, fill.nodes) == (again.path, again.bound, again.nodes)
    assert is_path(k, head, free, fill.path)
    assert fill.bound >= optimum
    assert len(fill.path) >= len(endgame.greedy_fill(k, head, region))
    if fill.proven:
        assert len(fill.path) == optimum


def test_learned_bounds_stay_upper_bounds_on_larger_regions() -> None:
    """Regions of up to ~30 cells where the split is two moves deep and positions are
    reached again by other move orders: the solver proves the brute-force optimum."""
    k = Kernel(GridTopology(6, 6))
    rng = random.Random(12)
    for _ in range(25):
        head, free = _region(rng, k, rng.choice((0.75, 0.85, 0.95)))
        region = k.flood(1 << head, free)
        fill = solve_fill(k, head, free)
        assert fill.proven
        assert len(fill.path) == longest_path(k, head, region)


def test_a_corridor_step_keeps_the_chamber_bound_less_one() -> None:
    """Where the head has one way on, the solver takes that cell's region to be the
    reach less the cell and its bound the head's less one, without a flood or a chamber
    bound: both must be what they would have computed."""
    rng = random.Random(44)
    checked = 0
    for _ in range(400):
        w, h = rng.randint(2, 8), rng.randint(2, 8)
        wrap = rng.random() < 0.3 and w % 2 == 0 and h % 2 == 0
        k = Kernel(GridTopology(w, h, wrap))
        head, free = _region(rng, k, rng.choice((0.5, 0.65, 0.8)))
        reach = k.flood(1 << head, free)
        ways = {d for d in k.neighbours[head] if (reach >> d) & 1}
        if len(ways) != 1:
            continue
        (d,) = ways
        sub = reach & ~(1 << d)
        assert k.flood(1 << d, sub) == sub
        colour = endgame._colours(k)
        chain = endgame._chain_bound(k.neighbours, colour, k.size, head, reach)
        assert endgame._chain_bound(k.neighbours, colour, k.size, d, sub) == chain - 1
        assert longest_path(k, d, sub) == longest_path(k, head, reach) - 1
        checked += 1
    assert checked >= 40


def test_a_node_budget_also_caps_the_probes_greedy_completions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without a clock, the probes' greedy completions add at most about as many cells
    as the budget has nodes: one probe may overshoot, none starts after that."""
    k = Kernel(GridTopology(30, 30))
    head, free = _region(random.Random(5), k, 0.9)
    lengths: list[int] = []
    real = endgame.greedy_fill

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        path = real(*args, **kwargs)
        lengths.append(len(path))
        return path

    monkeypatch.setattr(endgame, "greedy_fill", counting)
    if native.available():  # the compiled loop's probes, in one call each
        solver = native._search.Solver  # type: ignore[union-attr]
        probe = solver.probe

        def probing(*args, **kwargs):  # type: ignore[no-untyped-def]
            length, added = probe(*args, **kwargs)
            lengths.append(added)
            return length, added

        monkeypatch.setattr(solver, "probe", probing)
    budget = 600
    fill = solve_fill(k, head, free, node_limit=budget)
    probes = lengths[1:]  # the first is the incumbent's whole fill
    assert probes, "the search should have probed"
    assert sum(probes[:-1]) < budget
    assert is_path(k, head, k.flood(1 << head, free), fill.path)
    assert len(fill.path) >= lengths[0]

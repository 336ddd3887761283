"""The dead-end bound and the interleaved endgame search, against exhaustive search."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.chambers import dead_end_bound, forced_bound, parity_bound
from lightcycle.bots.search.endgame import _chain_bound, _colours, greedy_fill, solve_fill
from lightcycle.core.topology import GridTopology
from tests.bots.search.brute import drawn_board, is_path, longest_path, random_graph

# Drawn regions: (board, the dead-end bound, the longest path).
DRAWN = [
    # Four dead ends around the head: one move, onto any of them.
    (
        """
        #.#
        .A.
        #.#
        """,
        1,
        1,
    ),
    # A comb with teeth on both sides: every tooth a dead end, so the path runs along
    # the back and ends in one tooth; parity alone allows all 9 cells.
    (
        """
        .#.#.
        A....
        #.#.#
        """,
        5,
        5,
    ),
    # No dead end: the plain checkerboard bound.
    (
        """
        A..
        ...
        """,
        5,
        5,
    ),
    # Five dead ends of both colours, the head's colour included: the last cell may be
    # any of them, but only one is used (parity alone: all 9 cells).
    (
        """
        #.##.#
        .A....
        ##.##.
        """,
        5,
        5,
    ),
]


@pytest.mark.parametrize(("text", "bound", "optimum"), DRAWN)
def test_dead_end_bound_on_drawn_regions(text: str, bound: int, optimum: int) -> None:
    k, head, free = drawn_board(text)
    region = k.flood(1 << head, free)
    assert longest_path(k, head, region) == optimum, "the drawing is wrong"
    assert dead_end_bound(k, head, region) == bound
    fill = solve_fill(k, head, free)
    assert fill.proven and len(fill.path) == optimum


def test_dead_end_bound_is_never_below_the_optimum() -> None:
    """Grids with and without wrap-around (tori 2 wide, and odd ones without colours)."""
    rng = random.Random(21)
    for _ in range(400):
        w, h = rng.randint(1, 6), rng.randint(1, 6)
        wrap = rng.random() < 0.35 and w * h <= 20
        k = Kernel(GridTopology(w, h, wrap))
        head = rng.randrange(w * h)
        density = rng.choice((0.55, 0.7, 0.85))
        free = sum(1 << c for c in range(w * h) if rng.random() < density) & ~(1 << head)
        region = k.flood(1 << head, free)
        optimum = longest_path(k, head, region)
        bound = dead_end_bound(k, head, region)
        assert bound >= optimum, (w, h, wrap, head, bin(region))
        assert bound <= parity_bound(k, head, region)


@settings(max_examples=150, deadline=None)
@given(
    w=st.integers(2, 6),
    h=st.integers(2, 6),
    bits=st.integers(0, 2**36 - 1),
    head_at=st.integers(0, 35),
    wrap=st.booleans(),
)
def test_every_bound_is_admissible_property(
    w: int, h: int, bits: int, head_at: int, wrap: bool
) -> None:
    k = Kernel(GridTopology(w, h, wrap and w * h <= 20))
    head = head_at % (w * h)
    region = k.flood(1 << head, bits & k.full & ~(1 << head))
    optimum = longest_path(k, head, region)
    assert dead_end_bound(k, head, region) >= optimum
    assert _chain_bound(k.neighbours, _colours(k), k.size, head, region) >= optimum
    assert forced_bound(k, head, region, region.bit_count(), 0) >= optimum
    fill = solve_fill(k, head, region)
    assert fill.proven and len(fill.path) == optimum <= fill.bound
    assert is_path(k, head, region, fill.path)


def test_graph_boards_fall_back_to_the_plain_count() -> None:
    """No shifts on a graph: the bound is the parity bound, and the solver stays exact."""
    rng = random.Random(4)
    for _ in range(40):
        k, n = random_graph(rng, 3, 14)
        head = rng.randrange(n)
        region = k.flood(1 << head, k.full & ~(1 << head))
        assert dead_end_bound(k, head, region) == parity_bound(k, head, region)
        fill = solve_fill(k, head, region)
        assert fill.proven and len(fill.path) == longest_path(k, head, region)
        assert is_path(k, head, region, fill.path)


# Two regions of the endgame bench (seed 1, regions 18 and 20) that a plain depth-first
# search reached only after 16,000 and 6,200 nodes: all the root's moves have the same
# bound, and the one the ordering puts first holds a huge subtree without the optimum.
# Interleaving the root's moves reaches it in about 350 and 490 nodes.
BENCH = [
    (
        "region 18 (97 cells)",
        """
        #########.####
        ########...#.#
        ########..#...
        #######......#
        ######.##.....
        #####.........
        ####...#.....#
        ###......#.#..
        ####......A...
        ###......#.##.
        ####..........
        #####.....#...
        ######...#....
        #######.......
        """,
        82,
    ),
    (
        "region 20 (93 cells)",
        """
        ..#A..#......#
        #.............
        ..#..........#
        .......#.#..##
        ........##.###
        .#........####
        .......#.#####
        ........######
        .......#######
        ##....########
        ##...#########
        ##############
        ##############
        ##############
        """,
        85,
    ),
]


@pytest.mark.parametrize(("name", "text", "optimum"), BENCH, ids=[b[0] for b in BENCH])
def test_interleaving_reaches_the_optimum_of_bench_regions(
    name: str, text: str, optimum: int
) -> None:
    k, head, free = drawn_board(text)
    fill = solve_fill(k, head, free, node_limit=700)
    assert len(fill.path) == optimum, name
    assert fill.bound >= optimum
    assert is_path(k, head, free, fill.path)


def test_root_bound_is_the_best_of_its_moves() -> None:
    """Region 18's chamber bound is 88, but every first move leaves at most 81 more: the
    optimum of 82 is then proven as soon as it is found."""
    k, head, free = drawn_board(BENCH[0][1])
    fill = solve_fill(k, head, free, node_limit=700)
    assert fill.bound == 82 and fill.proven


@pytest.mark.parametrize("limit", [0, 1, 2, 5, 17, 60, 200])
def test_budgets_are_reproducible_and_never_worse_than_greedy(limit: int) -> None:
    rng = random.Random(900 + limit)
    k = Kernel(GridTopology(11, 11))
    for _ in range(6):
        head = rng.randrange(k.size)
        free = sum(1 << c for c in range(k.size) if rng.random() < 0.8) & ~(1 << head)
        fill = solve_fill(k, head, free, node_limit=limit)
        again = solve_fill(k, head, free, node_limit=limit)
        assert again.path == fill.path and again.nodes == fill.nodes
        assert fill.nodes <= limit + 1
        assert len(fill.path) >= len(greedy_fill(k, head, free))
        assert len(fill.path) <= fill.bound
        assert is_path(k, head, free, fill.path)

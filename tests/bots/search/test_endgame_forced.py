"""The forced-edge refutation (`forced_bound`), against exhaustive search."""

from __future__ import annotations

import random

import pytest

from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.chambers import (
    dead_end_bound,
    forced_bound,
    forced_refutes,
    parity_bound,
)
from lightcycle.bots.search.endgame import _chain_bound, _colours, solve_fill
from lightcycle.core.topology import GridTopology
from tests.bots.search.brute import drawn_board, longest_path, random_graph


def _cheap(k: Kernel, head: int, region: int) -> int:
    return min(
        dead_end_bound(k, head, region),
        _chain_bound(k.neighbours, _colours(k), k.size, head, region),
    )


# Drawn regions where the forced edges beat the dead-end and chamber bounds:
# (board, those bounds, the forced bound, the longest path).
DRAWN = [
    # Six cells, three of each colour: a path through all six ends on the head's
    # colour, so the two left corners (the other colour) are inside it and take both
    # their edges, each one to the head, which has only one.
    (
        """
        ..#
        A..
        ..#
        """,
        6,
        5,
        5,
    ),
    # Two refutations: 8 moves and 7 moves both need every cell of one colour.
    (
        """
        ..#
        #.#
        ...
        .A.
        """,
        8,
        6,
        6,
    ),
]


@pytest.mark.parametrize(("text", "cheap", "forced", "optimum"), DRAWN)
def test_forced_bound_on_drawn_regions(text: str, cheap: int, forced: int, optimum: int) -> None:
    k, head, free = drawn_board(text)
    region = k.flood(1 << head, free)
    assert longest_path(k, head, region) == optimum, "the drawing is wrong"
    assert _cheap(k, head, region) == cheap
    assert forced_bound(k, head, region, cheap, 0) == forced
    fill = solve_fill(k, head, free)
    assert fill.proven and len(fill.path) == optimum == fill.bound


def test_forced_refutes_no_length_a_path_reaches() -> None:
    """Every length up to the optimum has a path (a prefix of the longest), so none may
    be refuted; grids with and without wrap-around (tori 1 and 2 wide, odd ones)."""
    rng = random.Random(77)
    refuted_next = 0
    for _ in range(500):
        w, h = rng.randint(1, 6), rng.randint(1, 6)
        wrap = rng.random() < 0.35 and w * h <= 20
        k = Kernel(GridTopology(w, h, wrap))
        head = rng.randrange(w * h)
        density = rng.choice((0.55, 0.7, 0.85, 1.0))
        free = sum(1 << c for c in range(w * h) if rng.random() < density) & ~(1 << head)
        region = k.flood(1 << head, free)
        optimum = longest_path(k, head, region)
        where = (w, h, wrap, head, bin(region))
        for length in range(1, optimum + 1):
            assert not forced_refutes(k, head, region, length), (length, optimum, where)
        bound = parity_bound(k, head, region)
        assert forced_bound(k, head, region, bound, 0) >= optimum, where
        if forced_bound(k, head, region, _cheap(k, head, region), 0) < _cheap(k, head, region):
            refuted_next += 1
    assert refuted_next >= 3  # the refutation is not idle: it beats the other bounds


def test_no_refutation_without_a_checkerboard() -> None:
    """Graphs and odd tori have no colours to count: nothing is refuted."""
    rng = random.Random(5)
    for _ in range(30):
        k, n = random_graph(rng, 3, 12)
        region = k.flood(1, k.full & ~1)
        assert not any(forced_refutes(k, 0, region, m) for m in range(1, n + 2))
    k = Kernel(GridTopology(5, 3, True))
    assert not forced_refutes(k, 0, k.full & ~1, 14)
    assert not forced_refutes(k, 0, k.full & ~1, 0)


# Seed 2's region 24 of the endgame bench: a 60-cell diamond with staircase edges. The
# dead-end bound allows 55 moves (every live cell, ending in a dead end), but the
# staircases force zigzags that cannot all join up; the optimum, 54, took the search
# 9,200 nodes to reach with the chamber bounds alone, and 9,700 to prove.
DIAMOND = """
##############
##############
##############
#####.########
####...#######
###.....######
##.....#.#####
#........#####
##........####
#....A.....###
#........#####
##......######
###...#.######
####..########
"""


def test_the_diamond_is_proven_at_its_root() -> None:
    k, head, free = drawn_board(DIAMOND)
    region = k.flood(1 << head, free)
    assert dead_end_bound(k, head, region) == 55
    assert forced_refutes(k, head, region, 55)
    fill = solve_fill(k, head, free, node_limit=1500)
    assert fill.bound == 54 and fill.proven and len(fill.path) == 54

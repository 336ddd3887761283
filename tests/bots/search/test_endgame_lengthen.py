"""Lengthening a fill path by local moves (`lengthen`): always a valid path, never shorter,
never longer than the optimum, and the moves it is made of on drawn boards."""

from __future__ import annotations

import random

import pytest

from lightcycle.bots.search import lengthen as lengthen_module
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.endgame import solve_fill
from lightcycle.bots.search.lengthen import lengthen
from lightcycle.core.topology import GridTopology
from tests.bots.search.brute import (
    drawn_board,
    is_path,
    longest_path,
    random_graph,
    random_walk,
)


def _drawn_path(text: str) -> tuple[Kernel, int, int, list[int]]:
    """A drawn board (`drawn_board`) with a path drawn on it in letters, ``a`` first."""
    cells = "".join(r.strip() for r in text.strip().splitlines())
    path = sorted((c for c, ch in enumerate(cells) if ch.islower()), key=lambda c: cells[c])
    k, head, free = drawn_board("".join("." if ch.islower() else ch for ch in text))
    return k, head, free, path


def _check(k: Kernel, head: int, free: int, path: list[int]) -> list[int]:
    region = k.flood(1 << head, free)
    before = list(path)
    got = lengthen(k, head, region, path)
    assert path == before  # the argument is not changed
    assert is_path(k, head, region, got)
    assert len(got) >= len(path)
    assert len(got) <= longest_path(k, head, region)
    assert lengthen(k, head, region, path) == got  # deterministic
    return got


def test_lengthen_is_a_valid_longer_path_on_random_grids_and_tori() -> None:
    """Grids from 1x1 to 6x6 and tori of up to 20 cells, 1- and 2-wide ones included
    (where a neighbour is listed twice, or a cell is its own)."""
    rng = random.Random(11)
    grew = 0
    for _ in range(600):
        w, h = rng.randint(1, 6), rng.randint(1, 6)
        k = Kernel(GridTopology(w, h, rng.random() < 0.4 and w * h <= 20))
        density = rng.choice((0.55, 0.7, 0.85))
        cells = [c for c in range(w * h) if rng.random() < density]
        if not cells:
            continue
        head = rng.choice(cells)
        free = sum(1 << c for c in cells) & ~(1 << head)
        region = k.flood(1 << head, free)
        path = random_walk(rng, k, head, region)
        grew += len(_check(k, head, free, path)) > len(path)
    assert grew > 100  # the moves do something on these boards


def test_lengthen_is_a_valid_longer_path_on_random_graphs() -> None:
    """Graphs, where one cell can sit between the two ends of a step."""
    rng = random.Random(12)
    for _ in range(300):
        k, n = random_graph(rng, 2, 9)
        head = rng.randrange(n)
        free = k.full & ~(1 << head)
        path = random_walk(rng, k, head, k.flood(1 << head, free))
        _check(k, head, free, path)


def test_detours() -> None:
    """Along the top row, the path leaves the bottom row: the squares beside its first and
    last steps take all of it in."""
    k, head, free, path = _drawn_path(
        """
        Aabc
        ....
        """
    )
    assert _check(k, head, free, path) == [4, 5, 1, 2, 6, 7, 3]


ROTATION = """
.ab
#Ac
hed
gf.
"""


def test_an_extension() -> None:
    """The path stops one short of the corner."""
    k, head, free, path = _drawn_path(
        """
        Aab.
        """
    )
    assert _check(k, head, free, path) == [1, 2, 3]


def test_a_rotation() -> None:
    """The path is stuck at ``h``, beside ``e``: ``a..e h g f`` ends at ``f``, which can go on
    to the last cell. Neither a detour nor an extension could do it."""
    k, head, free, path = _drawn_path(ROTATION)
    assert path == [1, 2, 5, 8, 7, 10, 9, 6]
    assert _check(k, head, free, path) == [1, 2, 5, 8, 7, 6, 9, 10, 11]


def test_no_rotation_without_rotations(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rotation above is what found the longer path."""
    monkeypatch.setattr(lengthen_module, "ROTATIONS", 0)
    k, head, free, path = _drawn_path(ROTATION)
    assert _check(k, head, free, path) == path


def test_out_of_time_keeps_the_path_so_far() -> None:
    k, head, free, path = _drawn_path(ROTATION)
    assert lengthen(k, head, free, path, lambda: True) == path


def test_solver_with_lengthening_still_matches_brute_force() -> None:
    """The solver's answer is still the optimum, proven, with lengthened paths taken in."""
    rng = random.Random(13)
    for _ in range(150):
        w, h = rng.randint(2, 6), rng.randint(2, 6)
        k = Kernel(GridTopology(w, h, rng.random() < 0.3 and w * h <= 20))
        cells = [c for c in range(w * h) if rng.random() < 0.75]
        if len(cells) < 2:
            continue
        head = rng.choice(cells)
        free = sum(1 << c for c in cells) & ~(1 << head)
        fill = solve_fill(k, head, free)
        assert fill.proven
        assert is_path(k, head, free, fill.path)
        assert len(fill.path) == longest_path(k, head, free)

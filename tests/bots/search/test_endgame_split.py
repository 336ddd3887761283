"""The endgame search's splits: a search whose share runs out hands the moves it has not
tried at its shallowest open position to a new search (`endgame._split`). The split
frames' learned bounds must stay upper bounds, and every move must still be searched
once, so the solver stays exact."""

from __future__ import annotations

import random
from typing import Any

import pytest

from lightcycle.bots.search import endgame, native
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.endgame import solve_fill
from lightcycle.core.topology import GridTopology
from tests.bots.search.brute import is_path, longest_path, random_graph


def _child(bound: int, cell: int) -> tuple[int, int, int, int, int, bool]:
    """A move as the search sorts it: minus its bound first."""
    return (-bound, 0, 0, cell, 1 << cell, True)


def test_the_shallowest_open_frame_is_split() -> None:
    """The frame nearest the root with untried moves gives them away; the top frame's
    moves (the search's next steps) never; a move that cannot beat the best path stays
    behind for the search to skip; both frames promise the most any move promises."""
    top = [9, 1 << 9, 3, [_child(5, 10), _child(4, 11)], 0, 0]
    done = [7, 1 << 7, 2, [_child(7, 9)], 1, 0]  # its only move is being searched
    root = [5, 1 << 5, 1, [_child(9, 7), _child(8, 8), _child(6, 12), _child(2, 13)], 1, 3]
    stack = [root, done, top]
    path = [5, 7, 9]
    got = endgame._split(stack, path, best_len=7)
    assert got is not None
    new_stack, new_path, bound = got
    # Moves 8 (1 + 8 > 7) and 12 (1 + 6 = 7 > 7 fails: cannot beat the best) are open;
    # only 8 is worth a search.
    assert new_stack == [[5, 1 << 5, 1, [_child(8, 8)], 0, 9]]
    assert new_path == [5]
    assert bound == 1 + 8  # the most the new search can promise from the root
    assert root[3] == [_child(9, 7)]  # the split frame keeps the move it is in
    assert root[5] == 9  # and promises at least what its moves promised
    assert done[3] == [_child(7, 9)] and top[3] == [_child(5, 10), _child(4, 11)]
    # Nothing open above the top frame: no split.
    assert endgame._split(stack, path, best_len=7) is None
    assert endgame._split([top], [9], best_len=0) is None


def _random_board(rng: random.Random) -> tuple[Kernel, int, int]:
    """A grid, a torus or a graph (no checkerboard) of up to 36 cells."""
    if rng.random() < 0.3:
        k, n = random_graph(rng, 8, 14)
        head = rng.randrange(n)
        free = sum(1 << c for c in range(n) if rng.random() < 0.85) & ~(1 << head)
        return k, head, free
    w, h = rng.randint(4, 6), rng.randint(4, 6)
    k = Kernel(GridTopology(w, h, rng.random() < 0.2 and w * h <= 30))
    head = rng.randrange(k.size)
    density = rng.choice((0.7, 0.8, 0.9))
    free = sum(1 << c for c in range(k.size) if rng.random() < density) & ~(1 << head)
    return k, head, free


@pytest.fixture(scope="module")
def searched() -> list[tuple[Kernel, int, int, int]]:
    """Forty boards the solver has to search (more than 30 nodes with its own shares:
    most boards this small are filled to their bound by the greedy fill), with their
    brute-force optimum."""
    rng = random.Random(5)
    boards: list[tuple[Kernel, int, int, int]] = []
    while len(boards) < 40:
        k, head, free = _random_board(rng)
        if solve_fill(k, head, free).nodes > 30:
            boards.append((k, head, free, longest_path(k, head, k.flood(1 << head, free))))
    return boards


def _search_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """No greedy incumbent, no probes, no lengthening: the paths are the search's own, so
    a move no search searches shows (the probes find most optima of small boards)."""
    monkeypatch.setattr(endgame, "greedy_fill", lambda *args, **kwargs: [])
    monkeypatch.setattr(endgame, "PROBE", 10**9)  # the compiled loop's probes are its own
    monkeypatch.setattr(endgame, "lengthen", lambda kernel, head, region, path, *_: path)


COMPILED = [
    False,
    pytest.param(
        True,
        marks=pytest.mark.skipif(not native.available(), reason=f"{native.why_not()}"),
        id="compiled",
    ),
]
"""The pure search loop, and the compiled one (`native.searcher_for`) where it can be had."""


def _count_splits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the splits that hand moves on, by the pure loop's `endgame._split` and the
    compiled loop's (``[count]``)."""
    splits = [0]

    def counting(real: Any) -> Any:
        def split(*args: Any) -> Any:
            got = real(*args)
            splits[0] += got is not None
            return got

        return split

    monkeypatch.setattr(endgame, "_split", counting(endgame._split))
    if native.available():
        search = native._search.Search  # type: ignore[union-attr]
        monkeypatch.setattr(search, "split", counting(search.split))
    return splits


@pytest.mark.parametrize("compiled", COMPILED)
@pytest.mark.parametrize(("share", "alone"), [(3, False), (8, False), (5, True), (9, True)])
def test_split_searches_keep_the_solver_exact(
    monkeypatch: pytest.MonkeyPatch,
    searched: list[tuple[Kernel, int, int, int]],
    share: int,
    alone: bool,
    compiled: bool,
) -> None:
    """With shares of a few nodes every search is split again and again, and positions
    are reached by several searches (the learned bounds of split frames are used):
    proven fills are the brute-force optimum, bounds never below it, runs alike; and the
    splits really happen."""
    monkeypatch.setattr(endgame, "ROOT_SHARE", share)
    monkeypatch.setattr(endgame, "SHARE_GROWTH", 1.0)
    if alone:
        _search_alone(monkeypatch)
    splits = _count_splits(monkeypatch)
    for k, head, free, optimum in searched:
        fill = solve_fill(k, head, free, compiled=compiled)
        assert fill.proven
        assert is_path(k, head, free, fill.path)
        assert len(fill.path) == optimum
        assert fill.bound >= optimum
        again = solve_fill(k, head, free, node_limit=fill.nodes // 2 + 1, compiled=compiled)
        twice = solve_fill(k, head, free, node_limit=fill.nodes // 2 + 1, compiled=compiled)
        assert (again.path, again.nodes) == (twice.path, twice.nodes)
        assert is_path(k, head, free, again.path)
        if compiled:  # and the pure loop makes the same nodes with the same splits
            assert solve_fill(k, head, free, compiled=False) == fill
    assert splits[0] >= 100


@pytest.mark.parametrize("compiled", COMPILED)
@pytest.mark.parametrize("share", [1, 2, 3])
def test_a_unique_longest_path_is_found_through_the_splits(
    monkeypatch: pytest.MonkeyPatch, share: int, compiled: bool
) -> None:
    """A 6x4 torus whose longest path (14 moves) is the only one of its length, searched
    with nothing but the search and shares that split it at every turn: a move a split
    lost would lose the path (dropping the first move a split hands on does)."""
    rows = ["....#.", "A.#..#", "##....", "...#.#"]
    k = Kernel(GridTopology(6, 4, True))
    cells = "".join(rows)
    head = cells.index("A")
    free = sum(1 << c for c, ch in enumerate(cells) if ch == ".")
    assert longest_path(k, head, free) == 14
    monkeypatch.setattr(endgame, "ROOT_SHARE", share)
    monkeypatch.setattr(endgame, "SHARE_GROWTH", 1.0)
    _search_alone(monkeypatch)
    fill = solve_fill(k, head, free, compiled=compiled)
    assert fill.proven
    assert is_path(k, head, free, fill.path)
    assert len(fill.path) == 14

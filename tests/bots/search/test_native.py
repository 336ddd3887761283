"""The compiled evaluation (the ``fast`` extra) against the pure-Python one.

The issue allows a compiled kernel only if the pure-Python fallback plays the same moves
for the same node budget; these tests hold the compiled `DuelSearch.evaluate` to equal
values on thousands of positions (every branch: open and tight boards, separated
regions big and small, grids, tori 1 and 2 cells wide, graphs), and the search to equal
results with either. They skip, saying why, where numba is not installed or
``LIGHTCYCLE_NATIVE=0``.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from lightcycle.bots.ladder import Strong
from lightcycle.bots.registry import make_bot
from lightcycle.bots.search import native
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.duel import DuelSearch, SearchOptions
from lightcycle.core.topology import GridTopology
from lightcycle.maps.registry import get_map
from lightcycle.referee.local import collect_moves
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.observe import View
from tests.bots.search.brute import random_graph
from tests.bots.search.positions import read_positions

pytestmark = pytest.mark.skipif(not native.available(), reason=f"{native.why_not()}")

OPTIONS = [
    SearchOptions(),
    SearchOptions(chambers=False, edge_weight=0),  # medium's evaluation
    SearchOptions(chamber_cells=10_000, fill_cells=10_000, edge_weight=5),
    SearchOptions(fill_cells=0),  # separated regions by the parity bound
    SearchOptions(chamber_cells=10_000, front=1),  # the champion's front-aware count
    SearchOptions(chamber_cells=10_000, front=2),  # and its chamber kept as a candidate
]


def _positions(rng: random.Random, k: Kernel, count: int) -> list[tuple[int, int, int]]:
    """Random positions ``(a, b, occ)`` of ``k``: walls at a random density, two heads."""
    out = []
    for _ in range(count):
        density = rng.choice((0.05, 0.2, 0.35, 0.5, 0.7))
        occ = sum(1 << c for c in range(k.size) if rng.random() < density)
        a = rng.randrange(k.size)
        b = rng.randrange(k.size)
        if a != b:
            out.append((a, b, occ | 1 << a | 1 << b))
    return out


def _check(k: Kernel, positions: list[tuple[int, int, int]]) -> int:
    """Assert equal values under every option set; how many positions were separated."""
    split = 0
    for options in OPTIONS:
        fast = DuelSearch(k, options)
        pure = DuelSearch(k, options, compiled=False)
        assert fast.evaluate != pure.evaluate  # the compiled one, not the fallback
        for a, b, occ in positions:
            assert fast.evaluate(a, b, occ) == pure.evaluate(a, b, occ), (options, a, b, occ)
            split += options is OPTIONS[0] and pure.separated(a, b, occ)
    return split


@pytest.mark.parametrize(
    ("width", "height", "wrap"),
    [(1, 1, False), (2, 1, False), (1, 7, False), (5, 4, False), (15, 15, False),
     (30, 30, False), (64, 3, False), (2, 2, True), (1, 6, True), (2, 9, True),
     (6, 6, True), (7, 5, True), (20, 20, True), (56, 6, False), (57, 4, False),
     (56, 5, True)],
)  # fmt: skip
def test_compiled_evaluation_equals_the_pure_one_on_grids(
    width: int, height: int, wrap: bool
) -> None:
    k = Kernel(GridTopology(width, height, wrap))
    rng = random.Random(width * 1000 + height * 10 + wrap)
    positions = _positions(rng, k, 120)
    split = _check(k, positions)
    if k.size >= 20:
        assert 0 < split < len(positions)  # both kinds of position were checked


@pytest.mark.parametrize(
    ("width", "height", "wrap"),
    [(1, 5, False), (3, 3, False), (5, 4, False), (30, 30, False), (56, 6, False),
     (1, 6, True), (2, 9, True), (3, 7, True), (7, 5, True), (56, 5, True)],
)  # fmt: skip
def test_the_row_by_row_evaluation_equals_the_cell_by_cell_one(
    width: int, height: int, wrap: bool
) -> None:
    """Grids up to `ROW_BITS` wide are evaluated row by row; the same position and
    options evaluated cell by cell (as graphs and wider grids are) give the same value."""
    kernels = native._load()
    assert kernels is not None
    k = Kernel(GridTopology(width, height, wrap))
    moves = native._edge_moves(k)
    rng = random.Random(width * 100 + height + wrap)
    positions = _positions(rng, k, 60)
    for options in OPTIONS:
        values = []
        for grid in ((width, height, wrap), None):
            tables = kernels.evaluation_tables(
                k.neighbours, moves, k.size, k.black, options.chambers, options.chamber_cells,
                options.fill_cells, options.edge_weight, 1000, options.front, grid,
            )  # fmt: skip
            evaluate = kernels.evaluator_for(tables, k.size)
            values.append([evaluate(a, b, occ) for a, b, occ in positions])
        assert values[0] == values[1], options


def test_compiled_evaluation_equals_the_pure_one_on_graphs() -> None:
    rng = random.Random(5)
    for _ in range(150):
        k, _ = random_graph(rng, 2, 40)
        _check(k, _positions(rng, k, 4))
    cube = Kernel(get_map("cube").topology)
    _check(cube, _positions(rng, cube, 60))


def test_the_size_thresholds_are_inclusive_in_both() -> None:
    """A board with exactly ``chamber_cells`` free cells, a region of exactly
    ``fill_cells``: the boundary cases, which random positions rarely hit."""
    k = Kernel(GridTopology(12, 12))
    rng = random.Random(3)
    for a, b, occ in _positions(rng, k, 150):
        free = k.full & ~occ
        ta, _, _ = k.voronoi(1 << a, 1 << b, free)
        for options in (
            SearchOptions(chamber_cells=free.bit_count()),
            SearchOptions(fill_cells=ta.bit_count()),
        ):
            fast = DuelSearch(k, options).evaluate(a, b, occ)
            assert fast == DuelSearch(k, options, compiled=False).evaluate(a, b, occ)


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


def test_the_search_gives_the_same_result_with_either_evaluation() -> None:
    views = _midgame_views(12) + [p.view() for p in read_positions("duel.txt")]
    for view in views:
        k = Kernel(view.topology)
        a, b = view.me.head, view.opponents[0].head
        occ = view.state.occupied
        fast = DuelSearch(k).search(a, b, occ, node_limit=1500)
        pure = DuelSearch(k, compiled=False).search(a, b, occ, node_limit=1500)
        assert fast == pure


def test_strong_loads_the_compiled_evaluation_when_made() -> None:
    Strong(nodes=10)
    assert native.available() and native.why_not() is None


def test_the_cache_folder_is_named_after_the_kernels_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kernel file's change gives a new cache folder (numba alone would keep a caller's
    machine code built on the old callee); a month-old folder is removed, a newer one
    kept (another checkout's)."""
    numba = pytest.importorskip("numba")
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)
    base = tmp_path / "lightcycle"
    base.mkdir()
    stale, recent = base / "numba-stale", base / "numba-recent"
    stale.mkdir()
    recent.mkdir()
    os.utime(stale, (0, 0))
    native._cache_by_source()
    first = numba.config.CACHE_DIR
    assert first.startswith(str(base / "numba-")) and os.path.isdir(first)
    assert not stale.exists() and recent.exists()
    sources = sorted(Path(native.__file__).parent.glob("_native_*.py"))
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda p: real(p) + (b"#" if p == sources[0] else b""))
    native._cache_by_source()
    assert first != numba.config.CACHE_DIR
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    numba.config.CACHE_DIR = "kept"
    native._cache_by_source()
    assert numba.config.CACHE_DIR == "kept"

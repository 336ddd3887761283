"""The duel search in machine code, when the optional ``fast`` extra is installed.

`DuelSearch.evaluate` is what the pure search spends most of its time in: a Voronoi
split of the board, and on tight boards a depth-first pass over each territory (the
chamber bound). In pure Python that is about 25 microseconds a leaf on an open 30x30
board and 200 on a tight 15x15 room. Compiled with numba (``pip install
'lightcycle[fast]'``) the same evaluation takes a few microseconds (a grid up to 56
cells wide is held a row per int64, so a layer of the Voronoi split is a few shifts a
row), and then the alpha-beta loop around it is most of the time: that is compiled too
(`_native_duel`), below the root's moves, which stay in `DuelSearch.search`.

The issue allows a compiled kernel only as an extra with a pure-Python fallback that
plays the same moves for the same node budget. So `_native_kernels` is the very
algorithm of the pure evaluation (the same Voronoi layers, the same blocks, the same
sums): its value is equal on every position (tests/bots/search/test_native.py checks
thousands); and `_native_duel` visits the same nodes in the same order, with the same
cuts and table entries (test_native_duel.py), so a search with either makes the same
moves. Pure Python stays the default install; set ``LIGHTCYCLE_NATIVE=0`` to use it
even where numba is installed.

The endgame solver (`endgame.solve_fill`) has compiled copies of the same kind: its
chamber bound and forced-edge refutation (`_native_endgame`), its moves with their
dead-end bounds and its greedy fill (`_native_fill`), `lengthen` (`_native_lengthen`),
and each interleaved search's depth-first loop with its probes (`_native_search`), which
hands back to the solver for what stays in Python.

Numba compiles on first import (about half a minute for all the kernels) and caches the
machine code in ``~/.cache/lightcycle/numba-<hash of the kernels' sources>``, so later
processes load it in about a second. The searching bots ask for it when they are made,
which is before any game's clock starts.

Threads: the compiled kernels run without the GIL and check no bounds, and one process
may search one board on several threads at once (`lightcycle serve` runs each game's
built-in bots on worker threads, the judge runs matches on threads). So what is cached
per board here (`fill_for`, `searcher_for`, `lengthen_for`, `chain_bound_for`,
`forced_refutes_for`) holds only tables no kernel writes; the arrays a kernel writes are
lent to one call, or one solve, at a time (`spares`). A `Duel` (`duel_for`) is not
cached: it is one search's, as its transposition table is, and one bot's moves come one
at a time.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.options import SearchOptions
from lightcycle.core.topology import GridTopology

Evaluate = Callable[[int, int, int], int]
"""``evaluate(a, b, occ)``: `DuelSearch.evaluate` on one board with one search's options."""

ChainBound = Callable[[int, int], int]
"""``bound(head, free)``: `endgame._chain_bound` on one board."""

Refutes = Callable[[int, int, int], bool]
"""``refutes(head, region, length)``: `chambers.forced_refutes` on one board."""


class Search(Protocol):
    """One of `endgame.solve_fill`'s interleaved searches, as the compiled loop keeps it."""

    def cells(self) -> list[int]:
        """The search's path."""

    def first_moves(self) -> list[int]:
        """The cells of the moves of its bottom frame."""

    def split(self, best_len: int) -> tuple[Search, list[int], int] | None:
        """`endgame._split` of it."""


class Searcher(Protocol):
    """`endgame.solve_fill`'s depth-first loop, compiled, on one board: one solve's
    state, lent by `Searchers.lend`."""

    def start(
        self,
        region: int,
        node_limit: int | None,
        root_bound: int,
        slack: int,
        deep: int,
        probe: int,
        poll: int,
    ) -> None:
        """Reset for a new solve."""

    def probe(self, s: Search, head: int, rotations: int) -> tuple[int, int]:
        """A probe of a search's path: its length completed and lengthened, and how many
        cells the greedy fill added (the path: `probed_path`)."""

    def probed_path(self) -> list[int]:
        """The path the last probe made."""

    def search(self, frames: Sequence[Any], path: list[int]) -> Search:
        """A search of the pure solver's stack and path."""

    def begin(self, share: int) -> None:
        """Start a search's turn of ``share`` nodes."""

    def run(self, s: Search, nodes: int, best_len: int, found: bool) -> tuple[int, int, int, bool]:
        """Run a search to its next event (`_native_events`); the event and the solver's
        counts after it."""

    def best_path(self) -> list[int]:
        """The longest path the loop found."""


class Searchers(Protocol):
    """The compiled depth-first loop's tables on one board, shared by every thread
    (`searcher_for`); a solve borrows a `Searcher` of its own."""

    def lend(self) -> AbstractContextManager[Searcher]:
        """A `Searcher` for one solve alone, for the ``with`` block."""


class Duel(Protocol):
    """The compiled alpha-beta below `DuelSearch.search`'s root moves, on one board with
    one search's options (`duel_for`)."""

    nodes: int
    """Nodes searched since `begin`."""

    evaluate: Evaluate
    """The compiled `DuelSearch.evaluate` on the same tables (`evaluator`'s)."""

    def lookup(self, occ: int, a: int, b: int) -> int | None:
        """Its table's entry for a position (as `DuelSearch.table` packs it), or ``None``."""

    def entries(self) -> int:
        """Positions in its transposition table."""

    def clear(self) -> None:
        """Empty its transposition table."""

    def begin(self, occ: int, node_limit: int | None) -> None:
        """Start a search of the board ``occ``."""

    def min_root(
        self,
        ma: int,
        bm: list[int],
        depth: int,
        alpha: int,
        beta: int,
        out_of_time: Callable[[], bool] | None,
    ) -> int | None:
        """The root's ``min_node`` for the move ``ma``: its value, or ``None`` when the
        node budget or the clock ran out."""


class Lengthen(Protocol):
    """The compiled `lengthen.lengthen` on one board (`lengthen_for`); safe to call from
    several threads at once."""

    def lengthen(self, head: int, region: int, path: list[int], rotations: int) -> list[int]:
        """`lengthen.lengthen` with at most ``rotations`` rotations, without a clock."""


class Fill(Protocol):
    """The compiled greedy fill and solver moves on one board (`fill_for`); safe to call
    from several threads at once."""

    def greedy(self, head: int, free: int, out_of_time: Callable[[], bool] | None) -> list[int]:
        """`endgame.greedy_fill`; with ``out_of_time``, polled every few dozen moves."""

    def steps(self, cur: int, reach: int) -> list[tuple[int, int, int, int, int]]:
        """`endgame._steps` with 1 plus each move's `chambers.dead_end_bound`, its exits
        and walls."""


_kernels: ModuleType | None = None
_why_not: str | None = None
_endgame: ModuleType | None = None
_fill: ModuleType | None = None
_search: ModuleType | None = None
_lengthen: ModuleType | None = None
_duel: ModuleType | None = None
_loading = threading.Lock()


def _load() -> ModuleType | None:
    """The compiled kernels, or ``None`` (the reason in ``_why_not``).

    Loaded once, under a lock: bots made on two threads at once (the server starts a
    game's bots on worker threads) would otherwise both load, and one could see the
    evaluation's kernels before the endgame's were set and cache a board's solver as
    pure (`fill_for` and the others are cached, ``None`` too). ``_kernels`` is set last,
    so whoever sees it set sees the endgame's too."""
    global _kernels, _why_not
    if _kernels is not None or _why_not is not None:
        return _kernels
    with _loading:
        if _kernels is not None or _why_not is not None:
            return _kernels
        if os.environ.get("LIGHTCYCLE_NATIVE", "1") == "0":
            _why_not = "LIGHTCYCLE_NATIVE=0 is set (unset it to use the compiled code)"
            return None
        try:
            _cache_by_source()
            from lightcycle.bots.search import _native_kernels
        except ImportError as exc:  # numba (the fast extra) not installed
            _why_not = (
                f"numba is not installed ({exc}): pip install 'lightcycle[fast]'"
                " (from a clone: pip install -e '.[fast]')"
            )
            return None
        except Exception as exc:  # a platform numba cannot compile for: stay pure
            _why_not = f"numba could not compile the kernels: {exc}"
            return None
        _load_endgame()
        _kernels = _native_kernels
        return _kernels


def _cache_by_source() -> None:
    """Point numba's cache at a folder named after the kernels' sources.

    Numba keys a cached function by its own file's time stamp only, so a kernel that
    calls one from another file (the duel search calls the evaluation) kept running the
    callee's old machine code after the callee's file changed: wrong values, silently.
    A folder per version of all the kernel files cannot be stale. Folders unused for a
    month are removed (another checkout may still use a newer or older one). A
    ``NUMBA_CACHE_DIR`` the user set is left alone, and where the user cache is not
    writable numba keeps its own place (next to the kernels)."""
    import numba

    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    here = Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted(here.glob("_native_*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lightcycle"
    folder = base / f"numba-{digest.hexdigest()[:16]}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)
        month_ago = time.time() - 30 * 86400
        for old in base.glob("numba-*"):
            if old != folder and old.stat().st_mtime < month_ago:
                shutil.rmtree(old, ignore_errors=True)
    except OSError:
        return
    if os.access(folder, os.W_OK):
        numba.config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]


def _load_endgame() -> None:
    """Load (or compile) the endgame solver's kernels with the evaluation's, so that the
    bots, which ask for `available` when they are made, never compile in a timed move.
    Where they cannot be compiled the solver stays pure (`chain_bound_for`,
    `fill_for`, `searcher_for` and `lengthen_for` are ``None``)."""
    global _endgame, _fill, _search, _lengthen, _duel
    try:
        from lightcycle.bots.search import (
            _native_duel,
            _native_endgame,
            _native_fill,
            _native_lengthen,
            _native_search,
        )
    except Exception:  # a platform numba cannot compile for: stay pure
        return
    _endgame = _native_endgame
    _fill = _native_fill
    _lengthen = _native_lengthen
    _search = _native_search
    _duel = _native_duel


def available() -> bool:
    """Whether the compiled evaluation is in use in this process."""
    return _load() is not None


def why_not() -> str | None:
    """Why the compiled evaluation is not in use (``None`` when it is)."""
    _load()
    return _why_not


def evaluator(kernel: Kernel, options: SearchOptions, separated: int) -> Evaluate | None:
    """The compiled `DuelSearch.evaluate` for ``kernel`` and ``options`` (``separated``:
    the weight of a separated position's fill difference), or ``None`` without numba."""
    kernels = _load()
    if kernels is None:
        return None
    tables = kernels.evaluation_tables(*_evaluation(kernel, options, separated))
    evaluate: Evaluate = kernels.evaluator_for(tables, kernel.size)
    return evaluate


def duel_for(kernel: Kernel, options: SearchOptions, separated: int) -> Duel | None:
    """The compiled alpha-beta of `DuelSearch.search` below its root moves, with the
    compiled evaluation (the same nodes and values, several times faster), or ``None``
    without numba."""
    kernels = _load()
    if kernels is None or _duel is None:
        return None
    tables = kernels.evaluation_tables(*_evaluation(kernel, options, separated))
    levels = 2 * options.max_depth + 2
    duel: Duel = _duel.Duel(tables, kernel.size, levels, options.tt, options.killers, options.draw)
    return duel


def _evaluation(kernel: Kernel, options: SearchOptions, separated: int) -> tuple[Any, ...]:
    """`_native_kernels.evaluation_tables`' arguments for a board and a search's
    options."""
    return (
        kernel.neighbours,
        _edge_moves(kernel),
        kernel.size,
        kernel.black,
        options.chambers,
        options.chamber_cells,
        options.fill_cells,
        options.edge_weight,
        separated,
        options.front,
        _grid(kernel),
    )


def _grid(kernel: Kernel) -> tuple[int, int, bool] | None:
    """The board's width, height and wrap if it is a grid (``None`` for a graph)."""
    topology = kernel.topology
    if not isinstance(topology, GridTopology):
        return None
    return topology.width, topology.height, topology.wrap


def _edge_moves(kernel: Kernel) -> list[list[int]]:
    """The moves `Kernel.edges` counts from each cell: a graph's distinct neighbours, a
    grid's four directions (on a torus 1 or 2 cells wide, two of them reach the same
    cell, or the cell itself, and count twice, where the neighbour table lists it once)."""
    topology = kernel.topology
    if not isinstance(topology, GridTopology):
        return [sorted(set(nb)) for nb in kernel.neighbours]
    if not topology.wrap:
        return [list(nb) for nb in kernel.neighbours]
    w, h = topology.width, topology.height
    return [
        [(x + 1) % w + y * w, (x - 1) % w + y * w, x + (y + 1) % h * w, x + (y - 1) % h * w]
        for y in range(h)
        for x in range(w)
    ]


@lru_cache(maxsize=16)
def chain_bound_for(kernel: Kernel) -> ChainBound | None:
    """The compiled `endgame._chain_bound` on ``kernel`` (the same value on every
    region, several times faster), or ``None`` without numba."""
    if _load() is None or _endgame is None:
        return None
    bound: ChainBound = _endgame.chain_bound_for(kernel.neighbours, kernel.size, kernel.black)
    return bound


@lru_cache(maxsize=16)
def forced_refutes_for(kernel: Kernel) -> Refutes | None:
    """The compiled `chambers.forced_refutes` on ``kernel`` (the same answer on every
    region), for `chambers.forced_bound`'s ``refutes``; or ``None`` without numba or
    where it has nothing to refute (graphs, boards without a checkerboard: the pure one
    returns at once)."""
    if _load() is None or _endgame is None:
        return None
    if kernel.black is None or not isinstance(kernel.topology, GridTopology):
        return None
    refutes: Refutes = _endgame.refutes_for(kernel.neighbours, _edge_moves(kernel), kernel.black)
    return refutes


@lru_cache(maxsize=16)
def fill_for(kernel: Kernel) -> Fill | None:
    """The compiled `endgame.greedy_fill` and the solver's moves with their dead-end
    bounds (`endgame._steps`, `chambers.dead_end_bound`) on ``kernel``: the same values,
    several times faster; or ``None`` without numba. Shared by every thread: each call
    borrows its own scratch."""
    if _load() is None or _fill is None:
        return None
    grid = isinstance(kernel.topology, GridTopology)
    fill: Fill = _fill.Fill(kernel.neighbours, _edge_moves(kernel) if grid else None, kernel.black)
    return fill


@lru_cache(maxsize=16)
def searcher_for(kernel: Kernel) -> Searchers | None:
    """The compiled depth-first loop of `endgame.solve_fill` on ``kernel`` (the same
    nodes in the same order, several times faster), or ``None`` without numba. Its
    tables, shared by every thread; a solve borrows its searcher (`Searchers.lend`)."""
    fill = fill_for(kernel)
    if fill is None or _search is None:
        return None
    grid = isinstance(kernel.topology, GridTopology)
    searchers: Searchers = _search.Solvers(
        fill, kernel.neighbours, _edge_moves(kernel) if grid else None, kernel.black
    )
    return searchers


@lru_cache(maxsize=16)
def lengthen_for(kernel: Kernel) -> Lengthen | None:
    """The compiled `lengthen.lengthen` on ``kernel`` (the same path, many times
    faster), or ``None`` without numba. Shared by every thread: each call borrows its
    own scratch."""
    if _load() is None or _lengthen is None:
        return None
    fast: Lengthen = _lengthen.Lengthen(kernel.neighbours)
    return fast

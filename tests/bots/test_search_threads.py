"""The searching bots' solvers on several threads of one process at once.

`lightcycle serve` runs every game's built-in bots on worker threads, and the judge runs
its matches on worker threads too, so two games on one map search one board at the same
time. The board's tables are made once and shared (`native.fill_for` and the others are
cached per kernel); what a search writes as it goes must not be. When the compiled
solver's scratch arrays were part of the cached objects, two threads wrote into the same
ones: numba checks no bounds, so the server died of a segfault (or, where it did not, a
move could silently be another than the budget fixes).

The searches run in a child process (``python -X faulthandler -m
tests.bots.test_search_threads``) so that a segfault fails this test, with the threads'
stacks in its message, instead of killing pytest. Where numba is installed the child
runs the compiled solver, with ``LIGHTCYCLE_NATIVE=0`` the pure one (which must be as
deterministic on threads).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from lightcycle.bots.search import native
from lightcycle.bots.search.bitboard import kernel_for
from lightcycle.bots.search.spares import Spares
from lightcycle.core.topology import GridTopology

ROOT = Path(__file__).resolve().parents[2]

THREADS = 4
ROUNDS = 3
"""Rounds of the workload each thread runs where the compiled solver is in use (one in
pure Python, where the GIL runs the threads in turn and a round costs seconds)."""
FILL_NODES = 1500
DUEL_NODES = 1500


def _rooms(count: int, seed: int) -> list[tuple[int, int]]:
    """Rooms of 40-100 cells carved from a seeded 14x14 board (as the endgame bench
    carves them), each with its head: regions the solver needs its deep search on."""
    from lightcycle.bots.search.bitboard import kernel_for
    from lightcycle.core.topology import GridTopology

    k = kernel_for(GridTopology(14, 14))
    rng = random.Random(seed)
    out: list[tuple[int, int]] = []
    while len(out) < count:
        free = sum(1 << c for c in range(196) if rng.random() < rng.choice((0.8, 0.9, 0.97)))
        head = rng.randrange(196)
        free &= ~(1 << head)
        cells: list[int] = []
        for layer in k.layers(1 << head, free):
            cells += k.cells(layer)
        region = k.flood(1 << head, sum(1 << c for c in cells[: rng.randint(40, 100)]))
        if region.bit_count() >= 40:
            out.append((head, region))
    return out


def _duels(count: int, seed: int) -> list[tuple[int, int, int]]:
    """Duel positions (``a``, ``b``, ``occ``) on a walled 15x15 board: two random walks
    from opposite corners, some still in touch, some cut apart."""
    from lightcycle.bots.search.bitboard import kernel_for
    from lightcycle.core.topology import GridTopology

    k = kernel_for(GridTopology(15, 15))
    rng = random.Random(seed)
    out: list[tuple[int, int, int]] = []
    while len(out) < count:
        a, b = 16, 15 * 15 - 17
        occ = (1 << a) | (1 << b)
        for _ in range(rng.randrange(10, 60)):
            na = [d for d in k.neighbours[a] if not (occ >> d) & 1]
            nb = [d for d in k.neighbours[b] if not (occ >> d) & 1]
            if not na or not nb:
                break
            a, b = rng.choice(na), rng.choice(nb)
            occ |= (1 << a) | (1 << b)
        else:
            out.append((a, b, occ))
    return out


def _work() -> list[tuple[str, Any]]:
    """Every search of the workload, by name, each a call that returns its result."""
    from lightcycle.bots.search.bitboard import kernel_for
    from lightcycle.bots.search.duel import DuelSearch
    from lightcycle.bots.search.endgame import greedy_fill, solve_fill
    from lightcycle.bots.search.lengthen import lengthen
    from lightcycle.core.topology import GridTopology

    room = kernel_for(GridTopology(14, 14))
    duel = kernel_for(GridTopology(15, 15))
    jobs: list[tuple[str, Any]] = []
    for i, (head, region) in enumerate(_rooms(10, 3)):

        def fill(head: int = head, region: int = region) -> Any:
            got = solve_fill(room, head, region, node_limit=FILL_NODES)
            return [got.path, got.bound, got.proven, got.nodes]

        def greedy(head: int = head, region: int = region) -> Any:
            path = greedy_fill(room, head, region)
            return [path, lengthen(room, head, region, path[: len(path) // 2])]

        jobs += [(f"fill {i}", fill), (f"greedy {i}", greedy)]
    for i, (a, b, occ) in enumerate(_duels(6, 5)):

        def search(a: int = a, b: int = b, occ: int = occ) -> Any:
            # A search per call, as each bot has its own: the board's tables are shared.
            got = DuelSearch(duel).search(a, b, occ, node_limit=DUEL_NODES)
            return [got.move, got.value, got.plies, got.nodes]

        jobs.append((f"duel {i}", search))
    return jobs


def child() -> int:
    """Run the workload on one thread, then on `THREADS` at once (each in its own
    order, all started together); print what differed as JSON and fail if anything did."""
    jobs = _work()
    rounds = ROUNDS if native.available() else 1
    want = {name: job() for name, job in jobs}
    barrier = threading.Barrier(THREADS)
    wrong: list[str] = []
    errors: list[str] = []

    def worker(index: int) -> None:
        order = list(jobs)
        random.Random(index).shuffle(order)
        try:
            barrier.wait()
            for _ in range(rounds):
                for name, job in order:
                    if job() != want[name]:
                        wrong.append(f"thread {index}: {name}")
        except Exception as exc:  # reported, not lost in a thread
            errors.append(f"thread {index}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    report = {"compiled": native.available(), "jobs": len(jobs), "wrong": wrong}
    print(json.dumps(report | {"errors": errors}))
    return 1 if wrong or errors else 0


def test_searches_on_threads_make_the_single_threaded_moves() -> None:
    """Threads searching one board at once get what one thread alone gets (the fills,
    bounds, node counts and duel moves for a node budget), and the process survives."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    run = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-m", "tests.bots.test_search_threads"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout}\n{run.stderr[-6000:]}"
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["wrong"] == [] and report["errors"] == []
    assert report["jobs"] == 26
    assert report["compiled"] is native.available()  # the compiled solver, where it can be


def test_spares_lend_one_object_to_one_caller_at_a_time() -> None:
    """One caller after another gets the same object (made ahead, reused: the speed of
    a single cached buffer); callers at once get different ones, all kept for later."""
    made: list[list[int]] = []

    def make() -> list[int]:
        made.append([])
        return made[-1]

    spares = Spares(make)
    assert len(made) == 1 and spares.spare() == 1
    with spares.lend() as first:
        assert first is made[0] and spares.spare() == 0
    with spares.lend() as again:
        assert again is first
        with spares.lend() as other:  # lent while the first is: a new one
            assert other is not first and len(made) == 2
    assert spares.spare() == 2
    try:
        with spares.lend() as lost:
            raise RuntimeError
    except RuntimeError:
        pass
    assert spares.spare() == 2 and any(lost is m for m in made)  # given back all the same


@pytest.mark.skipif(not native.available(), reason=f"{native.why_not()}")
def test_two_solves_on_one_board_never_share_a_solver() -> None:
    """The compiled solver's tables are one per board, its solvers one per solve at a
    time: two solves at once (two threads) each write arrays of their own."""
    k = kernel_for(GridTopology(14, 14))
    searchers = native.searcher_for(k)
    assert searchers is not None and searchers is native.searcher_for(k)
    with searchers.lend() as one, searchers.lend() as two:
        assert one is not two
        for name in ("state", "best", "work", "known_cells", "probed", "region", "inside"):
            assert getattr(one, name) is not getattr(two, name), name
        assert one.lengthen is not two.lengthen  # type: ignore[attr-defined]
        assert one.forced is two.forced  # type: ignore[attr-defined]  # tables: shared
    fill, lengthen = native.fill_for(k), native.lengthen_for(k)
    assert fill is not None and lengthen is not None
    with fill.spares.lend() as a, fill.spares.lend() as b:  # type: ignore[attr-defined]
        assert a.work is not b.work and a.path is not b.path
    with lengthen.spares.lend() as c, lengthen.spares.lend() as d:  # type: ignore[attr-defined]
        assert c.best is not d.best and c.at is not d.at


if __name__ == "__main__":
    sys.exit(child())

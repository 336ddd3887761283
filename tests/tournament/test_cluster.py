"""Tournaments and duels on Ray (`RayExecutor`): the same results as the process pool.

One local Ray with two CPUs serves the module (starting one takes seconds); it is shut
down at the end and no Ray process may outlive it. Tests that need Ray skip, with the
extra to install, where it is missing; the missing-Ray error is tested by hiding it.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lightcycle.cli.main import app
from lightcycle.maps.registry import get_map
from lightcycle.tournament.check import check
from lightcycle.tournament.cluster import (
    EXTRA,
    ClusterError,
    RayExecutor,
    duel_executor,
    tournament_executor,
)
from lightcycle.tournament.duel import DuelResult, run_duel
from lightcycle.tournament.plan import Plan
from lightcycle.tournament.runner import run_tournament
from lightcycle.tournament.store import Store
from tests.tournament.test_runner import plan_of, snapshot

SKIP_REASON = f"Ray is not installed (the cluster extra: {EXTRA})"
RR = """\
format = "round-robin"
bots = ["builtin:random", "builtin:wallhugger", "builtin:chaser"]
maps = ["arena-10", "ring"]
seed = 5
[time]
move = 5.0
first_move = 5.0
"""
runner = CliRunner()


def ray_processes() -> list[str]:
    """Live descendants of this process that belong to Ray (raylet, GCS, workers...)."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            head, _, rest = stat.read_text().rpartition(")")
            fields = rest.split()
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, UnicodeDecodeError):
            continue
        if fields[0] in ("Z", "X"):
            continue
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        names[pid] = cmdline or head.partition("(")[2]
    out = []
    for pid, name in names.items():
        p = parents.get(pid, 0)
        while p > 1 and p != os.getpid():
            p = parents.get(p, 0)
        if p == os.getpid() and "ray" in name:
            out.append(f"{pid} {name[:80]}")
    return out


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """A local Ray with two CPUs for the module; afterwards no Ray process may be left."""
    ray = pytest.importorskip("ray", reason=SKIP_REASON)
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level="ERROR",
    )
    assert ray_processes()  # the check below sees Ray's processes
    try:
        yield ray
    finally:
        ray.shutdown()
        deadline = time.monotonic() + 10
        while ray_processes() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ray_processes() == []


def stored(plan: Plan) -> list[tuple[Any, ...]]:
    """Every stored result as the games decided it (no timings)."""
    with Store(plan.config.database_url) as store:
        row = store.tournament(plan.config.name)
        assert row is not None
        assert check(store, row.id) == []
        return [
            (
                sr.match.key,
                sr.result.reason,
                sr.result.turns,
                sr.result.replay,
                tuple((s.entrant, s.rank, s.score, s.outcome, s.verdict) for s in sr.result.seats),
            )
            for sr in store.results(row.id)
        ]


def test_a_round_robin_on_ray_stores_what_the_process_pool_stores(
    ray_cluster: Any, tmp_path: Path
) -> None:
    on_ray = plan_of(tmp_path / "ray", RR)
    executor = tournament_executor()
    try:
        assert executor.max_workers == 2  # the cluster's CPUs
        summary = run_tournament(on_ray, workers=executor.max_workers, executor=executor)
    finally:
        executor.shutdown()
    assert ray_cluster.is_initialized()  # a connection it did not open is left open
    pooled = plan_of(tmp_path / "pool", RR)
    run_tournament(pooled, workers=2)  # the default process pool
    assert summary.played == summary.total == 12
    assert stored(on_ray) == stored(pooled)
    assert snapshot(on_ray) == snapshot(pooled)  # every rating update, float for float


def test_a_duel_on_ray_plays_the_same_games(ray_cluster: Any, tmp_path: Path) -> None:
    def games(result: DuelResult) -> list[tuple[Any, ...]]:
        return [
            (g.pair, g.game, g.map, g.seed, g.a_seat, g.score, g.reason, g.turns, g.moves)
            for p in result.pairs
            for g in p.games
        ]

    pool = [get_map("arena-10"), get_map("ring")]
    with duel_executor() as executor:
        on_ray = run_duel(
            "builtin:chaser",
            "builtin:random",
            pool,
            games=8,
            seed=9,
            workers=executor.max_workers,
            executor=executor,
            out_dir=tmp_path,
        )
    inline = run_duel("builtin:chaser", "builtin:random", pool, games=8, seed=9, workers=1)
    assert len(games(on_ray)) == 8
    assert games(on_ray) == games(inline)
    assert all((tmp_path / str(g.replay)).is_file() for p in on_ray.pairs for g in p.games)


def test_each_ray_worker_runs_the_initializer_once_and_its_watchdog_spares_it(
    ray_cluster: Any,
) -> None:
    def probe(_: int) -> tuple[int, int]:
        from lightcycle.tournament import play

        time.sleep(0.05)  # both workers get some
        assert play._WORKER_PLAYERS is not None
        return os.getpid(), id(play._WORKER_PLAYERS)

    with tournament_executor() as executor:
        first = {executor.submit(probe, i).result() for i in range(6)}
        # past the watchdog's poll: a worker watching the wrong parent would be gone
        time.sleep(1.5)
        again = set(executor.map(probe, range(6)))
    pids = {pid for pid, _ in first | again}
    assert len(first | again) == len(pids)  # one player cache per worker process, kept
    assert {pid for pid, _ in again} <= pids  # the same workers still serve


def test_errors_cancels_and_shutdown_behave_as_in_a_pool(ray_cluster: Any) -> None:
    executor = RayExecutor()
    with pytest.raises(ValueError, match="not a number"):
        executor.submit(int, "not a number").result()
    slow = [executor.submit(time.sleep, 5) for _ in range(4)]
    assert slow[-1].cancel() and slow[-1].cancelled()
    executor.shutdown(wait=True, cancel_futures=True)
    assert all(f.cancelled() for f in slow)
    with pytest.raises(RuntimeError, match="after shutdown"):
        executor.submit(int, "1")


def test_a_node_without_the_driver_s_folder_says_so(ray_cluster: Any, tmp_path: Path) -> None:
    executor = RayExecutor(cwd=str(tmp_path / "missing"))
    with executor, pytest.raises(ClusterError, match="same files at the same paths"):
        executor.submit(int, "1").result()


def test_the_cli_runs_a_tournament_on_ray(ray_cluster: Any, tmp_path: Path) -> None:
    path = tmp_path / "cli.toml"
    path.write_text(RR, encoding="utf-8")
    r = runner.invoke(app, ["tournament", "run", str(path), "--executor", "ray"])
    assert r.exit_code == 0, r.output
    assert "12 games played by this run" in r.output and "2 workers" in r.output
    assert ray_cluster.is_initialized()


def test_without_ray_the_error_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    with pytest.raises(ClusterError, match=r"pip install 'lightcycle\[cluster\]'"):
        RayExecutor()
    path = tmp_path / "t.toml"
    path.write_text(RR, encoding="utf-8")
    for args in (
        ["tournament", "run", str(path), "--executor", "ray"],
        ["duel", "random", "chaser", "-n", "2", "--executor", "ray"],
    ):
        r = runner.invoke(app, args)
        assert r.exit_code == 2, r.output
        assert "pip install 'lightcycle[cluster]'" in " ".join(r.output.split())
    assert not (tmp_path / "t" / "replays").exists()  # nothing played


def test_a_ray_address_needs_the_ray_executor() -> None:
    r = runner.invoke(app, ["duel", "random", "chaser", "--ray-address", "auto"])
    assert r.exit_code == 2
    assert "--ray-address needs --executor ray" in " ".join(r.output.split())

"""The judge's throughput: submissions validated a minute with 1, 2 and 4 workers, on
SQLite and on PostgreSQL, and the time from upload to verdict of a good C bot.

Usage:
    python bench/judge_throughput.py                        # 12 submissions, 1,2,4 workers
    python bench/judge_throughput.py --submissions 24 --workers 1,2 --backends sqlite

The contest is a small duel like the judge's own tests': classic rules on ``ring`` (each
submission plays from seeds taken from its source's hash; the batch's good bots win theirs,
and the script prints the states each batch ended in), the ``tron2010`` protocol, 0.5 s
a move (1.5 s for the first), 64 MiB, sandbox level ``auto``; a submission is built (gcc), plays one
self-play game against a copy of itself, then two qualifying games against
``builtin:random``. A batch is a realistic mix: mostly
a good C bot (tests/judge/service/bots/good.c, each with its own ``#define`` so no two
builds are identical), with about one in six that fails to compile (build_failed) and
one in six that crashes on turn 1 (test_failed).

Each run has a fresh database (an SQLite file in a temporary folder; a new database on a
throwaway PostgreSQL server that this script starts, as the tests do with
tests/storage/postgres.py, and stops), and W real ``lightcycle judge worker`` processes.
Once every worker is up, the whole batch is uploaded through ``JudgeStore.submit`` (as
the website does) and the script waits until every submission is in a final state. The
figures come from the database's own time stamps: the wall time is from the first
upload to the last verdict; upload-to-verdict is ``accepted_at - created_at`` of each
accepted submission, so it includes the time the submission waited in the queue behind
the rest of the batch. Then, once per backend, a lone good C bot is uploaded to an idle
judge with one worker, three times one after the other: the upload-to-verdict with no
queue.

A second table says where the time goes: the median seconds of each step (a job's
``finished_at - started_at``: build, self-play test, qualifying games) and how busy the
workers were (the steps' total time over workers x wall time; the rest is claiming,
recording, polling an empty queue and waiting for a core).

The ratios of 2 and 4 workers to 1 are of runs of the same process, one after the
other. The load average (``os.getloadavg()``) is printed before and after: on a shared
machine the figures move with it. Nothing is left behind: the workers are stopped (and
killed if they hang), the PostgreSQL server stopped and its folder removed, the
temporary folder deleted.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from lightcycle.judge.service.store import JudgeStore  # noqa: E402
from lightcycle.judge.service.tables import FINAL_STATES, SubmissionRow  # noqa: E402

BOTS = ROOT / "tests" / "judge" / "service" / "bots"

CONTEST = """\
[contest]
name = "bench"
title = "judge throughput benchmark"
ruleset = "classic@1"
maps = ["ring"]
players = 2

[limits]
move_time = 0.5
first_move_time = 1.5
memory = 64

[languages]
allowed = ["c"]

[validation]
protocol = "tron2010"
self_play_copies = 2
reference = "builtin:random"
qualify_games = 2
reference_seats = 1

[judge]
database = "sqlite:///unused.db"
sandbox = "auto"
"""

BATCH_TIMEOUT = 900.0
"""Seconds a batch may take before the script gives up (a stuck judge, not a slow one)."""


@dataclass
class Row:
    """The runs of one backend and worker count (several with ``--repeats``)."""

    backend: str
    workers: int
    submissions: int
    walls: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    states: Counter[str] = field(default_factory=Counter)
    steps: dict[str, list[float]] = field(default_factory=dict)
    busy: list[float] = field(default_factory=list)

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)


def batch(n: int) -> list[tuple[str, bytes]]:
    """The mix: (kind, source) of ``n`` submissions, in a fixed shuffled order."""
    good = (BOTS / "good.c").read_bytes()
    bad = min(round(n / 6), (n - 1) // 2)  # at least one good bot
    items = [("build_failed", (BOTS / "syntax_error.c").read_bytes())] * bad
    items += [("test_failed", (BOTS / "crash.c").read_bytes())] * bad
    items += [("accepted", good)] * (n - 2 * bad)
    random.Random(1).shuffle(items)
    return [
        (kind, f"#define BENCH_VARIANT {i}\n".encode() + src) for i, (kind, src) in enumerate(items)
    ]


def stamp(text: str) -> float:
    """A store time stamp (UTC ISO 8601 with a Z) as seconds."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


@contextmanager
def workers(contest: Path, url: str, count: int, logs: Path) -> Iterator[None]:
    """``count`` ``lightcycle judge worker`` processes, up and polling; stopped on leaving."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    procs: list[tuple[subprocess.Popen[bytes], Path]] = []
    try:
        for k in range(count):
            log = logs / f"worker-{uuid.uuid4().hex[:8]}.log"
            with log.open("wb") as out:
                cmd = [sys.executable, "-m", "lightcycle", "judge", "worker", str(contest)]
                cmd += ["--db", url, "--name", f"bench-{k + 1}"]
                procs.append(
                    (
                        subprocess.Popen(
                            cmd,
                            stdout=out,
                            stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL,
                            env=env,
                        ),
                        log,
                    )
                )
        deadline = time.monotonic() + 120
        for proc, log in procs:
            while "judging" not in log.read_text(errors="replace"):
                if proc.poll() is not None or time.monotonic() > deadline:
                    tail = log.read_text(errors="replace").strip().splitlines()[-3:]
                    raise SystemExit(f"a worker did not start: {' | '.join(tail)}")
                time.sleep(0.05)
        yield
    finally:
        for proc, _ in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc, _ in procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def judge(
    store: JudgeStore, user: int, items: list[tuple[str, bytes]], tag: str
) -> dict[int, tuple[str, SubmissionRow]]:
    """Upload ``items`` and wait for every verdict: {sid: (expected kind, row)}."""
    sids = {
        store.submit(user, f"{tag}{i}"[:12], "c", "bot.c", src): kind
        for i, (kind, src) in enumerate(items)
    }
    deadline = time.monotonic() + BATCH_TIMEOUT
    while True:
        rows = {sid: store.submission(sid) for sid in sids}
        final = {sid: r for sid, r in rows.items() if r is not None and r.state in FINAL_STATES}
        if len(final) == len(sids):
            return {sid: (sids[sid], final[sid]) for sid in sids}
        if time.monotonic() > deadline:
            raise SystemExit(f"the batch did not finish in {BATCH_TIMEOUT:.0f} s")
        time.sleep(0.2)


def measure(row: Row, store: JudgeStore, user: int, items: list[tuple[str, bytes]]) -> None:
    """One batch: its wall time, the accepted bots' upload-to-verdict, the states."""
    done = judge(store, user, items, f"w{row.workers}-")
    subs = [sub for _, sub in done.values()]
    first = min(stamp(s.created_at) for s in subs)
    last = max(stamp(s.updated_at) for s in subs)
    row.walls.append(last - first)
    row.states.update(s.state for s in subs)
    for s in subs:
        if s.state == "accepted" and s.accepted_at is not None:
            row.latencies.append(stamp(s.accepted_at) - stamp(s.created_at))
    busy = 0.0
    for sid in done:
        for job in store.jobs_of(sid):
            if job.state == "done" and job.started_at and job.finished_at:
                took = stamp(job.finished_at) - stamp(job.started_at)
                row.steps.setdefault(job.kind, []).append(took)
                busy += took
    row.busy.append(busy / (row.workers * (last - first)))
    wrong = [(kind, s.state, s.reason) for kind, s in done.values() if s.state != kind]
    for kind, state, reason in wrong[:3]:
        print(f"  note: expected {kind}, got {state}: {reason[:160]}", flush=True)


def lone(store: JudgeStore, user: int, times: int) -> list[float]:
    """Upload-to-verdict of a lone good C bot on an idle judge, ``times`` in a row."""
    good = (BOTS / "good.c").read_bytes()
    out = []
    for i in range(times):
        src = f"#define BENCH_LONE {i} {uuid.uuid4().hex}\n".encode() + good
        ((_, sub),) = judge(store, user, [("accepted", src)], f"lone{i}").values()
        if sub.state == "accepted" and sub.accepted_at is not None:
            out.append(stamp(sub.accepted_at) - stamp(sub.created_at))
        else:
            print(f"  note: the lone bot ended {sub.state}: {sub.reason[:160]}", flush=True)
    return out


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def p90(values: list[float]) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=10, method="inclusive")[8]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submissions", type=int, default=12, help="batch size (default 12)")
    parser.add_argument("--workers", default="1,2,4", help="worker counts (default 1,2,4)")
    parser.add_argument("--backends", default="sqlite,postgresql", help="default both")
    parser.add_argument("--repeats", type=int, default=1, help="batches per row (median wall)")
    parser.add_argument("--lone", type=int, default=3, help="lone uploads per backend")
    args = parser.parse_args()
    if args.submissions < 1 or args.repeats < 1:
        parser.error("--submissions and --repeats must be at least 1")
    counts = [int(w) for w in args.workers.split(",")]
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if shutil.which("gcc") is None:
        raise SystemExit("gcc is not installed: the judge's C builds need it")
    items = batch(args.submissions)
    mix = Counter(kind for kind, _ in items)
    print(f"load average before: {load()} ({os.cpu_count()} cores)")
    print(
        f"batch: {args.submissions} submissions ({mix['accepted']} good C bots, "
        f"{mix['build_failed']} compile errors, {mix['test_failed']} crashes on turn 1); "
        "classic@1 on ring, 0.5 s a move, sandbox auto",
        flush=True,
    )
    rows: list[Row] = []
    lones: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="lightcycle-bench-judge-") as tmp:
        folder = Path(tmp)
        contest = folder / "contest.toml"
        contest.write_text(CONTEST)
        for backend in backends:
            with database_maker(backend, folder) as make:
                if make is None:
                    continue
                for rep in range(args.repeats):
                    for w in counts:
                        print(f"{backend}: {w} worker(s), batch {rep + 1}...", flush=True)
                        row = next(
                            (r for r in rows if (r.backend, r.workers) == (backend, w)), None
                        )
                        if row is None:
                            row = Row(backend, w, args.submissions)
                            rows.append(row)
                        with make() as url, JudgeStore(url) as store:
                            user = store.create_user("bench@example.org", "not-a-real-hash")
                            with workers(contest, url, w, folder):
                                measure(row, store, user, items)
                                if rep == 0 and w == counts[0] and args.lone:
                                    lones[backend] = lone(store, user, args.lone)
    report(rows, lones, counts)
    print(f"load average after: {load()}")


@contextmanager
def database_maker(
    backend: str, folder: Path
) -> Iterator[Callable[[], AbstractContextManager[str]] | None]:
    """Yield a factory of fresh database URLs for ``backend`` (``None``: skipped)."""
    if backend == "sqlite":

        @contextmanager
        def sqlite() -> Iterator[str]:
            path = folder / f"judge-{uuid.uuid4().hex[:8]}.db"
            try:
                yield f"sqlite:///{path}"
            finally:
                for extra in ("", "-wal", "-shm", "-journal"):
                    Path(f"{path}{extra}").unlink(missing_ok=True)

        yield sqlite
        return
    if backend != "postgresql":
        raise SystemExit(f"unknown backend {backend!r}: use sqlite, postgresql")
    from tests.storage.postgres import Unavailable, start_server

    try:
        server = start_server()
    except Unavailable as exc:
        print(f"postgresql: skipped: {exc}", flush=True)
        yield None
        return
    try:

        @contextmanager
        def postgres() -> Iterator[str]:
            name = f"bench_{uuid.uuid4().hex[:16]}"
            server.admin(f'CREATE DATABASE "{name}"')
            try:
                yield server.url(name)
            finally:
                server.admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

        yield postgres
    finally:
        server.stop()


def report(rows: list[Row], lones: dict[str, list[float]], counts: list[int]) -> None:
    """The table, the ratios to the first worker count, the lone uploads."""
    print()
    head = (
        "| backend | workers | submissions | wall s | submissions/min "
        "| upload-to-verdict median s | p90 s | states |"
    )
    print(head)
    print("|---|--:|--:|--:|--:|--:|--:|---|")
    for r in rows:
        states = ", ".join(f"{k} {v}" for k, v in sorted(r.states.items()))
        print(
            f"| {r.backend} | {r.workers} | {r.submissions} | {r.wall:.1f} "
            f"| {r.submissions / r.wall * 60:.1f} | {median(r.latencies):.1f} "
            f"| {p90(r.latencies):.1f} | {states} |"
        )
    print()
    print("| backend | workers | build s | test s | qualify s | workers busy |")
    print("|---|--:|--:|--:|--:|--:|")
    for r in rows:
        took = " | ".join(
            f"{statistics.median(r.steps[k]):.2f}" if r.steps.get(k) else "-"
            for k in ("build", "test", "qualify")
        )
        print(f"| {r.backend} | {r.workers} | {took} | {statistics.median(r.busy):.0%} |")
    print()
    for backend in dict.fromkeys(r.backend for r in rows):
        base = next(r for r in rows if r.backend == backend and r.workers == counts[0])
        ratios = ", ".join(
            f"{r.workers} workers {base.wall / r.wall:.2f}x"
            for r in rows
            if r.backend == backend and r is not base
        )
        print(f"{backend}: throughput against {base.workers} worker: {ratios}")
    for backend, values in lones.items():
        if values:
            shown = ", ".join(f"{v:.1f}" for v in values)
            print(
                f"{backend}: a lone good C bot on an idle judge, {counts[0]} worker(s): "
                f"upload-to-verdict "
                f"median {statistics.median(values):.1f} s ({shown})"
            )


if __name__ == "__main__":
    main()

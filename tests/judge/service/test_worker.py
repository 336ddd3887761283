"""The worker loop: steps run and recorded, failures retried, stopping, and kill -9."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.matches import create_friendly
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.service.tables import (
    FINAL_STATES,
    JobRow,
    SubmissionRow,
    jobs,
    match_seats,
    matches,
    steps,
)
from lightcycle.judge.service.worker import WorkerStats, run_worker
from lightcycle.replay.model import Replay
from tests.judge.service.fakes import CONTEST, FakeResult, fake_step, passing
from tests.judge.service.match_worker import start, stop_all
from tests.judge.service.programs import DUEL, accept_program


@contextmanager
def worker_thread(
    url: str, **kwargs: Any
) -> Iterator[tuple[threading.Event, threading.Event, list[WorkerStats]]]:
    """A worker in a thread (on the fake steps' contest unless ``contest=`` says), stopped
    (and joined) on leaving."""
    stop, abandon = threading.Event(), threading.Event()
    out: list[WorkerStats] = []
    kwargs.setdefault("poll", 0.02)
    contest = kwargs.pop("contest", CONTEST)
    t = threading.Thread(
        target=lambda: out.append(run_worker(url, contest, stop=stop, abandon=abandon, **kwargs))
    )
    t.start()
    try:
        yield stop, abandon, out
    finally:
        stop.set()
        t.join(30)
        assert not t.is_alive()


def wait_for(check: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def states(store: JudgeStore, sids: list[int]) -> list[str]:
    return [s.state for sid in sids if (s := store.submission(sid)) is not None]


def test_workers_take_submissions_to_accepted(db_url: str) -> None:
    with JudgeStore(db_url) as store:
        uid = store.create_user("a@example.org", "h")
        sids = [store.submit(uid, f"b{i}", "c", "b.c", b"x") for i in range(3)]
        with (
            worker_thread(db_url, step=fake_step) as (_, _, s1),
            worker_thread(db_url, step=fake_step) as (_, _, s2),
        ):
            wait_for(lambda: states(store, sids) == ["accepted"] * 3)
        assert sum(s.completed for s in s1 + s2) == 9


def test_an_exception_in_a_step_is_retried_then_an_internal_error(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'j.db'}"
    calls: list[int] = []

    def broken(job: JobRow, sub: SubmissionRow, store: JudgeStore, contest: Contest) -> FakeResult:
        calls.append(job.id)
        raise RuntimeError("the judge's disk is full")

    with JudgeStore(url) as store:
        sid = store.submit(store.create_user("a@example.org", "h"), "b", "c", "b.c", b"x")
        with worker_thread(url, step=broken, max_attempts=3) as (_, _, stats):
            wait_for(lambda: states(store, [sid]) == ["internal_error"])
        sub = store.submission(sid)
        assert sub is not None and "disk is full" in sub.reason and "not your bot" in sub.reason
        assert len(calls) == 3 and stats[0].failed == 3


def test_a_stop_lets_the_step_finish_and_an_abandon_hands_it_back(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'j.db'}"
    started, release = threading.Event(), threading.Event()

    def slow(job: JobRow, sub: SubmissionRow, store: JudgeStore, contest: Contest) -> FakeResult:
        started.set()
        release.wait(10)
        return passing(job)

    with JudgeStore(url) as store:
        sid = store.submit(store.create_user("a@example.org", "h"), "b", "c", "b.c", b"x")
        with worker_thread(url, step=slow, heartbeat=0.05) as (stop, _, stats):
            assert started.wait(10)
            stop.set()
            time.sleep(0.2)  # heartbeats meanwhile; the job stays ours
            release.set()
        assert stats[0].completed == 1 and states(store, [sid]) == ["testing"]
        started.clear()
        release.clear()
        with worker_thread(url, step=slow) as (stop, abandon, stats):
            assert started.wait(10)
            stop.set()
            abandon.set()
            wait_for(lambda: bool(stats))
        release.set()
        assert stats[0].abandoned == 1 and stats[0].completed == 0
        test_job = store.jobs_of(sid)[1]
        assert (test_job.state, test_job.attempts, test_job.worker) == ("queued", 0, None)


def _worker(url: str, runs: Path) -> subprocess.Popen[bytes]:
    return start(url, str(runs), module="tests.judge.service.killable_worker")


def _mid_step(runs: Path) -> set[int]:
    """The pids whose last recorded line is a step's start: killing them loses a step."""
    last: dict[int, str] = {}
    if runs.exists():
        for line in runs.read_text().splitlines():
            what, pid, *_ = line.split()
            last[int(pid)] = what
    return {pid for pid, what in last.items() if what == "start"}


def test_kill_9_of_workers_at_random_moments_loses_and_duplicates_nothing(
    db_url: str, tmp_path: Path
) -> None:
    """Four worker processes judge 20 submissions (60 jobs) while workers are killed
    with SIGKILL, half of them in the middle of a step, half at any moment (a claim, a
    complete, a heartbeat), each replaced by a new one."""
    runs = tmp_path / "runs.txt"
    rng = random.Random(os.getpid())
    with JudgeStore(db_url) as store:
        uid = store.create_user("a@example.org", "h")
        sids = [store.submit(uid, f"b{i}", "c", "b.c", f"{i}".encode()) for i in range(20)]
        procs = [_worker(db_url, runs) for _ in range(4)]
        kills = 0
        try:

            def finished() -> bool:
                return all(s in FINAL_STATES for s in states(store, sids))

            while kills < 6 and not finished():
                time.sleep(rng.uniform(0.1, 0.25))
                alive = [p for p in procs if p.poll() is None]
                busy = [p for p in alive if p.pid in _mid_step(runs)]
                victims = busy if kills % 2 == 0 else alive
                if not victims:
                    continue
                victim = rng.choice(victims)
                victim.send_signal(signal.SIGKILL)
                victim.wait()
                kills += 1
                procs.append(_worker(db_url, runs))
            wait_for(lambda: all(s in FINAL_STATES for s in states(store, sids)), timeout=90)
        finally:
            stop_all(procs)
        assert kills >= 3  # the batch outlasted several kills
        assert states(store, sids) == ["accepted"] * 20
        with store.engine.connect() as conn:
            recorded = Counter(
                (r.submission_id, r.kind)
                for r in conn.execute(sa.select(steps.c.submission_id, steps.c.kind))
            )
            job_rows = conn.execute(sa.select(jobs.c.state, jobs.c.attempts)).all()
        assert recorded == Counter(
            {(sid, kind): 1 for sid in sids for kind in ("build", "test", "qualify")}
        )
        assert [r.state for r in job_rows] == ["done"] * 60
        started = Counter(
            tuple(line.split()[2:])
            for line in runs.read_text().splitlines()
            if line.startswith("start")
        )
        assert len(started) == 60  # every job ran ...
        assert sum(started.values()) > 60  # ... and the killed ones ran again
        assert any(r.attempts > 1 for r in job_rows)
        for sid in sids:
            sub = store.submission(sid)
            assert sub is not None and len(sub.games) == 4 and sub.artifact_sha256 is not None


# -- matches ---------------------------------------------------------------------------


def test_a_friendly_match_is_created_played_and_recorded_by_a_worker(db_url: str) -> None:
    """Real programs, a real worker (its default step), a real game in the sandbox."""
    with JudgeStore(db_url) as store:
        ada = store.create_user("ada@example.org", "h")
        mine = accept_program(store, ada, "Roomy", "good_bot.py")
        mid = create_friendly(store.engine, DUEL, ada, [mine, None])
        with worker_thread(db_url, contest=DUEL) as (_, _, stats):
            wait_for(lambda: _match_state(store, mid) == "done", timeout=60)
        assert stats[0].completed == 1 and stats[0].failed == 0
        match = store.match(mid, replay=True)
        assert match is not None and match.replay is not None
        replay = Replay.from_json(match.replay)
        assert replay.seed == match.seed and replay.outcome is not None
        # a friendly match's seed is drawn at random: any result, as the replay says
        assert [s.name for s in match.seats] == ["Roomy", "dummy 1"]
        assert [s.rank for s in match.seats] == replay.outcome["ranks"]
        roomy = match.seats[0]
        assert roomy.verdict == "ok" and roomy.cpu_used is not None and roomy.cpu_used > 0
        assert store.matches_of_user(ada)[0].state == "done"


def _match_state(store: JudgeStore, mid: int) -> str | None:
    match = store.match(mid)
    return None if match is None else match.state


def test_a_worker_killed_mid_match_leaves_it_to_another_and_it_is_recorded_once(
    db_url: str,
) -> None:
    """A slow program (50 ms a move) plays itself; of two workers, the one playing the
    game is killed with SIGKILL in the middle of it; the other takes the match over once
    its heartbeat lapses, plays it again from the start, and it is recorded once."""
    with JudgeStore(db_url) as store:
        ada = store.create_user("ada@example.org", "h")
        slow = accept_program(store, ada, "Slow", "slow_bot.py")
        mid = create_friendly(store.engine, DUEL, ada, [slow, slow])
        procs = [start(db_url), start(db_url)]
        try:
            wait_for(lambda: _match_state(store, mid) == "running", timeout=30)
            (job,) = store.match_jobs(mid)
            (victim,) = [p for p in procs if f":{p.pid}:" in (job.worker or "")]
            (survivor,) = [p for p in procs if p is not victim]
            time.sleep(0.5)  # the bots have started and are playing
            assert _match_state(store, mid) == "running"
            victim.send_signal(signal.SIGKILL)
            victim.wait()
            wait_for(lambda: _match_state(store, mid) == "done", timeout=60)
        finally:
            stop_all(procs)
        (job,) = store.match_jobs(mid)
        assert (job.state, job.attempts) == ("done", 2)  # played again, by the second worker
        assert f":{survivor.pid}:" in (job.worker or "")
        assert "went silent" in job.error
        match = store.match(mid)
        assert match is not None and len(match.seats) == 2
        assert sorted(s.rank or 0 for s in match.seats) in ([1, 2], [1, 1])
        assert all(s.verdict is not None and s.cpu_used is not None for s in match.seats)
        with store.engine.connect() as conn:
            done = conn.execute(
                sa.select(sa.func.count()).select_from(matches).where(matches.c.state == "done")
            ).scalar()
            seats = conn.execute(sa.select(sa.func.count()).select_from(match_seats)).scalar()
        assert (done, seats) == (1, 2)

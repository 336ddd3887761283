"""The work queue: one job to one worker, stalled jobs handed over, results recorded once."""

from __future__ import annotations

import threading
import time
from collections import Counter

import sqlalchemy as sa

from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.service.tables import JobRow, jobs
from tests.judge.service.fakes import passing


def _submissions(store: JudgeStore, n: int) -> list[int]:
    uid = store.create_user("a@example.org", "h")
    return [store.submit(uid, f"bot{i}", "c", "bot.c", f"{i}".encode()) for i in range(n)]


def test_concurrent_claims_never_give_one_job_to_two_workers(db_url: str) -> None:
    """Eight workers, each with its own store (its own connections), claim together."""
    with JudgeStore(db_url) as setup:
        _submissions(setup, 40)
    got: dict[str, list[JobRow]] = {}
    start = threading.Barrier(8)

    def claimer(name: str) -> None:
        with JudgeStore(db_url) as store:
            start.wait()
            mine = got.setdefault(name, [])
            while (job := store.claim(name)) is not None:
                mine.append(job)
                time.sleep(0.01)  # a worker works between claims: the others get a turn

    threads = [threading.Thread(target=claimer, args=(f"w{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    claimed = [j.id for js in got.values() for j in js]
    assert sorted(claimed) == sorted(set(claimed)) and len(claimed) == 40
    assert sum(1 for js in got.values() if js) >= 2  # the claims really interleaved
    with JudgeStore(db_url) as store, store.engine.connect() as conn:
        rows = conn.execute(sa.select(jobs.c.worker, jobs.c.state, jobs.c.attempts)).all()
    by_worker = Counter(r.worker for r in rows)
    assert by_worker == Counter({name: len(js) for name, js in got.items() if js})
    assert {(r.state, r.attempts) for r in rows} == {("running", 1)}


def test_a_stalled_job_is_handed_over_then_ends_as_an_internal_error(db_url: str) -> None:
    with JudgeStore(db_url) as store:
        (sid,) = _submissions(store, 1)
        for attempt in (1, 2, 3):
            job = store.claim(f"w{attempt}")
            assert job is not None and job.attempts == attempt
            assert store.requeue_stalled(older_than=60) == 0  # its heartbeat is fresh
            time.sleep(0.05)
            assert store.requeue_stalled(older_than=0.01, max_attempts=3) == 1
            assert not store.heartbeat(job.id, f"w{attempt}")  # taken away
            assert not store.complete(job, f"w{attempt}", passing(job))
        sub = store.submission(sid)
        assert sub is not None and sub.state == "internal_error"
        assert (
            "3 times" in sub.reason and "went silent" in sub.reason and "not your bot" in sub.reason
        )
        assert sub.steps == ()  # nothing of the silent workers was recorded
        assert [(j.state, j.attempts) for j in store.jobs_of(sid)] == [("internal_error", 3)]
        assert [s.id for s in store.internal_errors()] == [sid]
        assert store.claim("w9") is None


def test_complete_is_refused_for_a_job_taken_away_and_the_other_result_counts(db_url: str) -> None:
    with JudgeStore(db_url) as store:
        (sid,) = _submissions(store, 1)
        slow = store.claim("slow")
        assert slow is not None
        time.sleep(0.05)
        assert store.requeue_stalled(older_than=0.01) == 1
        fast = store.claim("fast")
        assert fast is not None and fast.id == slow.id and fast.attempts == 2
        assert store.complete(fast, "fast", passing(fast))
        assert not store.complete(slow, "slow", passing(slow))  # back from the dead: ignored
        sub = store.submission(sid)
        assert sub is not None and sub.state == "testing" and len(sub.steps) == 1
        assert [j.kind for j in store.jobs_of(sid)] == ["build", "test"]  # enqueued once


def test_released_jobs_requeue_at_once_or_count_as_stalls(db_url: str) -> None:
    with JudgeStore(db_url) as store:
        (sid,) = _submissions(store, 1)
        job = store.claim("w")
        assert job is not None
        assert store.release(job, "w")  # stopping: back at once, the attempt not counted
        assert not store.release(job, "w")  # no longer ours
        again = store.claim("w")
        assert again is not None and again.attempts == 1
        assert store.release(again, "w", error="RuntimeError: boom", max_attempts=2)
        third = store.claim("w")
        assert third is not None and third.attempts == 2
        assert store.release(third, "w", error="RuntimeError: boom", max_attempts=2)
        sub = store.submission(sid)
        assert (
            sub is not None and sub.state == "internal_error" and "RuntimeError: boom" in sub.reason
        )

"""The worker loop: claim a job, run its step while heartbeating, record the result.

Any number of workers, in ``judge serve`` or as ``lightcycle judge worker`` on other
machines, share one database; the queue (`lightcycle.judge.service.queue`) makes sure a
job runs under one worker at a time and its result is recorded once. Each turn of the
loop first hands back jobs whose worker went silent (so a killed worker's job is redone
by the others), then claims the oldest queued job.

The step runs in a thread of its own while the loop heartbeats, so a step that takes a
long time (a build, several games) keeps its job. An exception in a step is the judge's
fault, never the student's: the job is retried, and after a few failures the
submission ends ``internal_error`` for the admin to look at. Stopping (SIGTERM, Ctrl-C):
the first request lets the current step finish and be recorded, then the loop ends; a
second one (``abandon``) hands the job back to the queue at once, uncounted, and ends.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.queue import MAX_ATTEMPTS, StepLike
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.service.tables import JobRow, SubmissionRow

log = logging.getLogger(__name__)

Step = Callable[[JobRow, SubmissionRow, JudgeStore, Contest], StepLike]
"""What runs a job: `lightcycle.judge.service.pipeline.run_step` (tests pass fakes)."""

DB_RETRY_S = 2.0
"""How long a worker waits after losing its database before it tries again."""


@dataclass
class WorkerStats:
    """What a worker did before it stopped."""

    completed: int = 0
    failed: int = 0
    taken_away: int = 0
    abandoned: int = 0


def default_name() -> str:
    """A name unique across machines and restarts: host, process, a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(2)}"


def run_worker(
    db_url: str,
    contest: Contest,
    *,
    name: str | None = None,
    stop: threading.Event | None = None,
    abandon: threading.Event | None = None,
    poll: float = 0.5,
    heartbeat: float = 2.0,
    stall: float = 10.0,
    max_attempts: int = MAX_ATTEMPTS,
    step: Step | None = None,
) -> WorkerStats:
    """Work on the queue of ``db_url`` until ``stop`` is set (see the module docstring).

    Args:
        db_url: the judge's database.
        contest: the contest the steps judge for.
        name: the worker's name in the jobs table (default: host:pid:random).
        stop: set to stop after the current job (``None``: run until killed).
        abandon: set (with ``stop``) to give the current job back at once.
        poll: seconds to wait when the queue is empty.
        heartbeat: seconds between heartbeats of a running job.
        stall: a running job silent for this long is handed to another worker; much
            longer than ``heartbeat``, so a busy machine is not taken for a dead one.
        max_attempts: stalls before a job ends ``internal_error``.
        step: what runs a job (default: the pipeline's ``run_step``).

    Raises:
        lightcycle.storage.StorageError: the database cannot be opened at the start.
    """
    if step is None:
        from lightcycle.judge.service.pipeline import run_step

        step = run_step
    stop = stop if stop is not None else threading.Event()
    abandon = abandon if abandon is not None else threading.Event()
    worker = name or default_name()
    stats = WorkerStats()
    store = JudgeStore(db_url)
    try:
        while not stop.is_set():
            try:
                store.requeue_stalled(stall, max_attempts)
                job = store.claim(worker)
            except sa.exc.DBAPIError as exc:
                log.warning("worker %s: database error, retrying: %s", worker, _line(exc))
                stop.wait(DB_RETRY_S)
                continue
            if job is None:
                stop.wait(poll)
                continue
            _run_job(store, contest, job, worker, step, abandon, heartbeat, max_attempts, stats)
    finally:
        store.close()
    return stats


def _run_job(
    store: JudgeStore,
    contest: Contest,
    job: JobRow,
    worker: str,
    step: Step,
    abandon: threading.Event,
    heartbeat: float,
    max_attempts: int,
    stats: WorkerStats,
) -> None:
    """Run one claimed job to its recorded end (or hand it back)."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            submission = store.submission(job.submission_id)
            if submission is None:
                raise LookupError(f"submission {job.submission_id} of job {job.id} is missing")
            outcome["result"] = step(job, submission, store, contest)
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=target, name=f"judge-step-{job.id}", daemon=True)
    thread.start()
    last = time.monotonic()
    while thread.is_alive():
        thread.join(min(heartbeat, 0.1))
        if abandon.is_set():
            _db(lambda: store.release(job, worker), "release")
            stats.abandoned += 1
            log.info("worker %s: gave job %s back to the queue", worker, job.id)
            return
        if thread.is_alive() and time.monotonic() - last >= heartbeat:
            last = time.monotonic()
            if _db(lambda: store.heartbeat(job.id, worker), "heartbeat") is False:
                log.warning(
                    "worker %s: job %s was taken away; its result will not count", worker, job.id
                )
    if "error" in outcome:
        exc = outcome["error"]
        log.error("worker %s: job %s (%s) failed", worker, job.id, job.kind, exc_info=exc)
        _db(
            lambda: store.release(job, worker, error=_line(exc), max_attempts=max_attempts),
            "release",
        )
        stats.failed += 1
        return
    if _db(lambda: store.complete(job, worker, outcome["result"]), "complete"):
        stats.completed += 1
    else:
        stats.taken_away += 1
        log.warning("worker %s: job %s was taken away; the other result counts", worker, job.id)


def _db(call: Callable[[], bool], what: str) -> bool | None:
    """Run a store call; a database error is logged (``None``), never fatal: the job's
    heartbeat then lapses and another worker redoes it."""
    try:
        return call()
    except sa.exc.DBAPIError as exc:
        log.warning("%s failed: %s", what, _line(exc))
        return None


def _line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:500]

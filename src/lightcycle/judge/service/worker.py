"""The worker loop: claim a job, run its step while heartbeating, record the result.

Any number of workers, in ``judge serve`` or as ``lightcycle judge worker`` on other
machines, share one database; the queue (`lightcycle.judge.service.queue`) makes sure a
job runs under one worker at a time and its result is recorded once. Each turn of the
loop first hands back jobs whose worker went silent (so a killed worker's job is redone
by the others), then claims the oldest queued job.

The step runs in a thread of its own while the loop heartbeats, so a step that takes a
long time (a build, several games, a match) keeps its job. A match's job is run the same
way (`lightcycle.judge.service.matchplay`): its game, then its results recorded with its
kind's hook in one transaction. An exception in a step (or in recording its result) is
the judge's fault, never the student's: the job is retried, and after a few failures the
submission (or the match) ends ``internal_error`` for the admin to look at. Stopping
(SIGTERM, Ctrl-C): the first request lets the current step finish and be recorded, then
the loop ends; a second one (``abandon``) hands the job back to the queue at once,
uncounted, and ends.
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
from lightcycle.judge.service.matches import MatchResult
from lightcycle.judge.service.queue import MAX_ATTEMPTS, StepLike
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.service.tables import JobRow, MatchRow, SubmissionRow

log = logging.getLogger(__name__)

Step = Callable[[JobRow, SubmissionRow | MatchRow, JudgeStore, Contest], StepLike | MatchResult]
"""What runs a job, given its submission (or its match, for a ``match`` job):
`lightcycle.judge.service.matchplay.run_job` (tests pass fakes)."""

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
        step: what runs a job (default: `matchplay.run_job`: a match, or the
            pipeline's steps).

    Raises:
        lightcycle.storage.StorageError: the database cannot be opened at the start.
    """
    if step is None:  # imported here: the referee loads only where steps really run
        from lightcycle.judge.service.matchplay import run_job

        step = run_job
    stop = stop if stop is not None else threading.Event()
    abandon = abandon if abandon is not None else threading.Event()
    worker = name or default_name()
    stats = WorkerStats()
    _warn_sandbox(worker, contest)
    store = JudgeStore(db_url)
    try:
        while not stop.is_set():
            try:
                store.requeue_stalled(stall, max_attempts, contest)
                job = store.claim(worker)
            except sa.exc.DBAPIError as exc:
                log.warning("worker %s: database error, retrying: %s", worker, _line(exc))
                stop.wait(DB_RETRY_S)
                continue
            except Exception:  # a judge bug (a match hook's): logged, and the worker lives
                log.exception("worker %s: handing back stalled jobs failed", worker)
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
            outcome["result"] = step(job, _subject(store, job), store, contest)
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=target, name=f"judge-step-{job.id}", daemon=True)
    thread.start()
    last = time.monotonic()
    while thread.is_alive():
        thread.join(min(heartbeat, 0.1))
        if abandon.is_set():
            _db(lambda: store.release(job, worker, contest=contest), "release")
            stats.abandoned += 1
            log.info("worker %s: gave job %s back to the queue", worker, job.id)
            return
        if thread.is_alive() and time.monotonic() - last >= heartbeat:
            last = time.monotonic()
            if _db(lambda: store.heartbeat(job.id, worker), "heartbeat") is False:
                log.warning(
                    "worker %s: job %s was taken away; its result will not count", worker, job.id
                )
    done: bool | None = None
    if "error" not in outcome:
        try:
            done = _db(lambda: store.complete(job, worker, outcome["result"], contest), "complete")
        except Exception as failed:  # a judge bug in recording (a hook): nothing written
            outcome["error"] = failed
    if "error" in outcome:
        exc = outcome["error"]
        log.error("worker %s: job %s (%s) failed", worker, job.id, job.kind, exc_info=exc)
        _db(
            lambda: store.release(
                job, worker, error=_line(exc), max_attempts=max_attempts, contest=contest
            ),
            "release",
        )
        stats.failed += 1
        return
    if done:
        stats.completed += 1
    else:
        stats.taken_away += 1
        log.warning("worker %s: job %s was taken away; the other result counts", worker, job.id)


def _warn_sandbox(worker: str, contest: Contest) -> None:
    """Log once, when the worker starts, that its steps run students' code with less than
    the full sandbox (`lightcycle.sandbox.levels.shortfall`): never a silent fall-back.
    Each step's log says what every seat and build had."""
    from lightcycle.sandbox import SandboxError
    from lightcycle.sandbox.levels import shortfall

    try:
        line = shortfall(contest.judge.sandbox)
    except SandboxError as exc:
        line = f"warning: what the sandbox gives here is unknown: {exc}"
    if line is not None:
        log.warning("worker %s: %s", worker, line)


def _subject(store: JudgeStore, job: JobRow) -> SubmissionRow | MatchRow:
    """What a job works on: its match, or its submission (with steps and games)."""
    subject: SubmissionRow | MatchRow | None = None
    if job.match_id is not None:
        subject = store.match(job.match_id)
    elif job.submission_id is not None:
        subject = store.submission(job.submission_id)
    if subject is None:
        what = (
            f"match {job.match_id}"
            if job.match_id is not None
            else f"submission {job.submission_id}"
        )
        raise LookupError(f"{what} of job {job.id} is missing")
    return subject


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

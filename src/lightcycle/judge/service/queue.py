"""The work queue: jobs in a table of the judge's database, claimed atomically.

Why it is safe to kill a worker at any moment (kill -9 included):

- **Claim** takes the oldest queued job in one short transaction: on PostgreSQL
  ``SELECT ... FOR UPDATE SKIP LOCKED`` (concurrent claimers skip each other's rows
  instead of waiting or taking the same one); on SQLite a ``BEGIN IMMEDIATE`` transaction
  (one writer at a time, so the read and the update cannot interleave with another
  claim). The job becomes ``running`` under the worker's name, with ``attempts + 1``.
- **A running job heartbeats** (its worker updates ``heartbeat_at`` every few seconds).
  A job whose heartbeat is older than a limit is handed back to the queue by any worker
  (`requeue_stalled`); after ``max_attempts`` such stalls it ends ``internal_error``,
  and so does its submission: the judge's fault, never the student's, shown to the admin.
- **Complete** records everything a step produced (the step, its games, the build's
  artifact, the submission's next state, the next job) in ONE transaction that first
  checks the job is still ``running`` under this worker: a worker that was thought dead
  and comes back finds its job taken away, records nothing, and the other worker's
  result counts. So a step's result is recorded exactly once, whatever was killed when.
- Every job has a unique ``key`` (``build:17``, ``test:17``): a next job is enqueued once
  even if the step that enqueues it were somehow recorded twice. Jobs are put on the
  queue by `lightcycle.judge.service.jobs`, inside the transaction that creates their
  subject; this module takes them off.
- **A match job** (kind ``match``, key ``match:ID``: one game of several submissions,
  `lightcycle.judge.service.matches`) goes the same way, the match's state mirroring its
  job's: claimed, the match is ``running``; handed back, ``queued`` again (the game is
  replayed from the start: a half-played game is never resumed); completed, its results
  are recorded by `matches.record_match` in the same transaction that checks the job is
  still the worker's, so a match is recorded once; after ``max_attempts`` stalls it ends
  ``internal_error`` and its kind's failure hook runs (a round must go on without it).

Heartbeats are compared with the clock of the process that requeues: the machines
running workers need synchronised clocks (NTP), as any distributed queue does.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

# enqueueing lives in `jobs` (below `matches`, which enqueues); its names stay importable here
from lightcycle.judge.service.jobs import MATCH as MATCH
from lightcycle.judge.service.jobs import enqueue as enqueue
from lightcycle.judge.service.jobs import enqueue_match as enqueue_match
from lightcycle.judge.service.jobs import job_key as job_key
from lightcycle.judge.service.matches import MatchResult, fail_match, record_match
from lightcycle.judge.service.tables import (
    DONE,
    FINAL_STATES,
    INTERNAL_ERROR,
    QUEUED,
    RUNNING,
    RUNNING_STATE,
    JobRow,
    blobs,
    games,
    inserted_id,
    job_row,
    jobs,
    matches,
    names,
    now,
    steps,
    submissions,
)
from lightcycle.storage import begin_write

if TYPE_CHECKING:
    from lightcycle.judge.service.contest import Contest

MAX_ATTEMPTS = 3
"""Stalls (a silent worker, an exception in a step) before a job is an internal error."""


class GameLike(Protocol):
    """What `complete` reads of one game a step played (`pipeline.GameOutcome`)."""

    kind: str
    idx: int
    seats: list[dict[str, Any]]
    result: str
    replay: str


class StepLike(Protocol):
    """What `complete` reads of a step's result (`pipeline.StepResult`)."""

    ok: bool
    state: str
    reason: str
    log: str
    cpu_seconds: float
    artifact: bytes | None
    next_kind: str | None

    @property
    def games(self) -> Sequence[GameLike]: ...


def put_blob(conn: Connection, content: bytes) -> str:
    """Store ``content`` (content-addressed, once) inside the caller's transaction."""
    sha = hashlib.sha256(content).hexdigest()
    if conn.execute(sa.select(blobs.c.sha256).where(blobs.c.sha256 == sha)).first() is None:
        conn.execute(sa.insert(blobs).values(sha256=sha, size=len(content), content=content))
    return sha


def claim(engine: Engine, worker: str) -> JobRow | None:
    """Take the oldest queued job for ``worker`` (see the module docstring), or ``None``."""
    with engine.connect() as conn:  # idle workers poll: a read does not take the write lock
        if (
            conn.execute(sa.select(jobs.c.id).where(jobs.c.state == QUEUED).limit(1)).first()
            is None
        ):
            return None
    with begin_write(engine) as conn:
        row = conn.execute(
            sa.select(jobs)
            .where(jobs.c.state == QUEUED)
            .order_by(jobs.c.id)
            .limit(1)
            .with_for_update(skip_locked=True)
        ).first()
        if row is None:
            return None
        stamp = now()
        conn.execute(
            sa.update(jobs)
            .where(jobs.c.id == row.id)
            .values(
                state=RUNNING,
                worker=worker,
                heartbeat_at=time.time(),
                started_at=stamp,
                attempts=row.attempts + 1,
            )
        )
        if row.kind == MATCH:
            conn.execute(
                sa.update(matches)
                .where(matches.c.id == row.match_id, matches.c.state.in_((QUEUED, RUNNING)))
                .values(state=RUNNING)
            )
        else:
            conn.execute(
                sa.update(submissions)
                .where(submissions.c.id == row.submission_id)
                .where(submissions.c.state.not_in(FINAL_STATES))
                .values(state=RUNNING_STATE.get(row.kind, row.kind), updated_at=stamp)
            )
        claimed = conn.execute(sa.select(jobs).where(jobs.c.id == row.id)).one()
    return job_row(claimed)


def heartbeat(engine: Engine, job_id: int, worker: str) -> bool:
    """Note that ``worker`` still works on the job; ``False``: it was taken away."""
    with begin_write(engine) as conn:
        result = conn.execute(
            sa.update(jobs)
            .where(jobs.c.id == job_id, jobs.c.state == RUNNING, jobs.c.worker == worker)
            .values(heartbeat_at=time.time())
        )
    return result.rowcount == 1


def complete(
    engine: Engine,
    job: JobRow,
    worker: str,
    result: StepLike | MatchResult,
    contest: Contest | None = None,
) -> bool:
    """Record a step's or a match's result in ONE transaction; ``False`` (nothing
    written) if the job is no longer ``running`` under ``worker``.

    Args:
        engine: the judge's database.
        job: the job the result is for.
        worker: the worker that ran it.
        result: a step's result, or a match's (`matches.MatchResult`) for a match job.
        contest: passed to the match kind's hook (the worker's contest).

    Raises:
        RuntimeError: a result that does not fit its job (nothing is written; the
            worker counts it as a stall).
    """
    with begin_write(engine) as conn:
        stamp = now()
        taken = conn.execute(
            sa.update(jobs)
            .where(jobs.c.id == job.id, jobs.c.state == RUNNING, jobs.c.worker == worker)
            .values(state=DONE, finished_at=stamp, heartbeat_at=time.time())
        )
        if taken.rowcount != 1:  # taken away: nothing was written
            return False
        if job.kind == MATCH:
            if job.match_id is None or not isinstance(result, MatchResult):
                raise RuntimeError(f"job {job.id}: a match job needs a match and its result")
            record_match(conn, job.match_id, result, contest)
        elif job.submission_id is None or isinstance(result, MatchResult):
            raise RuntimeError(f"job {job.id}: a {job.kind} job needs a submission and a step")
        else:
            _record_step(conn, job, job.submission_id, result, stamp)
    return True


def _record_step(
    conn: Connection, job: JobRow, submission_id: int, result: StepLike, stamp: str
) -> None:
    """Write a submission step's result (`complete`, after its check)."""
    step_id = inserted_id(
        conn.execute(
            sa.insert(steps).values(
                submission_id=submission_id,
                job_id=job.id,
                kind=job.kind,
                ok=bool(result.ok),
                reason=result.reason,
                log=result.log,
                cpu_seconds=float(result.cpu_seconds),
                created_at=stamp,
            )
        )
    )
    for g in result.games:
        conn.execute(
            sa.insert(games).values(
                submission_id=submission_id,
                step_id=step_id,
                kind=g.kind,
                idx=g.idx,
                seats=json.dumps(g.seats),
                result=g.result,
                replay=g.replay,
            )
        )
    values: dict[str, Any] = {
        "state": result.state,
        "reason": result.reason,
        "updated_at": stamp,
    }
    if result.artifact is not None:
        values["artifact_sha256"] = put_blob(conn, result.artifact)
    if result.state == "accepted":
        values.update(_accept(conn, submission_id, stamp))
    conn.execute(sa.update(submissions).where(submissions.c.id == submission_id).values(**values))
    if result.next_kind is not None and values["state"] not in FINAL_STATES:
        enqueue(conn, result.next_kind, submission_id)


def _accept(conn: Connection, submission_id: int, stamp: str) -> dict[str, Any]:
    """Reserve the accepted submission's name for its user; if another user's submission
    was accepted under it meanwhile, this one fails with that reason instead."""
    sub = conn.execute(sa.select(submissions).where(submissions.c.id == submission_id)).one()
    key = sub.name.casefold()
    owner = conn.execute(sa.select(names.c.user_id).where(names.c.key == key)).first()
    if owner is None:
        conn.execute(
            sa.insert(names).values(key=key, name=sub.name, user_id=sub.user_id, reserved_at=stamp)
        )
    elif owner.user_id != sub.user_id:
        return {
            "state": "qualify_failed",
            "reason": f"the name {sub.name} was taken by another player meanwhile; "
            "submit again under another name",
        }
    return {"accepted_at": stamp}


def release(
    engine: Engine,
    job: JobRow,
    worker: str,
    *,
    error: str | None = None,
    max_attempts: int = MAX_ATTEMPTS,
    contest: Contest | None = None,
) -> bool:
    """Give a job back: ``error=None`` (the worker was asked to stop) requeues it at once
    without counting the attempt; with an error (an exception in the step) it counts as
    a stall. ``False``: the job was no longer this worker's. ``contest`` goes to a
    failed match's hook."""
    with begin_write(engine) as conn:
        row = conn.execute(
            sa.select(jobs)
            .where(jobs.c.id == job.id, jobs.c.state == RUNNING, jobs.c.worker == worker)
            .with_for_update()
        ).first()
        if row is None:
            return False
        if error is None:
            _requeue(conn, row, attempts=max(row.attempts - 1, 0), error=row.error)
        else:
            _stalled(conn, row, error, max_attempts, contest)
    return True


def requeue_stalled(
    engine: Engine,
    older_than: float,
    max_attempts: int = MAX_ATTEMPTS,
    contest: Contest | None = None,
) -> int:
    """Hand back running jobs whose heartbeat is older than ``older_than`` seconds; after
    ``max_attempts`` attempts a job (and its submission or match) ends
    ``internal_error``, a match's kind hook called with ``contest``.

    Returns:
        How many jobs were handed back or ended.
    """
    limit = time.time() - older_than
    stalled = sa.select(jobs.c.id).where(jobs.c.state == RUNNING, jobs.c.heartbeat_at < limit)
    with engine.connect() as conn:  # a read first: every worker asks twice a second, and
        if conn.execute(stalled.limit(1)).first() is None:  # SQLite has one writer at a time
            return 0
    with begin_write(engine) as conn:
        rows = conn.execute(
            sa.select(jobs)
            .where(jobs.c.state == RUNNING, jobs.c.heartbeat_at < limit)
            .order_by(jobs.c.id)
            .with_for_update(skip_locked=True)
        ).all()
        for row in rows:
            silent = time.time() - (row.heartbeat_at or 0.0)
            silent_for = f"worker {row.worker} went silent for {silent:.0f} s"
            _stalled(conn, row, silent_for, max_attempts, contest)
    return len(rows)


def _requeue(conn: Connection, row: Any, *, attempts: int, error: str) -> None:
    conn.execute(
        sa.update(jobs)
        .where(jobs.c.id == row.id)
        .values(state=QUEUED, worker=None, heartbeat_at=None, attempts=attempts, error=error)
    )
    if row.kind == MATCH:  # played again from the start
        conn.execute(
            sa.update(matches)
            .where(matches.c.id == row.match_id, matches.c.state == RUNNING)
            .values(state=QUEUED)
        )


def _stalled(
    conn: Connection, row: Any, error: str, max_attempts: int, contest: Contest | None
) -> None:
    """A job that failed through no fault of the student: retried, or an internal error."""
    if row.attempts < max_attempts:
        _requeue(conn, row, attempts=row.attempts, error=error)
        return
    stamp = now()
    conn.execute(
        sa.update(jobs)
        .where(jobs.c.id == row.id)
        .values(state=INTERNAL_ERROR, worker=None, finished_at=stamp, error=error)
    )
    if row.kind == MATCH:
        reason = (
            f"the judge failed to play this match {row.attempts} times (last: {error}); "
            "it counts for nobody, and the admin has been told"
        )
        fail_match(conn, row.match_id, reason, contest)
        return
    reason = (
        f"the judge failed on the {row.kind} step {row.attempts} times (last: {error}); "
        "this is not your bot's fault, and the admin has been told"
    )
    conn.execute(
        sa.update(submissions)
        .where(submissions.c.id == row.submission_id)
        .values(state=INTERNAL_ERROR, reason=" ".join(reason.split()), updated_at=stamp)
    )

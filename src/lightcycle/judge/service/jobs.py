"""Putting jobs on the work queue, inside the caller's transaction.

A job is added by whoever creates its subject, in the same transaction: the store when
a submission is uploaded or a step enqueues the next one (`enqueue`), `matches` when it
creates a match (`enqueue_match`). The queue itself (`lightcycle.judge.service.queue`:
claims, heartbeats, completion) records a match job's result through `matches`, so the
enqueueing lives here, below both: `matches` imports this module, `queue` imports
`matches`, and nothing imports back. `queue` re-exports these names.

Every job has a unique ``key`` (``build:17``, ``match:5``): a job is enqueued once even if
the step that enqueues it were somehow recorded twice.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from lightcycle.judge.service.tables import QUEUED, inserted_id, jobs, now

MATCH = "match"
"""The kind of a match's job (the others are a submission's steps)."""


def job_key(kind: str, subject_id: int) -> str:
    """The unique key of a submission's job of one kind (or of a match's job)."""
    return f"{kind}:{subject_id}"


def enqueue(conn: Connection, kind: str, submission_id: int) -> int | None:
    """Add a queued job inside the caller's transaction; ``None`` if one with its key exists."""
    return _enqueue(conn, kind, submission_id=submission_id, match_id=None)


def enqueue_match(conn: Connection, match_id: int) -> int | None:
    """Queue a match's job inside the caller's transaction (the one creating the match);
    ``None`` if it has one already."""
    return _enqueue(conn, MATCH, submission_id=None, match_id=match_id)


def _enqueue(
    conn: Connection, kind: str, *, submission_id: int | None, match_id: int | None
) -> int | None:
    subject = match_id if match_id is not None else submission_id
    assert subject is not None  # enqueue and enqueue_match always give one
    key = job_key(kind, subject)
    if conn.execute(sa.select(jobs.c.id).where(jobs.c.key == key)).first() is not None:
        return None
    result = conn.execute(
        sa.insert(jobs).values(
            kind=kind,
            submission_id=submission_id,
            match_id=match_id,
            state=QUEUED,
            attempts=0,
            worker=None,
            heartbeat_at=None,
            created_at=now(),
            error="",
            key=key,
        )
    )
    return inserted_id(result)

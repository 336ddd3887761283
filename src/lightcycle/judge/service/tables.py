"""The judge's tables and the rows the store returns.

Kept apart from `lightcycle.judge.service.store` (the use cases on users and
submissions) and `lightcycle.judge.service.queue` (the work queue), which both read and
write them. The tables are prefixed ``judge_`` and versioned in
``lightcycle_judge_version``, so a judge shares a database with a game server or
tournaments. A test checks these definitions and the migrations agree.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

metadata = sa.MetaData()

users = sa.Table(
    "judge_users",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("email", sa.String(254), nullable=False, unique=True),
    sa.Column("password_hash", sa.String(200), nullable=False),
    sa.Column("is_admin", sa.Boolean, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("official_submission_id", sa.Integer, nullable=True),
)

names = sa.Table(
    "judge_names",
    metadata,
    sa.Column("key", sa.String(16), primary_key=True),
    sa.Column("name", sa.String(16), nullable=False),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("judge_users.id"), nullable=False, index=True),
    sa.Column("reserved_at", sa.String(40), nullable=False),
)

blobs = sa.Table(
    "judge_blobs",
    metadata,
    sa.Column("sha256", sa.String(64), primary_key=True),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("content", sa.LargeBinary, nullable=False),
)

submissions = sa.Table(
    "judge_submissions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("judge_users.id"), nullable=False, index=True),
    sa.Column("name", sa.String(16), nullable=False),
    sa.Column("language", sa.String(32), nullable=False),
    sa.Column("filename", sa.String(200), nullable=False),
    sa.Column("source_sha256", sa.String(64), sa.ForeignKey("judge_blobs.sha256"), nullable=False),
    sa.Column("state", sa.String(20), nullable=False, index=True),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("updated_at", sa.String(40), nullable=False),
    sa.Column("accepted_at", sa.String(40), nullable=True),
    sa.Column("artifact_sha256", sa.String(64), sa.ForeignKey("judge_blobs.sha256"), nullable=True),
    sa.Column("public", sa.Boolean, nullable=False, server_default=sa.false()),
)

steps = sa.Table(
    "judge_steps",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column(
        "submission_id",
        sa.Integer,
        sa.ForeignKey("judge_submissions.id"),
        nullable=False,
        index=True,
    ),
    sa.Column("job_id", sa.Integer, nullable=False, unique=True),
    sa.Column("kind", sa.String(10), nullable=False),
    sa.Column("ok", sa.Boolean, nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("log", sa.Text, nullable=False),
    sa.Column("cpu_seconds", sa.Float, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
)

games = sa.Table(
    "judge_games",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column(
        "submission_id",
        sa.Integer,
        sa.ForeignKey("judge_submissions.id"),
        nullable=False,
        index=True,
    ),
    sa.Column("step_id", sa.Integer, sa.ForeignKey("judge_steps.id"), nullable=False, index=True),
    sa.Column("kind", sa.String(10), nullable=False),
    sa.Column("idx", sa.Integer, nullable=False),
    sa.Column("seats", sa.Text, nullable=False),
    sa.Column("result", sa.String(10), nullable=False),
    sa.Column("replay", sa.Text, nullable=False),
)

rounds = sa.Table(
    "judge_rounds",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("number", sa.Integer, nullable=False, unique=True),
    sa.Column("state", sa.String(16), nullable=False, index=True),
    sa.Column("seed", sa.Integer, nullable=False),
    sa.Column("stage", sa.Integer, nullable=False),
    sa.Column("started_by", sa.Integer, sa.ForeignKey("judge_users.id"), nullable=True),
    sa.Column("started_at", sa.String(40), nullable=False),
    sa.Column("finished_at", sa.String(40), nullable=True),
    sa.Column("out_user_id", sa.Integer, sa.ForeignKey("judge_users.id"), nullable=True),
    sa.Column("out_submission_id", sa.Integer, nullable=True),
    sa.Column("out_name", sa.String(16), nullable=True),
    sa.Column("note", sa.Text, nullable=False),
)

round_entries = sa.Table(
    "judge_round_entries",
    metadata,
    sa.Column("round_id", sa.Integer, sa.ForeignKey("judge_rounds.id"), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("judge_users.id"), primary_key=True),
    sa.Column("submission_id", sa.Integer, sa.ForeignKey("judge_submissions.id"), nullable=False),
    sa.Column("name", sa.String(16), nullable=False),
    sa.Column("safe_stage", sa.Integer, nullable=True),
    sa.Column("out", sa.Boolean, nullable=False),
)

matches = sa.Table(
    "judge_matches",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(10), nullable=False, index=True),
    sa.Column("state", sa.String(16), nullable=False, index=True),
    sa.Column("created_by", sa.Integer, sa.ForeignKey("judge_users.id"), nullable=True),
    sa.Column("round_id", sa.Integer, sa.ForeignKey("judge_rounds.id"), nullable=True, index=True),
    sa.Column("stage", sa.Integer, nullable=True),
    sa.Column("grp", sa.Integer, nullable=True),
    sa.Column("map", sa.String(200), nullable=False),
    sa.Column("seed", sa.Integer, nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("replay", sa.Text, nullable=True),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("finished_at", sa.String(40), nullable=True),
)

match_seats = sa.Table(
    "judge_match_seats",
    metadata,
    sa.Column("match_id", sa.Integer, sa.ForeignKey("judge_matches.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column(
        "submission_id",
        sa.Integer,
        sa.ForeignKey("judge_submissions.id"),
        nullable=True,
        index=True,
    ),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("judge_users.id"), nullable=True, index=True),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("rank", sa.Integer, nullable=True),
    sa.Column("score", sa.Float, nullable=True),
    sa.Column("verdict", sa.String(20), nullable=True),
    sa.Column("detail", sa.Text, nullable=False),
    sa.Column("turn", sa.Integer, nullable=True),
    sa.Column("cpu_used", sa.Float, nullable=True),
    sa.Column("cpu_limit", sa.Float, nullable=True),
    sa.Column("stderr_tail", sa.Text, nullable=False),
)

friends = sa.Table(
    "judge_friends",
    metadata,
    sa.Column("user_id", sa.Integer, sa.ForeignKey("judge_users.id"), primary_key=True),
    sa.Column("friend_id", sa.Integer, sa.ForeignKey("judge_users.id"), primary_key=True),
    sa.Column("created_at", sa.String(40), nullable=False),
)

ratings = sa.Table(
    "judge_ratings",
    metadata,
    sa.Column("submission_id", sa.Integer, sa.ForeignKey("judge_submissions.id"), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.String(40), nullable=False),
)

settings = sa.Table(
    "judge_settings",
    metadata,
    sa.Column("key", sa.String(100), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

jobs = sa.Table(
    "judge_jobs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(10), nullable=False),
    sa.Column(
        "submission_id",
        sa.Integer,
        sa.ForeignKey("judge_submissions.id"),
        nullable=True,
        index=True,
    ),
    sa.Column("match_id", sa.Integer, sa.ForeignKey("judge_matches.id"), nullable=True, index=True),
    sa.Column("state", sa.String(16), nullable=False, index=True),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("worker", sa.String(100), nullable=True),
    sa.Column("heartbeat_at", sa.Float, nullable=True),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("started_at", sa.String(40), nullable=True),
    sa.Column("finished_at", sa.String(40), nullable=True),
    sa.Column("error", sa.Text, nullable=False),
    sa.Column("key", sa.String(100), nullable=False, unique=True),
)

SUBMISSION_STATES = (
    "uploaded",
    "building",
    "build_failed",
    "testing",
    "test_failed",
    "qualifying",
    "qualify_failed",
    "accepted",
    "internal_error",
)
"""Every state of a submission, in the order a good one goes through them (then the end
states a bad one or a failing judge leaves it in)."""

FINAL_STATES = frozenset(
    {"build_failed", "test_failed", "qualify_failed", "accepted", "internal_error"}
)
"""States a submission never leaves."""

QUEUED, RUNNING, DONE, INTERNAL_ERROR = "queued", "running", "done", "internal_error"
"""A job's states."""

JOB_KINDS = ("build", "test", "qualify", "match")
"""What a job does; the submission's state while it runs is ``RUNNING_STATE[kind]``."""

RUNNING_STATE = {"build": "building", "test": "testing", "qualify": "qualifying"}


def inserted_id(result: Any) -> int:
    """The id an ``INSERT`` gave its row (every judge table has an integer ``id``)."""
    key = result.inserted_primary_key
    if key is None:  # pragma: no cover -- an INSERT of one row always has one
        raise RuntimeError("the database gave the new row no id")
    return int(key[0])


def now() -> str:
    """The time as stored: UTC, ISO 8601 with microseconds (sorts as text)."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1e6):06d}Z"


@dataclass(frozen=True)
class UserRow:
    """An account of the judge (the password only as its hash)."""

    id: int
    email: str
    password_hash: str
    is_admin: bool
    created_at: str
    official_submission_id: int | None = None


@dataclass(frozen=True)
class StepRow:
    """One step a submission went through (a build, a test or a qualifying round)."""

    id: int
    submission_id: int
    kind: str
    ok: bool
    reason: str
    log: str
    cpu_seconds: float
    created_at: str


@dataclass(frozen=True)
class GameRow:
    """One game a step played. ``replay`` (the replay's JSON text) is only loaded by
    `JudgeStore.game`; a submission's list leaves it ``None``."""

    id: int
    submission_id: int
    step_id: int
    kind: str
    idx: int
    seats: list[dict[str, Any]]
    result: str
    replay: str | None = None


@dataclass(frozen=True)
class SubmissionRow:
    """A submission; ``steps`` and ``games`` are filled by `JudgeStore.submission` only."""

    id: int
    user_id: int
    name: str
    language: str
    filename: str
    source_sha256: str
    state: str
    reason: str
    created_at: str
    updated_at: str
    accepted_at: str | None
    artifact_sha256: str | None
    public: bool = False
    steps: tuple[StepRow, ...] = field(default_factory=tuple)
    games: tuple[GameRow, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class JobRow:
    """A job of the work queue (`lightcycle.judge.service.queue`)."""

    id: int
    kind: str
    submission_id: int | None
    state: str
    attempts: int
    worker: str | None
    heartbeat_at: float | None
    created_at: str
    started_at: str | None
    finished_at: str | None
    error: str
    key: str
    match_id: int | None = None


MATCH_KINDS = ("friendly", "official", "ladder")
"""What a match is for: a friendly one (results count for nothing, seen by its players'
owners only), a game of an official elimination round, or a ladder game (public, rated)."""

MATCH_STATES = ("queued", "running", "done", "internal_error")
"""A match's states: its job's, mirrored so a page reads one row."""


@dataclass(frozen=True)
class SeatRow:
    """One seat of a match: who sat there and, once played, how it did.

    ``submission_id`` is ``None`` for a reference bot (the contest's Dummy, filling a
    short group or chosen as a friendly opponent); ``user_id`` then too.
    """

    match_id: int
    seat: int
    submission_id: int | None
    user_id: int | None
    name: str
    rank: int | None = None
    score: float | None = None
    verdict: str | None = None
    detail: str = ""
    turn: int | None = None
    cpu_used: float | None = None
    cpu_limit: float | None = None
    stderr_tail: str = ""


@dataclass(frozen=True)
class MatchRow:
    """A match (`lightcycle.judge.service.matches`); ``replay`` is the JSON text once
    played (loaded only by calls that say so), ``seats`` in seat order."""

    id: int
    kind: str
    state: str
    created_by: int | None
    round_id: int | None
    stage: int | None
    grp: int | None
    map: str
    seed: int
    reason: str
    created_at: str
    finished_at: str | None
    seats: tuple[SeatRow, ...] = field(default_factory=tuple)
    replay: str | None = None


def user_row(r: Any) -> UserRow:
    """A `UserRow` from a result row of ``judge_users``."""
    return UserRow(
        r.id, r.email, r.password_hash, bool(r.is_admin), r.created_at, r.official_submission_id
    )


def submission_row(r: Any) -> SubmissionRow:
    """A `SubmissionRow` (without steps and games) from a row of ``judge_submissions``."""
    return SubmissionRow(
        r.id,
        r.user_id,
        r.name,
        r.language,
        r.filename,
        r.source_sha256,
        r.state,
        r.reason,
        r.created_at,
        r.updated_at,
        r.accepted_at,
        r.artifact_sha256,
        bool(r.public),
    )


def step_row(r: Any) -> StepRow:
    """A `StepRow` from a row of ``judge_steps``."""
    return StepRow(
        r.id, r.submission_id, r.kind, bool(r.ok), r.reason, r.log, r.cpu_seconds, r.created_at
    )


def game_row(r: Any, replay: str | None = None) -> GameRow:
    """A `GameRow` from a row of ``judge_games`` (seats decoded from JSON)."""
    return GameRow(
        r.id, r.submission_id, r.step_id, r.kind, r.idx, json.loads(r.seats), r.result, replay
    )


def job_row(r: Any) -> JobRow:
    """A `JobRow` from a row of ``judge_jobs``."""
    return JobRow(
        r.id,
        r.kind,
        r.submission_id,
        r.state,
        r.attempts,
        r.worker,
        r.heartbeat_at,
        r.created_at,
        r.started_at,
        r.finished_at,
        r.error,
        r.key,
        r.match_id,
    )


def seat_row(r: Any) -> SeatRow:
    """A `SeatRow` from a row of ``judge_match_seats``."""
    return SeatRow(
        r.match_id,
        r.seat,
        r.submission_id,
        r.user_id,
        r.name,
        r.rank,
        r.score,
        r.verdict,
        r.detail,
        r.turn,
        r.cpu_used,
        r.cpu_limit,
        r.stderr_tail,
    )


def match_row(r: Any, seats: tuple[SeatRow, ...] = (), replay: str | None = None) -> MatchRow:
    """A `MatchRow` from a row of ``judge_matches`` (seats and replay given apart)."""
    return MatchRow(
        r.id,
        r.kind,
        r.state,
        r.created_by,
        r.round_id,
        r.stage,
        r.grp,
        r.map,
        r.seed,
        r.reason,
        r.created_at,
        r.finished_at,
        seats,
        replay,
    )

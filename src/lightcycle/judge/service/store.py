"""The judge's database: users, player names, submissions with their steps and games,
content-addressed blobs, and the work queue.

Opened with `lightcycle.storage` (SQLite by default, PostgreSQL by URL) and brought up to
date by the alembic migrations in ``lightcycle/judge/service/migrations`` under the
judge's own version table ``lightcycle_judge_version``; the tables (`tables`) are
prefixed ``judge_``. Many processes (the website, workers on other machines) open the
same database at once: every write is a short transaction, and the queue operations
(`queue`) are what make a worker safe to kill at any moment.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Self

import sqlalchemy as sa

from lightcycle.judge.service import matches, queue
from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.matches import MatchResult
from lightcycle.judge.service.queue import MAX_ATTEMPTS, StepLike
from lightcycle.judge.service.tables import (
    INTERNAL_ERROR,
    GameRow,
    JobRow,
    MatchRow,
    SubmissionRow,
    UserRow,
    blobs,
    game_row,
    games,
    inserted_id,
    job_row,
    jobs,
    names,
    now,
    step_row,
    steps,
    submission_row,
    submissions,
    user_row,
    users,
)
from lightcycle.storage import begin_write, migrate, open_engine

SCHEMA_REVISION = "j0002"
"""The newest migration (a test checks it is alembic's head)."""

MIGRATIONS = Path(__file__).resolve().parent / "migrations"

VERSION_TABLE = "lightcycle_judge_version"
"""The judge's own alembic version table."""

NAME = re.compile(r"[A-Za-z0-9_-]{1,12}")
"""What a player name may be: it appears in game lists and replays."""


class SubmitError(ValueError):
    """A submission the judge refuses before storing it; the message is one line."""


class JudgeStore:
    """The judge's database (see the module docstring).

    Args:
        url: an SQLAlchemy URL (``sqlite:///judge.db``, ``postgresql://...``).

    Raises:
        lightcycle.storage.StorageError: a database that cannot be opened or migrated
            (one line).
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = open_engine(url)
        try:
            migrate(self.engine, MIGRATIONS, VERSION_TABLE, head=SCHEMA_REVISION)
        except BaseException:
            self.engine.dispose()
            raise

    def close(self) -> None:
        """Release the connections."""
        self.engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- users ---------------------------------------------------------------------------
    def create_user(self, email: str, password_hash: str) -> int:
        """A new user (not an admin); ``ValueError`` if the email (any case) is taken."""
        try:
            with begin_write(self.engine) as conn:
                result = conn.execute(
                    sa.insert(users).values(
                        email=email.strip().lower(),
                        password_hash=password_hash,
                        is_admin=False,
                        created_at=now(),
                    )
                )
        except sa.exc.IntegrityError:
            raise ValueError(f"{email.strip().lower()} already has an account; log in") from None
        return inserted_id(result)

    def user_by_email(self, email: str) -> UserRow | None:
        """The user with ``email`` (any case), if any."""
        with self.engine.connect() as conn:
            r = conn.execute(sa.select(users).where(users.c.email == email.strip().lower())).first()
        return None if r is None else user_row(r)

    def user(self, user_id: int) -> UserRow | None:
        """The user ``user_id``, if any."""
        with self.engine.connect() as conn:
            r = conn.execute(sa.select(users).where(users.c.id == user_id)).first()
        return None if r is None else user_row(r)

    def set_password(self, user_id: int, password_hash: str) -> None:
        """Store a new (or stronger) hash of a user's password."""
        with begin_write(self.engine) as conn:
            conn.execute(
                sa.update(users).where(users.c.id == user_id).values(password_hash=password_hash)
            )

    def set_admin(self, email: str) -> bool:
        """Make the user with ``email`` an admin; ``False``: there is no such user."""
        with begin_write(self.engine) as conn:
            result = conn.execute(
                sa.update(users).where(users.c.email == email.strip().lower()).values(is_admin=True)
            )
        return result.rowcount == 1

    # -- submissions ---------------------------------------------------------------------
    def submit(self, user_id: int, name: str, language: str, filename: str, content: bytes) -> int:
        """Store an upload and queue its build, in one transaction.

        Raises:
            SubmitError: a bad player name, or one another user has reserved.
        """
        if not NAME.fullmatch(name):
            raise SubmitError(
                f"player name {name!r}: use 1-12 letters, digits, _ or - (e.g. Speedy_3)"
            )
        with begin_write(self.engine) as conn:
            owner = conn.execute(
                sa.select(names.c.user_id).where(names.c.key == name.casefold())
            ).first()
            if owner is not None and owner.user_id != user_id:
                raise SubmitError(f"the player name {name} belongs to someone else; pick another")
            sha = queue.put_blob(conn, content)
            stamp = now()
            sid = inserted_id(
                conn.execute(
                    sa.insert(submissions).values(
                        user_id=user_id,
                        name=name,
                        language=language,
                        filename=filename,
                        source_sha256=sha,
                        state="uploaded",
                        reason="",
                        created_at=stamp,
                        updated_at=stamp,
                    )
                )
            )
            queue.enqueue(conn, "build", sid)
        return sid

    def submissions_of(self, user_id: int) -> list[SubmissionRow]:
        """A user's submissions, newest first (without steps and games)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(submissions)
                .where(submissions.c.user_id == user_id)
                .order_by(submissions.c.id.desc())
            ).all()
        return [submission_row(r) for r in rows]

    def submission(self, sid: int) -> SubmissionRow | None:
        """A submission with its steps and games (the replays not loaded)."""
        with self.engine.connect() as conn:
            r = conn.execute(sa.select(submissions).where(submissions.c.id == sid)).first()
            if r is None:
                return None
            step_rows = conn.execute(
                sa.select(steps).where(steps.c.submission_id == sid).order_by(steps.c.id)
            ).all()
            cols = [c for c in games.c if c.name != "replay"]
            game_rows = conn.execute(
                sa.select(*cols)
                .where(games.c.submission_id == sid)
                .order_by(games.c.step_id, games.c.idx)
            ).all()
        base = submission_row(r)
        return SubmissionRow(
            **{
                k: getattr(base, k)
                for k in base.__dataclass_fields__
                if k not in ("steps", "games")
            },
            steps=tuple(step_row(s) for s in step_rows),
            games=tuple(game_row(g) for g in game_rows),
        )

    def game(self, gid: int) -> GameRow | None:
        """A game with its replay."""
        with self.engine.connect() as conn:
            r = conn.execute(sa.select(games).where(games.c.id == gid)).first()
        return None if r is None else game_row(r, r.replay)

    def blob(self, sha256: str) -> bytes | None:
        """The content stored under ``sha256``, if any."""
        with self.engine.connect() as conn:
            r = conn.execute(sa.select(blobs.c.content).where(blobs.c.sha256 == sha256)).first()
        return None if r is None else bytes(r.content)

    def internal_errors(self) -> list[SubmissionRow]:
        """Submissions the judge failed on (for the admin page), newest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(submissions)
                .where(submissions.c.state == INTERNAL_ERROR)
                .order_by(submissions.c.id.desc())
            ).all()
        return [submission_row(r) for r in rows]

    def jobs_of(self, sid: int) -> list[JobRow]:
        """A submission's jobs, oldest first (for the admin page and tests)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(jobs).where(jobs.c.submission_id == sid).order_by(jobs.c.id)
            ).all()
        return [job_row(r) for r in rows]

    # -- matches (see lightcycle.judge.service.matches) ----------------------------------
    def match(self, mid: int, replay: bool = False) -> MatchRow | None:
        """A match with its seats (and its replay's JSON text with ``replay``)."""
        with self.engine.connect() as conn:
            return matches.load_match(conn, mid, replay=replay)

    def matches_of_user(self, user_id: int) -> list[MatchRow]:
        """The friendly matches with a program of ``user_id``, newest first."""
        with self.engine.connect() as conn:
            return matches.matches_of_user(conn, user_id)

    def match_jobs(self, mid: int) -> list[JobRow]:
        """A match's jobs (one; for the admin page and tests)."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(jobs).where(jobs.c.match_id == mid)).all()
        return [job_row(r) for r in rows]

    # -- the queue (see lightcycle.judge.service.queue) ----------------------------------
    def claim(self, worker: str) -> JobRow | None:
        """Take the oldest queued job for ``worker``, or ``None`` if there is none."""
        return queue.claim(self.engine, worker)

    def heartbeat(self, job_id: int, worker: str) -> bool:
        """Note that ``worker`` still works on the job; ``False``: it was taken away."""
        return queue.heartbeat(self.engine, job_id, worker)

    def complete(
        self,
        job: JobRow,
        worker: str,
        result: StepLike | MatchResult,
        contest: Contest | None = None,
    ) -> bool:
        """Record a step's or match's result in ONE transaction; ``False`` if no longer
        ours (``contest`` goes to a match kind's hook)."""
        return queue.complete(self.engine, job, worker, result, contest)

    def release(
        self,
        job: JobRow,
        worker: str,
        *,
        error: str | None = None,
        max_attempts: int = MAX_ATTEMPTS,
        contest: Contest | None = None,
    ) -> bool:
        """Give a job back (stopping: at once, uncounted; an error: counted as a stall)."""
        return queue.release(
            self.engine, job, worker, error=error, max_attempts=max_attempts, contest=contest
        )

    def requeue_stalled(
        self, older_than: float, max_attempts: int = MAX_ATTEMPTS, contest: Contest | None = None
    ) -> int:
        """Hand back jobs whose worker went silent; internal errors after ``max_attempts``."""
        return queue.requeue_stalled(self.engine, older_than, max_attempts, contest)

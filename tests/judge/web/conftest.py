"""The judge's website on the real `JudgeStore` (SQLite in tmp_path), a contest and a
real replay. The tests drive a submission's state through the store's queue, as a
worker's ``claim`` and ``complete`` would, without running builds or games."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from lightcycle.judge.service.contest import (
    Contest,
    FriendlySpec,
    JudgeSpec,
    LimitsSpec,
    OfficialSpec,
)
from lightcycle.judge.service.pipeline import GameOutcome, StepResult
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.service.tables import JobRow, submissions, users
from lightcycle.referee.local import play

SOURCE_SIZE = 4096
"""The test contest's upload limit."""


class DrivenStore(JudgeStore):
    """The real store, with `record`: what a worker's claim and complete would do."""

    WORKER = "test-worker"

    def take(self, sid: int) -> JobRow:
        """Claim submission ``sid``'s queued job (the tests queue one at a time)."""
        job = self.claim(self.WORKER)
        assert job is not None and job.submission_id == sid, f"no queued job of {sid}: {job}"
        return job

    def record(
        self,
        sid: int,
        state: str,
        reason: str = "",
        *,
        step: tuple[str, bool, str] = ("build", True, ""),
        games: Sequence[tuple[list[dict[str, Any]], str, str | None]] = (),
        next_kind: str | None = None,
    ) -> list[int]:
        """Complete ``sid``'s job: the submission goes to ``state`` with a step (kind, ok,
        log) and its games (seats, result, replay); returns the games' ids."""
        job = self.take(sid)
        kind, ok, log = step
        outcomes = [
            GameOutcome(kind=kind, idx=i, seats=seats, result=result, replay=replay or "")
            for i, (seats, result, replay) in enumerate(games, 1)
        ]
        result = StepResult(ok, state, reason, log, 0.25, outcomes, None, next_kind)
        assert self.complete(job, self.WORKER, result)
        row = self.submission(sid)
        assert row is not None and row.state == state
        return [g.id for g in row.games if g.step_id == row.steps[-1].id]

    def fail_internally(self, sid: int, error: str) -> None:
        """End ``sid``'s job as the judge's own failure (its last attempt raised)."""
        job = self.take(sid)
        assert self.release(job, self.WORKER, error=error, max_attempts=1)

    def count_submissions(self) -> int:
        with self.engine.connect() as conn:
            return int(
                conn.execute(sa.select(sa.func.count()).select_from(submissions)).scalar_one()
            )

    def count_users(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(users)).scalar_one())


@pytest.fixture
def contest(tmp_path: Path) -> Contest:
    return Contest(
        name="test-contest",
        title="Test contest",
        ruleset="classic",
        maps=("ring",),
        players=2,
        limits=LimitsSpec(cpu_time=2.0, source_size=SOURCE_SIZE),
        official=OfficialSpec(mode="elimination", finalists=1, group_size=2),
        friendly=FriendlySpec(players=(2,)),
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[DrivenStore]:
    with DrivenStore(f"sqlite:///{tmp_path / 'judge.db'}") as s:
        yield s


@pytest.fixture
def app(store: DrivenStore, contest: Contest) -> Any:
    """The site on ``store`` and ``contest`` (imported here: a test module that needs it
    has skipped first when FastAPI is missing)."""
    from lightcycle.judge.web.app import create_app

    return create_app(store, contest, b"k" * 32)


@pytest.fixture
def client(app: Any) -> Iterator[Any]:
    """A browser on `app` (a session of its own)."""
    from starlette.testclient import TestClient

    with TestClient(app) as c:
        yield c


@pytest.fixture
def jane(app: Any) -> Iterator[Any]:
    """A student's browser on `app` (a session of its own), for the tests of two (`bob`)."""
    from starlette.testclient import TestClient

    with TestClient(app) as c:
        yield c


@pytest.fixture
def bob(app: Any) -> Iterator[Any]:
    """``jane``'s classmate's browser on `app` (another session)."""
    from starlette.testclient import TestClient

    with TestClient(app) as c:
        yield c


@contextmanager
def serving(contest: Contest, tmp_path: Path) -> Iterator[Any]:
    """The judge (`lightcycle.judge.web.serve.Judge`) serving ``contest`` for real on
    127.0.0.1 (port 0), its database in ``tmp_path``, no workers: the test drives the
    states. Stopped after, and checked to have stopped (an open event stream included)."""
    pytest.importorskip(
        "uvicorn", reason="judge serve needs uvicorn: pip install 'lightcycle[web]'"
    )
    from lightcycle.judge.web.serve import Judge

    spec = JudgeSpec(
        database=f"sqlite:///{tmp_path / 'judge.db'}",
        secret_key_file=str(tmp_path / "judge.secret"),
        workers=0,
        host="127.0.0.1",
        port=0,
    )
    judge = Judge(dataclasses.replace(contest, judge=spec))
    thread = threading.Thread(target=judge.run, name="judge-site")
    thread.start()
    try:
        assert judge.ready.wait(30), "the judge's site did not start"
        yield judge
    finally:
        judge.stop()
        thread.join(30)
    assert not thread.is_alive(), "the judge did not stop (an event stream still open?)"


@pytest.fixture(scope="session")
def replay_json() -> str:
    """A real game's replay (torus-20, chaser against runaway)."""
    return play("torus-20", ["chaser", "runaway"], seed=5).replay.to_json()


def crash_seats() -> list[dict[str, Any]]:
    """The seats of a self-play game in which copy 2 crashed."""
    return [
        {
            "name": "jane_2",
            "verdict": "ok",
            "detail": "",
            "cpu_used": 0.012,
            "cpu_limit": 2.0,
            "stderr_tail": "",
            "rank": 1,
        },
        {
            "name": "jane_2 (copy 2)",
            "verdict": "crashed",
            "detail": "exit status 139 on turn 1",
            "cpu_used": 0.004,
            "cpu_limit": 2.0,
            "stderr_tail": "Segmentation fault <core dumped>",
            "rank": 2,
        },
    ]

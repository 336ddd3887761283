"""Accepted programs for the match tests, made in a second and without a compiler.

A Python bot needs no build (its artifact is the source), so `accept_program` stores a
submission already ``accepted``, with the artifact the pipeline's build step would
have made: the match tests play real games between real programs without running the
validation steps first (tests/judge/service/test_pipeline.py tests those). Also
imported by the worker processes of the kill -9 test (`match_worker`).

`insert_program` and `accepted_players` are quicker still, for the tests of what comes
after a program is judged (who may use it, rounds, the ladder, the CLI): a row inserted
as if judged, with no build at all. `open_matches` and `wait_until` are the match tests'
other shared steps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from lightcycle.judge.service.contest import (
    Contest,
    FriendlySpec,
    JudgeSpec,
    LimitsSpec,
    OfficialSpec,
    ValidationSpec,
)
from lightcycle.judge.service.languages import language_for
from lightcycle.judge.service.matches import load_matches
from lightcycle.judge.service.pipeline import build_source
from lightcycle.judge.service.queue import put_blob
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.service.tables import MatchRow, inserted_id, jobs, matches, now, submissions
from lightcycle.sandbox.check import bwrap_usable
from lightcycle.storage import begin_write

BOTS = Path(__file__).parent / "bots"


def sandbox() -> str:
    """Every protection where bwrap works, else the best this machine has."""
    return "full" if bwrap_usable() else "auto"


DUEL = Contest(
    name="duel",
    title="match test duel",
    ruleset="classic@1",
    maps=("arena-15",),
    players=2,
    limits=LimitsSpec(move_time=2.0, first_move_time=5.0, memory=256),  # a loaded machine
    validation=ValidationSpec(
        protocol="tron2010", self_play_copies=2, reference="builtin:random", reference_seats=1
    ),
    judge=JudgeSpec(sandbox=sandbox()),
    official=OfficialSpec(group_size=2, filler="builtin:random"),
    friendly=FriendlySpec(players=(2,)),
)
"""A small duel (classic rules on arena-15): a game takes about a second."""

TRON3D = Contest(
    name="tron3d",
    title="match test 3D",
    ruleset="tron3d@1",
    maps=("cube",),
    players=4,
    limits=LimitsSpec(cpu_time=2.0, move_time=1.0, first_move_time=3.0, memory=256),
    validation=ValidationSpec(protocol="jsonl", reference="builtin:dummy"),
    judge=JudgeSpec(sandbox=sandbox()),
    friendly=FriendlySpec(players=(2, 4)),
)
"""The 3D course's rules, which score: friendly matches of 2 or 4."""


def accept_program(
    store: JudgeStore, user_id: int, name: str, filename: str, contest: Contest = DUEL
) -> int:
    """Submit ``bots/FILENAME`` (Python) for ``user_id`` and make it accepted at once."""
    source = (BOTS / filename).read_bytes()
    sid = store.submit(user_id, name, "python", filename, source)
    language = language_for("python", source, contest.ruleset, dict(contest.languages))
    built = build_source(language, filename, source, contest)
    assert built.ok and built.artifact is not None, built.reason
    with begin_write(store.engine) as conn:
        sha = put_blob(conn, built.artifact)
        conn.execute(
            sa.update(submissions)
            .where(submissions.c.id == sid)
            .values(state="accepted", artifact_sha256=sha, accepted_at="2026-01-01T00:00:00Z")
        )
        conn.execute(sa.delete(jobs).where(jobs.c.submission_id == sid))  # no build to run
    return sid


def insert_program(
    engine: Engine,
    user_id: int,
    name: str,
    artifact: bytes | None = None,
    *,
    state: str = "accepted",
    public: bool = False,
) -> int:
    """A submission of ``user_id`` inserted as if judged to ``state`` (for the tests of
    what comes after: who may use it, rounds, the ladder), with a tiny source, or the
    source and the build ``artifact`` of a real program; its submission id."""
    with begin_write(engine) as conn:
        sha = put_blob(conn, f"source of {name}".encode())
        built = None if artifact is None else put_blob(conn, artifact)
        stamp = now()
        return inserted_id(
            conn.execute(
                sa.insert(submissions).values(
                    user_id=user_id,
                    name=name,
                    language="python",
                    filename="bot.py",
                    source_sha256=sha,
                    state=state,
                    reason="",
                    created_at=stamp,
                    updated_at=stamp,
                    accepted_at=stamp if state == "accepted" else None,
                    artifact_sha256=built,
                    public=public,
                )
            )
        )


def accepted_players(store: JudgeStore, n: int, prefix: str = "bot") -> dict[int, int]:
    """``n`` users (u0@example.org, ...) with one accepted program each, named PREFIX0,
    PREFIX1, ... (`insert_program`): submission id -> user id, in creation order."""
    out = {}
    for i in range(n):
        uid = store.create_user(f"u{i}@example.org", "h")
        out[insert_program(store.engine, uid, f"{prefix}{i}")] = uid
    return out


def open_matches(store: JudgeStore, kind: str) -> list[MatchRow]:
    """The matches of ``kind`` not yet ended (queued or running), oldest first."""
    with store.engine.connect() as conn:
        found = load_matches(
            conn, sa.and_(matches.c.kind == kind, matches.c.state.in_(("queued", "running")))
        )
    return found[::-1]


def wait_until(check: Callable[[], bool], timeout: float) -> None:
    """Poll ``check`` every 50 ms until it holds; fail the test after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)

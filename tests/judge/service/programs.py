"""Accepted programs for the match tests, made in a second and without a compiler.

A Python bot needs no build (its artifact is the source), so `accept_program` stores a
submission already ``accepted``, with the artifact the pipeline's build step would
have made: the match tests play real games between real programs without running the
validation steps first (tests/judge/service/test_pipeline.py tests those). Also
imported by the worker processes of the kill -9 test (`match_worker`).
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from lightcycle.judge.service.contest import (
    Contest,
    FriendlySpec,
    JudgeSpec,
    LimitsSpec,
    OfficialSpec,
    ValidationSpec,
)
from lightcycle.judge.service.languages import language_for
from lightcycle.judge.service.pipeline import build_source
from lightcycle.judge.service.queue import put_blob
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.service.tables import jobs, submissions
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

"""A fake pipeline step for the queue tests: what is tested is the queue, not the steps.

`FakeResult` has the shape of `lightcycle.judge.service.pipeline.StepResult` (what the
store's ``complete`` reads); `fake_step` walks a submission build -> test -> qualify ->
accepted. Also imported by the worker processes of the kill -9 test.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.service.tables import JobRow, SubmissionRow

CONTEST = Contest(name="t", title="t", ruleset="tron3d@1", maps=("cube",), players=4)
"""A contest the fake steps ignore (built directly: no file to read)."""

NEXT = {
    "build": ("testing", "test"),
    "test": ("qualifying", "qualify"),
    "qualify": ("accepted", None),
}


@dataclass
class FakeGame:
    """One game of a fake step (`pipeline.GameOutcome`'s shape)."""

    kind: str
    idx: int
    seats: list[dict[str, Any]]
    result: str
    replay: str


@dataclass
class FakeResult:
    """A fake step's result (`pipeline.StepResult`'s shape)."""

    ok: bool
    state: str
    reason: str
    log: str
    cpu_seconds: float
    games: list[FakeGame] = field(default_factory=list)
    artifact: bytes | None = None
    next_kind: str | None = None


def passing(job: JobRow) -> FakeResult:
    """The result of a step that passes: the submission moves on."""
    state, next_kind = NEXT[job.kind]
    games = []
    if job.kind != "build":
        seats = [{"name": "me", "verdict": "ok", "rank": 1}, {"name": "dummy", "rank": 2}]
        games = [FakeGame(job.kind, i, seats, "win", f'{{"game": {i}}}') for i in range(2)]
    artifact = f"artifact of {job.submission_id}".encode() if job.kind == "build" else None
    return FakeResult(True, state, "", f"{job.kind} log", 0.25, games, artifact, next_kind)


def fake_step(
    job: JobRow, submission: SubmissionRow, store: JudgeStore, contest: Contest
) -> FakeResult:
    """A step that always passes at once."""
    return passing(job)


class RecordingStep:
    """A step that takes a random short time and appends each run's start and end to a
    file (one ``O_APPEND`` write a line: lines of several processes never mix)."""

    def __init__(self, path: Path, low: float = 0.05, high: float = 0.25) -> None:
        self.path = path
        self.low, self.high = low, high

    def _line(self, text: str) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)

    def __call__(
        self, job: JobRow, submission: SubmissionRow, store: JudgeStore, contest: Contest
    ) -> FakeResult:
        self._line(f"start {os.getpid()} {job.id} {job.kind} {job.submission_id}\n")
        time.sleep(random.uniform(self.low, self.high))
        self._line(f"end {os.getpid()} {job.id} {job.kind} {job.submission_id}\n")
        return passing(job)

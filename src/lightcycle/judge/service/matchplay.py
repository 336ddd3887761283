"""Playing a match: one game of accepted submissions (and Dummies), as qualifying games are.

A worker that claims a match's job calls `run_job` (the worker's step for every kind of
job: a submission's steps go to `lightcycle.judge.service.pipeline.run_step`), which
calls `play_match`. Each seat with a submission runs that submission's build artifact,
unpacked in a folder of its own (two seats of one submission share it), with its
language's run command; a seat without one runs the contest's filler bot (``[official]
filler``, a Dummy). The game is played by `pipeline.play_game`, the function that plays
the qualifying games: in the sandbox at the contest's level, under its time control,
CPU budget and memory limit, on the map and with the seed the match was created with,
so a match replayed after a worker died is the same game.

A student's failure (a crash, a timeout) is part of the result; an exception is the
judge's fault (an artifact missing, a map no longer in the pool): the job is retried and
after a few tries the match ends ``internal_error``.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.languages import language_for
from lightcycle.judge.service.matches import MatchResult, SeatResult, map_pool
from lightcycle.judge.service.pipeline import (
    StepResult,
    play_game,
    program_spec,
    run_step,
    unpack,
)
from lightcycle.judge.service.tables import JobRow, MatchRow, SubmissionRow
from lightcycle.referee.game import GameRecord
from lightcycle.referee.players import BotSpec, parse_bot_spec
from lightcycle.rules.variants import get_ruleset


class MatchStore(Protocol):
    """What playing a match reads of the store (`JudgeStore`)."""

    def submission(self, sid: int) -> SubmissionRow | None: ...

    def blob(self, sha256: str) -> bytes | None: ...


def run_job(
    job: JobRow, subject: SubmissionRow | MatchRow, store: MatchStore, contest: Contest
) -> StepResult | MatchResult:
    """Run any job: a match's (``subject`` its match) or a submission's step.

    Raises:
        RuntimeError: a job given the wrong subject, and the judge's faults of
            `play_match` and `pipeline.run_step`.
    """
    if job.kind == "match":
        if not isinstance(subject, MatchRow):
            raise RuntimeError(f"job {job.id}: a match job was given no match")
        return play_match(subject, store, contest)
    if isinstance(subject, MatchRow):
        raise RuntimeError(f"job {job.id}: a {job.kind} job was given a match")
    return run_step(job, subject, store, contest)


def play_match(match: MatchRow, store: MatchStore, contest: Contest) -> MatchResult:
    """Play the match's one game (see the module docstring).

    Raises:
        RuntimeError: a submission, its source or its artifact missing, or the match's
            map no longer in the contest's pool.
    """
    if not match.seats:
        raise RuntimeError(f"match {match.id} has no seats")
    maps = {spec.id: spec for spec in map_pool(contest, len(match.seats))}
    spec = maps.get(match.map)
    if spec is None:
        raise RuntimeError(
            f"match {match.id}: its map {match.map} is no longer in the contest's pool "
            f"for {len(match.seats)} players"
        )
    filler = parse_bot_spec(contest.official.filler)
    with tempfile.TemporaryDirectory(prefix="lightcycle-judge-match-") as tmp:
        os.chmod(tmp, 0o755)  # the sandbox's pool users read the bots' folders
        folders: dict[int, Path] = {}
        specs: list[BotSpec] = []
        for seat in match.seats:
            if seat.submission_id is None:
                specs.append(replace(filler, name=seat.name))
                continue
            specs.append(_seat_spec(seat.submission_id, seat.name, store, contest, tmp, folders))
        mine = [seat.submission_id is not None for seat in match.seats]
        record, seats = play_game(specs, contest, spec, match.seed, mine)
    scores = _scores(record, contest)
    return MatchResult(
        reason=record.outcome.reason,
        replay=record.replay.to_json(),
        map=spec.id,
        seats=tuple(_seat_result(s, scores[i] if scores else None) for i, s in enumerate(seats)),
    )


def _seat_spec(
    sid: int, name: str, store: MatchStore, contest: Contest, tmp: str, folders: dict[int, Path]
) -> BotSpec:
    """A submission's seat: its artifact unpacked once per match, run as ``name``."""
    sub = store.submission(sid)
    if sub is None:
        raise RuntimeError(f"submission {sid} is missing")
    source = store.blob(sub.source_sha256)
    artifact = store.blob(sub.artifact_sha256) if sub.artifact_sha256 else None
    if source is None or artifact is None:
        raise RuntimeError(f"submission {sid}: its source or build artifact is missing")
    language = language_for(sub.language, source, contest.ruleset, dict(contest.languages))
    folder = folders.get(sid)
    if folder is None:
        folder = folders[sid] = Path(tmp) / f"submission-{sid}"
        folder.mkdir()
        unpack(artifact, folder)
    return program_spec(language, sub.filename, folder, contest, name)


def _scores(record: GameRecord, contest: Contest) -> list[float] | None:
    """Each seat's team's final score where the ruleset scores (tron3d), else ``None``."""
    rs = get_ruleset(contest.ruleset)
    if not any(stage.split(".")[0] == "score" or stage.endswith(".score") for stage in rs.stages):
        return None
    scores = record.final.scores
    return [float(scores[s]) if s < len(scores) else 0.0 for s in range(len(record.seats))]


def _seat_result(seat: dict[str, Any], score: float | None) -> SeatResult:
    return SeatResult(
        rank=int(seat["rank"]),
        score=score,
        verdict=str(seat["verdict"]),
        detail=str(seat["detail"]),
        turn=seat["turn"],
        cpu_used=float(seat["cpu_used"]),
        cpu_limit=seat["cpu_limit"],
        stderr_tail=str(seat["stderr_tail"]),
    )

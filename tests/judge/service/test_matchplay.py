"""Playing a match: real Python programs and Dummies in the sandbox, one game each."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from lightcycle.judge.service import matches
from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.matches import Entrant, MatchResult
from lightcycle.judge.service.matchplay import play_match, run_job
from lightcycle.judge.service.pipeline import StepResult
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.service.tables import JobRow, submissions
from lightcycle.replay.model import Replay
from lightcycle.storage import begin_write
from tests.judge.service.programs import DUEL, TRON3D, accept_program


def _store(tmp_path: Path) -> JudgeStore:
    return JudgeStore(f"sqlite:///{tmp_path / 'judge.db'}")


def _match(
    store: JudgeStore, entrants: list[Entrant], contest: Contest = DUEL, seed: int = 3
) -> int:
    with begin_write(store.engine) as conn:
        return matches.create_match(conn, contest, kind="friendly", entrants=entrants, seed=seed)


def test_a_program_against_a_dummy_in_a_duel(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        uid = store.create_user("ada@example.org", "h")
        sid = accept_program(store, uid, "Roomy", "good_bot.py")
        mid = _match(store, [Entrant(None, None, "dummy 1"), Entrant(sid, uid, "Roomy")])
        match = store.match(mid)
        assert match is not None
        result = play_match(match, store, DUEL)
    assert isinstance(result, MatchResult) and result.map == "arena-15@1" == match.map
    assert [s.rank for s in result.seats] == [2, 1]  # the flood fill outlives random moves
    assert [s.score for s in result.seats] == [None, None]  # classic rules do not score
    dummy, mine = result.seats
    assert mine.verdict == "ok" and mine.cpu_used > 0 and mine.turn is None
    assert dummy.stderr_tail == ""  # only a submission's stderr is kept
    assert result.reason
    replay = Replay.from_json(result.replay)
    assert [s["name"] for s in replay.seats] == ["dummy 1", "Roomy"]
    assert replay.seed == 3


def test_tron3d_scores_and_two_seats_of_one_program(tmp_path: Path) -> None:
    """The 3D rules rank by score: each seat gets its team's final score. The same
    program may sit twice (unpacked once, run twice)."""
    with _store(tmp_path) as store:
        uid = store.create_user("ada@example.org", "h")
        sid = accept_program(store, uid, "Graph", "graph_bot.py", TRON3D)
        mid = _match(store, [Entrant(sid, uid, "Graph"), Entrant(sid, uid, "Graph")], TRON3D)
        match = store.match(mid)
        assert match is not None and match.map == "cube@1"
        result = play_match(match, store, TRON3D)
    replay = Replay.from_json(result.replay)
    assert [s.verdict for s in result.seats] == ["ok", "ok"]
    assert all(isinstance(s.score, float) and s.score > 0 for s in result.seats)
    assert [s.score for s in result.seats] == [float(x) for x in replay.outcome["scores"]]
    assert [s.cpu_limit for s in result.seats] == [2.0, 2.0]
    assert len({s["name"] for s in replay.seats}) == 2  # the referee told the copies apart


def test_a_missing_artifact_is_the_judges_fault(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        uid = store.create_user("ada@example.org", "h")
        sid = accept_program(store, uid, "Roomy", "good_bot.py")
        mid = _match(store, [Entrant(sid, uid, "Roomy"), Entrant(None, None, "dummy 1")])
        with begin_write(store.engine) as conn:
            conn.execute(sa.update(submissions).values(artifact_sha256=None))
        match = store.match(mid)
        assert match is not None
        with pytest.raises(RuntimeError, match="artifact is missing"):
            play_match(match, store, DUEL)


def test_run_job_gives_each_kind_of_job_its_subject(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        uid = store.create_user("ada@example.org", "h")
        sid = accept_program(store, uid, "Roomy", "good_bot.py")
        mid = _match(store, [Entrant(sid, uid, "Roomy"), Entrant(None, None, "dummy 1")])
        match, sub = store.match(mid), store.submission(sid)
        assert match is not None and sub is not None
        (job,) = store.match_jobs(mid)
        assert (job.kind, job.key, job.submission_id) == ("match", f"match:{mid}", None)
        with pytest.raises(RuntimeError, match="given no match"):
            run_job(job, sub, store, DUEL)
        test_job = JobRow(0, "test", sid, "running", 1, "w", None, "", None, None, "", "t")
        with pytest.raises(RuntimeError, match="given a match"):
            run_job(test_job, match, store, DUEL)
        tested = run_job(test_job, sub, store, DUEL)  # the pipeline's self-play test
        assert isinstance(tested, StepResult) and tested.ok, tested.reason

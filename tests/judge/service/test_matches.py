"""Matches: created whole, claimed, recorded once with their kind's hook, failed once.

The queue's parts run on SQLite and on PostgreSQL (the ``db_url`` fixture). A played
result is made by hand here (`_result`): playing real games is test_matchplay.py's and,
through real workers, test_worker.py's.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from lightcycle.judge.service import matches
from lightcycle.judge.service.matches import (
    Entrant,
    MatchError,
    MatchResult,
    SeatResult,
    create_friendly,
    create_match,
    match_hook,
)
from lightcycle.judge.service.social import SocialError
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.service.tables import jobs, match_seats
from lightcycle.storage import begin_write
from tests.judge.service import match_hooks
from tests.judge.service.programs import DUEL, TRON3D, accept_program

HOOKS = "tests.judge.service.match_hooks"


def _players(store: JudgeStore, n: int = 2) -> list[Entrant]:
    """``n`` users, each with a submission (not built: these matches are never played)."""
    out = []
    for i in range(n):
        uid = store.create_user(f"p{i}@example.org", "h")
        sid = store.submit(uid, f"bot{i}", "python", "bot.py", f"# {i}\n".encode())
        out.append(Entrant(sid, uid, f"bot{i}"))
    with begin_write(store.engine) as conn:  # their build jobs are not this test's
        conn.execute(sa.delete(jobs))
    return out


def _create(
    store: JudgeStore, entrants: list[Entrant], kind: str = "friendly", seed: int = 7
) -> int:
    with begin_write(store.engine) as conn:
        return create_match(conn, DUEL, kind=kind, entrants=entrants, seed=seed)


def _result(ranks: list[int]) -> MatchResult:
    seats = tuple(
        SeatResult(r, None, "ok", "", None, 0.1 * (i + 1), None, f"stderr {i}")
        for i, r in enumerate(ranks)
    )
    return MatchResult("last team standing", '{"replay": 1}', "arena-15@1", seats)


def test_create_match_writes_the_match_its_seats_and_its_job(db_url: str) -> None:
    with JudgeStore(db_url) as store:
        a, b = _players(store)
        mid = _create(store, [a, b])
        match = store.match(mid)
        assert match is not None
        assert (match.kind, match.state, match.map, match.seed) == (
            "friendly",
            "queued",
            "arena-15@1",
            7,
        )
        assert [(s.seat, s.submission_id, s.user_id, s.name) for s in match.seats] == [
            (0, a.submission_id, a.user_id, "bot0"),
            (1, b.submission_id, b.user_id, "bot1"),
        ]
        assert all(s.rank is None and s.verdict is None for s in match.seats)
        (job,) = store.match_jobs(mid)
        assert (job.kind, job.key, job.state, job.match_id) == (
            "match",
            f"match:{mid}",
            "queued",
            mid,
        )


def test_what_create_match_refuses(tmp_path: Path) -> None:
    with JudgeStore(f"sqlite:///{tmp_path / 'j.db'}") as store:
        a, b = _players(store)
        with begin_write(store.engine) as conn:
            with pytest.raises(MatchError, match="unknown match kind 'cup'"):
                create_match(conn, DUEL, kind="cup", entrants=[a, b], seed=1)
            with pytest.raises(MatchError, match="2 or more players, not 1"):
                create_match(conn, DUEL, kind="friendly", entrants=[a], seed=1)
            with pytest.raises(MatchError, match="no map for a match of 3 players"):
                create_match(conn, TRON3D, kind="friendly", entrants=[a, b, a], seed=1)
        with store.engine.connect() as conn:
            assert conn.execute(sa.select(sa.func.count()).select_from(jobs)).scalar() == 0


def test_a_match_is_claimed_recorded_once_and_refused_to_a_worker_it_was_taken_from(
    db_url: str,
) -> None:
    with JudgeStore(db_url) as store:
        mid = _create(store, _players(store))
        slow = store.claim("slow")
        assert slow is not None and slow.match_id == mid
        assert store.match(mid).state == "running"  # type: ignore[union-attr]
        time.sleep(0.05)
        assert store.requeue_stalled(older_than=0.01) == 1
        assert store.match(mid).state == "queued"  # type: ignore[union-attr]
        fast = store.claim("fast")
        assert fast is not None and fast.id == slow.id and fast.attempts == 2
        assert store.complete(fast, "fast", _result([2, 1]), DUEL)
        assert not store.complete(slow, "slow", _result([1, 2]), DUEL)  # back from the dead
        assert not store.complete(fast, "fast", _result([1, 2]), DUEL)  # and never twice
        match = store.match(mid, replay=True)
        assert match is not None and match.state == "done" and match.finished_at is not None
        assert match.replay == '{"replay": 1}' and match.reason == "last team standing"
        assert [(s.rank, s.verdict, s.cpu_used, s.stderr_tail) for s in match.seats] == [
            (2, "ok", 0.1, "stderr 0"),
            (1, "ok", 0.2, "stderr 1"),
        ]
        assert store.match(mid).replay is None  # type: ignore[union-attr]  # not loaded unasked
        assert [(j.state, j.attempts) for j in store.match_jobs(mid)] == [("done", 2)]
        with store.engine.connect() as conn:
            assert conn.execute(sa.select(sa.func.count()).select_from(match_seats)).scalar() == 2
            assert match_hooks.notes(conn) == {}  # a friendly match has no hooks


def test_an_official_match_calls_its_hook_in_the_recording_transaction(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(matches.HOOK_MODULES, "official", HOOKS)
    with JudgeStore(db_url) as store:
        a, b = _players(store)
        good = _create(store, [a, b], kind="official")
        bad = _create(store, [a, Entrant(None, None, "explode")], kind="official")
        for _ in range(2):
            job = store.claim("w")
            assert job is not None
            if job.match_id == good:
                assert store.complete(job, "w", _result([1, 2]), DUEL)
            else:  # the hook fails: nothing of the match is written, the job stays ours
                with pytest.raises(RuntimeError, match="the hook exploded"):
                    store.complete(job, "w", _result([1, 2]), DUEL)
                assert store.heartbeat(job.id, "w")
        with store.engine.connect() as conn:
            assert match_hooks.notes(conn) == {f"done:{good}": "done ranks=1,2 contest=duel"}
        exploded = store.match(bad)
        assert exploded is not None and exploded.state == "running"
        assert [s.rank for s in exploded.seats] == [None, None]


def test_a_match_that_stalls_3_times_is_an_internal_error_and_its_hook_is_told(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(matches.HOOK_MODULES, "ladder", HOOKS)
    with JudgeStore(db_url) as store:
        mid = _create(store, _players(store), kind="ladder")
        for attempt in (1, 2, 3):
            job = store.claim(f"w{attempt}")
            assert job is not None and job.attempts == attempt
            time.sleep(0.05)
            assert store.requeue_stalled(0.01, 3, DUEL) == 1
            assert not store.complete(job, f"w{attempt}", _result([1, 2]), DUEL)
        match = store.match(mid)
        assert match is not None and match.state == "internal_error"
        assert "3 times" in match.reason and "went silent" in match.reason
        assert [s.rank for s in match.seats] == [None, None]  # nothing of a stalled game
        assert [(j.state, j.attempts) for j in store.match_jobs(mid)] == [("internal_error", 3)]
        assert store.claim("w9") is None
        with store.engine.connect() as conn:
            assert match_hooks.notes(conn) == {
                f"failed:{mid}": "internal_error ranks=None,None contest=duel"
            }


def test_a_released_match_goes_back_to_the_queue(db_url: str) -> None:
    with JudgeStore(db_url) as store:
        mid = _create(store, _players(store))
        job = store.claim("w")
        assert job is not None
        assert store.release(job, "w")  # stopping: back at once, uncounted
        assert store.match(mid).state == "queued"  # type: ignore[union-attr]
        again = store.claim("w")
        assert again is not None and again.attempts == 1
        assert store.release(again, "w", error="RuntimeError: boom", max_attempts=1)
        match = store.match(mid)
        assert match is not None and match.state == "internal_error"
        assert "RuntimeError: boom" in match.reason


def test_create_friendly_checks_who_may_play_in_the_same_transaction(tmp_path: Path) -> None:
    with JudgeStore(f"sqlite:///{tmp_path / 'j.db'}") as store:
        ada = store.create_user("ada@example.org", "h")
        bob = store.create_user("bob@example.org", "h")
        mine = accept_program(store, ada, "Roomy", "good_bot.py")
        theirs = accept_program(store, bob, "Bobby", "good_bot.py")
        mid = create_friendly(store.engine, DUEL, ada, [None, mine])
        match = store.match(mid)
        assert match is not None and (match.kind, match.created_by) == ("friendly", ada)
        assert [(s.submission_id, s.user_id, s.name) for s in match.seats] == [
            (None, None, "dummy 1"),
            (mine, ada, "Roomy"),
        ]
        with pytest.raises(SocialError, match="not a program you can use"):
            create_friendly(store.engine, DUEL, ada, [mine, theirs])  # Bob's is private
        with pytest.raises(SocialError, match="2 players here, not 3"):
            create_friendly(store.engine, DUEL, ada, [mine, None, None])
        assert store.matches_of_user(bob) == []
        second = create_friendly(store.engine, DUEL, ada, [mine, mine])
        listed = store.matches_of_user(ada)
        assert [m.id for m in listed] == [second, mid]  # newest first, with their seats
        assert [[s.name for s in m.seats] for m in listed] == [
            ["Roomy", "Roomy"],
            ["dummy 1", "Roomy"],
        ]
        with store.engine.connect() as conn:
            assert conn.execute(sa.select(sa.func.count()).select_from(jobs)).scalar() == 2


def test_hooks_are_found_by_module_name(monkeypatch: pytest.MonkeyPatch) -> None:
    assert match_hook("friendly", "on_match_done") is None  # no hooks for that kind
    monkeypatch.setitem(matches.HOOK_MODULES, "ladder", "tests.judge.service.no_such_module")
    assert match_hook("ladder", "on_match_done") is None  # a judge without that part
    monkeypatch.setitem(matches.HOOK_MODULES, "ladder", HOOKS)
    assert match_hook("ladder", "on_match_failed") is match_hooks.on_match_failed
    with pytest.raises(RuntimeError, match="has no on_match_started"):
        match_hook("ladder", "on_match_started")

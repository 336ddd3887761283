"""Official rounds in the database: started, advanced in the matches' transactions,
read by the pages; the same outcome as the pure simulation; safe to record at once."""

from __future__ import annotations

import dataclasses
import datetime as dt
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from lightcycle.judge.service import elimination, queue, rounds, social
from lightcycle.judge.service.contest import Contest, OfficialSpec
from lightcycle.judge.service.matches import (
    MatchResult,
    SeatResult,
    fail_match,
    load_match,
    record_match,
)
from lightcycle.judge.service.rounds import RoundError, start_round
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.service.tables import (
    MatchRow,
    jobs,
    round_entries,
)
from lightcycle.judge.service.worker import run_worker
from lightcycle.storage import begin_write
from tests.judge.service.match_worker import start, stop_all
from tests.judge.service.programs import (
    accept_program,
    accepted_players,
    insert_program,
    open_matches,
    wait_until,
)
from tests.judge.service.round_worker import ROUND_DUEL

CONTEST = Contest(
    name="t",
    title="t",
    ruleset="tron3d@1",
    maps=("cube",),
    players=4,
    official=OfficialSpec(finalists=1, group_size=4, rounds_per_start=1),
)
"""The 3D course's groups of 4; one round a start; rounds until a champion."""

Play = Callable[[int, int, tuple[int | None, ...]], list[int] | None]


@pytest.fixture
def store(db_url: str) -> Iterator[JudgeStore]:
    with JudgeStore(db_url) as s:
        yield s


def _players(store: JudgeStore, n: int) -> list[int]:
    """``n`` users with one accepted program each (named p0, p1, ...): their ids."""
    return list(accepted_players(store, n, "p").values())


def _result(ranks: list[int]) -> MatchResult:
    seats = tuple(SeatResult(r, None, "ok", "", None, 0.1, 2.0, "") for r in ranks)
    return MatchResult("test result", "{}", "cube@1", seats)


def _record(store: JudgeStore, match: MatchRow, ranks: list[int] | None, contest: Contest) -> None:
    with begin_write(store.engine) as conn:
        if ranks is None:
            fail_match(conn, match.id, "the judge failed 3 times", contest)
        else:
            record_match(conn, match.id, _result(ranks), contest)


def _by_strength(stage: int, grp: int, seats: tuple[int | None, ...]) -> list[int]:
    """A lower user id is stronger; Dummies are the weakest."""
    key = [10**9 if s is None else s for s in seats]
    return [1 + sorted(key).index(k) for k in key]


def _play_all(store: JudgeStore, play: Play, contest: Contest = CONTEST) -> int:
    """Record every official match as ``play`` says until none is open; the count."""
    played = 0
    while pending := open_matches(store, "official"):
        for m in pending:
            seats = tuple(s.user_id for s in m.seats)
            assert m.stage is not None and m.grp is not None
            _record(store, m, play(m.stage, m.grp, seats), contest)
            played += 1
    return played


def _round(store: JudgeStore, rid: int) -> rounds.RoundSummary:
    with store.engine.connect() as conn:
        (summary,) = [r for r in rounds.rounds_list(conn) if r.id == rid]
    return summary


def test_a_round_starts_with_a_snapshot_and_groups_of_four(store: JudgeStore) -> None:
    players = _players(store, 10)
    rid = start_round(store.engine, CONTEST, players[0], seed=5)
    stage1 = open_matches(store, "official")
    assert [len(m.seats) for m in stage1] == [4, 4, 4]
    seated = [s.user_id for m in stage1 for s in m.seats]
    assert sorted(u for u in seated if u is not None) == players and seated.count(None) == 2
    assert [s.name for s in stage1[-1].seats[2:]] == ["dummy 3", "dummy 4"]
    assert all(s.submission_id is None for s in stage1[-1].seats[2:])
    expected = elimination.make_groups(players, 4, elimination.stage_rng(5, 1))
    assert [tuple(s.user_id for s in m.seats) for m in stage1] == expected
    assert [m.seed for m in stage1] == [elimination.match_seed(5, 1, g) for g in range(3)]
    assert {(m.round_id, m.stage) for m in stage1} == {(rid, 1)}
    with store.engine.connect() as conn:  # each match has its job
        keys = set(conn.execute(sa.select(jobs.c.key)).scalars())
    assert {f"match:{m.id}" for m in stage1} <= keys
    summary = _round(store, rid)
    assert (summary.number, summary.state, summary.stage, summary.entrants) == (
        1,
        "running",
        1,
        10,
    )
    assert (summary.started_by, summary.matches_done, summary.matches_total) == (players[0], 0, 3)


def test_a_new_official_program_plays_from_the_next_round_on(store: JudgeStore) -> None:
    players = _players(store, 5)
    first = insert_program(store.engine, players[0], "p0")  # the newest: the official one
    rid = start_round(store.engine, CONTEST, seed=1)
    newer = insert_program(store.engine, players[0], "p0b")
    social.set_official(store.engine, players[0], newer)
    seats = [s for m in open_matches(store, "official") for s in m.seats if s.user_id == players[0]]
    assert [s.submission_id for s in seats] == [first]
    _play_all(store, _by_strength)
    assert _round(store, rid).state == "done"
    rid2 = start_round(store.engine, CONTEST, seed=2)
    seats = [s for m in open_matches(store, "official") for s in m.seats if s.user_id == players[0]]
    assert [(s.submission_id, s.name) for s in seats] == [(newer, "p0b")]
    assert rid2 != rid


def test_starting_is_refused_in_one_line(store: JudgeStore) -> None:
    _players(store, 2)
    ladder = dataclasses.replace(CONTEST, official=OfficialSpec(mode="ladder"))
    with pytest.raises(RoundError, match='mode is "ladder"'):
        start_round(store.engine, ladder)
    final4 = dataclasses.replace(CONTEST, official=OfficialSpec(finalists=2))
    with pytest.raises(RoundError, match=r"2 players are in the competition and .* finalists = 2"):
        start_round(store.engine, final4)
    start_round(store.engine, CONTEST, seed=1)
    with pytest.raises(RoundError, match="round 1 is running"):
        start_round(store.engine, CONTEST)


def test_the_database_round_is_the_simulated_round(store: JudgeStore) -> None:
    """The same players, seed and results: the same stages and the same player out."""
    players = _players(store, 11)
    rid = start_round(store.engine, CONTEST, seed=7)

    def play(stage: int, grp: int, seats: tuple[int | None, ...]) -> list[int]:
        # upsets: in odd groups the order is reversed, Dummies included
        ranks = _by_strength(stage, grp, seats)
        return [len(seats) + 1 - r for r in ranks] if (stage + grp) % 2 else ranks

    played = _play_all(store, play)
    simulated = elimination.run_round(players, play, seed=7, group_size=4)
    summary = _round(store, rid)
    assert summary.state == "done" and summary.out_user_id == simulated.out
    assert played == sum(len(s.groups) for s in simulated.stages) == summary.matches_total
    with store.engine.connect() as conn:
        detail = rounds.round_detail(conn, rid)
    assert detail is not None
    names = {uid: f"p{i}" for i, uid in enumerate(players)}
    assert len(detail.stages) == len(simulated.stages)
    for view, sim in zip(detail.stages, simulated.stages, strict=True):
        assert view.decided and view.rule == sim.decision.rule
        assert view.safe == tuple(names[u] for u in sim.decision.safe)
        assert [tuple(s.user_id for s in m.seats) for m in view.matches] == list(sim.groups)
    out_name = names[simulated.out or 0]
    assert summary.out_name == out_name and out_name in summary.note
    statuses = {e.name: e.status for e in detail.entries}
    assert statuses[out_name] == "out" and list(statuses.values()).count("out") == 1
    assert list(statuses.values()).count("safe") == 10
    assert detail.entries[0].status == "out"  # nobody is still playing: the loser first


def test_a_failed_match_replays_its_stage_and_three_cancel_the_round(store: JudgeStore) -> None:
    _players(store, 8)
    rid = start_round(store.engine, CONTEST, seed=3)
    first, second = open_matches(store, "official")
    _record(store, first, [1, 2, 3, 4], CONTEST)
    _record(store, second, None, CONTEST)  # the judge gave up on it
    stage2 = open_matches(store, "official")
    assert [m.stage for m in stage2] == [2, 2]  # all 8 again, regrouped
    assert sorted(s.user_id or 0 for m in stage2 for s in m.seats) == sorted(
        s.user_id or 0 for m in (first, second) for s in m.seats
    )
    for m in stage2:
        _record(store, m, None, CONTEST)  # failures 2 and 3
    summary = _round(store, rid)
    assert summary.state == "cancelled" and summary.out_user_id is None
    assert "3 matches failed" in summary.note and "nobody is out" in summary.note
    assert open_matches(store, "official") == []
    with store.engine.connect() as conn:
        assert all(s.status == "in" for s in rounds.standings(conn))
    start_round(store.engine, CONTEST, seed=4)  # the admin starts a new one


def test_a_hook_called_again_changes_nothing(store: JudgeStore) -> None:
    _players(store, 5)
    start_round(store.engine, CONTEST, seed=3)
    first, second = open_matches(store, "official")
    _record(store, first, [1, 2, 3, 4], CONTEST)
    _record(store, second, [1, 2, 3, 4], CONTEST)
    stage2 = open_matches(store, "official")
    ended = load_match_by_id(store, second.id)
    with begin_write(store.engine) as conn:  # a stale call (the stage is decided already)
        rounds.on_match_done(conn, ended, CONTEST)
        rounds.on_match_failed(conn, ended, CONTEST)
    assert open_matches(store, "official") == stage2


def load_match_by_id(store: JudgeStore, mid: int) -> MatchRow:
    with store.engine.connect() as conn:
        m = load_match(conn, mid)
    assert m is not None
    return m


def test_rounds_per_start_and_finalists(store: JudgeStore) -> None:
    players = _players(store, 6)
    two = dataclasses.replace(
        CONTEST, official=OfficialSpec(finalists=3, group_size=4, rounds_per_start=2)
    )
    start_round(store.engine, two, seed=11)
    _play_all(store, _by_strength, two)
    with store.engine.connect() as conn:
        listed = rounds.rounds_list(conn)
        assert [(r.number, r.state) for r in listed] == [(2, "done"), (1, "done")]
        assert listed[1].seed == 11 and listed[0].seed == elimination.next_round_seed(11)
        assert listed[0].entrants == 5  # the first round's loser is out of the competition
        assert {r.out_user_id for r in listed} == {players[5], players[4]}
        table = rounds.standings(conn)
    assert [s.status for s in table] == ["in"] * 4 + ["out"] * 2  # 4 left, finalists = 3
    assert [(s.name, s.out_round, s.place) for s in table[4:]] == [("p4", 2, 5), ("p5", 1, 6)]
    # the next start plays until the finalists remain (0: no limit of rounds)
    until = dataclasses.replace(two, official=OfficialSpec(finalists=3, rounds_per_start=0))
    start_round(store.engine, until, seed=12)
    _play_all(store, _by_strength, until)
    with store.engine.connect() as conn:
        table = rounds.standings(conn)
        hall = rounds.hall_of_fame(conn)
        assert len(rounds.rounds_list(conn)) == 3
    assert [s.status for s in table] == ["finalist"] * 3 + ["out"] * 3
    assert [s.name for s in hall.finalists] == ["p0", "p1", "p2"] and hall.champion is None
    assert [(s.name, s.out_round) for s in hall.eliminated] == [("p5", 1), ("p4", 2), ("p3", 3)]
    with pytest.raises(RoundError, match="3 players are in the competition"):
        start_round(store.engine, until)


def test_rounds_until_a_champion(store: JudgeStore) -> None:
    players = _players(store, 3)
    until = dataclasses.replace(CONTEST, official=OfficialSpec(finalists=1, rounds_per_start=0))
    start_round(store.engine, until, seed=1)
    with store.engine.connect() as conn:
        before = rounds.standings(conn)
        assert {s.in_round for s in before} == {"playing"}
        assert rounds.hall_of_fame(conn).finalists == ()
    _play_all(store, _by_strength, until)
    with store.engine.connect() as conn:
        hall = rounds.hall_of_fame(conn)
        table = rounds.standings(conn)
    assert hall.champion is not None and hall.champion.user_id == players[0]
    assert (hall.champion.status, hall.champion.place) == ("champion", 1)
    assert [s.place for s in table] == [1, 2, 3] and table[0].in_round is None


def test_the_official_version_changes_with_every_step(store: JudgeStore) -> None:
    def version() -> str:
        with store.engine.connect() as conn:
            return rounds.official_version(conn)

    seen = {version()}
    players = _players(store, 5)
    assert version() not in seen  # new official players
    seen.add(version())
    start_round(store.engine, CONTEST, seed=2)
    assert version() not in seen
    seen.add(version())
    first = open_matches(store, "official")[0]
    queue.claim(store.engine, "w")  # the first match starts
    assert version() not in seen
    seen.add(version())
    _record(store, load_match_by_id(store, first.id), [1, 2, 3, 4], CONTEST)
    assert version() not in seen
    seen.add(version())
    social.set_official(store.engine, players[1], None)
    same = version()
    assert same in seen  # nothing changed: the newest is already the official one


def test_the_schedule_starts_rounds_once_per_time(store: JudgeStore) -> None:
    _players(store, 5)
    daily = dataclasses.replace(
        CONTEST,
        official=OfficialSpec(finalists=1, rounds_per_start=1, schedule=("09:00", "15:30")),
    )
    morning = dt.datetime(2026, 3, 2, 8, 59, tzinfo=dt.UTC)
    at = morning.replace
    with store.engine.connect() as conn:
        assert rounds.due_rounds(conn, daily, morning) == []
        assert rounds.due_rounds(conn, daily, at(hour=9, minute=0)) == ["2026-03-02 09:00"]
        assert rounds.due_rounds(conn, daily, at(hour=9, minute=9)) == ["2026-03-02 09:00"]
        assert rounds.due_rounds(conn, daily, at(hour=9, minute=10)) == []  # missed: not made up
        assert rounds.due_rounds(conn, daily, at(hour=16)) == []
        assert rounds.due_rounds(conn, CONTEST, at(hour=9, minute=1)) == []  # no schedule
        late = dataclasses.replace(daily, official=OfficialSpec(schedule=("23:58",)))
        midnight = dt.datetime(2026, 3, 3, 0, 3, tzinfo=dt.UTC)
        assert rounds.due_rounds(conn, late, midnight) == ["2026-03-02 23:58"]
    assert rounds.start_due(store.engine, daily, morning) is None
    rid = rounds.start_due(store.engine, daily, at(hour=9, minute=1))
    assert rid is not None and _round(store, rid).started_by is None
    assert rounds.start_due(store.engine, daily, at(hour=9, minute=2)) is None  # handled
    # 15:30 comes while the round still runs: skipped, not postponed
    assert rounds.start_due(store.engine, daily, at(hour=15, minute=31)) is None
    _play_all(store, _by_strength, daily)
    assert rounds.start_due(store.engine, daily, at(hour=15, minute=35)) is None
    nxt = rounds.start_due(store.engine, daily, dt.datetime(2026, 3, 3, 9, 0, tzinfo=dt.UTC))
    assert nxt is not None and _round(store, nxt).number == 2


def test_the_last_two_matches_recorded_at_once_advance_the_stage_once(
    store: JudgeStore, db_url: str
) -> None:
    """Two workers record a stage's last two matches in the same moment: the second
    transaction waits on the round's row until the first commits, then sees the stage
    complete. (Without the lock each would see the other's match unfinished, and the
    round would wait forever.)"""
    _players(store, 8)
    start_round(store.engine, CONTEST, seed=9)
    first, second = open_matches(store, "official")
    errors: list[BaseException] = []

    def other_worker() -> None:
        try:
            with JudgeStore(db_url) as other:
                _record(other, second, [1, 2, 3, 4], CONTEST)
        except BaseException as exc:  # pragma: no cover -- reported below
            errors.append(exc)

    thread = threading.Thread(target=other_worker)
    with begin_write(store.engine) as conn:
        record_match(conn, first.id, _result([1, 2, 3, 4]), CONTEST)
        thread.start()
        thread.join(1.0)  # the other worker records meanwhile (or waits for this one)
    thread.join(30)
    assert not errors, errors
    stage2 = open_matches(store, "official")
    assert [m.stage for m in stage2] == [2]  # 4 remain: one group, created once
    with store.engine.connect() as conn:
        safe = conn.execute(
            sa.select(sa.func.count()).where(round_entries.c.safe_stage == 1)
        ).scalar()
    assert safe == 4


# -- played by real workers with real programs ----------------------------------------


def _round_state(store: JudgeStore, rid: int) -> str:
    return _round(store, rid).state


def _check_played_round(store: JudgeStore, rid: int, players: list[int]) -> None:
    """Every match played and recorded once, and the round's outcome is the one the
    pure simulation gives with the recorded results."""
    with store.engine.connect() as conn:
        detail = rounds.round_detail(conn, rid)
        job_rows = conn.execute(sa.select(jobs.c.key, jobs.c.state)).all()
    assert detail is not None and detail.round.state == "done"
    played = [m for s in detail.stages for m in s.matches]
    assert all(m.state == "done" and all(s.rank for s in m.seats) for m in played)
    match_jobs = [(k, state) for k, state in job_rows if k.startswith("match:")]
    assert sorted(k for k, _ in match_jobs) == sorted(f"match:{m.id}" for m in played)
    assert {state for _, state in match_jobs} == {"done"}
    recorded = {
        (m.stage, m.grp): [s.rank or 0 for s in m.seats] for s in detail.stages for m in s.matches
    }
    simulated = elimination.run_round(
        players, lambda st, g, seats: recorded[(st, g)], seed=detail.round.seed, group_size=2
    )
    assert simulated.out == detail.round.out_user_id
    assert [e.status for e in detail.entries].count("out") == 1


def test_a_round_played_by_a_real_worker(tmp_path: Path) -> None:
    with JudgeStore(f"sqlite:///{tmp_path / 'judge.db'}") as store:
        players = []
        for name, bot in (
            ("Roomy", "good_bot.py"),
            ("Graph", "graph_bot.py"),
            ("Wall", "wall_bot.py"),
        ):
            uid = store.create_user(f"{name.lower()}@example.org", "h")
            accept_program(store, uid, name, bot, ROUND_DUEL)
            players.append(uid)
        rid = start_round(store.engine, ROUND_DUEL, seed=1)
        stop = threading.Event()
        worker = threading.Thread(
            target=run_worker,
            args=(store.url, ROUND_DUEL),
            kwargs={"stop": stop, "poll": 0.05},
        )
        worker.start()
        try:
            wait_until(lambda: _round_state(store, rid) != "running", timeout=120)
        finally:
            stop.set()
            worker.join(60)
        _check_played_round(store, rid, players)


def test_a_round_goes_on_after_its_worker_is_killed(tmp_path: Path) -> None:
    """The worker playing a round's match is killed with SIGKILL in the middle of the
    game; a second worker replays that match and the round ends on it: the match is
    recorded once, its round decided once. (The multi-stage round of a real worker is
    the test above; a duel of two keeps this one short.)"""
    url = f"sqlite:///{tmp_path / 'judge.db'}"
    with JudgeStore(url) as store:
        players = []
        for name, bot in (("Slow", "slow_bot.py"), ("Roomy", "good_bot.py")):
            uid = store.create_user(f"{name.lower()}@example.org", "h")
            accept_program(store, uid, name, bot, ROUND_DUEL)
            players.append(uid)
        seed = 1
        rid = start_round(store.engine, ROUND_DUEL, seed=seed)
        first = open_matches(store, "official")[0]
        procs = [start(url, module="tests.judge.service.round_worker")]
        try:
            wait_until(lambda: load_match_by_id(store, first.id).state == "running", timeout=60)
            time.sleep(0.3)  # the bots have started and are playing
            assert load_match_by_id(store, first.id).state == "running"
            procs[0].send_signal(signal.SIGKILL)
            procs[0].wait()
            procs.append(start(url, module="tests.judge.service.round_worker"))
            wait_until(lambda: _round_state(store, rid) != "running", timeout=180)
        finally:
            stop_all(procs)
        with store.engine.connect() as conn:
            job = conn.execute(sa.select(jobs).where(jobs.c.key == f"match:{first.id}")).one()
        assert job.attempts == 2 and "went silent" in job.error
        _check_played_round(store, rid, players)

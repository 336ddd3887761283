"""The runner: plays the schedule, commits in order, resumes, and refuses a broken store."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from lightcycle.replay.model import Replay
from lightcycle.tournament.check import check
from lightcycle.tournament.config import load_config
from lightcycle.tournament.plan import Plan, make_plan
from lightcycle.tournament.play import MatchBatch, MatchOrder, PackedSetup, play_batch, unpack
from lightcycle.tournament.report import build_report
from lightcycle.tournament.results import MatchResult
from lightcycle.tournament.runner import (
    BATCH_SECONDS,
    MAX_BATCH,
    BatchSizer,
    RunProgress,
    _sync_schedule,
    match_setup,
    open_tournament,
    run_tournament,
)
from lightcycle.tournament.store import Store, StoreError

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests/tournament/duel_bots.py"
RR = """\
format = "round-robin"
bots = ["builtin:random", "builtin:wallhugger", "builtin:chaser", "builtin:floodfill"]
maps = ["arena-10"]
rounds = 2
seed = 3
[time]
move = 5.0
first_move = 5.0
"""


def plan_of(tmp_path: Path, text: str, name: str = "t") -> Plan:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return make_plan(load_config(path))


def snapshot(plan: Plan) -> dict[str, Any]:
    """Everything a run decided: each match's places and each rating update, by key."""
    with Store(plan.config.database_url) as store:
        tid = store.tournament(plan.config.name).id  # type: ignore[union-attr]
        ups = store.rating_updates(tid)
        return {
            sr.match.key: (sr.match.seq, sr.result.ranks, ups.get(sr.match.result_id or -1, []))
            for sr in store.results(tid)
        }


class Stop(Exception):
    pass


def stop_after(n: int) -> Any:
    def on_match(*_: object) -> None:
        on_match.count += 1  # type: ignore[attr-defined]
        if on_match.count >= n:  # type: ignore[attr-defined]
            raise Stop

    on_match.count = 0  # type: ignore[attr-defined]
    return on_match


def test_a_round_robin_plays_every_match_once_and_its_ratings_check(tmp_path: Path) -> None:
    plan = plan_of(tmp_path, RR)
    summary = run_tournament(plan, workers=1)
    assert (summary.played, summary.resumed, summary.total) == (24, 0, 24)
    with Store(plan.config.database_url) as store:
        tid = store.tournament().id  # type: ignore[union-attr]
        assert check(store, tid, plan.config.out) == []
        results = store.results(tid)
    assert [r.match.seq for r in results] == list(range(24))
    first = results[0].result
    assert first.replay == f"replays/{first.key}.json"
    replay = Replay.load(plan.config.out / first.replay)
    replay.verify()  # the stored replay re-simulates to its outcome
    report = build_report(Store(plan.config.database_url))
    assert sum(s.line.games for s in report.standings) == 48
    assert all(s.line.games == 12 for s in report.standings)
    again = run_tournament(plan, workers=1)
    assert (again.played, again.resumed) == (0, 24)


def test_an_interrupted_run_resumes_to_the_same_results(tmp_path: Path) -> None:
    whole = plan_of(tmp_path / "a", RR)
    run_tournament(whole, workers=1)
    parts = plan_of(tmp_path / "b", RR)
    stored = 0
    for n in (1, 7, 5):
        with pytest.raises(Stop):
            run_tournament(parts, workers=1, on_match=stop_after(n))
        # a transaction may hold several matches: at least those reported are stored
        now = len(snapshot(parts))
        assert now >= stored + n
        stored = now
    assert stored < 24
    last = run_tournament(parts, workers=1)
    assert last.resumed == stored and last.played == 24 - stored
    assert snapshot(parts) == snapshot(whole)


def test_results_do_not_depend_on_workers_or_finishing_order(tmp_path: Path) -> None:
    one = plan_of(tmp_path / "a", RR)
    run_tournament(one, workers=1)
    many = plan_of(tmp_path / "b", RR)
    with ThreadPoolExecutor(4) as pool:  # threads finish in any order
        run_tournament(many, workers=4, executor=pool)
    assert snapshot(many) == snapshot(one)


def _split_commit(plan: Plan, key: str) -> None:
    """What a crash between two transactions would leave: a result without its updates."""
    with Store(plan.config.database_url) as store, store.engine.begin() as conn:
        conn.exec_driver_sql(
            "DELETE FROM rating_updates WHERE result_id = "
            "(SELECT results.id FROM results JOIN matches ON matches.id = results.match_id "
            f"WHERE matches.key = '{key}')"
        )


def test_the_check_catches_a_split_commit_and_repair_replays_it(tmp_path: Path) -> None:
    plan = plan_of(tmp_path, RR)
    run_tournament(plan, workers=1)
    before = snapshot(plan)
    key = "r01-m00-001v002"
    _split_commit(plan, key)
    with Store(plan.config.database_url) as store:
        problems = check(store, 1)
        assert [p.key for p in problems] == [key]
        assert "no rating update" in problems[0].message and "split commit" in problems[0].message
    with pytest.raises(StoreError, match=f"fails its consistency check at match {key}"):
        run_tournament(plan, workers=1)
    with Store(plan.config.database_url) as store:
        seq = check(store, 1)[0].seq
        assert store.delete_results(1, seq) == 24 - seq
    again = run_tournament(plan, workers=1)
    assert again.played == 24 - seq
    assert snapshot(plan) == before


def test_the_check_catches_a_rating_that_does_not_follow_from_the_results(tmp_path: Path) -> None:
    plan = plan_of(tmp_path, RR)
    run_tournament(plan, workers=1)
    with Store(plan.config.database_url) as store:
        with store.engine.begin() as conn:
            conn.execute(sa.text("UPDATE rating_updates SET after = after + 0.001 WHERE id = 10"))
        problems = check(store, 1)
    assert problems and "differs from the one recomputed" in problems[0].message


def test_a_changed_file_is_refused_with_what_changed(tmp_path: Path) -> None:
    run_tournament(plan_of(tmp_path, RR), workers=1)
    changed = plan_of(tmp_path, RR.replace("rounds = 2", "rounds = 3"))
    with pytest.raises(StoreError, match=r"rounds: 2 -> 3"):
        run_tournament(changed, workers=1)


def test_a_file_with_no_finished_game_may_change_freely(tmp_path: Path) -> None:
    """A run that stopped before its first game (a bot that would not start, before the
    runner checked programs up front) leaves a stored tournament with a schedule and no
    result: the corrected file takes its place instead of being refused as different."""
    first = plan_of(tmp_path, RR)
    with Store(first.config.database_url) as store:
        row = open_tournament(first, store)
        _sync_schedule(first, store, row.id, first.format.schedule({}).pairings)
        assert len(store.matches(row.id)) == 24 and not store.results(row.id)
    text = RR.replace('"builtin:chaser", ', "").replace("seed = 3", "seed = 4")
    fixed = plan_of(tmp_path, text)
    summary = run_tournament(fixed, workers=1)
    assert (summary.played, summary.resumed, summary.total) == (12, 0, 12)
    with Store(fixed.config.database_url) as store:
        row = store.tournament("t")
        assert row is not None and row.config == fixed.config.fingerprint_json()
        assert [e.name for e in store.entrants(row.id)] == [e.name for e in fixed.entrants]
        assert check(store, row.id) == []
    # once a game is finished the file is fixed again: changing it is refused
    with pytest.raises(StoreError, match=r"seed: 4 -> 5"):
        run_tournament(plan_of(tmp_path, text.replace("seed = 4", "seed = 5")), workers=1)


def test_forfeits_are_counted(tmp_path: Path) -> None:
    text = RR.replace('"builtin:chaser", "builtin:floodfill"', f'"py:{BOTS}:CrashBot"').replace(
        "rounds = 2", "rounds = 1"
    )
    plan = plan_of(tmp_path, text)
    run_tournament(plan, workers=1)
    report = build_report(Store(plan.config.database_url))
    crash = next(s for s in report.standings if s.name == "Crash")
    assert crash.line.games == 4 and crash.line.verdicts == {"crashed": 4}
    assert crash.line.wins == 0 and crash.line.forfeit_wins == 0
    # every loss is a forfeit loss (a rival crashing on the same turn makes it a draw)
    assert crash.line.forfeit_losses == crash.line.losses >= 1
    others = [s for s in report.standings if s.name != "Crash"]
    assert sum(s.line.forfeit_wins for s in others) == crash.line.forfeit_losses
    assert sum(s.line.forfeit_losses for s in others) == 0


def test_swiss_elimination_and_tables_run_to_the_end(tmp_path: Path) -> None:
    bots = json.dumps(
        [f"builtin:{b}" for b in ("random", "wallhugger", "chaser", "floodfill", "runaway")]
    )
    swiss = plan_of(
        tmp_path, f'format = "swiss"\nbots = {bots}\nmaps = ["arena-10"]\nseed = 1\n', "s"
    )
    s = run_tournament(swiss, workers=1)
    assert s.byes == 3 and s.played == 3 * 2 * 2
    elim = plan_of(tmp_path, f'format = "elimination"\nbots = {bots}\nmaps = ["arena-15"]\n', "e")
    run_tournament(elim, workers=1)
    report = build_report(Store(elim.config.database_url))
    assert [s.place for s in report.standings] == [1, 2, 3, 4, 5]
    assert sorted(report.notes.values()) == ["out r1", "out r2", "out r3", "out r4", "winner"]
    assert report.notes[report.standings[0].entrant] == "winner"
    assert report.notes[report.standings[-1].entrant] == "out r1"
    ffa = plan_of(
        tmp_path,
        f'format = "ffa"\nbots = {bots}\nmaps = ["ffa4"]\nplayers = 4\nrounds = 2\n',
        "f",
    )
    run_tournament(ffa, workers=1)
    report = build_report(Store(ffa.config.database_url))
    assert all(len(m.result.seats) == 4 for m in report.matches) and len(report.matches) == 4
    assert [e.name for e in report.entrants if e.filler] == ["Dummy 1", "Dummy 2"]  # 3+2 seats
    dumped = json.dumps([s.name for s in report.standings])
    assert "Dummy" not in dumped  # fillers are never ranked


def test_the_live_standings_rank_an_elimination_as_the_report_does(tmp_path: Path) -> None:
    bots = json.dumps(
        [f"builtin:{b}" for b in ("random", "wallhugger", "chaser", "floodfill", "runaway")]
    )
    text = f'format = "elimination"\nbots = {bots}\nmaps = ["arena-15"]\nseed = 2\n'
    plan = plan_of(tmp_path, text, "e")
    seen: list[tuple[list[str], dict[int, str]]] = []

    def on_match(_m: object, _r: object, p: RunProgress) -> None:
        seen.append(([s.name for s in p.standings()], p.notes()))

    run_tournament(plan, workers=1, on_match=on_match)
    report = build_report(Store(plan.config.database_url))
    assert seen[-1] == ([s.name for s in report.standings], report.notes)
    assert seen[-1][1][report.standings[0].entrant] == "winner"
    # midway, the ones already out are ranked by when they went out, below those still in
    middle = next(notes for _, notes in seen if "out r2" in notes.values())
    assert "still in" in middle.values()


def test_batches_grow_to_a_tenth_of_a_second_and_spread_the_rest() -> None:
    sizer = BatchSizer(in_flight=4)
    assert sizer.size(100) == 1  # nothing known yet: one match, results come back soon
    sizer.add([MatchResult(f"k{i}", "x", 1, (), wall_seconds=0.005) for i in range(4)])
    assert sizer.size(1000) == round(BATCH_SECONDS / 0.005)
    assert sizer.size(40) == 10  # an even share of what is left among 4 batches in flight
    assert sizer.size(1) == 1
    slow = BatchSizer(in_flight=1)
    slow.add([MatchResult("k", "x", 1, (), wall_seconds=2.0)])
    assert slow.size(1000) == 1  # long games: one per batch, as before batching
    fast = BatchSizer(in_flight=1)
    fast.add([MatchResult("k", "x", 1, (), wall_seconds=0.0)])
    assert fast.size(10_000) == MAX_BATCH
    assert fast.size(10) == 5  # even one worker commits the end of a round in steps


def test_a_worker_unpickles_a_setup_once_and_keeps_its_maps(tmp_path: Path) -> None:
    plan = plan_of(tmp_path, RR)
    packed = PackedSetup.pack(match_setup(plan))
    again = PackedSetup.pack(match_setup(plan))
    assert again.digest == packed.digest
    first = unpack(packed)
    assert unpack(again) is first  # the same map objects: tables cached per board survive
    order = MatchOrder("r01-m00-000v001", 0, 5, (0, 1))
    task = first.task(order)
    assert task.names == (plan.entrants[0].name, plan.entrants[1].name)
    assert task.map is first.maps[0] and task.controls == (plan.controls[0][0],) * 2
    results = play_batch(MatchBatch(packed, (order, replace(order, key="other"))))
    assert [r.key for r in results] == ["r01-m00-000v001", "other"]
    assert results[0].ranks == results[1].ranks  # the same game twice

"""The ladder: who plays whom (pure), ratings recorded once per match, the switch."""

from __future__ import annotations

import dataclasses
import random
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from lightcycle.cli.main import app
from lightcycle.judge.service import ladder
from lightcycle.judge.service.contest import (
    Contest,
    JudgeSpec,
    LimitsSpec,
    OfficialSpec,
    ValidationSpec,
)
from lightcycle.judge.service.ladder import (
    JITTER,
    Candidate,
    LadderError,
    pick_group,
    ranked,
    set_ladder,
)
from lightcycle.judge.service.languages import language_for
from lightcycle.judge.service.matches import (
    MatchResult,
    SeatResult,
    fail_match,
    load_match,
    record_match,
)
from lightcycle.judge.service.pipeline import build_source
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.service.tables import (
    matches,
    ratings,
)
from lightcycle.judge.service.worker import run_worker
from lightcycle.sandbox.check import bwrap_usable
from lightcycle.storage import begin_write
from lightcycle.tournament.skill import Skill, rate
from tests.judge.service.fakes import CONTEST
from tests.judge.service.programs import (
    accepted_players,
    insert_program,
    open_matches,
    wait_until,
)

# sid  mu    sigma  games  busy   (ordinal = mu - 3 sigma)
PLAYERS = """
1     40.0  2.0    30     0      # 34
2     30.0  2.0    12     0      # 24
3     27.0  1.0    9      0      # 24
4     25.0  8.333  0      0      # 0.0  a newcomer
5     20.0  2.0    3      0      # 14
6     21.0  1.0    5      0      # 18
7     12.0  2.0    7      0      # 6
"""


def _players(text: str = PLAYERS) -> list[Candidate]:
    out = []
    for line in text.strip().splitlines():
        sid, mu, sigma, games, busy = line.split("#")[0].split()
        out.append(
            Candidate(
                int(sid),
                100 + int(sid),
                f"p{sid}",
                Skill(float(mu), float(sigma)),
                int(games),
                int(busy),
            )
        )
    return out


def _ids(group: list[Candidate]) -> list[int]:
    return [c.submission_id for c in group]


def test_the_seed_has_fewest_games_and_its_rivals_are_nearest_by_ordinal() -> None:
    # seed 4 (0 games, ordinal 0.0); nearest: 7 (6), 5 (14), 6 (18)
    assert _ids(pick_group(_players(), 4, random.Random(1), jitter=0)) == [4, 7, 5, 6]
    # a duel: the newcomer meets the nearest only
    assert _ids(pick_group(_players(), 2, random.Random(1), jitter=0)) == [4, 7]
    # without the newcomer the seed is 5 (3 games, ordinal 14): 6 (18), 7 (6), then 2 and 3
    # tie (24): the lower id
    rest = [c for c in _players() if c.submission_id != 4]
    assert _ids(pick_group(rest, 4, random.Random(1), jitter=0)) == [5, 6, 7, 2]


def test_matches_already_in_flight_count_as_games_and_idle_players_come_first() -> None:
    busy = [
        Candidate(c.submission_id, c.user_id, c.name, c.skill, c.games, int(c.submission_id == 4))
        for c in _players()
    ]
    # 4 sits in a match already: the seed is 5 (3 games), rivals among the idle only
    assert _ids(pick_group(busy, 4, random.Random(1), jitter=0)) == [5, 6, 7, 2]
    # too few idle players for a group of 7: everyone plays, the busy newcomer (0 games + 1
    # in flight) is still the seed
    group = _ids(pick_group(busy, 7, random.Random(1), jitter=0))
    assert group[0] == 4 and sorted(group) == list(range(1, 8))


def test_ties_for_the_seed_go_by_lot_and_the_same_lot_gives_the_same_group() -> None:
    even = [Candidate(i, i, f"p{i}", Skill(25.0 + i, 2.0), 0) for i in range(1, 9)]
    seeds = Counter(pick_group(even, 4, random.Random(n))[0].submission_id for n in range(200))
    assert set(seeds) == set(range(1, 9))  # every tied player gets to be the seed
    for n in range(20):
        assert pick_group(even, 4, random.Random(n)) == pick_group(even, 4, random.Random(n))


def test_the_blur_varies_the_rivals_but_never_picks_a_far_player_over_a_near_one() -> None:
    # seed 0 at ordinal 10; a cluster of 6 close rivals within 3 points, then far ones
    text = "0 16 2 0 0\n" + "".join(f"{i} {16 + i * 0.5} 2 9 0\n" for i in range(1, 7))
    text += "7 40 2 9 0\n8 0 2 9 0\n9 34 1 9 0\n"
    players = _players(text)
    seen: Counter[frozenset[int]] = Counter()
    for n in range(300):
        group = _ids(pick_group(players, 4, random.Random(n)))
        assert group[0] == 0
        assert set(group[1:]) <= set(range(1, 7)), group  # far ones: 16+ points away
        seen[frozenset(group)] += 1
    assert len(seen) >= 10  # C(6,3) = 20 possible groups: the rivals vary
    assert JITTER < 16 - 3  # the nearest far one (8, ordinal -6) is 16 away


def test_fewer_than_two_players_make_no_group() -> None:
    one = _players()[:1]
    assert pick_group([], 4, random.Random(0)) == []
    assert pick_group(one, 4, random.Random(0)) == []
    assert _ids(pick_group(_players()[:2], 4, random.Random(0), jitter=0)) == [2, 1]


def test_the_table_ranks_by_ordinal_and_equal_ordinals_share_a_rank() -> None:
    rows = ranked(_players())
    assert [(r.rank, r.submission_id) for r in rows] == [
        (1, 1),
        (2, 2),  # ordinal 24 with 12 games ...
        (2, 3),  # ... ties 3's 24 with 9 games: the same rank, more games listed first
        (4, 6),
        (5, 5),
        (6, 7),
        (7, 4),
    ]
    assert rows[0].ordinal == pytest.approx(34.0) and rows[0].user_id == 101


# -- the database (SQLite and PostgreSQL) -----------------------------------------------

LADDER = dataclasses.replace(
    CONTEST, official=OfficialSpec(mode="ladder", group_size=4, ladder_parallel=2)
)
"""A 4-seat tron3d contest in ladder mode, two matches kept in flight."""


@pytest.fixture
def store(db_url: str) -> Iterator[JudgeStore]:
    with JudgeStore(db_url) as s:
        yield s


def _result(ranks: list[int]) -> MatchResult:
    seats = tuple(SeatResult(r, None, "ok", "", None, 0.1, None, "") for r in ranks)
    return MatchResult("test result", "{}", "cube@1", seats)


def _record(store: JudgeStore, match_id: int, ranks: list[int]) -> None:
    with begin_write(store.engine) as conn:
        record_match(conn, match_id, _result(ranks), LADDER)


def _ratings(store: JudgeStore) -> dict[int, tuple[float, float, int]]:
    with store.engine.connect() as conn:
        rows = conn.execute(sa.select(ratings)).all()
    return {r.submission_id: (r.mu, r.sigma, r.games) for r in rows}


def test_switching_on_fills_the_ladder_and_off_stops_it(store: JudgeStore) -> None:
    players = accepted_players(store, 5)
    assert len(set_ladder(store.engine, LADDER, True)) == 2
    first, second = open_matches(store, "ladder")
    for m in (first, second):
        seated = [s.submission_id for s in m.seats]
        assert m.kind == "ladder" and len(set(seated)) == 4 and set(seated) <= set(players)
        assert all(players[s.submission_id] == s.user_id for s in m.seats if s.submission_id)
    (idle,) = set(players) - {s.submission_id for s in first.seats}
    assert idle in {s.submission_id for s in second.seats}  # the one left out seeds next
    with begin_write(store.engine) as conn:
        assert ladder.fill(conn, LADDER) == []  # two are in flight already
        assert ladder.is_on(conn)
    assert set_ladder(store.engine, LADDER, False) == []
    _record(store, first.id, [1, 2, 3, 4])
    assert [m.id for m in open_matches(store, "ladder")] == [second.id]  # off: not replaced
    with store.engine.connect() as conn:
        st = ladder.status(conn, LADDER)
    assert (st.on, st.in_flight, st.done, st.failed) == (False, 1, 1, 0)


def test_switching_on_a_contest_not_in_ladder_mode_is_refused(store: JudgeStore) -> None:
    with pytest.raises(LadderError, match=r'mode = "elimination": set mode = "ladder"'):
        set_ladder(store.engine, CONTEST, True)
    set_ladder(store.engine, CONTEST, False)  # switching off is always fine
    with begin_write(store.engine) as conn:
        assert ladder.fill(conn, CONTEST) == []


def test_a_played_match_rates_its_players_once_and_the_next_is_queued(store: JudgeStore) -> None:
    accepted_players(store, 6)
    set_ladder(store.engine, LADDER, True)
    match = open_matches(store, "ladder")[0]
    sids = [s.submission_id for s in match.seats]
    _record(store, match.id, [1, 2, 2, 4])
    expected = rate({}, [([str(sid)], rank) for sid, rank in zip(sids, [1, 2, 2, 4], strict=True)])
    got = _ratings(store)
    assert set(got) == set(sids)
    for sid in sids:
        mu, sigma, games = got[sid]
        assert (mu, sigma, games) == pytest.approx(
            (expected[str(sid)].mu, expected[str(sid)].sigma, 1)
        )
    assert got[sids[0]][0] > 25 > got[sids[3]][0] and got[sids[1]] == got[sids[2]]
    flight = open_matches(store, "ladder")
    assert len(flight) == 2 and match.id not in {m.id for m in flight}
    with pytest.raises(RuntimeError, match="already ended"):
        _record(store, match.id, [4, 3, 2, 1])  # a second result of the same match
    assert _ratings(store) == got
    with store.engine.connect() as conn:
        table = ladder.leaderboard(conn)
    assert len(table) == 6 and table[0].submission_id == sids[0] and table[0].games == 1
    assert [r.ordinal for r in table] == sorted((r.ordinal for r in table), reverse=True)


def test_a_failed_match_rates_nobody_and_is_replaced(store: JudgeStore) -> None:
    accepted_players(store, 4)
    set_ladder(store.engine, LADDER, True)
    doomed = open_matches(store, "ladder")[0]
    with begin_write(store.engine) as conn:
        fail_match(conn, doomed.id, "the judge failed", LADDER)
    assert _ratings(store) == {}
    flight = open_matches(store, "ladder")
    assert len(flight) == 2 and doomed.id not in {m.id for m in flight}


def test_dummies_fill_a_short_group_and_are_not_rated(store: JudgeStore) -> None:
    players = accepted_players(store, 2)
    set_ladder(store.engine, LADDER, True)
    match = open_matches(store, "ladder")[0]
    assert sorted(s.name for s in match.seats if s.submission_id is None) == ["dummy 1", "dummy 2"]
    ranks = [1 if s.submission_id is None else 3 + i for i, s in enumerate(match.seats)]
    _record(store, match.id, ranks)
    got = _ratings(store)
    assert set(got) == set(players)
    (better, worse) = sorted(got, key=lambda sid: -got[sid][0])
    assert got[better][0] > 25 > got[worse][0]  # rated by their ranks among themselves


def test_a_new_official_program_enters_with_a_fresh_rating(store: JudgeStore) -> None:
    players = accepted_players(store, 4)
    set_ladder(store.engine, LADDER, True)
    _record(store, open_matches(store, "ladder")[0].id, [1, 2, 3, 4])
    old, uid = next(iter(players.items()))
    new = insert_program(store.engine, uid, "bot0")  # a newer accepted program: it plays now
    with store.engine.connect() as conn:
        table = {r.submission_id: r for r in ladder.leaderboard(conn)}
    assert old not in table and (table[new].mu, table[new].games) == (25.0, 0)
    assert len(table) == 4


def test_matches_recorded_at_once_by_two_workers_both_count(store: JudgeStore, db_url: str) -> None:
    """Two workers record two matches with three players in common at the same moment:
    both updates land (no lost update), and exactly ``ladder_parallel`` stay in flight."""
    accepted_players(store, 5)
    set_ladder(store.engine, LADDER, True)
    a, b = open_matches(store, "ladder")
    common = {s.submission_id for s in a.seats} & {s.submission_id for s in b.seats}
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def recorder(match_id: int) -> None:
        try:
            with JudgeStore(db_url) as other:
                start.wait()
                _record(other, match_id, [1, 2, 3, 4])
        except BaseException as exc:  # reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=recorder, args=(m.id,)) for m in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    got = _ratings(store)
    assert len(common) == 3 and all(got[sid][2] == 2 for sid in common)
    assert len(open_matches(store, "ladder")) == 2


def test_a_real_worker_plays_the_ladder_and_rates_every_match_once(tmp_path: Path) -> None:
    """Python programs (built for real, inserted as accepted) play ladder duels in the
    sandbox through a real worker until the ladder is switched off."""
    sandbox = "full" if bwrap_usable() else "auto"
    contest = Contest(
        name="ladder",
        title="ladder test",
        ruleset="classic@1",
        maps=("arena-15",),
        players=2,
        limits=LimitsSpec(move_time=0.5, first_move_time=1.5, memory=64),
        validation=ValidationSpec(
            protocol="tron2010",
            self_play_copies=2,
            reference="builtin:random",
            qualify_games=0,
            reference_seats=1,
        ),
        judge=JudgeSpec(sandbox=sandbox),
        official=OfficialSpec(
            mode="ladder", group_size=2, filler="builtin:random", ladder_parallel=2
        ),
    )
    source = (Path(__file__).parent / "bots" / "good_bot.py").read_bytes()
    lang = language_for("python", source, contest.ruleset, dict(contest.languages))
    built = build_source(lang, "bot.py", source, contest)
    assert built.ok and built.artifact is not None, built.reason
    url = f"sqlite:///{tmp_path / 'judge.db'}"
    stop = threading.Event()
    with JudgeStore(url) as store:
        sids = [
            insert_program(
                store.engine, store.create_user(f"u{i}@example.org", "h"), f"bot{i}", built.artifact
            )
            for i in range(3)
        ]
        worker = threading.Thread(
            target=run_worker, args=(url, contest), kwargs={"stop": stop, "poll": 0.02}
        )
        worker.start()
        try:
            set_ladder(store.engine, contest, True)
            wait_until(lambda: _status(store, contest).done >= 4, 60)
            set_ladder(store.engine, contest, False)
            wait_until(lambda: _status(store, contest).in_flight == 0, 60)
        finally:
            stop.set()
            worker.join(60)
        assert not worker.is_alive()
        st = _status(store, contest)
        assert st.failed == 0 and st.done >= 4
        with store.engine.connect() as conn:
            played = [
                m
                for mid in conn.execute(sa.select(matches.c.id).where(matches.c.kind == "ladder"))
                .scalars()
                .all()
                if (m := load_match(conn, mid, replay=True)) is not None
            ]
            table = ladder.leaderboard(conn)
    assert len(played) == st.done
    for m in played:
        assert m.replay and {s.submission_id for s in m.seats} <= set(sids)
        assert len({s.submission_id for s in m.seats}) == 2 and all(s.rank for s in m.seats)
    assert sorted(r.submission_id for r in table) == sids
    assert sum(r.games for r in table) == 2 * st.done  # every match rated once


def _status(store: JudgeStore, contest: Contest) -> ladder.LadderStatus:
    with store.engine.connect() as conn:
        return ladder.status(conn, contest)


# -- lightcycle judge ladder -------------------------------------------------------------

LADDER_FILE = """\
[contest]
name = "ladder"
ruleset = "classic@1"
maps = ["arena-15"]
players = 2

[validation]
protocol = "tron2010"
reference = "builtin:random"
reference_seats = 1

[official]
mode = "{mode}"
ladder_parallel = 2
"""


def test_the_ladder_command_switches_and_shows_the_ladder(tmp_path: Path) -> None:
    runner = CliRunner()
    contest = tmp_path / "ladder.toml"
    contest.write_text(LADDER_FILE.format(mode="ladder"))
    url = f"sqlite:///{tmp_path / 'judge.db'}"
    for args in (["--help"], ["on", "--help"], ["off", "--help"], ["status", "--help"]):
        result = runner.invoke(app, ["judge", "ladder", *args])
        assert result.exit_code == 0 and "Example: lightcycle judge ladder" in result.output
    result = runner.invoke(app, ["judge", "ladder", "status", str(contest), "--db", url])
    assert result.exit_code == 0, result.output
    assert "ladder off ([official] mode = ladder): 0 of 2 matches in flight" in result.output
    assert "no player has an accepted program yet" in result.output
    with JudgeStore(url) as store:
        sids = accepted_players(store, 3)
    result = runner.invoke(app, ["judge", "ladder", "on", str(contest), "--db", url])
    assert result.exit_code == 0 and "ladder on: 2 matches queued" in result.output
    result = runner.invoke(app, ["judge", "ladder", "status", str(contest), "--db", url])
    assert "ladder on ([official] mode = ladder): 2 of 2 matches in flight" in result.output
    lines = [line.split() for line in result.output.splitlines()]
    rows = [w for w in lines if w and w[0] == "1"]
    assert sorted(w[1] for w in rows) == [f"bot{i}" for i in range(3)] and len(sids) == 3
    assert all(w[2:] == ["25.0", "8.33", "0.00", "0"] for w in rows)  # nobody rated yet
    result = runner.invoke(app, ["judge", "ladder", "off", str(contest), "--db", url])
    assert result.exit_code == 0 and "ladder off: no new matches" in result.output


def test_the_ladder_command_refuses_a_contest_not_in_ladder_mode(tmp_path: Path) -> None:
    contest = tmp_path / "rounds.toml"
    contest.write_text(LADDER_FILE.format(mode="elimination"))
    url = f"sqlite:///{tmp_path / 'judge.db'}"
    result = CliRunner().invoke(app, ["judge", "ladder", "on", str(contest), "--db", url])
    assert result.exit_code == 2
    assert 'has [official] mode = "elimination": set mode = "ladder"' in result.output
    assert "Traceback" not in result.output

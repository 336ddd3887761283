"""Round robin, gauntlet and free-for-all tables: who meets whom, in which seat, with which seed."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

from lightcycle.tournament.schedule import Gauntlet, RoundRobin, Tables, split_even


def test_round_robin_plays_every_ordered_pair_on_every_map_every_round() -> None:
    sched = RoundRobin(entrants=4, maps=2, rounds=3, seed=5).schedule({})
    assert sched.final
    games = Counter((p.round, p.map, p.seats) for p in sched.pairings)
    assert set(games) == {
        (r, m, s) for r in (1, 2, 3) for m in (0, 1) for s in permutations(range(4), 2)
    }
    assert set(games.values()) == {1}
    assert len({p.key for p in sched.pairings}) == len(sched.pairings) == 3 * 2 * 12


def test_both_seat_orders_share_a_seed_and_seeds_follow_the_tournament_seed() -> None:
    pairs = RoundRobin(entrants=3, maps=2, seed=1).schedule({}).pairings
    by_game = {(p.map, p.seats): p.seed for p in pairs}
    for (m, (a, b)), seed in by_game.items():
        assert by_game[(m, (b, a))] == seed
    assert len(set(by_game.values())) == len(by_game) // 2
    other = RoundRobin(entrants=3, maps=2, seed=2).schedule({}).pairings
    assert [p.seed for p in other] != [p.seed for p in pairs]
    assert [p.key for p in other] == [p.key for p in pairs]  # keys do not depend on the seed


def test_the_schedule_is_the_same_every_time_it_is_asked() -> None:
    rr = RoundRobin(entrants=5, maps=3, rounds=2, seed=11)
    assert rr.schedule({}) == rr.schedule({"r01-m00-000v001": (1, 2)})


def test_gauntlet_plays_the_challenger_against_each_other_bot_only() -> None:
    sched = Gauntlet(entrants=4, maps=2, challenger=2, rounds=2).schedule({})
    assert len(sched.pairings) == 2 * 2 * 3 * 2
    for p in sched.pairings:
        assert 2 in p.seats and len(set(p.seats)) == 2
    seats = Counter(p.seats for p in sched.pairings)
    assert seats[(2, 0)] == seats[(0, 2)] == 4


def test_split_even_makes_the_fewest_groups_as_equal_as_possible() -> None:
    assert split_even(list(range(7)), 4) == [[0, 1, 2, 3], [4, 5, 6]]
    assert [len(g) for g in split_even(list(range(9)), 4)] == [3, 3, 3]
    assert [len(g) for g in split_even(list(range(5)), 4)] == [3, 2]
    assert split_even([], 4) == []


def test_ffa_tables_fill_short_tables_and_rotate_seats_over_maps() -> None:
    t = Tables(entrants=6, maps=3, seats=4, rounds=2, seed=3)
    assert t.fillers == 1  # tables of 3 and 3
    sched = t.schedule({})
    assert sched.final and len(sched.pairings) == 2 * 2 * 3
    for p in sched.pairings:
        assert len(p.seats) == 4 and len(set(p.seats)) == 4
        assert sum(1 for s in p.seats if s >= 6) == 1  # one filler per table
    round1 = [p for p in sched.pairings if p.round == 1]
    players = Counter(s for p in round1 if p.map == 0 for s in p.seats if s < 6)
    assert players == Counter(range(6))  # everyone at exactly one table per map
    table1 = [p.seats for p in round1 if p.key.startswith("r01-t01")]
    assert table1[1] == table1[0][1:] + table1[0][:1]  # rotated by one seat per map
    round2 = [p.seats for p in sched.pairings if p.round == 2 and p.map == 0]
    assert round2 != [p.seats for p in round1 if p.map == 0]  # redrawn every round


def test_a_full_table_needs_no_filler() -> None:
    t = Tables(entrants=4, maps=1, seats=4)
    assert t.fillers == 0
    assert all(max(p.seats) < 4 for p in t.schedule({}).pairings)

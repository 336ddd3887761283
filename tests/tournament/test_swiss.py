"""Swiss pairings: by score, no repeated meetings where avoidable, byes, round by round."""

from __future__ import annotations

from collections import Counter

import pytest

from lightcycle.tournament.schedule import Pairing, Results
from lightcycle.tournament.swiss import Swiss, default_rounds, pair_round


def play(fmt: Swiss, strength: list[int]) -> tuple[Results, list[Pairing]]:
    """Play a Swiss to its end: the stronger entrant (higher number in ``strength``) wins."""
    results: dict[str, tuple[int, ...]] = {}
    while True:
        sched = fmt.schedule(results)
        missing = [p for p in sched.pairings if p.key not in results]
        if not missing:
            assert sched.final
            return results, sched.pairings
        assert len({p.round for p in missing}) == 1  # one round at a time
        for p in missing:
            if p.bye:
                results[p.key] = (1,)
            else:
                a, b = p.seats
                results[p.key] = (1, 2) if strength[a] > strength[b] else (2, 1)


def meetings(pairings: list[Pairing]) -> Counter[frozenset[int]]:
    return Counter(
        frozenset(p.seats) for p in pairings if not p.bye and p.map == 0 and p.key.endswith("g1")
    )


def test_default_rounds_is_log2() -> None:
    assert [default_rounds(n) for n in (2, 3, 4, 5, 8, 9, 16, 100)] == [1, 2, 2, 3, 3, 4, 4, 7]


def test_rounds_wait_for_the_previous_round() -> None:
    fmt = Swiss(entrants=6, maps=1, rounds=3, seed=2)
    first = fmt.schedule({})
    assert not first.final and {p.round for p in first.pairings} == {1}
    partial = {first.pairings[0].key: (1, 2)}
    assert fmt.schedule(partial) == first  # round 2 needs every game of round 1


def test_a_pairing_plays_every_map_twice_with_seats_swapped() -> None:
    fmt = Swiss(entrants=4, maps=3, rounds=1, seed=0)
    pairings = fmt.schedule({}).pairings
    assert len(pairings) == 2 * 3 * 2
    board1 = [p for p in pairings if p.label == "round 1, board 1"]
    assert {p.map for p in board1} == {0, 1, 2}
    for m in range(3):
        g1, g2 = (p for p in board1 if p.map == m)
        assert g1.seats == g2.seats[::-1] and g1.seed == g2.seed


@pytest.mark.parametrize("n", [4, 7, 8, 10])
def test_no_pair_meets_twice_while_avoidable(n: int) -> None:
    fmt = Swiss(entrants=n, maps=1, rounds=default_rounds(n) + 1, seed=n)
    strength = list(range(n))
    _, pairings = play(fmt, strength)
    assert max(meetings(pairings).values()) == 1


def test_the_strongest_wins_and_scores_decide_pairings() -> None:
    n = 8
    fmt = Swiss(entrants=n, maps=1, rounds=3, seed=4)
    strength = [3, 7, 1, 0, 6, 2, 5, 4]
    results, pairings = play(fmt, strength)
    points = Counter[int]()
    for p in pairings:
        for i, e in enumerate(p.seats):
            points[e] += results[p.key][i] == 1
    assert points[1] == 6  # entrant 1 (strongest) won every game: 3 rounds x 2 games
    # in round 3 the two entrants undefeated after round 2 meet
    round2 = [p for p in pairings if p.round <= 2]
    unbeaten = [
        e
        for e in range(n)
        if all(results[p.key][p.seats.index(e)] == 1 for p in round2 if e in p.seats)
    ]
    assert len(unbeaten) == 2
    assert frozenset(unbeaten) in meetings([p for p in pairings if p.round == 3])


def test_byes_go_to_the_lowest_placed_and_never_twice_while_avoidable() -> None:
    fmt = Swiss(entrants=5, maps=2, rounds=4, seed=1)
    assert fmt.bye_points == 4.0  # the points of a won pairing: two games on each map
    results, pairings = play(fmt, [0, 1, 2, 3, 4])
    byes = [p.seats[0] for p in pairings if p.bye]
    assert len(byes) == 4 and len(set(byes)) == 4
    assert all(results[p.key] == (1,) for p in pairings if p.bye)


def test_pair_round_prefers_new_opponents_then_allows_repeats() -> None:
    pairs, bye = pair_round([0, 1, 2, 3], {frozenset((0, 1))}, set())
    assert bye is None and pairs == [(0, 2), (1, 3)]
    every = {frozenset(p) for p in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]}
    pairs, _ = pair_round([0, 1, 2, 3], every, set())
    assert sorted(x for p in pairs for x in p) == [0, 1, 2, 3]
    pairs, bye = pair_round([0, 1, 2], set(), {2})
    assert bye == 1 and pairs == [(0, 2)]

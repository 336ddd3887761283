"""The 3D course's elimination: groups of four, better than two of three rivals is safe."""

from __future__ import annotations

from collections.abc import Callable

from lightcycle.tournament.elimination import MAX_HEATS, Elimination
from lightcycle.tournament.schedule import Pairing, Results


def ranks_by(strength: Callable[[int], float]) -> Callable[[Pairing], tuple[int, ...]]:
    """A game in which the stronger always finishes ahead (equal strength: a tie)."""

    def game(p: Pairing) -> tuple[int, ...]:
        s = [strength(e) for e in p.seats]
        return tuple(1 + sum(1 for o in s if o > x) for x in s)

    return game


def run(fmt: Elimination, game: Callable[[Pairing], tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    results: dict[str, tuple[int, ...]] = {}
    for _ in range(10_000):
        sched = fmt.schedule(results)
        missing = [p for p in sched.pairings if p.key not in results]
        if not missing:
            assert sched.final
            return results
        for p in missing:
            results[p.key] = game(p)
    raise AssertionError("the elimination never ended")


def test_groups_of_four_filled_with_fillers() -> None:
    fmt = Elimination(entrants=7, maps=2, seed=3)
    assert fmt.fillers == 2  # 7 -> 4+3, ..., 5 -> 3+2, 2 -> 2: at most two fillers
    first = fmt.schedule({})
    assert not first.final
    groups = first.pairings
    assert [len(p.seats) for p in groups] == [4, 4]
    assert sorted(e for p in groups for e in p.seats if e < 7) == list(range(7))
    assert sum(1 for p in groups for e in p.seats if e >= 7) == 1
    assert all(len(set(p.seats)) == 4 for p in groups)


def test_better_than_two_of_three_is_safe_and_nobody_left_keeps_the_worst() -> None:
    fmt = Elimination(entrants=4, maps=1, seed=0)
    (g,) = fmt.schedule({}).pairings
    strength = {0: 4, 1: 3, 2: 2, 3: 1, 4: 0, 5: 0}  # fillers (4, 5) are the weakest
    results: Results = {g.key: ranks_by(strength.__getitem__)(g)}
    (h2,) = [p for p in fmt.schedule(results).pairings if p.key not in results]
    # 0 and 1 beat two rivals or more: safe; 2 and 3 play again with two fillers
    assert sorted(e for e in h2.seats if e < 4) == [2, 3] and h2.label.endswith("heat 2, group 1")
    results = {**results, h2.key: ranks_by(strength.__getitem__)(h2)}
    # both beat the fillers, which would leave nobody: 3 beat fewer rivals and is out
    state = fmt.state(results)
    assert state.out == [(3, 1)]
    assert state.remaining == [0, 1, 2]


def test_a_full_elimination_ranks_everyone_and_the_strongest_wins() -> None:
    n = 9
    fmt = Elimination(entrants=n, maps=3, seed=7)
    strength = [5, 2, 8, 1, 7, 3, 0, 6, 4, -1, -1, -1]
    results = run(fmt, ranks_by(lambda e: strength[e]))
    state = fmt.state(results)
    assert state.final and len(state.out) == n - 1 and state.remaining == [2]
    assert [e for e, _ in state.out] != []
    assert [r for _, r in state.out] == list(range(1, n))
    ranking = fmt.ranking(results)
    assert ranking is not None and ranking[0] == [2]
    assert sorted(e for tier in ranking for e in tier) == list(range(n))
    # keys are unique and heats use the maps in turn
    pairings = fmt.schedule(results).pairings
    assert len({p.key for p in pairings}) == len(pairings)
    assert {p.map for p in pairings} == {0, 1, 2}


def test_rounds_can_stop_early_and_the_rest_share_the_top() -> None:
    fmt = Elimination(entrants=6, maps=1, rounds=2, seed=1)
    results = run(fmt, ranks_by(lambda e: e))
    state = fmt.state(results)
    assert len(state.out) == 2 and len(state.remaining) == 4
    ranking = fmt.ranking(results)
    assert ranking is not None and len(ranking[0]) == 4


def test_bots_that_always_tie_end_by_tie_break() -> None:
    fmt = Elimination(entrants=3, maps=1, seed=2)
    results = run(fmt, lambda p: (1,) * len(p.seats))
    state = fmt.state(results)
    assert state.tie_breaks == [1, 2]
    assert state.final and len(state.remaining) == 1
    assert sum(1 for p in fmt.schedule(results).pairings if p.round == 1) == MAX_HEATS


def test_duels_elimination() -> None:
    fmt = Elimination(entrants=5, maps=1, seats=2, seed=3)
    assert fmt.need == 1 and fmt.fillers == 1  # three at risk: a duel and a lone player
    results = run(fmt, ranks_by(lambda e: e))
    state = fmt.state(results)
    assert state.remaining == [4] and len(state.out) == 4

"""Standings: pairwise points, W/D/L and forfeits, byes, order, crosstable."""

from __future__ import annotations

from lightcycle.tournament.ratings import RatingBook
from lightcycle.tournament.results import MatchResult, SeatResult, seat_outcomes
from lightcycle.tournament.standings import Tally


def game(
    key: str, entrants: list[int], ranks: list[int], forfeits: list[bool] | None = None
) -> MatchResult:
    forfeits = forfeits or [False] * len(ranks)
    seats = tuple(
        SeatResult(i, e, r, outcome=o, forfeit=f, forfeit_win=fw, forfeit_loss=fl)
        for i, (e, r, f, (o, fw, fl)) in enumerate(
            zip(entrants, ranks, forfeits, seat_outcomes(ranks, forfeits), strict=True)
        )
    )
    return MatchResult(key, "test", 10, seats)


def test_seat_outcomes() -> None:
    assert seat_outcomes([1, 2], [False, False]) == [("win", False, False), ("loss", False, False)]
    assert seat_outcomes([1, 2], [False, True]) == [("win", True, False), ("loss", False, True)]
    assert seat_outcomes([1, 1], [True, True]) == [("draw", False, False)] * 2
    assert seat_outcomes([2, 1, 3, 3], [False] * 4) == [
        ("loss", False, False),
        ("win", False, False),
        ("loss", False, False),
        ("loss", False, False),
    ]


def test_pairwise_points_in_a_free_for_all() -> None:
    t = Tally(["a", "b", "c", "d"])
    t.add(game("g", [0, 1, 2, 3], [2, 1, 3, 3]))
    pts = [line.points for line in t.lines]
    assert pts == [2.0, 3.0, 0.5, 0.5] and sum(pts) == 6  # one point per pair of players
    assert [line.possible for line in t.lines] == [3.0] * 4
    assert t.lines[1].wins == 1 and t.lines[0].losses == 1 and t.lines[0].places == {2: 1}
    cross = t.crosstable()
    assert cross[(2, 3)] == (0.5, 1) and cross[(0, 1)] == (0.0, 1) and cross[(1, 0)] == (1.0, 1)


def test_duels_count_forfeits_and_byes_and_order_the_table() -> None:
    t = Tally(["a", "b", "c", "filler"], fillers=[3], bye_points=2.0)
    t.add(game("1", [0, 1], [1, 2], [False, True]))
    t.add(game("2", [1, 0], [1, 1]))
    t.add(game("3", [2, 3], [1, 2]))
    t.add(MatchResult("bye", "bye", 0, (SeatResult(0, 2, 1, outcome="bye"),)))
    a, b, c = t.lines[:3]
    assert (a.wins, a.draws, a.forfeit_wins, a.points) == (1, 1, 1, 1.5)
    assert (b.losses, b.draws, b.forfeit_losses, b.points) == (1, 1, 1, 0.5)
    assert (c.byes, c.points, c.possible, c.games) == (1, 3.0, 3.0, 1)
    rows = t.standings(RatingBook())
    assert [r.name for r in rows] == ["c", "a", "b"]  # the filler is not ranked
    assert [r.place for r in rows] == [1, 2, 3]
    assert rows[1].buchholz == 0.5  # a met b only


def test_ties_share_a_place_and_a_format_ranking_comes_first() -> None:
    t = Tally(["a", "b", "c"])
    rows = t.standings(RatingBook())
    assert [r.place for r in rows] == [1, 1, 1]
    rows = t.standings(RatingBook(), ranking=[[2], [0, 1]])
    assert [r.name for r in rows] == ["c", "a", "b"] and [r.place for r in rows] == [1, 2, 2]

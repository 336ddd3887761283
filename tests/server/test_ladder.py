"""The ladder's Elo against values worked by hand, and who is rated."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from lightcycle.server.ladder import START, K, Rater, ladder_name, rated_seats, rater


@dataclass
class Out:
    name: str
    account: str | None
    kind: str
    rank: int


def test_the_contests_constants() -> None:
    assert (START, K) == (2000.0, 24.0)


def test_who_is_rated() -> None:
    assert ladder_name("alice", "alice", "remote") == "alice"
    assert ladder_name("builtin:medium", None, "builtin") == "builtin:medium"
    assert ladder_name("guest", None, "remote") is None


def test_equal_players_winner_gains_twelve() -> None:
    # E = 1/(1+10^0) = 0.5; the winner gets 24*(1-0.5) = +12, the loser -12.
    seats = [Out("alice", "alice", "remote", 1), Out("builtin:medium", None, "builtin", 2)]
    rated = rated_seats(seats)
    assert rated == {0: "alice", 1: "builtin:medium"}
    assert rater(seats, rated)({}) == {"alice": 2012.0, "builtin:medium": 1988.0}


def test_the_favourite_gains_less() -> None:
    # 2100 beats 2000: E = 1/(1+10^(-100/400)) = 0.6400649998 (bc -l);
    # a: 2100 + 24*(1-0.6400649998) = 2108.6384400047, b: 2000 - 8.6384400047.
    after = Rater([("a", 1), ("b", 2)])({"a": 2100.0, "b": 2000.0})
    assert after["a"] == pytest.approx(2108.638440004730758, abs=1e-9)
    assert after["b"] == pytest.approx(1991.361559995269242, abs=1e-9)


def test_three_players_summed_over_pairs() -> None:
    # All at 2000, so every E = 0.5: first 24*(0.5+0.5) = +24, second 24*(-0.5+0.5) = 0,
    # third -24. A draw for second place: 24*(-0.5+0) = -12 each, first +24.
    assert Rater([("a", 1), ("b", 2), ("c", 3)])({}) == {"a": 2024.0, "b": 2000.0, "c": 1976.0}
    assert Rater([("a", 1), ("b", 2), ("c", 2)])({}) == {"a": 2024.0, "b": 1988.0, "c": 1988.0}


def test_anonymous_players_are_left_out_and_the_rest_rated_among_themselves() -> None:
    # alice beat the guest and the bot: only alice and the bot are rated: +12 / -12.
    seats = [
        Out("guest", None, "remote", 2),
        Out("alice", "alice", "remote", 1),
        Out("builtin:medium", None, "builtin", 3),
    ]
    rated = rated_seats(seats)
    assert rated == {1: "alice", 2: "builtin:medium"}
    assert rater(seats, rated)({}) == {"alice": 2012.0, "builtin:medium": 1988.0}


def test_one_rated_player_changes_nothing() -> None:
    assert rated_seats([Out("guest", None, "remote", 1), Out("bob", "bob", "remote", 2)]) == {}
    assert Rater([("bob", 1)])({"bob": 2000.0}) == {}

"""A duel map by map: grouping, counting and the worst map first."""

from __future__ import annotations

import math

from lightcycle.tournament.duel import GameResult, PairResult
from lightcycle.tournament.duelmaps import by_map, by_phase


def _game(pair: int, game: int, name: str, score: float, **kw: object) -> GameResult:
    fields: dict[str, object] = {
        "pair": pair,
        "game": game,
        "map": name,
        "seed": pair,
        "a_seat": game - 1,
        "score": score,
        "reason": "test",
        "turns": 10,
        "verdicts": ["ok", "ok"],
        "moves": [10, 10],
        "move_time": [0.5, 0.1],
        "max_move": [0.06, 0.01],
        "info": [{}, {}],
    }
    fields.update(kw)
    return GameResult(**fields)  # type: ignore[arg-type]


def _pair(index: int, name: str, a: float, b: float, **kw: object) -> PairResult:
    games = [_game(index, 1, name, a, **kw), _game(index, 2, name, b, **kw)]
    return PairResult(index=index, map=name, seed=index, games=games)


def test_maps_are_counted_apart_and_the_worst_comes_first() -> None:
    pairs = [
        _pair(0, "ring@1", 1.0, 1.0),
        _pair(1, "open@1", 0.0, 0.5, turns=30),
        _pair(2, "ring@1", 0.5, 1.0),
        _pair(3, "open@1", 0.0, 0.0, turns=50),
    ]
    lines = by_map(pairs)
    assert [line.map for line in lines] == ["open@1", "ring@1"]
    open_, ring = lines
    assert (open_.trinomial.wins, open_.trinomial.draws, open_.trinomial.losses) == (0, 1, 3)
    assert open_.games == 4 and open_.turns == 40
    assert math.isclose(open_.score, 0.125)
    assert open_.pentanomial.counts == (1, 1, 0, 0, 0)
    assert open_.estimate().elo < 0 < ring.estimate().elo
    assert ring.pentanomial.counts == (0, 0, 0, 1, 1)
    # 0.5 s over 10 moves against 0.1 s: 50 ms and 10 ms a move
    assert math.isclose(ring.ms[0], 50.0) and math.isclose(ring.ms[1], 10.0)


def test_failures_count_each_sides_lost_games() -> None:
    timed_out = ["timeout: took 0.131 s", "ok"]
    pairs = [_pair(0, "arena@1", 0.0, 1.0, verdicts=timed_out)]
    (line,) = by_map(pairs)
    assert line.failures == (2, 0)
    data = line.to_dict()
    assert data["a_failures"] == 2 and data["b_failures"] == 0 and data["losses"] == 1


def test_a_one_sided_map_writes_an_unbounded_elo_as_text() -> None:
    (line,) = by_map([_pair(0, "arena@1", 1.0, 1.0), _pair(1, "arena@1", 1.0, 1.0)])
    data = line.to_dict()
    assert data["score"] == 1.0 and data["elo"] == "inf"


def test_time_by_phase_is_summed_per_side_and_map() -> None:
    a = {"first": [1, 0.5], "middle": [4, 0.2]}
    b = {"first": [1, 0.1], "separated": [9, 0.009]}
    pairs = [_pair(0, "ring@1", 1.0, 0.0, phase_time=[a, b])]
    (line,) = by_map(pairs)
    mine, theirs = line.phases
    assert list(mine) == ["first", "middle"] and list(theirs) == ["first", "separated"]
    assert mine["middle"].moves == 8 and math.isclose(mine["middle"].ms, 50.0)  # 0.4 s / 8
    assert math.isclose(theirs["separated"].ms, 1.0)
    assert line.to_dict()["a_phases"]["first"] == {"moves": 2, "ms": 500.0}
    sides = by_phase(g for p in pairs for g in p.games)
    assert sides == line.phases
    assert by_phase([]) == ({}, {})

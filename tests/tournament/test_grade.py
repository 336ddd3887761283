"""Grading plays real games: team games on the 24x20 court and duels on small maps, a
few games per series, so the whole file runs in about a second."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lightcycle.bots.api import BotError
from lightcycle.referee.players import BotSpec
from lightcycle.tournament.grade import GameDone, grade_bot, series_maps
from lightcycle.tournament.rubric import load_rubric, parse_rubric

HERE = Path(__file__).parent / "rubrics"

TWO_SERIES = """
title = "Two series"
ruleset = "teams"
maps = ["court-small"]

[[series]]
opponent = "builtin:randombot"
label = "RandomBot"
games = 2
rows = [ { wins = 1, points = 1 }, { wins = 2, points = 2 } ]

[[series]]
opponent = "builtin:linebot"
label = "LineBot"
games = 4
rows = [ { wins = 1, points = 10 }, { wins = 2, points = 20 }, { wins = 3, points = 40 },
         { wins = 4, points = 80 } ]
"""


def test_lookbot_points_follow_its_results() -> None:
    """The points follow the W/D/L, whatever they are: under teams@1 the CPU time each
    team used orders contested moves, so the test does not pin the results."""
    events: list[GameDone] = []
    g = grade_bot("builtin:lookbot", load_rubric(HERE / "tiny.toml"), on_game=events.append)
    (s,) = g.series
    r = s.result
    assert r.games == 2 and r.wins >= 1  # LookBot beats RandomBot (2-0 at seed 0)
    assert [row.achieved for row in s.rows] == [True, r.wins >= 1, r.wins >= 2]
    assert [row.points for row in s.rows] == [1, 2 if r.wins >= 1 else 0, 4 if r.wins >= 2 else 0]
    assert g.total == sum(row.points for row in s.rows) and g.maximum == 7
    assert g.bot == "LookBot" and g.ruleset == "teams@1"
    assert [(e.series, e.game, e.games, e.seed) for e in events] == [(0, 1, 2, 0), (0, 2, 2, 1)]
    assert [e.result for e in events].count("win") == r.wins
    assert events[0].map == "court-small@1" and events[0].label == "RandomBot"


def test_each_threshold_scores_from_one_series_and_progress_agrees() -> None:
    events: list[GameDone] = []
    g = grade_bot("builtin:lookbot", parse_rubric(TWO_SERIES), on_game=events.append)
    assert len(events) == 6  # 2 + 4 games: each series played once, not once per row
    for k, s in enumerate(g.series):
        mine = [e.result for e in events if e.series == k]
        r = s.result
        assert (mine.count("win"), mine.count("draw"), mine.count("loss")) == (
            r.wins,
            r.draws,
            r.losses,
        )
        for row, rule in zip(s.rows, parse_rubric(TWO_SERIES).series[k].rows, strict=True):
            assert row.achieved == (r.wins >= rule.wins)
            assert row.points == (rule.points if r.wins >= rule.wins else 0)
    assert g.total == sum(row.points for row in g.rows)
    assert g.maximum == 3 + 150


def test_a_crashing_bot_loses_everything_but_the_zero_row(tmp_path: Path) -> None:
    bot = tmp_path / "crash.py"
    bot.write_text(
        "from lightcycle.bots.api import Bot\n\n\nclass Crash(Bot):\n"
        '    name = "Crash"\n\n    def move(self, view):\n        raise RuntimeError("boom")\n'
    )
    g = grade_bot(f"py:{bot}", load_rubric(HERE / "tiny.toml"))
    r = g.series[0].result
    assert (r.wins, r.draws, r.losses) == (0, 0, 2)
    assert r.verdicts == {"crashed": 2}
    assert g.total == 1  # the "wins 0 of 2" row


def test_out_dir_holds_replays_and_an_atomic_grade(tmp_path: Path) -> None:
    out = tmp_path / "grade"
    g = grade_bot("builtin:lookbot", load_rubric(HERE / "tiny.toml"), out_dir=out, seed=5)
    data = json.loads((out / "grade.json").read_text())
    assert data == json.loads(json.dumps(g.to_dict()))
    assert data["seed"] == 5 and data["maximum"] == 7
    folder = out / "01-randombot"
    assert data["series"][0]["out_dir"] == str(folder)
    results = json.loads((folder / "results.json").read_text())
    assert [game["seed"] for game in results["games"]] == [5, 6]
    assert [game["bots"][0] for game in results["games"]] == ["LookBot", "RandomBot"]
    assert sorted(p.name for p in folder.glob("game-*.json")) == ["game-001.json", "game-002.json"]
    assert not list(out.rglob("*.tmp"))


def test_swapping_plays_every_map_from_both_seats(tmp_path: Path) -> None:
    text = (
        'title = "maps"\nruleset = "classic"\nmaps = ["ring", "pillars"]\n[[series]]\n'
        'opponent = "builtin:random"\ngames = 4\nrows = [ { wins = 1, points = 1 } ]\n'
    )
    r = parse_rubric(text)
    assert [m.name for m in series_maps(r.series[0])] == ["ring", "pillars"]
    grade_bot("builtin:wallhugger", r, out_dir=tmp_path)
    games = json.loads((tmp_path / "01-random" / "results.json").read_text())["games"]
    seats = {(g["map"], g["bots"].index("WallHugger")) for g in games}
    assert seats == {("ring@1", 0), ("ring@1", 1), ("pillars@1", 0), ("pillars@1", 1)}


def test_a_bot_files_own_time_is_ignored_with_a_note() -> None:
    spec = BotSpec(text="builtin:lookbot", kind="inproc", time={"move": 60.0})
    g = grade_bot(spec, load_rubric(HERE / "tiny.toml"))
    assert g.notes == (
        "the bot file's [time] (move) was ignored: the rubric sets the time controls",
    )


def test_a_bad_bot_fails_before_any_game() -> None:
    events: list[GameDone] = []
    with pytest.raises(BotError, match="unknown bot"):
        grade_bot("builtin:nobody", load_rubric(HERE / "tiny.toml"), on_game=events.append)
    assert events == []


def test_run_match_swapping_over_two_maps_starts_each_map_from_both_seats() -> None:
    from lightcycle.maps.registry import get_map
    from lightcycle.referee.match import run_match
    from lightcycle.referee.players import parse_bot_spec
    from lightcycle.rules.variants import get_ruleset

    specs = [parse_bot_spec("builtin:wallhugger"), parse_bot_spec("builtin:random")]
    maps = [get_map("ring"), get_map("pillars")]
    result = run_match(specs, maps, get_ruleset("classic"), games=4, swap_sides=True)
    seats = {(g.map, g.bots.index("WallHugger")) for g in result.games}
    assert seats == {("ring@1", 0), ("ring@1", 1), ("pillars@1", 0), ("pillars@1", 1)}


def test_a_one_game_series_is_worded_in_the_singular() -> None:
    text = (
        'title = "one"\nruleset = "classic"\nmaps = ["ring"]\n[[series]]\n'
        'opponent = "builtin:random"\nlabel = "Random"\ngames = 1\n'
        "rows = [ { wins = 1, points = 1 } ]\n"
    )
    (series,) = parse_rubric(text).series
    assert series.requirement(series.rows[0]) == "wins 1 of 1 game vs Random"

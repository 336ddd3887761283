"""Rubric files: the shipped rubrics, every key of the format, every malformed file's
message, and scoring from hand-made results (no games are played here).

Each ``rubrics/bad-*.toml`` states on its first line the line and the message it must
be refused with (``# expect line N: fragment``; line 0: the message names no line).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lightcycle.formats.errors import FormatError
from lightcycle.referee.clock import TimeControl
from lightcycle.tournament.rubric import (
    SHIPPED,
    RubricError,
    SeriesResult,
    load_rubric,
    parse_rubric,
    score,
)

HERE = Path(__file__).parent / "rubrics"
BAD = sorted(HERE.glob("bad-*.toml"))
EXPECT = re.compile(r"# expect line (\d+): (.*)")


def test_the_team_course_rubric_is_the_courses_75_points() -> None:
    r = load_rubric("teams")
    assert r.ruleset.id == "teams@1"
    assert r.max_points == 75
    plan = [
        (s.opponent, s.label, s.games, [(row.wins, row.points) for row in s.rows]) for s in r.series
    ]
    assert plan == [
        ("builtin:randombot", "RandomBot", 3, [(3, 15)]),
        ("builtin:linebot", "LineBot", 10, [(w, 5) for w in (3, 5, 6, 7, 8, 9)]),
        ("builtin:lookbot", "LookBot", 10, [(5, 15), (9, 15)]),
    ]
    for s in r.series:
        assert s.maps == ("court",)
        assert s.swap_sides and not s.draws_as_half_wins
        # the course's time controls, carried by the ruleset: 5 s first, 0.1 s average
        assert s.control == TimeControl(move=None, first_move=5.0, average=0.1)
    assert r.series[0].requirement(r.series[0].rows[0]) == "wins 3 of 3 games vs RandomBot"


def test_the_duel_rubric_totals_100_against_the_ladder() -> None:
    r = load_rubric("duel")
    assert r.ruleset.id == "classic@1"
    assert r.max_points == 100
    assert [s.opponent for s in r.series] == [
        "builtin:random",
        "builtin:wallhugger",
        "builtin:chaser",
        "builtin:runaway",
        "builtin:floodfill",
        "builtin:territory",
        "builtin:medium",
        "builtin:strong:nodes=3000",  # a node budget: the same moves on every machine
    ]
    assert [s.label for s in r.series][-1] == "Strong"
    for s in r.series:
        assert len(s.maps) >= 3 and s.swap_sides and s.draws_as_half_wins
        assert s.control.move == 1.0 and s.control.first_move == 3.0
        assert [row.wins for row in s.rows] == sorted(row.wins for row in s.rows)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_rubrics_are_found_by_name(name: str) -> None:
    assert load_rubric(name).source == f"lightcycle/data/rubrics/{name}.toml"


def test_every_key_of_the_format() -> None:
    r = load_rubric(HERE / "every-key.toml")
    assert r.title == "Every key"
    assert r.description == "A rubric that uses every key."
    assert r.seed == 7
    assert r.ruleset.settings.turn_limit == 300
    first, second = r.series
    assert first.opponent == "builtin:random" and first.label == "Random"
    assert first.maps == ("ring", "pillars")
    assert not first.swap_sides and first.draws_as_half_wins
    assert first.control == TimeControl(move=0.5, first_move=None, bank=2.0)
    assert first.rows[0].points == 2.5
    assert (
        first.requirement(first.rows[0]) == "wins 2 of 4 games vs Random (a draw counts half a win)"
    )
    assert first.requirement(first.rows[1]) == "beats Random every time"
    assert second.label == "The Chaser" and second.maps == ("arena-15",)
    assert second.swap_sides and not second.draws_as_half_wins
    assert second.control == TimeControl(move=2.0, first_move=None, bank=2.0)
    assert [(row.wins, row.points) for row in second.rows] == [(1, 1), (3, 3)]
    assert r.max_points == 2.5 + 5 + 1 + 3
    assert r.games == 7


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_malformed_rubrics_say_where_and_what(path: Path) -> None:
    m = EXPECT.fullmatch(path.read_text().splitlines()[0])
    assert m is not None, f"{path.name}: first line must be '# expect line N: ...'"
    line, fragment = int(m.group(1)), m.group(2)
    with pytest.raises(RubricError) as info:
        load_rubric(path)
    message = str(info.value)
    where = f"{path}:{line}: " if line else f"{path}: "
    assert message.startswith(where), message
    assert fragment in message, message
    assert info.value.line == line


def test_a_rubric_error_is_a_format_error() -> None:
    """So the command line's error guard turns it into one red line."""
    assert issubclass(RubricError, FormatError)


def test_missing_file() -> None:
    with pytest.raises(RubricError, match=r"nope\.toml: expected a rubric file or a shipped"):
        load_rubric("nope.toml")


def test_opponent_files_are_relative_to_the_rubric(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "ref.py").write_text("# a bot\n")
    text = (
        'title = "t"\nruleset = "classic"\nmaps = ["ring"]\n[[series]]\n'
        'opponent = "py:bots/ref.py:RefBot"\ngames = 1\nrows = [ { wins = 1, points = 1 } ]\n'
    )
    (tmp_path / "r.toml").write_text(text)
    s = load_rubric(tmp_path / "r.toml").series[0]
    assert s.opponent == f"py:{tmp_path / 'bots' / 'ref.py'}:RefBot"
    assert s.label == "ref"


def test_a_map_file_is_relative_to_the_rubric(tmp_path: Path) -> None:
    from lightcycle.maps.registry import get_map

    spec = get_map("ring")
    (tmp_path / "mine.map").write_text(
        Path(__file__).parents[2].joinpath("src/lightcycle/maps/data/ring.map").read_text()
    )
    text = (
        'title = "t"\nruleset = "classic"\nmaps = ["mine.map"]\n[[series]]\n'
        'opponent = "random"\ngames = 1\nrows = [ { wins = 1, points = 1 } ]\n'
    )
    (tmp_path / "r.toml").write_text(text)
    s = load_rubric(tmp_path / "r.toml").series[0]
    assert s.maps == (str(tmp_path / "mine.map"),)
    assert get_map(s.maps[0]).board == spec.board


# --- scoring, from hand-made results --------------------------------------------------


def test_scoring_follows_the_course_rubric() -> None:
    r = load_rubric("teams")
    g = score(r, [SeriesResult(3, 0, 0), SeriesResult(6, 1, 3), SeriesResult(5, 0, 5)], "Mine")
    assert [row.achieved for row in g.rows] == [
        True,  # 3 of 3 vs RandomBot
        True,
        True,
        True,  # 3, 5, 6 of 10 vs LineBot
        False,
        False,
        False,  # 7, 8, 9: a draw is not a win in the course
        True,
        False,  # 5 and 9 of 10 vs LookBot
    ]
    assert g.total == 15 + 3 * 5 + 15
    assert g.maximum == 75
    assert [s.points for s in g.series] == [15, 15, 15]
    assert g.series[1].credit == 6


def test_one_loss_against_randombot_costs_all_15_points() -> None:
    g = score(
        load_rubric("teams"),
        [SeriesResult(2, 0, 1), SeriesResult(10, 0, 0), SeriesResult(10, 0, 0)],
    )
    assert g.total == 60
    assert g.rows[0].points == 0 and g.rows[0].max_points == 15


def test_draws_count_half_only_when_the_series_says_so() -> None:
    text = (
        'title = "t"\nruleset = "classic"\nmaps = ["ring"]\n'
        '[[series]]\nopponent = "random"\ngames = 4\nrows = [ { wins = 3, points = 1 } ]\n'
        '[[series]]\nopponent = "random"\ngames = 4\ndraws_as_half_wins = true\n'
        "rows = [ { wins = 3, points = 1 }, { wins = 4, points = 1 } ]\n"
    )
    r = parse_rubric(text)
    g = score(r, [SeriesResult(2, 2, 0), SeriesResult(2, 2, 0)])
    assert [s.credit for s in g.series] == [2, 3]
    assert [row.achieved for row in g.rows] == [False, True, False]
    assert g.total == 1 and g.maximum == 3


def test_a_zero_win_row_is_earned_by_playing() -> None:
    r = load_rubric(HERE / "tiny.toml")
    g = score(r, [SeriesResult(0, 0, 2)])
    assert [row.points for row in g.rows] == [1, 0, 0]


def test_results_must_match_the_series() -> None:
    r = load_rubric("teams")
    with pytest.raises(ValueError, match="3 series, got 2 results"):
        score(r, [SeriesResult(3, 0, 0), SeriesResult(10, 0, 0)])
    with pytest.raises(ValueError, match="series vs LineBot has 10 games"):
        score(r, [SeriesResult(3, 0, 0), SeriesResult(9, 0, 0), SeriesResult(10, 0, 0)])


def test_grade_to_dict_is_plain_json() -> None:
    r = load_rubric("teams")
    results = [
        SeriesResult(3, 0, 0),
        SeriesResult(9, 0, 1, {"timeout": 1}, "out/02-linebot"),
        SeriesResult(4, 0, 6),
    ]
    d = json.loads(json.dumps(score(r, results, "Mine").to_dict()))
    assert d["bot"] == "Mine" and d["ruleset"] == "teams@1"
    assert d["total"] == 45 and d["maximum"] == 75
    line = d["series"][1]
    assert (line["wins"], line["draws"], line["losses"], line["games"]) == (9, 0, 1, 10)
    assert line["verdicts"] == {"timeout": 1} and line["out_dir"] == "out/02-linebot"
    assert line["rows"][-1] == {
        "requirement": "wins 9 of 10 games vs LineBot",
        "achieved": True,
        "points": 5,
        "max_points": 5,
    }

"""A duel's result shows itself in a notebook: the command line's table, as plain HTML."""

from __future__ import annotations

import html
import re

from lightcycle.maps.registry import get_map
from lightcycle.tournament.duel import run_duel
from lightcycle.tournament.stats import format_elo

ARENA = [get_map("arena-10")]


def cells(shown: str) -> list[list[str]]:
    """The table's body as text, row by row."""
    rows = re.findall(r"<tr>(.*?)</tr>", shown.split("<tbody>")[1])
    return [
        [html.unescape(re.sub("<[^>]+>", "", c)) for c in re.findall(r"<td>(.*?)</td>", r)]
        for r in rows
    ]


def test_a_duel_shows_each_bot_from_its_own_side() -> None:
    result = run_duel("builtin:wallhugger", "builtin:random", ARENA, games=10, workers=1)
    shown = result._repr_html_()
    assert "<script" not in shown and "http" not in shown and "<style" not in shown
    assert "10 games (5 side-swapped pairs) on 1 map" in shown
    a, b = cells(shown)
    t, est = result.trinomial, result.estimate()
    assert a[:4] == ["WallHugger builtin:wallhugger", str(t.wins), str(t.draws), str(t.losses)]
    assert b[:4] == ["Random builtin:random", str(t.losses), str(t.draws), str(t.wins)]
    assert (
        a[5] == f"{format_elo(est.elo)} ({format_elo(est.elo_low)} .. {format_elo(est.elo_high)})"
    )
    assert b[5].startswith(format_elo(-est.elo + 0.0))


def test_too_few_pairs_give_no_interval_and_say_so() -> None:
    result = run_duel("builtin:wallhugger", "builtin:random", ARENA, games=4, workers=1)
    shown = result._repr_html_()
    assert "No interval yet: 2 pairs, at least 5 needed." in shown
    assert "(" not in cells(shown)[0][5]

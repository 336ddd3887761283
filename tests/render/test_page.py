"""The page around an exported board: the words it says and where they go."""

from __future__ import annotations

import itertools

from lightcycle.core.moves import Move
from lightcycle.core.state import GameState
from lightcycle.render import palette
from lightcycle.render.page import (
    MIN_WIDTH,
    Caption,
    Seat,
    caption,
    estimate_width,
    layout,
)
from lightcycle.rules.engine import new_game, step
from tests.conftest import grid_map
from tests.replay.test_convert import random_replay


def _crash() -> tuple[GameState, GameState]:
    s = new_game("classic", grid_map(["######", "#1..2#", "######"]), seed=7, names=["Ann", "Bob"])
    return s, step(s, {0: Move(0, 8), 1: Move(1, 4)})  # Bob drives into the wall


def test_the_caption_says_map_ruleset_seed_turn_and_each_seat() -> None:
    start, end = _crash()
    cap = caption(start, "den@1", last_turn=1)
    assert cap.title == "den@1 · classic@1 · seed 7"
    assert cap.turn == "turn 0 of 1"
    assert cap.seats == (
        Seat("Ann", palette.head(0), "alive", False),
        Seat("Bob", palette.head(1), "alive", False),
    )
    assert cap.result == ""
    cap = caption(end, "den@1", last_turn=1)
    assert [s.note for s in cap.seats] == ["wins", "out, turn 1"]
    assert cap.seats[1].out and not cap.seats[0].out
    assert cap.result.startswith("Ann wins (") and cap.result.endswith(", turn 1)")


def test_teams_count_live_cycles_and_scores_show() -> None:
    states = list(random_replay("teams", seed=3).states())
    notes = caption(states[0]).seats[0].note
    n = sum(c.team == 0 for c in states[0].cycles)
    assert notes == f"{n}/{n} alive"
    scored = list(random_replay("tron3d", seed=3).states())[-1]
    if any(scored.scores):
        assert all(s.note.endswith(" pts") for s in caption(scored).seats)


def test_one_page_fits_every_frame_of_a_game() -> None:
    states = list(random_replay("classic", seed=4).states())
    caps = [caption(s, "x@1", states[-1].turn) for s in states]
    page = layout(caps, 300, 200, estimate_width)
    assert page.width == MIN_WIDTH and page.board_x == (MIN_WIDTH - 300) // 2
    assert page.height > page.board_y + 200  # room for the result line below the board
    first, last = page.draw(caps[0]), page.draw(caps[-1])
    # seats stay put while their notes change; the result appears on the last frame only
    assert [s.x for s in first[1]] == [s.x for s in last[1]]
    assert [t.text for t in last[0] if t.y > page.board_y] == [caps[-1].result]
    assert not [t for t in first[0] if t.y > page.board_y]


def test_a_long_legend_wraps_without_overlapping() -> None:
    seats = tuple(Seat(f"Bot number {i}", palette.head(i), "out, turn 123", True) for i in range(8))
    cap = Caption("arena-50@1 · ffa@1 · seed 1", "turn 5 of 9", seats, "")
    page = layout([cap], 400, 400, estimate_width)
    labels, swatches = page.draw(cap)
    rows = sorted({round(s.y) for s in swatches})
    assert len(rows) > 1 and max(rows) + 20 <= page.board_y
    names = [t for t in labels if t.tail]
    for a, b in itertools.pairwise(names):
        if round(a.y) == round(b.y):
            end = a.x + estimate_width(f"{a.text} {a.tail}", a.size)
            assert end < b.x - 20
    assert all(t.x + estimate_width(f"{t.text} {t.tail}", t.size) <= page.width for t in names)


def test_a_long_title_puts_the_turn_on_its_own_line() -> None:
    cap = Caption(
        "a-very-long-map-name-indeed@12 · teams@1 · seed 1234567890", "turn 1 of 2", (), ""
    )
    labels, _ = layout([cap], 200, 200, estimate_width).draw(cap)
    title, turn = labels[0], labels[1]
    assert turn.y > title.y and turn.anchor == "end"

"""The terminal viewer's state machine and frame, driven by key names, no terminal."""

from __future__ import annotations

import pytest
from rich.console import Console

import lightcycle
from lightcycle.replay.model import Replay
from lightcycle.viewer.terminal import SPEEDS, Playback, frame, handle_key, start, tick
from tests.conftest import grid_map


def keys(p: Playback, *names: str) -> Playback:
    for name in names:
        p = handle_key(p, name)
    return p


def test_space_pauses_and_plays() -> None:
    p = start(40)
    assert p.playing and p.turn == 0
    p = keys(p, "space")
    assert not p.playing
    assert tick(p) == p  # paused: time does nothing
    p = keys(p, "space")
    assert tick(p).turn == 1


def test_stepping_pauses_and_stops_at_the_ends() -> None:
    p = start(3)
    p = keys(p, "right")
    assert (p.turn, p.playing) == (1, False)
    p = keys(p, "l", "l", "l", "l")
    assert p.turn == 3
    p = keys(p, "left", "h", "h", "h", "h")
    assert p.turn == 0


def test_playing_runs_to_the_end_and_space_restarts() -> None:
    p = start(2)
    p = tick(tick(p))
    assert (p.turn, p.playing) == (2, False)
    assert tick(p) == p
    p = keys(p, "space")
    assert (p.turn, p.playing) == (0, True)


def test_speed_steps_through_the_table_and_stays_in_it() -> None:
    p = start(10, speed=10.0)
    assert keys(p, "+").speed == 20.0
    assert keys(p, "-").speed == 5.0
    assert keys(p, *["+"] * 20).speed == SPEEDS[-1]
    assert keys(p, *["-"] * 20).speed == SPEEDS[0]
    assert keys(p, "+").delay == pytest.approx(0.05)


def test_go_to_a_turn_by_typing_it() -> None:
    p = start(120)
    p = keys(p, "g", "4", "2")
    assert p.typing == "42" and p.turn == 0
    p = keys(p, "enter")
    assert (p.turn, p.typing, p.playing) == (42, None, False)
    p = keys(p, "g", "9", "9", "9", "enter")
    assert p.turn == 42 and "no turn 999" in p.note
    p = keys(p, "g", "1", "backspace", "7", "enter")
    assert p.turn == 7
    p = keys(p, "g", "5", "escape")
    assert p.turn == 7 and p.typing is None
    p = keys(p, "g", "q")  # quitting still works while typing
    assert p.quit


def test_home_end_and_quit() -> None:
    p = start(50)
    assert keys(p, "end").turn == 50
    assert keys(p, "end", "home").turn == 0
    assert keys(p, "$").turn == 50 and keys(p, "$", "0").turn == 0
    assert keys(p, "pagedown").turn == 10
    assert keys(p, "q").quit and keys(p, "ctrl-c").quit
    assert keys(p, "x") == p  # unknown keys change nothing


def _render(replay: Replay, turn: int, unicode: bool = True) -> str:
    states = list(replay.states())
    console = Console(width=100, record=True, color_system=None)
    console.print(frame(replay, states, start(len(states) - 1, turn=turn, playing=False), unicode))
    return console.export_text()


def test_frame_shows_board_status_seats_and_result() -> None:
    replay = lightcycle.play("ring", ["chaser", "runaway"], seed=2).replay
    last = len(replay.turns)
    text = _render(replay, 3)
    assert "turn 3/" + str(last) in text
    assert "Chaser" in text and "Runaway" in text
    assert "space play/pause" in text
    end = _render(replay, last, unicode=False)
    assert "has won" in end or "draw" in end
    assert "ms" not in end  # local play measures no move times


@pytest.mark.parametrize("ruleset", ["teams", "tron3d", "ffa", "torus"])
def test_frame_works_for_every_ruleset(ruleset: str) -> None:
    from tests.replay.test_convert import random_replay

    replay = random_replay(ruleset, seed=3)
    text = _render(replay, len(replay.turns) // 2)
    assert f"turn {len(replay.turns) // 2}/" in text


def test_the_seat_table_shows_verdicts_and_move_times() -> None:
    replay = lightcycle.play("ring", ["chaser", "runaway"], seed=2).replay
    n = len(replay.turns)
    replay.times = [[0.0004, 1.5]] * n
    replay.verdicts = [[None, None]] * n
    replay.verdicts[2] = [None, {"verdict": "timeout", "detail": "took 2.000 s"}]
    text = _render(replay, 3)
    assert "timeout: took 2.000 s" in text
    assert "0.4 ms" in text and "1500 ms" in text
    assert "timeout" not in _render(replay, 4)


def test_a_board_taller_than_the_terminal_is_scaled_to_fit_not_cut() -> None:
    # the 64x48 court used to come out 48 lines tall on a 24-line terminal
    replay = lightcycle.play(
        "court", ["lookbot", "linebot"], seed=1, settings={"turn_limit": 30}
    ).replay
    states = list(replay.states())
    console = Console(width=80, height=24, record=True, color_system=None)
    for turn in (0, 10, len(states) - 1):  # the scale stays put as the result appears
        p = start(len(states) - 1, turn=turn, playing=False)
        console.print(frame(replay, states, p, True, 80, height=24))
        lines = console.export_text().splitlines()
        assert len(lines) < 24 and max(len(line) for line in lines) <= 80
        # both walls shown, each on a line of its own (issue 38: the bottom line took
        # the wall row with the two rows above it and showed their trails in its place),
        # the 46 rows inside them four to a line
        assert lines[0] == lines[13] == "█" * 64
        assert all(line[0] == line[-1] == "█" for line in lines[:14])
        assert "1 character = 1x4 cells" in lines[14]
        assert "space play/pause" in lines[-1]


def test_the_viewer_draws_no_trail_on_the_walls_of_a_scaled_board() -> None:
    # issue 38: in the scaled view, trails beside the bottom wall were drawn on its line
    replay = lightcycle.play(
        "arena-50", ["runaway", "runaway"], seed=0, settings={"turn_limit": 40}
    ).replay
    states = list(replay.states())
    bottom = ((1 << 50) - 1) << (48 * 50)  # the row just inside the bottom wall
    beside = [t for t, s in enumerate(states) if any(c.trail & bottom for c in s.cycles)]
    assert beside, "no trail beside the bottom wall: the test needs another game"
    for width, height in ((80, 24), (60, 20), (45, 17)):
        console = Console(width=width, height=height, record=True, color_system=None)
        for turn in (beside[0], len(states) - 1):
            p = start(len(states) - 1, turn=turn, playing=False)
            console.print(frame(replay, states, p, False, width, height=height))
            lines = console.export_text().splitlines()
            note = next(n for n, line in enumerate(lines) if "scaled" in line)
            board = lines[:note]
            assert board[0] == board[-1] == "#" * len(board[0]), (width, height, turn)
            assert all(line[0] == line[-1] == "#" for line in board), (width, height, turn)
            assert any(mark in board[-2] for mark in "aAbB"), (width, height, turn)


def test_the_seat_table_names_each_seats_cycles_as_the_board_does() -> None:
    replay = lightcycle.play("ring", ["chaser", "runaway"], seed=2).replay
    text = _render(replay, 3)
    assert "A Chaser" in text and "B Runaway" in text


def test_the_viewer_and_the_fate_agree_on_the_turn_of_a_death() -> None:
    # turn k is the board after k moves (turn 0 is the start); a cycle that dies on its
    # k-th move is dated turn k and first shown dead at turn k
    from tests.replay.test_convert import random_replay

    for ruleset in ("classic", "teams", "tron3d"):
        replay = random_replay(ruleset, seed=3)
        states = list(replay.states())
        for c in states[-1].cycles:
            if c.death is not None:
                k = c.death.turn
                assert states[k - 1].cycles[c.index].alive
                assert not states[k].cycles[c.index].alive
    tiny = lightcycle.play(grid_map(["#####", "#1.2#", "#####"]), ["chaser", "chaser"]).replay
    first, crash = _render(tiny, 0), _render(tiny, 1)
    assert "turn 0/1 (start)" in first and "same_cell" not in first
    assert "turn 1/1" in crash and crash.count("same_cell, turn 1") == 2

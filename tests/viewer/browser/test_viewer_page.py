"""The exported HTML viewer in a real browser: offline, correct boards, 3D, and speed."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

import lightcycle
from lightcycle.core.moves import Move
from lightcycle.core.topology import GridTopology
from lightcycle.render import palette
from lightcycle.replay.model import Replay
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.variants import get_ruleset
from lightcycle.viewer.html import write_html
from tests.conftest import grid_map
from tests.viewer.browser.conftest import Tab

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def duel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Replay, Path]:
    replay = lightcycle.play("ring", ["chaser", "runaway"], seed=2).replay
    path = tmp_path_factory.mktemp("html") / "duel.html"
    write_html(replay, None, path)
    return replay, path


def test_the_file_opens_offline_with_no_request_and_no_error(
    tab: Tab, duel: tuple[Replay, Path]
) -> None:
    replay, path = duel
    tab.open(path)
    assert tab.requests == [path.as_uri()]
    assert tab.errors == []
    assert tab.js("lightcycle.turn") == 0
    # the page opens at turn 0 and already says how the game ends, and when
    ahead = tab.page.inner_text("#result")
    assert ahead.startswith(f"ends turn {len(list(replay.states())) - 1}: "), ahead
    assert "has won" in ahead or "draw" in ahead


def test_a_turn_shows_the_re_simulated_board_and_head_colours(
    tab: Tab, duel: tuple[Replay, Path]
) -> None:
    replay, path = duel
    states = list(replay.states())
    tab.open(path)
    turn = 17
    assert tab.js("n => lightcycle.setTurn(n)", turn) == turn
    state = states[turn]
    topo = state.board.topology
    assert isinstance(topo, GridTopology)
    for c in state.cycles:
        x, y = topo.xy(c.head)
        assert tab.js("([x, y]) => lightcycle.cellAt(x, y)", [x, y]) == {
            "kind": "head",
            "cycle": c.index,
            "team": c.team,
        }
        behind = next(cell for cell in c.trail_cells() if cell != c.head)
        bx, by = topo.xy(behind)
        assert tab.js("([x, y]) => lightcycle.cellAt(x, y).kind", [bx, by]) == "trail"
        px = tab.js("i => lightcycle.headPixel(i)", c.index)
        assert tab.js("([x, y]) => lightcycle.pixel(x, y)", px) == palette.head(c.team)
    assert tab.js("lightcycle.cellAt(0, 0).kind") == "wall"
    # the keyboard steps, the side panel follows
    tab.page.keyboard.press("ArrowRight")
    assert tab.js("lightcycle.turn") == turn + 1
    assert f"turn {turn + 1} of {len(states) - 1}" in tab.page.inner_text("#turninfo")
    tab.page.keyboard.press("End")
    assert tab.js("lightcycle.turn") == len(states) - 1
    assert "has won" in tab.page.inner_text("#result") or "draw" in tab.page.inner_text("#result")
    assert tab.errors == []


def test_a_3d_board_turns_and_zooms(tab: Tab, tmp_path: Path) -> None:
    replay = lightcycle.play("cube", ["random", "random"], seed=1).replay
    path = tmp_path / "cube.html"
    write_html(replay, None, path, turn=10)
    tab.open(path)
    assert tab.js("lightcycle.board") == "graph" and tab.js("lightcycle.turn") == 10
    head = list(replay.states())[10].cycles[0]
    before = tab.js("n => lightcycle.cellPixel(n)", head.head)
    tab.js("lightcycle.rotate(0.8, 0.3)")
    after = tab.js("n => lightcycle.cellPixel(n)", head.head)
    assert before != after
    assert tab.js("([x, y]) => lightcycle.pixel(x, y)", after) == palette.head(head.team)
    assert tab.js("n => lightcycle.nodeAt(n).kind", head.head) == "head"
    # dragging with the mouse turns it too, the wheel zooms
    yaw = tab.js("lightcycle.view.yaw")
    box = tab.page.locator("#board").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    tab.page.mouse.move(cx, cy)
    tab.page.mouse.down()
    tab.page.mouse.move(cx + 120, cy + 10, steps=6)
    tab.page.mouse.up()
    assert tab.js("lightcycle.view.yaw") == pytest.approx(yaw + 1.2, abs=0.05)
    zoom = tab.js("lightcycle.view.zoom")
    tab.page.mouse.wheel(0, -300)
    tab.wait(f"lightcycle.view.zoom > {zoom}")
    assert tab.errors == []


def long_game(size: int = 60, turns: int = 500) -> Replay:
    """Two cycles sweeping their halves of a ``size`` x ``size`` room row by row, ended by
    the turn limit: a long game with long trails, like a hard-fought one."""
    rows = ["#" * size] + ["#" + "." * (size - 2) + "#" for _ in range(size - 2)] + ["#" * size]
    rows[1] = "#1" + "." * (size - 4) + "2#"
    rs = get_ruleset("classic").with_settings(turn_limit=turns)
    state = new_game(rs, grid_map(rows, name="sweep"), seed=0, players=2)
    replay = Replay.start(
        state,
        grid_map(rows, name="sweep"),
        [{"name": "west", "bot": "sweep"}, {"name": "east", "bot": "sweep"}],
    )
    topo = state.board.topology
    assert isinstance(topo, GridTopology)
    half = size // 2
    lanes = [(1, half - 1), (half, size - 2)]
    while state.outcome is None:
        moves = {}
        for c in state.cycles:
            x, y = topo.xy(c.head)
            lo, hi = lanes[c.index]
            going_east = (y % 2 == 1) == (c.index == 0)
            nx = x + (1 if going_east else -1)
            to = topo.cell(nx, y) if lo <= nx <= hi else topo.cell(x, y + 1)
            moves[c.index] = Move(c.index, to)
        replay.record(state, moves)
        state = step(state, moves)
    replay.finish(state)
    return replay


def test_a_500_turn_60x60_game_plays_and_reports_its_frame_times(
    tab: Tab, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = long_game()
    assert len(replay.turns) == 500 and replay.verify().outcome is not None
    path = tmp_path / "long.html"
    write_html(replay, None, path)
    tab.open(path)
    tab.js("lightcycle.frameTimes.length = 0; lightcycle.frameIntervals.length = 0")
    tab.js("lightcycle.setSpeed(100); lightcycle.play()")
    tab.wait("lightcycle.turn === lightcycle.last", timeout=60)
    draws = tab.js("lightcycle.frameTimes.slice()")
    gaps = tab.js("lightcycle.frameIntervals.slice()")
    assert tab.js("lightcycle.playing") is False and len(draws) > 10
    assert tab.errors == []

    def p95(values: list[float]) -> float:
        return sorted(values)[int(0.95 * (len(values) - 1))]

    report = (
        f"500-turn 60x60 replay in chromium: {len(draws)} frames drawn, draw time "
        f"mean {statistics.mean(draws):.2f} ms, p95 {p95(draws):.2f} ms, max {max(draws):.2f} ms; "
        f"frame interval mean {statistics.mean(gaps):.1f} ms, p95 {p95(gaps):.1f} ms"
    )
    with capsys.disabled():
        print("\n" + report)


def test_a_long_bot_command_wraps_inside_the_side_panel(tab: Tab, tmp_path: Path) -> None:
    """A tournament's ``cmd:`` seat names the whole command: the panel wraps it rather
    than growing past its width and cutting the table off."""
    replay = lightcycle.play("ring", ["chaser", "runaway"], seed=2).replay
    long = "cmd:python3 /home/student/projects/tron/bots/version-2/" + "very_long_name_" * 6
    replay.seats[0] = {**replay.seats[0], "bot": long + ".py --depth 12 --no-book"}
    path = tmp_path / "long.html"
    write_html(replay, None, path)
    tab.open(path)
    assert tab.errors == []
    widths = tab.js(
        "() => { const p = document.getElementById('panel');"
        " return [p.scrollWidth, p.clientWidth]; }"
    )
    assert widths[0] <= widths[1], widths

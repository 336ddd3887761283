"""PNG and GIF images through Pillow: the board on a page with its title, legend, turn and
death crosses, at a size a chat shows well; and the message when Pillow is missing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image

from lightcycle.core.moves import Move
from lightcycle.render import palette
from lightcycle.render.page import caption, layout
from lightcycle.rules.engine import new_game, step
from lightcycle.viewer import images
from lightcycle.viewer.images import ImagesUnavailable, draw, plain, write_gif, write_png
from tests.conftest import grid_map
from tests.replay.test_convert import random_replay


def _colours(img: Image.Image) -> set[tuple[int, int, int]]:
    return {c for _, c in img.convert("RGB").getcolors(maxcolors=1_000_000)}  # type: ignore[union-attr]


def test_png_pixels_are_the_palette_s(tmp_path: Path) -> None:
    replay = random_replay("classic", seed=5)
    states = list(replay.states())
    state = states[3]
    write_png(state, tmp_path / "t.png", cell=10, map_name="m@1", last_turn=states[-1].turn)
    img = Image.open(tmp_path / "t.png").convert("RGB")
    topo = state.board.topology
    w, h = topo.width, topo.height  # type: ignore[attr-defined]
    cap = caption(state, "m@1", states[-1].turn)
    page = layout([cap], w * 10, h * 10, images._measure)
    assert img.size == (page.width, page.height)
    ox, oy = page.board_x, page.board_y
    for c in state.cycles:
        x, y = c.head % w, c.head // w
        assert img.getpixel((ox + x * 10 + 5, oy + y * 10 + 5)) == palette.rgb(palette.head(c.team))
    assert img.getpixel((ox, oy)) == palette.rgb(palette.WALL)
    # the legend above the board shows every seat's colour
    header = _colours(img.crop((0, 0, page.width, oy)))
    assert {palette.rgb(palette.head(c.team)) for c in state.cycles} <= header


def test_the_default_size_suits_a_chat() -> None:
    s = new_game("classic", grid_map(["#" * 15] + ["#1" + "." * 11 + "2#"] + ["#" * 15] * 13))
    img = draw(s)
    assert 600 <= img.size[0] <= 800 and img.size[1] <= 900


def test_a_dead_cycle_is_crossed_in_its_colour_with_a_dark_outline() -> None:
    s = new_game("classic", grid_map(["######", "#1..2#", "######"]), names=["Ann", "Bob"])
    s = step(s, {0: Move(0, 8), 1: Move(1, 4)})  # Bob drives into the wall
    img = draw(s, cell=20).convert("RGB")
    cap = caption(s)
    page = layout([cap], 120, 60, images._measure)
    dead = s.cycles[1].head
    cx = page.board_x + (dead % 6) * 20 + 10
    cy = page.board_y + (dead // 6) * 20 + 10
    assert img.getpixel((cx, cy)) == palette.rgb(palette.head(1))  # the cross's middle
    near = _colours(img.crop((cx - 14, cy - 14, cx + 14, cy + 14)))
    assert palette.rgb(palette.BACKGROUND) in near  # its outline


def test_graph_boards_draw_too() -> None:
    replay = random_replay("tron3d", seed=5)
    states = list(replay.states())
    img = draw(states[4], cell=6, history=states[:5])
    assert img.size[0] >= 240
    assert palette.rgb(palette.head(0)) in _colours(img)


def test_gif_frames_show_their_turn(tmp_path: Path) -> None:
    replay = random_replay("classic", seed=6)
    states = list(replay.states())
    write_gif(states, tmp_path / "g.gif", cell=4, speed=20, map_name="m@1")
    gif = Image.open(tmp_path / "g.gif")
    assert gif.n_frames == len(states)
    cap = caption(states[0], "m@1", states[-1].turn)
    topo = states[0].board.topology
    page = layout([cap], topo.width * 4, topo.height * 4, images._measure)  # type: ignore[attr-defined]
    turn_box = (page.width // 2, 0, page.width, page.board_y // 2)  # top right: the turn
    seen = []
    for k in (1, 2):
        gif.seek(k)
        seen.append(gif.convert("RGB").crop(turn_box).tobytes())
    assert seen[0] != seen[1]
    gif.seek(len(states) - 1)
    last = gif.convert("RGB")
    # one palette for every frame keeps the board's colours exact
    assert palette.rgb(palette.trail(0)) in _colours(last)
    assert palette.rgb(palette.WALL) in _colours(last)


def test_names_are_written_in_the_built_in_font_s_letters() -> None:
    assert plain("Zoë · Łukasz 名") == "Zoe · ?ukasz ?"


def test_without_pillow_the_error_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)
    replay = random_replay("classic")
    with pytest.raises(ImagesUnavailable, match=r"pip install 'lightcycle\[images\]'"):
        draw(next(iter(replay.states())))

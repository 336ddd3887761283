"""PNG and GIF images through Pillow, and the message when Pillow is missing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image

from lightcycle.render import palette
from lightcycle.viewer.images import ImagesUnavailable, draw, write_gif, write_png
from tests.replay.test_convert import random_replay


def test_png_pixels_are_the_palette_s(tmp_path: Path) -> None:
    replay = random_replay("classic", seed=5)
    state = list(replay.states())[3]
    write_png(state, tmp_path / "t.png", cell=10)
    img = Image.open(tmp_path / "t.png").convert("RGB")
    w = state.board.topology.width  # type: ignore[attr-defined]
    assert img.size == (w * 10, state.board.topology.height * 10)  # type: ignore[attr-defined]
    for c in state.cycles:
        x, y = c.head % w, c.head // w
        assert img.getpixel((x * 10 + 5, y * 10 + 5)) == palette.rgb(palette.head(c.team))
    assert img.getpixel((0, 0)) == palette.rgb(palette.WALL)


def test_graph_boards_draw_too() -> None:
    replay = random_replay("tron3d", seed=5)
    img = draw(list(replay.states())[4], cell=6)
    assert img.size == (240, 240)
    colours = {c for _, c in img.getcolors(maxcolors=100000)}  # type: ignore[union-attr]
    assert palette.rgb(palette.head(0)) in colours


def test_gif_has_a_frame_per_turn(tmp_path: Path) -> None:
    replay = random_replay("classic", seed=6)
    states = list(replay.states())
    write_gif(states, tmp_path / "g.gif", cell=4, speed=20)
    gif = Image.open(tmp_path / "g.gif")
    assert gif.n_frames == len(states)


def test_without_pillow_the_error_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)
    replay = random_replay("classic")
    with pytest.raises(ImagesUnavailable, match=r"pip install 'lightcycle\[images\]'"):
        draw(next(iter(replay.states())))

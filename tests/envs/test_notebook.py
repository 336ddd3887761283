"""``animate``: render()'s frames as one animated PNG that a notebook plays.

The file is read back here by a small APNG reader written from the specification (no
image library), frame rectangles composed onto the canvas as a browser composes them,
and every frame must come back pixel for pixel.
"""

from __future__ import annotations

import base64
import re
import struct
import zlib

import numpy as np
import pytest

from lightcycle.envs import parallel_env
from lightcycle.envs.notebook import animate, apng
from tests.envs.policy_bots import first_safe


def read_apng(data: bytes) -> tuple[list[np.ndarray], int, tuple[int, int]]:
    """The frames of an RGB APNG written with filter type 0, its play count and delay."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks = []
    at = 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + body)
        chunks.append((kind, body))
        at += 12 + length
    assert chunks[0][0] == b"IHDR" and chunks[-1] == (b"IEND", b"")
    width, height, depth, colour = struct.unpack(">IIBB", chunks[0][1][:10])
    assert (depth, colour) == (8, 2)
    frames_declared, plays = struct.unpack(">II", dict(chunks)[b"acTL"])
    canvas = np.zeros((height, width, 3), np.uint8)
    frames: list[np.ndarray] = []
    region: tuple[int, int, int, int] | None = None
    delay = (0, 0)
    sequence = []

    def paint(raw: bytes) -> None:
        assert region is not None
        w, h, x, y = region
        rows = np.frombuffer(zlib.decompress(raw), np.uint8).reshape(h, 1 + 3 * w)
        assert (rows[:, 0] == 0).all()
        canvas[y : y + h, x : x + w] = rows[:, 1:].reshape(h, w, 3)
        frames.append(canvas.copy())

    for kind, body in chunks[1:]:
        if kind == b"fcTL":
            seq, w, h, x, y, num, den, dispose, blend = struct.unpack(">IIIIIHHBB", body)
            sequence.append(seq)
            assert (dispose, blend) == (0, 0)
            region, delay = (w, h, x, y), (num, den)
        elif kind == b"IDAT":
            paint(body)
        elif kind == b"fdAT":
            sequence.append(struct.unpack(">I", body[:4])[0])
            paint(body[4:])
    assert sequence == list(range(len(sequence)))
    assert len(frames) == frames_declared
    return frames, plays, delay


def episode_frames(map_name: str) -> list[np.ndarray]:
    """A game's frames: first safe moves on grids (games of dozens of turns), random
    legal ones on graph boards."""
    env = parallel_env(map=map_name, render_mode="rgb_array")
    obs, _ = env.reset(seed=1)
    frames = [env.render()]
    rng = np.random.default_rng(1)
    while env.agents:
        actions = {}
        for a in env.agents:
            legal = np.flatnonzero(obs[a]["action_mask"])
            if env.layout.graph:
                actions[a] = int(rng.choice(legal)) if len(legal) else 0
            else:
                actions[a] = first_safe(obs[a])
        obs, *_ = env.step(actions)
        frames.append(env.render())
    return frames


@pytest.mark.parametrize("map_name", ["arena-15", "cube"])
def test_every_frame_comes_back_pixel_for_pixel(map_name: str) -> None:
    frames = episode_frames(map_name)
    frames.append(frames[-1].copy())  # a frame with nothing changed is a frame too
    back, plays, delay = read_apng(apng(frames, fps=4, loops=2))
    assert plays == 2 and delay[0] / delay[1] == pytest.approx(0.25)
    assert len(back) == len(frames)
    for k, (got, want) in enumerate(zip(back, frames, strict=True)):
        assert np.array_equal(got, want), k


def test_the_animation_shows_itself_inline_and_small() -> None:
    frames = episode_frames("arena-30")
    shown = animate(frames)
    assert (shown.width, shown.height, shown.frames) == (480, 480, len(frames))
    html = shown._repr_html_()
    src = re.fullmatch(r'<img src="data:image/png;base64,([^"]+)" .*>', html)
    assert src is not None and base64.b64decode(src.group(1)) == shown.png
    assert "http" not in html and "<script" not in html
    # a few changed cells per frame after the first: far below a kilobyte a turn
    assert len(shown.png) < 20_000 + 1_000 * len(frames)


def test_frames_that_are_not_images_are_refused() -> None:
    with pytest.raises(ValueError, match="no frames"):
        apng([])
    with pytest.raises(ValueError, match="H x W x 3 uint8"):
        apng([np.zeros((4, 4), np.uint8)])
    with pytest.raises(ValueError, match="frame 1 has shape"):
        apng([np.zeros((4, 4, 3), np.uint8), np.zeros((5, 4, 3), np.uint8)])
    with pytest.raises(ValueError, match="fps"):
        apng([np.zeros((4, 4, 3), np.uint8)], fps=0)

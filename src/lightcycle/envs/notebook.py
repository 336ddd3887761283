"""``render()`` frames as an animation in a notebook, with numpy and zlib alone.

Gymnasium's way to watch an episode is to keep what ``render()`` returns in
``rgb_array`` mode, frame by frame; a notebook then needs the frames as something a
browser plays. `animate` writes them as one animated PNG (APNG): every current browser
plays it in a plain ``<img>``, so it needs no script (it shows in an untrusted notebook,
on GitHub and in an exported page), no server, no video codec and no Pillow (an RL
install has numpy, and zlib is the standard library's). Each frame after the first holds
only the rectangle that changed since the one before (a turn moves a few heads), so a
game of a few hundred turns stays small.

For the whole game with its seats, moves and a timeline to step through, display the
environment's ``replay()`` instead: the HTML viewer inline (`lightcycle.envs.episodes`).
"""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, type, data, and the CRC of type and data."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _pixels(image: npt.NDArray[np.uint8]) -> bytes:
    """RGB rows, each led by filter type 0 (none), compressed."""
    h = image.shape[0]
    rows = np.concatenate([np.zeros((h, 1), np.uint8), image.reshape(h, -1)], axis=1)
    return zlib.compress(rows.tobytes(), 6)


def _changed(before: npt.NDArray[np.uint8], after: npt.NDArray[np.uint8]) -> tuple[int, ...]:
    """``(x, y, width, height)`` of the smallest rectangle holding every changed pixel
    (one pixel at the origin when none changed: a frame has at least one)."""
    diff = (before != after).any(axis=2)
    ys, xs = np.flatnonzero(diff.any(axis=1)), np.flatnonzero(diff.any(axis=0))
    if len(ys) == 0:
        return 0, 0, 1, 1
    return int(xs[0]), int(ys[0]), int(xs[-1] - xs[0] + 1), int(ys[-1] - ys[0] + 1)


def apng(frames: Iterable[npt.ArrayLike], fps: float = 10.0, loops: int = 0) -> bytes:
    """The frames as an animated PNG file.

    Args:
        frames: ``H x W x 3`` uint8 images, all of one size (``render()`` in
            ``rgb_array`` mode).
        fps: frames a second.
        loops: how many times it plays (0: for ever).

    Raises:
        ValueError: for no frames, frames of other shapes or types, or ``fps`` not
            above zero.
    """
    images = [np.asarray(f) for f in frames]
    if not images:
        raise ValueError("no frames to animate: give render()'s rgb_array images")
    shape = images[0].shape
    for k, image in enumerate(images):
        if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
            raise ValueError(
                f"frame {k} is {image.dtype} of shape {image.shape}; expected H x W x 3 uint8 "
                "(render_mode='rgb_array')"
            )
        if image.shape != shape:
            raise ValueError(f"frame {k} has shape {image.shape}, the first {shape}")
    if not fps > 0:
        raise ValueError(f"fps must be above zero, got {fps}")
    h, w = shape[0], shape[1]
    delay = struct.pack(">HH", 1000, max(1, round(1000 * fps)))  # 1000 / (1000 fps) s
    out = [PNG_SIGNATURE, _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))]
    out.append(_chunk(b"acTL", struct.pack(">II", len(images), loops)))
    sequence = 0
    for k, image in enumerate(images):
        x, y, cw, ch = (0, 0, w, h) if k == 0 else _changed(images[k - 1], image)
        # dispose: keep the canvas; blend: replace the rectangle's pixels
        control = struct.pack(">IIIII", sequence, cw, ch, x, y) + delay + b"\x00\x00"
        out.append(_chunk(b"fcTL", control))
        sequence += 1
        data = _pixels(np.ascontiguousarray(image[y : y + ch, x : x + cw]))
        if k == 0:
            out.append(_chunk(b"IDAT", data))
        else:
            out.append(_chunk(b"fdAT", struct.pack(">I", sequence) + data))
            sequence += 1
    out.append(_chunk(b"IEND", b""))
    return b"".join(out)


@dataclass(frozen=True)
class Animation:
    """Frames as an animated PNG that a notebook shows (``_repr_html_``).

    Attributes:
        png: the animated PNG file's bytes.
        width, height: its size in pixels.
        frames: how many frames it holds.
    """

    png: bytes
    width: int
    height: int
    frames: int

    def _repr_html_(self) -> str:
        """An ``<img>`` holding the file itself: nothing is fetched, no script runs."""
        data = base64.b64encode(self.png).decode("ascii")
        return (
            f'<img src="data:image/png;base64,{data}" width="{self.width}" '
            f'height="{self.height}" alt="lightcycle episode, {self.frames} frames" '
            'style="image-rendering: pixelated">'
        )

    def save(self, path: str | Path) -> None:
        """Write the animated PNG (``.png``: browsers and image viewers play it)."""
        Path(path).write_bytes(self.png)


def animate(frames: Iterable[npt.ArrayLike], fps: float = 10.0, loops: int = 0) -> Animation:
    """``render()``'s ``rgb_array`` frames as an animation a notebook plays.

    Example::

        env = parallel_env(map="arena-10", render_mode="rgb_array")
        env.reset(seed=1)
        frames = [env.render()]
        while env.agents:
            env.step({a: 0 for a in env.agents})
            frames.append(env.render())
        animate(frames)  # the last expression of a cell: shown, playing

    Args and Raises: as `apng`.
    """
    images = [np.asarray(f) for f in frames]
    png = apng(images, fps, loops)
    return Animation(
        png=png, width=images[0].shape[1], height=images[0].shape[0], frames=len(images)
    )

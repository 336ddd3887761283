"""PNG and GIF images of a game, drawn with Pillow (the ``images`` extra).

Pillow is optional: lightcycle plays, replays and writes SVG and HTML without it, so it is
imported only here, and a missing Pillow is one clear error that says how to install it.
Grid boards are painted one pixel per cell and scaled up without smoothing, which is
exact and fast enough for a 500-frame GIF of a 60x60 board.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology
from lightcycle.render import palette
from lightcycle.render.picture import graph_picture, grid_picture
from lightcycle.replay.model import ReplayError

if TYPE_CHECKING:
    from PIL.Image import Image

INSTALL = "pip install 'lightcycle[images]'"


class ImagesUnavailable(ReplayError):
    """Pillow is not installed; the message says how to install it."""


def _pil() -> Any:
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        raise ImagesUnavailable(
            f"PNG and GIF images need Pillow: {INSTALL} (SVG and HTML work without it)"
        ) from None
    return Image, ImageDraw


def draw(state: GameState, cell: int = 12) -> Image:
    """``state`` as an RGB image: ``cell`` pixels per grid cell; graph boards are drawn
    ``40 * cell`` pixels square (see `lightcycle.render.picture`).

    Raises:
        ImagesUnavailable: without Pillow.
    """
    image_mod, draw_mod = _pil()
    if isinstance(state.board.topology, GridTopology):
        pic = grid_picture(state)
        small = image_mod.new("RGB", (pic.width, pic.height))
        small.putdata([palette.rgb(c) for c in pic.cells])
        img: Image = small.resize(
            (pic.width * cell, pic.height * cell), image_mod.Resampling.NEAREST
        )
        pen = draw_mod.Draw(img)
        pad = max(1, cell // 6)
        width = max(1, cell // 5)
        for c in pic.crosses:
            x0, y0 = (c % pic.width) * cell + pad, (c // pic.width) * cell + pad
            x1, y1 = x0 + cell - 1 - 2 * pad, y0 + cell - 1 - 2 * pad
            pen.line((x0, y0, x1, y1), fill=palette.DEAD, width=width)
            pen.line((x1, y0, x0, y1), fill=palette.DEAD, width=width)
        return img
    g = graph_picture(state, size=40 * cell)
    canvas: Image = image_mod.new("RGB", (g.size, g.size), palette.BACKGROUND)
    pen = draw_mod.Draw(canvas)
    for ax, ay, bx, by, colour, stroke in g.lines:
        pen.line((ax, ay, bx, by), fill=colour, width=max(1, round(stroke)))
    for x, y, r, colour in g.dots:
        pen.ellipse((x - r, y - r, x + r, y + r), fill=colour)
    for x, y, r in g.crosses:
        thick = max(1, round(r / 3))
        pen.line((x - r, y - r, x + r, y + r), fill=palette.DEAD, width=thick)
        pen.line((x + r, y - r, x - r, y + r), fill=palette.DEAD, width=thick)
    return canvas


def write_png(state: GameState, path: str | Path, cell: int = 12) -> None:
    """Write ``state`` as a PNG image.

    Raises:
        ImagesUnavailable: without Pillow.
    """
    img = draw(state, cell)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    img.save(p, format="PNG")


def write_gif(
    states: Sequence[GameState], path: str | Path, cell: int = 8, speed: float = 10.0
) -> None:
    """Write the game as an animated GIF, one frame per turn, ``speed`` turns per second
    (GIF frame times are whole hundredths, at least two), holding the last frame.

    Raises:
        ImagesUnavailable: without Pillow.
        ValueError: for an empty game.
    """
    if not states:
        raise ValueError("no states to animate")
    frames = [draw(s, cell) for s in states]
    duration = max(20, round(1000 / speed / 10) * 10)
    durations = [duration] * len(frames)
    durations[-1] = max(duration, 2000)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    frames[0].save(
        p,
        format="GIF",
        save_all=True,
        append_images=frames[1:],
        duration=durations,
        loop=0,
        optimize=False,
        disposal=1,
    )

"""``render()`` for the environments: board text, and pixels without Pillow.

The text is `lightcycle.render.text`'s board and status line, as ``lightcycle play``
prints them. The pixels come from `lightcycle.render.picture`, the shapes and colours
SVG, PNG and the HTML viewer draw, rasterised here with numpy alone (Pillow is the
optional ``images`` extra; an RL install should not need it): grid cells as blocks of
pixels, graph boards' lines, dots and crosses as filled pixels. Same palette, so a
frame of a training run looks like the viewer.
"""

from __future__ import annotations

import numpy as np

from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology
from lightcycle.render import palette
from lightcycle.render.picture import GraphPicture, graph_picture, grid_picture
from lightcycle.render.text import board_string, status_line

RENDER_MODES = ("ansi", "rgb_array")
"""What ``render()`` can return: board text, or an ``H x W x 3`` uint8 image."""
GRID_PIXELS = 480
"""About how many pixels across a grid is drawn (each cell a whole number of pixels,
at least `MIN_CELL_PIXELS`)."""
MIN_CELL_PIXELS = 2
GRAPH_PIXELS = 400
"""The side of a graph board's square image."""


def ansi(state: GameState) -> str:
    """The board as text and the status line below it (``render_mode="ansi"``)."""
    return f"{board_string(state)}\n{status_line(state)}\n"


def rgb_array(state: GameState) -> np.ndarray:
    """The board as an ``H x W x 3`` uint8 image (``render_mode="rgb_array"``)."""
    topo = state.board.topology
    if isinstance(topo, GridTopology):
        return _grid(state, topo)
    return _graph(graph_picture(state, size=GRAPH_PIXELS))


def _colour(hex_colour: str) -> np.ndarray:
    return np.array(palette.rgb(hex_colour), dtype=np.uint8)


def _grid(state: GameState, topo: GridTopology) -> np.ndarray:
    pic = grid_picture(state)
    cell = max(MIN_CELL_PIXELS, GRID_PIXELS // max(topo.width, topo.height))
    lookup = {c: palette.rgb(c) for c in set(pic.cells)}
    small = np.array([lookup[c] for c in pic.cells], dtype=np.uint8)
    small = small.reshape(topo.height, topo.width, 3)
    image = np.repeat(np.repeat(small, cell, axis=0), cell, axis=1)
    for where, colour in pic.crosses:
        x, y = where % topo.width, where // topo.width
        block = image[y * cell : (y + 1) * cell, x * cell : (x + 1) * cell]
        diagonal = np.arange(cell)
        block[diagonal, diagonal] = _colour(colour)
        block[diagonal, cell - 1 - diagonal] = _colour(colour)
    return image


def _disc(image: np.ndarray, x: float, y: float, radius: float, colour: np.ndarray) -> None:
    """Fill the pixels whose centres lie within ``radius`` of ``(x, y)``."""
    h, w, _ = image.shape
    r = max(radius, 0.5)
    x0, x1 = max(0, int(x - r)), min(w, int(x + r) + 1)
    y0, y1 = max(0, int(y - r)), min(h, int(y + r) + 1)
    if x0 >= x1 or y0 >= y1:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1]
    inside = (xs + 0.5 - x) ** 2 + (ys + 0.5 - y) ** 2 <= r * r
    image[y0:y1, x0:x1][inside] = colour


def _line(
    image: np.ndarray, x1: float, y1: float, x2: float, y2: float, width: float, colour: np.ndarray
) -> None:
    """A line ``width`` pixels thick: a square brush stamped every half pixel along it."""
    h, w, _ = image.shape
    steps = max(1, int(2 * max(abs(x2 - x1), abs(y2 - y1))))
    t = np.linspace(0.0, 1.0, steps + 1)
    xs = np.floor(x1 + (x2 - x1) * t).astype(np.int64)
    ys = np.floor(y1 + (y2 - y1) * t).astype(np.int64)
    side = max(1, round(width))
    for dy in range(-(side // 2), side - side // 2):
        for dx in range(-(side // 2), side - side // 2):
            px, py = xs + dx, ys + dy
            keep = (px >= 0) & (px < w) & (py >= 0) & (py < h)
            image[py[keep], px[keep]] = colour


def _graph(pic: GraphPicture) -> np.ndarray:
    image = np.empty((pic.size, pic.size, 3), dtype=np.uint8)
    image[:] = _colour(palette.BACKGROUND)
    for x1, y1, x2, y2, colour, width in pic.lines:
        _line(image, x1, y1, x2, y2, width, _colour(colour))
    for x, y, radius, colour in pic.dots:
        _disc(image, x, y, radius, _colour(colour))
    for cross in pic.crosses:
        for sx1, sy1, sx2, sy2 in cross.strokes():
            _line(image, sx1, sy1, sx2, sy2, cross.width, _colour(cross.colour))
    return image

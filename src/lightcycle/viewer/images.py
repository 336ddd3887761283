"""PNG and GIF images of a game, drawn with Pillow (the ``images`` extra).

Pillow is optional: lightcycle plays, replays and writes SVG and HTML without it, so it is
imported only here, and a missing Pillow is one clear error that says how to install it.
Grid boards are painted one pixel per cell and scaled up without smoothing, which is
exact and fast enough for a 500-frame GIF of a 60x60 board. The board sits on
`lightcycle.render.page`'s page (title, legend, turn, result), written in Pillow's
built-in font so no font file has to be found on the machine; that font has ASCII
letters only, so other letters in a bot's name are drawn without their accents (or as
``?``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology
from lightcycle.render import palette
from lightcycle.render.page import MUTED, TEXT, Caption, Page, caption, layout
from lightcycle.render.picture import (
    Cross,
    default_cell,
    graph_picture,
    grid_picture,
    trail_paths,
)
from lightcycle.replay.model import ReplayError

if TYPE_CHECKING:
    from PIL.Image import Image
    from PIL.ImageDraw import ImageDraw

INSTALL = "pip install 'lightcycle[images]' (from a clone: pip install -e '.[images]')"


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


@cache
def _font(size: int) -> Any:
    """Pillow's built-in font at ``size`` pixels (Pillow 10.1 and later)."""
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def _measure(text: str, size: int) -> float:
    return float(_font(size).getlength(plain(text)))


def plain(text: str) -> str:
    """``text`` in the letters Pillow's built-in font has: accents dropped (``é`` ->
    ``e``), the middle dot kept, anything else ``?``."""
    out = []
    for ch in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(ch):
            continue
        out.append(ch if (ch.isascii() and ch.isprintable()) or ch == "·" else "?")
    return "".join(out)


def _cross(pen: ImageDraw, c: Cross) -> None:
    """Draw a cross over a dark outline; the outline's strokes reach a little further,
    since Pillow's lines end square at the given points."""
    reach = (c.outline - c.width) / 2
    for x1, y1, x2, y2 in c.strokes():
        dx, dy = (reach if x2 > x1 else -reach), (reach if y2 > y1 else -reach)
        pen.line(
            (x1 - dx, y1 - dy, x2 + dx, y2 + dy), fill=palette.BACKGROUND, width=round(c.outline)
        )
    for x1, y1, x2, y2 in c.strokes():
        pen.line((x1, y1, x2, y2), fill=c.colour, width=round(c.width))


def _board(state: GameState, cell: int, history: Sequence[GameState] | None) -> Image:
    """The board alone: ``cell`` pixels per grid cell, or ``40 * cell`` pixels square."""
    image_mod, draw_mod = _pil()
    if isinstance(state.board.topology, GridTopology):
        pic = grid_picture(state)
        small = image_mod.new("RGB", (pic.width, pic.height))
        small.putdata([palette.rgb(c) for c in pic.cells])
        img: Image = small.resize(
            (pic.width * cell, pic.height * cell), image_mod.Resampling.NEAREST
        )
        pen = draw_mod.Draw(img)
        for c in pic.cross_marks(cell):
            _cross(pen, c)
        return img
    paths = trail_paths(history) if history else None
    g = graph_picture(state, size=40 * cell, paths=paths)
    canvas: Image = image_mod.new("RGB", (g.size, g.size), palette.BACKGROUND)
    pen = draw_mod.Draw(canvas)
    for ax, ay, bx, by, colour, stroke in g.lines:
        pen.line((ax, ay, bx, by), fill=colour, width=max(1, round(stroke)))
    for x, y, r, colour in g.dots:
        pen.ellipse((x - r, y - r, x + r, y + r), fill=colour)
    for c in g.crosses:
        _cross(pen, c)
    return canvas


def _page(board: Image, page: Page, cap: Caption) -> Image:
    image_mod, draw_mod = _pil()
    img: Image = image_mod.new("RGB", (page.width, page.height), palette.BACKGROUND)
    img.paste(board, (page.board_x, page.board_y))
    pen = draw_mod.Draw(img)
    labels, swatches = page.draw(cap)
    for s in swatches:
        pen.rectangle((s.x, s.y, s.x + s.size - 1, s.y + s.size - 1), fill=s.colour)
        if s.out:
            half = s.size / 2
            _cross(
                pen, Cross(s.x + half, s.y + half, half, max(2.0, s.size / 6), palette.BACKGROUND)
            )
    for t in labels:
        anchor = "rs" if t.anchor == "end" else "ls"
        pen.text((t.x, t.y), plain(t.text), font=_font(t.size), fill=t.colour, anchor=anchor)
        if t.tail:
            x = t.x + _measure(t.text + " ", t.size)
            pen.text((x, t.y), plain(t.tail), font=_font(t.size), fill=MUTED, anchor="ls")
    return img


TEXT_SHADES = 6
"""Steps between the background and each text colour in a GIF's palette: enough for the
font's smoothed edges."""


def _gif_palette() -> Image:
    """A palette image holding every colour a page uses, exactly, plus shades between the
    background and each text colour (text is the only thing drawn smoothed).

    One palette for every frame keeps the board's colours exact and lets Pillow store
    only what changed between frames (with ``optimize``, which drops unused colours from
    each frame's table): a GIF a sixth the size of one with a palette per frame, written
    ten times faster.
    """
    image_mod, _ = _pil()
    solid = [
        palette.BACKGROUND,
        palette.FLOOR,
        palette.WALL,
        palette.DEAD,
        palette.EDGE,
        palette.ITEM_OTHER,
        *palette.HEADS,
        *palette.TRAILS,
        *palette.ITEMS.values(),
        TEXT,
        MUTED,
    ]
    colours = list(dict.fromkeys(palette.rgb(c) for c in solid))
    back = palette.rgb(palette.BACKGROUND)
    for c in (TEXT, MUTED, *palette.HEADS):
        fore = palette.rgb(c)
        for k in range(1, TEXT_SHADES + 1):
            f = k / (TEXT_SHADES + 1)
            colours.append(
                (
                    round(back[0] + (fore[0] - back[0]) * f),
                    round(back[1] + (fore[1] - back[1]) * f),
                    round(back[2] + (fore[2] - back[2]) * f),
                )
            )
    colours = list(dict.fromkeys(colours))[:256]
    ref: Image = image_mod.new("P", (1, 1))
    flat = [v for rgb in colours for v in rgb]
    ref.putpalette(flat + flat[:3] * (256 - len(colours)))
    return ref


def draw(
    state: GameState,
    cell: int | None = None,
    *,
    map_name: str = "",
    last_turn: int | None = None,
    history: Sequence[GameState] | None = None,
) -> Image:
    """``state`` as an RGB image: the board on a page with its title, legend and turn.

    Args:
        state: what to draw.
        cell: pixels per grid cell; graph boards are drawn ``40 * cell`` pixels square
            (default: `lightcycle.render.picture.default_cell`).
        map_name: the map's ``name@version``, for the title.
        last_turn: the game's last turn, for ``turn 40 of 80``.
        history: the game's states from turn 0 up to ``state``, so graph trails follow
            the moves made.

    Raises:
        ImagesUnavailable: without Pillow.
    """
    _pil()
    cell = cell or default_cell(state)
    board = _board(state, cell, history)
    cap = caption(state, map_name, last_turn)
    page = layout([cap], board.width, board.height, _measure)
    return _page(board, page, cap)


def write_png(
    state: GameState,
    path: str | Path,
    cell: int | None = None,
    *,
    map_name: str = "",
    last_turn: int | None = None,
    history: Sequence[GameState] | None = None,
) -> None:
    """Write ``state`` as a PNG image (see `draw`).

    Raises:
        ImagesUnavailable: without Pillow.
    """
    img = draw(state, cell, map_name=map_name, last_turn=last_turn, history=history)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    img.save(p, format="PNG")


def write_gif(
    states: Sequence[GameState],
    path: str | Path,
    cell: int | None = None,
    speed: float = 10.0,
    *,
    map_name: str = "",
) -> None:
    """Write the game as an animated GIF, one frame per turn, ``speed`` turns per second
    (GIF frame times are whole hundredths, at least two), holding the last frame.

    Every frame has the same page (see `lightcycle.render.page.layout`) with its own turn
    number, legend notes and, on the last, the result.

    Raises:
        ImagesUnavailable: without Pillow.
        ValueError: for an empty game.
    """
    if not states:
        raise ValueError("no states to animate")
    image_mod, _ = _pil()
    cell = cell or default_cell(states[0])
    last = states[-1].turn
    captions = [caption(s, map_name, last) for s in states]
    topo = states[0].board.topology
    if isinstance(topo, GridTopology):
        size = (topo.width * cell, topo.height * cell)
    else:
        size = (40 * cell, 40 * cell)
    page = layout(captions, *size, _measure)
    colours = _gif_palette()
    frames = [
        _page(_board(s, cell, states[: k + 1]), page, captions[k]).quantize(
            palette=colours, dither=image_mod.Dither.NONE
        )
        for k, s in enumerate(states)
    ]
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
        optimize=True,
        disposal=1,
    )

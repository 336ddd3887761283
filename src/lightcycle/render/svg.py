"""A game state as an SVG image: plain text, no dependencies, sharp at any zoom.

SVG is the image format that needs nothing installed, so ``lightcycle replay --svg``
works everywhere; it draws `lightcycle.render.picture`'s board on
`lightcycle.render.page`'s page (title, legend, turn, result). Runs of equal cells in a
row become one rectangle, which keeps a 60x60 board around 100 kB. Text is left to the
viewer's sans-serif font, so the page is laid out with `estimate_width`, which errs wide.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology
from lightcycle.render import palette
from lightcycle.render.page import MUTED, Label, Page, Swatch, caption, estimate_width, layout
from lightcycle.render.picture import (
    Cross,
    GraphPicture,
    GridPicture,
    default_cell,
    graph_picture,
    grid_picture,
    trail_paths,
)

FONT = "DejaVu Sans, Verdana, Helvetica, Arial, sans-serif"


def _cross(c: Cross) -> list[str]:
    d = "".join(f"M{x1:.1f} {y1:.1f}L{x2:.1f} {y2:.1f}" for x1, y1, x2, y2 in c.strokes())
    return [
        f'<path class="death" d="{d}" stroke="{palette.BACKGROUND}" '
        f'stroke-width="{c.outline:.1f}" stroke-linecap="round" fill="none"/>',
        f'<path class="death" d="{d}" stroke="{c.colour}" stroke-width="{c.width:.1f}" '
        'stroke-linecap="round" fill="none"/>',
    ]


def _grid(pic: GridPicture, cell: int) -> list[str]:
    w, h = pic.width * cell, pic.height * cell
    out = [
        '<g shape-rendering="crispEdges">',
        f'<rect width="{w}" height="{h}" fill="{palette.FLOOR}"/>',
    ]
    for y in range(pic.height):
        row = pic.cells[y * pic.width : (y + 1) * pic.width]
        x = 0
        while x < pic.width:
            colour = row[x]
            run = 1
            while x + run < pic.width and row[x + run] == colour:
                run += 1
            if colour != palette.FLOOR:
                out.append(
                    f'<rect x="{x * cell}" y="{y * cell}" width="{run * cell}" height="{cell}" '
                    f'fill="{colour}"/>'
                )
            x += run
    out.append("</g>")
    for c in pic.cross_marks(cell):
        out += _cross(c)
    return out


def _graph(pic: GraphPicture) -> list[str]:
    out = []
    for x1, y1, x2, y2, colour, width in pic.lines:
        out.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}" '
            f'stroke-width="{width:.2f}" stroke-linecap="round"/>'
        )
    for x, y, r, colour in pic.dots:
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.2f}" fill="{colour}"/>')
    for c in pic.crosses:
        out += _cross(c)
    return out


def _label(t: Label) -> str:
    anchor = ' text-anchor="end"' if t.anchor == "end" else ""
    tail = f'<tspan dx="0.35em" fill="{MUTED}">{escape(t.tail)}</tspan>' if t.tail else ""
    return (
        f'<text x="{t.x:.1f}" y="{t.y:.1f}" font-size="{t.size}" fill="{t.colour}"{anchor}>'
        f"{escape(t.text)}{tail}</text>"
    )


def _swatch(s: Swatch) -> list[str]:
    out = [
        f'<rect class="swatch" x="{s.x:.1f}" y="{s.y:.1f}" width="{s.size:.1f}" '
        f'height="{s.size:.1f}" fill="{s.colour}"/>'
    ]
    if s.out:
        half = s.size / 2
        out += _cross(Cross(s.x + half, s.y + half, half, max(2.0, s.size / 6), palette.BACKGROUND))
    return out


def state_svg(
    state: GameState,
    cell: int | None = None,
    title: str | None = None,
    *,
    map_name: str = "",
    last_turn: int | None = None,
    history: Sequence[GameState] | None = None,
) -> str:
    """``state`` as an SVG document: the board on a page with its title, legend and turn.

    Args:
        state: what to draw.
        cell: pixels per grid cell; graph boards are drawn ``40 * cell`` pixels square
            (default: `lightcycle.render.picture.default_cell`).
        title: the document's ``<title>`` (default: the page's title and the turn).
        map_name: the map's ``name@version``, for the title.
        last_turn: the game's last turn, for ``turn 40 of 80``.
        history: the game's states from turn 0 up to ``state``, so graph trails follow
            the moves made (see `lightcycle.render.picture.graph_picture`).
    """
    cell = cell or default_cell(state)
    cap = caption(state, map_name, last_turn)
    if isinstance(state.board.topology, GridTopology):
        grid = grid_picture(state)
        board_w, board_h = grid.width * cell, grid.height * cell
        board = _grid(grid, cell)
    else:
        paths = trail_paths(history) if history else None
        graph = graph_picture(state, size=40 * cell, paths=paths)
        board_w = board_h = graph.size
        board = _graph(graph)
    page: Page = layout([cap], board_w, board_h, estimate_width)
    labels, swatches = page.draw(cap)
    w, h = page.width, page.height
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="{FONT}">',
        f"<title>{escape(title or f'{cap.title} · {cap.turn}')}</title>",
        f'<rect width="{w}" height="{h}" fill="{palette.BACKGROUND}"/>',
    ]
    out += [_label(t) for t in labels]
    for s in swatches:
        out += _swatch(s)
    out.append(f'<g class="board" transform="translate({page.board_x} {page.board_y})">')
    out += board
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"

"""A game state as an SVG image: plain text, no dependencies, sharp at any zoom.

SVG is the image format that needs nothing installed, so ``lightcycle replay --svg``
works everywhere; it draws `lightcycle.render.picture`'s shapes. Runs of equal cells in a
row become one rectangle, which keeps a 60x60 board around 100 kB.
"""

from __future__ import annotations

from html import escape

from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology
from lightcycle.render import palette
from lightcycle.render.picture import GraphPicture, GridPicture, graph_picture, grid_picture


def _grid_svg(pic: GridPicture, cell: int, title: str) -> str:
    w, h = pic.width * cell, pic.height * cell
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" shape-rendering="crispEdges">',
        f"<title>{escape(title)}</title>",
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
    pad = max(1, cell // 6)
    for c in pic.crosses:
        x0, y0 = (c % pic.width) * cell + pad, (c // pic.width) * cell + pad
        x1, y1 = x0 + cell - 2 * pad, y0 + cell - 2 * pad
        out.append(
            f'<path d="M{x0} {y0}L{x1} {y1}M{x1} {y0}L{x0} {y1}" stroke="{palette.DEAD}" '
            f'stroke-width="{max(1, cell // 5)}"/>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _graph_svg(pic: GraphPicture, title: str) -> str:
    s = pic.size
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{s}" height="{s}" viewBox="0 0 {s} {s}">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{s}" height="{s}" fill="{palette.BACKGROUND}"/>',
    ]
    for x1, y1, x2, y2, colour, width in pic.lines:
        out.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}" '
            f'stroke-width="{width:.2f}" stroke-linecap="round"/>'
        )
    for x, y, r, colour in pic.dots:
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.2f}" fill="{colour}"/>')
    for x, y, r in pic.crosses:
        out.append(
            f'<path d="M{x - r:.1f} {y - r:.1f}L{x + r:.1f} {y + r:.1f}M{x + r:.1f} {y - r:.1f}'
            f'L{x - r:.1f} {y + r:.1f}" stroke="{palette.DEAD}" stroke-width="{r / 3:.2f}"/>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def state_svg(state: GameState, cell: int = 12, title: str | None = None) -> str:
    """``state`` as an SVG document.

    Args:
        state: what to draw.
        cell: pixels per grid cell; graph boards are drawn ``40 * cell`` pixels square.
        title: the image's title (default: the turn).
    """
    title = title or f"turn {state.turn}"
    if isinstance(state.board.topology, GridTopology):
        return _grid_svg(grid_picture(state), cell, title)
    return _graph_svg(graph_picture(state, size=40 * cell), title)

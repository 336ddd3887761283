"""Rating history charts, drawn by hand: inline SVG for the HTML report, PNG with Pillow.

One chart shows one rating system: a line per entrant, the rating after each rated match
of the tournament (x: matches played, in schedule order). Both outputs come from one
layout (`layout`), so the PNG and the SVG always show the same thing. Pillow is an
optional dependency (``pip install lightcycle[images]``); it is imported only to write a
PNG.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lightcycle.render import palette

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#7f7f7f",
    "#bcbd22",
)
"""Line colours, one per entrant in turn (ten distinguishable colours, then again)."""

DARK_PALETTE = (*palette.HEADS[:6], palette.ITEMS["turbo"], palette.ITEMS["ghost"], "#2dd4bf")
"""Line colours on a dark page: the viewer's bright head colours (its white and grey left
out, they read as axes), then a few more of the same brightness."""


@dataclass(frozen=True)
class Theme:
    """The colours of a chart's frame: a PNG is pasted onto white documents, the HTML
    report's SVG sits on the replay viewer's dark page.

    Attributes:
        background: the chart's area.
        text: titles, ticks and legend.
        grid: the tick lines.
        frame: the plotting area's border.
    """

    background: str
    text: str
    grid: str
    frame: str


LIGHT = Theme("white", "black", "#e5e5e5", "#999")
"""Black on white (the PNGs)."""

DARK = Theme("#161a23", "#e5e7eb", "#262b36", palette.EDGE)
"""The replay viewer's panel colours (``viewer/static/viewer.css``)."""

MAX_POINTS = 400
"""Points drawn per line at most: longer histories are sampled evenly."""


@dataclass(frozen=True)
class Line:
    """One entrant's line in chart coordinates."""

    name: str
    colour: str
    points: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Chart:
    """Everything to draw: the frame, the ticks, the lines, the legend.

    Attributes:
        width: image width in pixels.
        height: image height in pixels.
        title: drawn at the top.
        plot: the plotting area ``(left, top, right, bottom)``.
        x_ticks: ``(x, label)`` along the bottom.
        y_ticks: ``(y, label)`` along the left.
        lines: one per entrant.
    """

    width: int
    height: int
    title: str
    plot: tuple[float, float, float, float]
    x_ticks: tuple[tuple[float, str], ...]
    y_ticks: tuple[tuple[float, str], ...]
    lines: tuple[Line, ...]


def nice_step(span: float, count: int = 5) -> float:
    """A round tick step (1, 2 or 5 times a power of ten) giving about ``count`` ticks."""
    if span <= 0:
        return 1.0
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * power:
            return float(m * power)
    return float(10 * power)  # pragma: no cover -- the loop always returns


def _sample(values: Sequence[float]) -> list[tuple[int, float]]:
    if len(values) <= MAX_POINTS:
        return list(enumerate(values))
    step = (len(values) - 1) / (MAX_POINTS - 1)
    picks = sorted({round(i * step) for i in range(MAX_POINTS)})
    return [(i, values[i]) for i in picks]


def layout(
    series: Mapping[str, Sequence[float]],
    title: str,
    width: int = 900,
    height: int = 420,
    colours: Sequence[str] = PALETTE,
) -> Chart:
    """Place every line of ``series`` (name -> rating after each match, from match 0).

    Args:
        series: each entrant's ratings; index 0 is the start, index k the rating after
            the tournament's k-th rated match. All series have the same length.
        title: the chart's title.
        width: image width.
        height: image height.
        colours: the lines' colours, in turn (`PALETTE` on white, `DARK_PALETTE` on dark).
    """
    legend_width = 170
    left, top, right, bottom = 64.0, 36.0, float(width - legend_width), float(height - 40)
    values = [v for s in series.values() for v in s]
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    if hi - lo < 1e-9:
        lo, hi = lo - 1.0, hi + 1.0
    step = nice_step(hi - lo)
    lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
    n = max((len(s) for s in series.values()), default=1) - 1
    n = max(n, 1)

    def x_of(i: float) -> float:
        return left + (right - left) * i / n

    def y_of(v: float) -> float:
        return bottom - (bottom - top) * (v - lo) / (hi - lo)

    x_step = max(1, int(nice_step(n)))
    x_ticks = tuple((x_of(i), str(i)) for i in range(0, n + 1, x_step))
    decimals = 0 if step >= 1 else max(0, -math.floor(math.log10(step)))
    count = round((hi - lo) / step)
    y_ticks = tuple(
        (y_of(lo + k * step), f"{lo + k * step:.{decimals}f}") for k in range(count + 1)
    )
    lines = tuple(
        Line(name, colours[i % len(colours)], tuple((x_of(x), y_of(v)) for x, v in _sample(s)))
        for i, (name, s) in enumerate(series.items())
    )
    return Chart(width, height, title, (left, top, right, bottom), x_ticks, y_ticks, lines)


def svg(chart: Chart, theme: Theme = LIGHT) -> str:
    """The chart as an ``<svg>`` element (for inlining in HTML), in ``theme``'s colours."""
    left, top, right, bottom = chart.plot
    e = html.escape
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{chart.width}" '
        f'height="{chart.height}" viewBox="0 0 {chart.width} {chart.height}" '
        f'font-family="sans-serif" font-size="12" fill="{theme.text}">',
        f'<rect x="0" y="0" width="{chart.width}" height="{chart.height}" '
        f'fill="{theme.background}"/>',
        f'<text x="{left:.1f}" y="22" font-size="15" font-weight="bold">{e(chart.title)}</text>',
    ]
    for y, label in chart.y_ticks:
        parts.append(
            f'<line x1="{left:.1f}" y1="{y:.1f}" x2="{right:.1f}" y2="{y:.1f}" '
            f'stroke="{theme.grid}"/>'
        )
        parts.append(
            f'<text x="{left - 6:.1f}" y="{y + 4:.1f}" text-anchor="end">{e(label)}</text>'
        )
    for x, label in chart.x_ticks:
        parts.append(
            f'<text x="{x:.1f}" y="{bottom + 16:.1f}" text-anchor="middle">{e(label)}</text>'
        )
    parts.append(
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{right - left:.1f}" '
        f'height="{bottom - top:.1f}" fill="none" stroke="{theme.frame}"/>'
    )
    parts.append(
        f'<text x="{(left + right) / 2:.1f}" y="{chart.height - 6}" text-anchor="middle">'
        "matches played</text>"
    )
    for k, line in enumerate(chart.lines):
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in line.points)
        parts.append(
            f'<polyline fill="none" stroke="{line.colour}" stroke-width="2" points="{pts}">'
            f"<title>{e(line.name)}</title></polyline>"
        )
        ly = top + 8 + 18 * k
        parts.append(
            f'<line x1="{right + 14:.1f}" y1="{ly:.1f}" x2="{right + 34:.1f}" y2="{ly:.1f}" '
            f'stroke="{line.colour}" stroke-width="3"/>'
        )
        parts.append(f'<text x="{right + 40:.1f}" y="{ly + 4:.1f}">{e(line.name)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _rgb(colour: str) -> tuple[int, int, int]:
    return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))


def write_png(chart: Chart, path: Path, theme: Theme = LIGHT) -> None:
    """Draw the chart into a PNG file with Pillow, in ``theme``'s colours (the tournament
    report draws its PNGs as its HTML page does: `DARK` with `DARK_PALETTE`).

    Raises:
        ModuleNotFoundError: Pillow is not installed (``pip install lightcycle[images]``).
    """
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (chart.width, chart.height), theme.background)
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=13)
    left, top, right, bottom = chart.plot
    draw.text((left, 10), chart.title, fill=theme.text, font=font)
    for y, label in chart.y_ticks:
        draw.line([(left, y), (right, y)], fill=theme.grid)
        draw.text((left - 6, y), label, fill=theme.text, font=font, anchor="rm")
    for x, label in chart.x_ticks:
        draw.text((x, bottom + 4), label, fill=theme.text, font=font, anchor="mt")
    draw.rectangle([left, top, right, bottom], outline=theme.frame)
    draw.text(
        ((left + right) / 2, chart.height - 4),
        "matches played",
        fill=theme.text,
        font=font,
        anchor="mb",
    )
    for k, line in enumerate(chart.lines):
        colour = _rgb(line.colour)
        if len(line.points) > 1:
            draw.line(list(line.points), fill=colour, width=2)
        ly = top + 8 + 18 * k
        draw.line([(right + 14, ly), (right + 34, ly)], fill=colour, width=3)
        draw.text((right + 40, ly), line.name, fill=theme.text, font=font, anchor="lm")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.png")
    img.save(tmp, format="PNG")
    tmp.replace(path)

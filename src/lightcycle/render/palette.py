"""The colours of every picture lightcycle draws: SVG, PNG, GIF and the HTML viewer.

One palette, so a cycle has the same colour in a terminal screenshot, an exported image
and the browser (the HTML viewer receives this palette with its data and browser tests
compare canvas pixels against it). Team colours follow the terminal's order (cyan,
magenta, yellow, green, red, blue, white, grey); trails are darker shades of their
team's head colour so a head stands out at the end of its trail.
"""

from __future__ import annotations

BACKGROUND = "#0f1117"
FLOOR = "#1b1f2a"
WALL = "#6b7280"
DEAD = "#ff3030"
EDGE = "#3b4252"
HEADS = (
    "#22d3ee",
    "#e040fb",
    "#facc15",
    "#4ade80",
    "#f87171",
    "#60a5fa",
    "#f5f5f5",
    "#a3a3a3",
)
TRAILS = (
    "#0e7490",
    "#86198f",
    "#a16207",
    "#15803d",
    "#b91c1c",
    "#1d4ed8",
    "#a1a1aa",
    "#52525b",
)
ITEMS = {"turbo": "#fb923c", "ghost": "#c4b5fd", "points": "#fde047"}
ITEM_OTHER = "#ffffff"


def head(team: int) -> str:
    """The colour of ``team``'s heads."""
    return HEADS[team % len(HEADS)]


def trail(team: int) -> str:
    """The colour of ``team``'s trails."""
    return TRAILS[team % len(TRAILS)]


def item(kind: str) -> str:
    """The colour of an item lying on the board."""
    return ITEMS.get(kind, ITEM_OTHER)


def rgb(colour: str) -> tuple[int, int, int]:
    """``#rrggbb`` as a tuple of 0-255 integers."""
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def as_dict() -> dict[str, object]:
    """The palette as JSON-ready data, for the HTML viewer."""
    return {
        "background": BACKGROUND,
        "floor": FLOOR,
        "wall": WALL,
        "dead": DEAD,
        "edge": EDGE,
        "heads": list(HEADS),
        "trails": list(TRAILS),
        "items": dict(ITEMS),
        "itemOther": ITEM_OTHER,
    }

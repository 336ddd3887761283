"""The marks and colours every text drawing shares: grids (`lightcycle.render.text`) and
flattened graph boards (`lightcycle.render.graph`) alike.

Both drawings, and every table beside them, name a cycle by the same letter
(`cycle_label`), mark its trail with that letter in lower case (`trail_mark`) and colour
heads and trails by team, so a board reads the same whatever its kind. Living here,
below both drawings, these let the grid's drawing hand graph boards to the graph's
without either importing the other both ways.
"""

from __future__ import annotations

from lightcycle.core.state import Cycle

TEAM_STYLES = (
    "bold cyan",
    "bold magenta",
    "bold yellow",
    "bold green",
    "bold red",
    "bold blue",
    "bold white",
    "bold bright_black",
)
TRAIL_STYLES = ("cyan", "magenta", "yellow", "green", "red", "blue", "white", "bright_black")
UNICODE = {"floor": "·", "wall": "█", "dead": "✖"}
ASCII = {"floor": ".", "wall": "#", "dead": "*"}
YOU = "@"
"""The head of the cycle a person steers."""


def cycle_label(c: Cycle) -> str:
    """The name a cycle goes by on the board and in every table: its own name (team
    rulesets name their cycles ``A`` to ``T``), else ``A``, ``B`` ... by cycle index."""
    return c.name or chr(ord("A") + c.index % 26)


def trail_mark(c: Cycle) -> str:
    """The character of ``c``'s trail: its label's first letter in lower case."""
    return cycle_label(c)[:1].lower()

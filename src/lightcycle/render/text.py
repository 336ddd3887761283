"""Boards as text: walls, trails and heads that read apart without colour.

Symbols (Unicode / ASCII):

=================  ===========  =====  ==============================================
floor              ``·``        ``.``
wall               ``█``        ``#``  (Unicode walls join into solid lines)
head of a cycle    ``A`` ...    same   its name (team rulesets name cycles A-T), else
                                       ``A``, ``B`` ... by cycle index
trail of a cycle   ``a`` ...    same   its head's letter in lower case, so every trail
                                       leads back to its head
dead cycle         ``✖``        ``*``
your cycle         ``@``        same   the head a person steers (``lightcycle play
                                       --bots human,...``)
=================  ===========  =====  ==============================================

Colour (team colours for heads and trails, grey walls) is added on top and never needed:
a board copied as plain text, printed with ``--ascii`` or read by someone who cannot
tell cyan from green says the same. The same letters name the cycles in every table
(`cycle_label`), including the deaths table and a collision's detail (`death_detail`).

The symbols, styles and labels are `lightcycle.render.glyphs`, which the graph drawing
(`lightcycle.render.graph`, where `board_text` hands graph boards) shares; they are
re-exported here.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Collection

from rich.text import Text

from lightcycle.core.bitset import iter_cells
from lightcycle.core.state import Cycle, GameState
from lightcycle.core.topology import GridTopology
from lightcycle.render.fit import Fit, full
from lightcycle.render.glyphs import (
    ASCII,
    TEAM_STYLES,
    TRAIL_STYLES,
    UNICODE,
    YOU,
    cycle_label,
    trail_mark,
)
from lightcycle.render.graph import flat_text

__all__ = [
    "ASCII",
    "TEAM_STYLES",
    "TRAIL_STYLES",
    "UNICODE",
    "YOU",
    "board_string",
    "board_text",
    "cycle_label",
    "death_detail",
    "graph_summary",
    "status_line",
    "team_labels",
    "trail_mark",
]

_DEAD_STYLE = "bold red"
_WALL_STYLE = "bright_black"
_FLOOR_STYLE = "bright_black"


def team_labels(state: GameState, team: int) -> str:
    """The labels of a team's cycles: ``A``, or ``A-J`` for a run of letters."""
    labels = [cycle_label(c) for c in state.cycles_of(team)]
    if len(labels) > 2 and all(
        len(a) == 1 and len(b) == 1 and ord(b) == ord(a) + 1 for a, b in itertools.pairwise(labels)
    ):
        return f"{labels[0]}-{labels[-1]}"
    return ",".join(labels)


_CYCLE_NUMBERS = re.compile(r"\b(cycles?) (\d+(?:, \d+)*)")


def death_detail(state: GameState, detail: str) -> str:
    """A death's detail with cycle numbers replaced by the cycles' labels.

    The rules write ``with cycle 13`` (replays store that text, so it stays); people read
    the board, where cycle 13 is ``N``: this gives ``with cycle N``.
    """
    cycles = state.cycles

    def label(m: re.Match[str]) -> str:
        numbers = [int(n) for n in m.group(2).split(", ")]
        if any(n >= len(cycles) for n in numbers):
            return m.group(0)
        return f"{m.group(1)} " + ", ".join(cycle_label(cycles[n]) for n in numbers)

    return _CYCLE_NUMBERS.sub(label, detail)


def _heads(
    state: GameState, sym: dict[str, str], you: Collection[int]
) -> dict[int, tuple[str, str]]:
    """Per head cell: the mark and style of the cycle standing there."""
    heads: dict[int, tuple[str, str]] = {}
    for c in state.cycles:
        if not c.alive and c.death is not None and c.trail == 0:
            continue  # removed with its trail
        if not c.alive:
            heads[c.head] = (sym["dead"], _DEAD_STYLE)
        elif c.index in you:
            heads[c.head] = (YOU, f"{TEAM_STYLES[c.team % 8]} reverse")
        else:
            heads[c.head] = (cycle_label(c)[:1], TEAM_STYLES[c.team % 8])
    return heads


def board_text(
    state: GameState,
    unicode: bool = True,
    color: bool = True,
    compact: bool = False,
    *,
    fit: Fit | None = None,
    you: Collection[int] = (),
) -> Text:
    """Draw a board: a grid one line per row (or per block of rows), a graph flattened.

    Args:
        state: the state to draw.
        unicode: Unicode symbols (else the ASCII fallback).
        color: colour heads and trails by team.
        compact: one column per cell instead of two (ignored when ``fit`` is given).
        fit: the part of the grid to draw and the cells per character
            (`lightcycle.render.fit.fit_board`; give it the board's walls, so the walls
            round a scaled board stay on lines of their own); default the whole grid at
            full size.
        you: the cycles a person steers, drawn ``@``.
    """
    topo = state.board.topology
    if not isinstance(topo, GridTopology):
        return flat_text(state, unicode=unicode, color=color)
    if fit is None:
        fit = full(topo.width, topo.height, compact)
    sym = UNICODE if unicode else ASCII
    owner: dict[int, Cycle] = {}
    for c in state.cycles:
        for cell in iter_cells(c.trail):
            owner[cell] = c
    heads = _heads(state, sym, you)
    walls = state.board.walls
    w = topo.width
    wall = (sym["wall"], _WALL_STYLE)
    floor = (sym["floor"], _FLOOR_STYLE)

    def look(cells: list[int]) -> tuple[str, str]:
        """The most telling thing among ``cells``: a head, a trail, a wall, the floor."""
        dead = None
        for cell in cells:
            if cell in heads:
                if heads[cell][0] != sym["dead"]:
                    return heads[cell]
                dead = heads[cell]
        if dead is not None:
            return dead
        trails = Counter(owner[cell].index for cell in cells if cell in owner)
        if trails:
            c = state.cycles[trails.most_common(1)[0][0]]
            return trail_mark(c), TRAIL_STYLES[c.team % 8]
        if any((walls >> cell) & 1 for cell in cells):
            return wall
        return floor

    out = Text()
    join = unicode and fit.cols == 2 and not fit.scaled
    rows = fit.row_blocks()
    columns = fit.column_blocks()
    for n, (y, y_end) in enumerate(rows):
        line: list[tuple[str, str]] = []
        for x, x_end in columns:
            cells = [yy * w + xx for yy in range(y, y_end) for xx in range(x, x_end)]
            line.append(look(cells))
        for i, (mark, style) in enumerate(line):
            out.append(mark, style=style if color else None)
            if fit.cols == 2 and i < len(line) - 1:
                gap = sym["wall"] if join and (mark, style) == wall == line[i + 1] else " "
                out.append(gap, style=_WALL_STYLE if color and gap != " " else None)
        if n < len(rows) - 1:
            out.append("\n")
    return out


def board_string(state: GameState, unicode: bool = True) -> str:
    """`board_text` as a plain string (no colour)."""
    return board_text(state, unicode=unicode, color=False).plain


def graph_summary(state: GameState) -> str:
    """A text account of a graph board: where each cycle stands."""
    lines = [f"{state.board.topology.describe()}, turn {state.turn}"]
    for c in state.cycles:
        status = "alive" if c.alive else f"dead ({c.death.cause.value if c.death else '?'})"
        lines.append(f"  cycle {cycle_label(c)} (team {c.team + 1}) at node {c.head}: {status}")
    return "\n".join(lines)


def status_line(state: GameState, you: Collection[int] = ()) -> str:
    """``turn 12 | A Player 1: alive | B Player 2: dead (trail)``.

    Each team is named after its cycles' labels as the board shows them (``A-J North``
    for a team of ten), so the line is the board's legend. Teams of several cycles show
    how many are left (``7/10 left``), scores appear once anyone has scored
    (``score 120``), and the team of a cycle in ``you`` (a person playing) reads
    ``@ you (Human)``.
    """
    parts = [f"turn {state.turn}"]
    scored = any(state.scores)
    mine = {state.cycles[i].team for i in you if i < len(state.cycles)}
    for t in state.teams:
        cycles = state.cycles_of(t.index)
        left = sum(c.alive for c in cycles)
        name = (
            f"{YOU} you ({t.name})"
            if t.index in mine
            else f"{team_labels(state, t.index)} {t.name}"
        )
        if left and len(cycles) > 1:
            text = f"{name}: {left}/{len(cycles)} left"
        elif left:
            text = f"{name}: alive"
        else:
            causes = {c.death.cause.value for c in cycles if c.death}
            text = f"{name}: dead ({', '.join(sorted(causes))})"
        if scored and t.index < len(state.scores):
            text += f", score {state.scores[t.index]}"
        parts.append(text)
    return " | ".join(parts)

"""Boards as text: the Unicode board of the Scheme course, an ASCII fallback, colours.

Symbols (Unicode / ASCII): ``◦`` / ``.`` floor, ``⊠`` / ``#`` wall or trail, ``♠`` and
``♣`` / ``1`` and ``2`` the two cycles of a duel, letters ``A``, ``B``, ... for the cycles
when there are more than two players (or the cycle's own name in team rulesets), ``✖`` /
``X`` a dead cycle.
"""

from __future__ import annotations

from rich.text import Text

from lightcycle.core.bitset import iter_cells
from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology

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
UNICODE = {"floor": "◦", "wall": "⊠", "dead": "✖", "duel": ("♠", "♣")}
ASCII = {"floor": ".", "wall": "#", "dead": "X", "duel": ("1", "2")}


def _cycle_marks(state: GameState, unicode: bool) -> dict[int, tuple[str, int]]:
    """Per head cell: the mark and the team of the cycle standing there."""
    sym = UNICODE if unicode else ASCII
    duel = len(state.cycles) == 2 and len(state.teams) == 2
    marks: dict[int, tuple[str, int]] = {}
    for c in state.cycles:
        if not c.alive and c.death is not None and c.trail == 0:
            continue  # removed with its trail
        if not c.alive:
            mark = str(sym["dead"])
        elif c.name:
            mark = c.name
        elif duel:
            mark = sym["duel"][c.team]
        else:
            mark = chr(ord("A") + c.index % 26)
        marks[c.head] = (mark, c.team)
    return marks


def board_text(
    state: GameState, unicode: bool = True, color: bool = True, compact: bool = False
) -> Text:
    """Draw a grid board, one line per row, two columns per cell (one when ``compact``).

    Args:
        state: the state to draw.
        unicode: Unicode symbols (else the ASCII fallback).
        color: colour heads and trails by team.
        compact: one column per cell, for boards wider than half the terminal (the
            64-column team court on an 80-column terminal).
    """
    topo = state.board.topology
    if not isinstance(topo, GridTopology):
        from lightcycle.render.graph import flat_text

        return flat_text(state, unicode=unicode, color=color)
    sym = UNICODE if unicode else ASCII
    owner: dict[int, int] = {}
    for c in state.cycles:
        for cell in iter_cells(c.trail):
            owner[cell] = c.team
    marks = _cycle_marks(state, unicode)
    walls = state.board.walls
    out = Text()
    w = topo.width
    gap = "" if compact else " "
    for y in range(topo.height):
        for x in range(w):
            cell = y * w + x
            if cell in marks:
                mark, team = marks[cell]
                style = "bold red" if mark == sym["dead"] else TEAM_STYLES[team % 8]
                out.append(mark + gap, style=style if color else None)
            elif (walls >> cell) & 1:
                out.append(str(sym["wall"]) + gap, style="dim" if color else None)
            elif cell in owner:
                out.append(
                    str(sym["wall"]) + gap, style=TRAIL_STYLES[owner[cell] % 8] if color else None
                )
            else:
                out.append(str(sym["floor"]) + gap, style="bright_black" if color else None)
        out.rstrip()
        if y < topo.height - 1:
            out.append("\n")
    return out


def board_string(state: GameState, unicode: bool = True) -> str:
    """`board_text` as a plain string (no colour), as ``print-board`` printed it."""
    return board_text(state, unicode=unicode, color=False).plain


def graph_summary(state: GameState) -> str:
    """A text account of a graph board: where each cycle stands."""
    lines = [f"{state.board.topology.describe()}, turn {state.turn}"]
    for c in state.cycles:
        status = "alive" if c.alive else f"dead ({c.death.cause.value if c.death else '?'})"
        lines.append(f"  cycle {c.index} (team {c.team + 1}) at node {c.head}: {status}")
    return "\n".join(lines)


def status_line(state: GameState) -> str:
    """``turn 12 | Player 1: alive | Player 2: dead (trail)``.

    Teams of several cycles show how many are left (``North: 7/10 left``), and scores
    appear once anyone has scored (``score 120``).
    """
    parts = [f"turn {state.turn}"]
    scored = any(state.scores)
    for t in state.teams:
        cycles = state.cycles_of(t.index)
        left = sum(c.alive for c in cycles)
        if left and len(cycles) > 1:
            text = f"{t.name}: {left}/{len(cycles)} left"
        elif left:
            text = f"{t.name}: alive"
        else:
            causes = {c.death.cause.value for c in cycles if c.death}
            text = f"{t.name}: dead ({', '.join(sorted(causes))})"
        if scored and t.index < len(state.scores):
            text += f", score {state.scores[t.index]}"
        parts.append(text)
    return " | ".join(parts)

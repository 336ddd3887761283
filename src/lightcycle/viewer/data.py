"""The data the HTML viewer plays: a replay re-simulated once, in Python, into frames.

The browser never re-implements the rules. Python re-simulates the (already verified)
replay and hands the page what changes from turn to turn, compactly enough that a
2000-turn team game stays a few hundred kilobytes:

``board``
    grids: ``width``, ``height``, ``wrap``, ``walls`` (cells); graphs: ``nodes``,
    ``positions`` (x, y, z per node), ``edges``, ``walls``; both: ``bonus``.
``cycles``
    per cycle: ``team``, ``label`` (its name, or ``A``, ``B`` ... when it has none).
``heads``, ``marks``
    per turn (0 = the start) per cycle: the head cell, and 1 when a live head is drawn,
    2 when a cross marks a dead cycle (`lightcycle.render.picture.shows_cross`), 0 else.
``trails``
    ``[cell, cycle, from, to]``: the cell belongs to the cycle's trail from turn ``from``
    up to but not including turn ``to`` (``null``: to the end). A cell may appear again
    after the rules removed a dead cycle's trail.
``items``
    per turn: ``[cell, kind]`` of the items lying on the board (only when any appear).
``rows``
    per turn per seat: the side panel's facts (`lightcycle.viewer.facts.SeatRow`).
``palette``
    `lightcycle.render.palette`, so the page's colours are the images' colours.
``replay``
    the replay itself, as lightcycle's JSON, so the page is also a copy of the game.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from lightcycle.core.bitset import iter_cells
from lightcycle.core.state import GameState
from lightcycle.core.topology import GraphTopology, GridTopology
from lightcycle.render import palette
from lightcycle.render.picture import board_positions, shows_cross
from lightcycle.render.text import cycle_label
from lightcycle.replay.model import Replay
from lightcycle.viewer.facts import result_text, seat_rows

DATA_VERSION = 1


def board_data(state: GameState) -> dict[str, Any]:
    """``board`` (see above): what never changes in a game, sent once."""
    topo = state.board.topology
    walls = list(iter_cells(state.board.walls))
    bonus = list(state.board.bonus)
    if isinstance(topo, GridTopology):
        return {
            "kind": "grid",
            "width": topo.width,
            "height": topo.height,
            "wrap": topo.wrap,
            "walls": walls,
            "bonus": bonus,
        }
    assert isinstance(topo, GraphTopology)
    return {
        "kind": "graph",
        "nodes": topo.size,
        "positions": [[round(v, 5) for v in p] for p in board_positions(topo)],
        "edges": [list(e) for e in topo.edges],
        "walls": walls,
        "bonus": bonus,
    }


class TrailTracker:
    """Trail intervals built turn by turn: the replay viewer's ``trails`` for a whole game,
    and a live game's per-turn changes (`lightcycle.viewer.live`), from one piece of code.
    """

    def __init__(self) -> None:
        self.intervals: list[list[int | None]] = []
        self._before: list[int] = []
        self._open: list[dict[int, int]] = []
        self.turns = 0

    def step(self, state: GameState) -> tuple[list[list[int]], list[list[int]]]:
        """Take the next state (turn 0 first) and return the ``[cell, cycle]`` pairs that
        entered a trail and those that left one on this turn."""
        if not self._before:
            n = len(state.cycles)
            self._before = [0] * n
            self._open = [{} for _ in range(n)]
        opened: list[list[int]] = []
        closed: list[list[int]] = []
        t = self.turns  # the viewer's turn: the position in the list of states
        self.turns += 1
        for c in state.cycles:
            now = c.trail
            was = self._before[c.index]
            if now == was:
                continue
            for cell in iter_cells(now & ~was):
                interval: list[int | None] = [cell, c.index, t, None]
                self._open[c.index][cell] = len(self.intervals)
                self.intervals.append(interval)
                opened.append([cell, c.index])
            for cell in iter_cells(was & ~now):
                self.intervals[self._open[c.index].pop(cell)][3] = t
                closed.append([cell, c.index])
            self._before[c.index] = now
        return opened, closed


def trail_intervals(states: Sequence[GameState]) -> list[list[int | None]]:
    """``[cell, cycle, from, to]`` for every stretch of turns a cell is in a cycle's trail
    (``to`` is ``None`` when it still is at the end)."""
    tracker = TrailTracker()
    for state in states:
        tracker.step(state)
    out = tracker.intervals
    out.sort(key=lambda r: (r[2] or 0, r[1] or 0, r[0] or 0))
    return out


def heads_of(state: GameState) -> list[int]:
    """``heads`` for one turn: each cycle's head cell."""
    return [c.head for c in state.cycles]


def marks_of(state: GameState) -> list[int]:
    """``marks`` for one turn: 1 a live head, 2 a dead cycle's cross, 0 nothing."""
    return [1 if c.alive else 2 if shows_cross(c, state) else 0 for c in state.cycles]


def items_of(state: GameState) -> list[list[Any]]:
    """``items`` for one turn: ``[cell, kind]`` of each item lying on the board."""
    return [list(i) for i in state.items]


def cycles_of(state: GameState) -> list[dict[str, Any]]:
    """``cycles``: each cycle's team and label."""
    return [{"team": c.team, "label": cycle_label(c)} for c in state.cycles]


def viewer_data(replay: Replay, states: Sequence[GameState]) -> dict[str, Any]:
    """Everything the HTML viewer needs for ``replay`` (see the module docstring).

    Args:
        replay: a verified replay.
        states: its states, turn 0 first (``list(replay.states())``).
    """
    first = states[0]
    cycles = cycles_of(first)
    any_items = any(s.items for s in states)
    return {
        "version": DATA_VERSION,
        "title": f"{replay.map_id} · {replay.ruleset} · seed {replay.seed}",
        "ruleset": replay.ruleset,
        "map": replay.map_id,
        "seed": replay.seed,
        "palette": palette.as_dict(),
        "board": board_data(first),
        "seats": [
            {"name": t.name, "bot": s.get("bot", "")}
            for t, s in zip(first.teams, replay.seats, strict=False)
        ],
        "cycles": cycles,
        "last": len(states) - 1,
        "heads": [heads_of(s) for s in states],
        "marks": [marks_of(s) for s in states],
        "trails": trail_intervals(states),
        "items": [items_of(s) for s in states] if any_items else None,
        "rows": [[r.to_dict() for r in seat_rows(replay, states, t)] for t in range(len(states))],
        "result": result_text(replay),
        "replay": json.loads(replay.to_json()),
    }

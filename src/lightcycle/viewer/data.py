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


def _board(state: GameState) -> dict[str, Any]:
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


def trail_intervals(states: Sequence[GameState]) -> list[list[int | None]]:
    """``[cell, cycle, from, to]`` for every stretch of turns a cell is in a cycle's trail
    (``to`` is ``None`` when it still is at the end)."""
    out: list[list[int | None]] = []
    n = len(states[0].cycles)
    before = [0] * n
    open_at: list[dict[int, int]] = [{} for _ in range(n)]
    for t, state in enumerate(states):
        for c in state.cycles:
            now = c.trail
            was = before[c.index]
            if now == was:
                continue
            for cell in iter_cells(now & ~was):
                open_at[c.index][cell] = t
            for cell in iter_cells(was & ~now):
                out.append([cell, c.index, open_at[c.index].pop(cell), t])
            before[c.index] = now
    for index, cells in enumerate(open_at):
        for cell, start in cells.items():
            out.append([cell, index, start, None])
    out.sort(key=lambda r: (r[2] or 0, r[1] or 0, r[0] or 0))
    return out


def viewer_data(replay: Replay, states: Sequence[GameState]) -> dict[str, Any]:
    """Everything the HTML viewer needs for ``replay`` (see the module docstring).

    Args:
        replay: a verified replay.
        states: its states, turn 0 first (``list(replay.states())``).
    """
    first = states[0]
    cycles = [{"team": c.team, "label": cycle_label(c)} for c in first.cycles]
    any_items = any(s.items for s in states)
    return {
        "version": DATA_VERSION,
        "title": f"{replay.map_id} · {replay.ruleset} · seed {replay.seed}",
        "ruleset": replay.ruleset,
        "map": replay.map_id,
        "seed": replay.seed,
        "palette": palette.as_dict(),
        "board": _board(first),
        "seats": [
            {"name": t.name, "bot": s.get("bot", "")}
            for t, s in zip(first.teams, replay.seats, strict=False)
        ],
        "cycles": cycles,
        "last": len(states) - 1,
        "heads": [[c.head for c in s.cycles] for s in states],
        "marks": [
            [1 if c.alive else 2 if shows_cross(c, s) else 0 for c in s.cycles] for s in states
        ],
        "trails": trail_intervals(states),
        "items": [[list(i) for i in s.items] for s in states] if any_items else None,
        "rows": [[r.to_dict() for r in seat_rows(replay, states, t)] for t in range(len(states))],
        "result": result_text(replay),
        "replay": json.loads(replay.to_json()),
    }

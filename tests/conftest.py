"""Shared test helpers: small maps drawn as text."""

from __future__ import annotations

from lightcycle.core.bitset import from_cells
from lightcycle.core.state import Board
from lightcycle.core.topology import GridTopology
from lightcycle.maps.spec import MapSpec


def grid_map(rows: list[str], wrap: bool = False, name: str = "test") -> MapSpec:
    """A map from rows of text: ``#`` wall, ``.`` or space floor, ``1``-``8`` starts."""
    height, width = len(rows), max(len(r) for r in rows)
    topo = GridTopology(width, height, wrap=wrap)
    walls: list[int] = []
    starts: dict[int, int] = {}
    for y, row in enumerate(rows):
        for x, ch in enumerate(row.ljust(width)):
            cell = y * width + x
            if ch == "#":
                walls.append(cell)
            elif ch.isdigit():
                starts[int(ch)] = cell
    ordered = tuple((starts[k],) for k in sorted(starts))
    return MapSpec(
        name=name,
        board=Board(topo, from_cells(walls)),
        starts=ordered,
        players=(len(ordered),) if ordered else (2,),
    )


def random_moves(state, rng):  # type: ignore[no-untyped-def]
    """One random move per live cycle: a safe one when it has any, else any legal one."""
    from lightcycle.rules.legal import legal_moves, safe_moves

    return {
        c.index: rng.choice(safe_moves(state, c.index) or legal_moves(state, c.index))
        for c in state.cycles
        if c.alive
    }

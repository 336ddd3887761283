"""jsonl on tron3d boards: what a seat keeping its own picture of the trails needs.

The start names the bonus vertices (``board.bonus``, only on boards that have some), and
a turn request that follows turns the seat was not asked (tron3d's odd rounds) lists the
cells each trail gained since (``entered``): a turbo cycle moves twice in that time, and
on a quad mesh two vertices can lie between its heads.
"""

from __future__ import annotations

import json

from lightcycle.core.moves import Move
from lightcycle.maps.registry import get_map
from lightcycle.protocols.base import Params
from lightcycle.protocols.jsonl import JsonLines
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.variants import get_ruleset


def test_bonus_vertices_in_the_start_and_gained_cells_after_skipped_turns() -> None:
    spec = get_map("cube")
    state = new_game(get_ruleset("tron3d"), spec, seed=1, players=2)
    codec = JsonLines(0)
    start = json.loads(codec.start(state, Params()))
    assert start["board"]["bonus"] == sorted(state.board.bonus) and state.board.bonus
    first = json.loads(codec.turn(state))
    assert "entered" not in first  # nothing played since the start
    nbrs = state.board.topology.neighbours
    moves = {}
    for c in state.cycles:
        free = [d for d in nbrs[c.head] if not (state.occupied >> d) & 1]
        moves[c.index] = Move(c.index, free[0])
    played = step(step(state, moves), {})  # round 0, then round 1 (nobody moves)
    later = json.loads(codec.turn(played))
    assert later["turn"] == 3
    gained = {(c, cell) for c, cell in later["entered"]}
    assert gained == {(i, m.to) for i, m in moves.items()}

"""Collision stages: who dies from where the moving cycles land."""

from __future__ import annotations

from lightcycle.core.moves import DeathCause
from lightcycle.core.topology import OFF
from lightcycle.rules.stages import stage
from lightcycle.rules.turn import NO_MOVE, Turn


@stage("collision.simultaneous")
def simultaneous(turn: Turn) -> None:
    """All cycles move at once; every collision is decided on the positions before the turn.

    A cycle dies, with the first cause that applies:

    - ``wall``: it enters a wall or leaves a walled board;
    - ``head_on``: it swaps cells with another cycle's head;
    - ``trail``: it enters any trail, including a cell a head occupied at the start of the
      turn (heads are part of their trails);
    - ``same_cell``: it enters the same free cell as another cycle; all of them die.
    """
    dest = turn.dest
    heads = turn.heads
    occ = turn.occupied
    walls = turn.before.board.walls
    movers = [i for i, d in enumerate(dest) if d != NO_MOVE and turn.alive[i]]
    landing: dict[int, list[int]] = {}
    by_head = {heads[i]: i for i in movers}
    for i in movers:
        d = dest[i]
        if d == OFF or (walls >> d) & 1:
            turn.kill(i, DeathCause.WALL)
            continue
        j = by_head.get(d)
        if j is not None and j != i and dest[j] == heads[i]:
            turn.kill(i, DeathCause.HEAD_ON, f"with cycle {j}")
            continue
        if (occ >> d) & 1:
            turn.kill(i, DeathCause.TRAIL)
            continue
        landing.setdefault(d, []).append(i)
    for group in landing.values():
        if len(group) > 1:
            for i in group:
                others = ", ".join(str(j) for j in group if j != i)
                turn.kill(i, DeathCause.SAME_CELL, f"with cycle {others}")

"""Collision stages: who dies from where the moving cycles land."""

from __future__ import annotations

from lightcycle.core.moves import DeathCause
from lightcycle.core.topology import OFF
from lightcycle.rules.stages import stage
from lightcycle.rules.turn import NO_MOVE, Turn


@stage("collision.simultaneous", quiet=True)
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
    alive = turn.alive
    occ = turn.occupied
    walls = turn.before.board.walls
    movers = [i for i, d in enumerate(dest) if d != NO_MOVE and alive[i]]
    landing: dict[int, int] = {}
    crowded: list[int] = []
    for i in movers:
        d = dest[i]
        if d == OFF or (walls >> d) & 1:
            turn.kill(i, DeathCause.WALL)
        elif (occ >> d) & 1:
            swap = next((j for j in movers if heads[j] == d and dest[j] == heads[i]), None)
            if swap is not None and swap != i:
                turn.kill(i, DeathCause.HEAD_ON, f"with cycle {swap}")
            else:
                turn.kill(i, DeathCause.TRAIL)
        elif d in landing:
            crowded.append(d)
        else:
            landing[d] = i
    if crowded:
        for d in set(crowded):
            group = [i for i in movers if dest[i] == d]
            for i in group:
                others = ", ".join(str(j) for j in group if j != i)
                turn.kill(i, DeathCause.SAME_CELL, f"with cycle {others}")

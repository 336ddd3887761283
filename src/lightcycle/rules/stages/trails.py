"""Trail stages: survivors advance and extend their trails; what happens to the dead's."""

from __future__ import annotations

from lightcycle.rules.stages.registry import stage
from lightcycle.rules.turn import NO_MOVE, Turn


def _advance(turn: Turn) -> None:
    if turn.advanced:
        return  # a sequential collision stage has moved every cycle already
    occ = turn.occupied
    for i, d in enumerate(turn.dest):
        if d != NO_MOVE and turn.alive[i]:
            bit = 1 << d
            turn.heads[i] = d
            turn.trails[i] |= bit
            occ |= bit
    turn.occupied = occ


@stage("trails.persist", quiet=True)
def persist(turn: Turn) -> None:
    """Survivors move onto their destinations; every trail stays, the dead's included.

    A dead cycle does not enter the cell it crashed into: its head stays where it was.
    """
    _advance(turn)


@stage("trails.remove_on_death", quiet=True)
def remove_on_death(turn: Turn) -> None:
    """Survivors advance; a cycle that died this turn loses its whole trail at once.

    After a sequential collision stage, which removes each trail the moment its cycle
    explodes, this finds nothing left to do.
    """
    _advance(turn)
    before = turn.before.cycles
    for i, alive in enumerate(turn.alive):
        if not alive and before[i].alive:
            turn.remove_trail(i)

"""Movement stages: turn each cycle's requested move into a destination, or a forfeit."""

from __future__ import annotations

from lightcycle.core.moves import DeathCause, Forfeit
from lightcycle.core.topology import OFF, GridTopology
from lightcycle.rules.stages.registry import stage
from lightcycle.rules.turn import Turn


def _where(turn: Turn, cell: int) -> str:
    topo = turn.before.board.topology
    if cell == OFF:
        return "off the board"
    if isinstance(topo, GridTopology) and 0 <= cell < topo.size:
        x, y = topo.xy(cell)
        return f"({x}, {y})"
    return f"node {cell}"


def _accept(turn: Turn, jumps_allowed: bool, rounds: bool = False) -> None:
    topo = turn.before.board.topology
    grid = isinstance(topo, GridTopology)
    moves = turn.moves
    odd_round = rounds and turn.number % 2 == 0  # round = turn - 1
    for i, alive in enumerate(turn.alive):
        if not alive or (odd_round and turn.turbo[i] <= 0):
            continue
        m = moves.get(i)
        if m is None:
            turn.kill(i, DeathCause.FORFEIT, "no move")
            continue
        if isinstance(m, Forfeit):
            turn.kill(i, DeathCause.FORFEIT, m.reason)
            continue
        if m.use_item and not rounds:
            turn.kill(i, DeathCause.FORFEIT, f"illegal move: {turn.ruleset.id} has no items")
            continue
        head = turn.heads[i]
        if m.jump:
            if not jumps_allowed:
                turn.kill(i, DeathCause.FORFEIT, f"illegal move: {turn.ruleset.id} has no jumps")
                continue
            if turn.jumps_left[i] <= 0:
                turn.kill(i, DeathCause.FORFEIT, "illegal move: no jump left")
                continue
            if not grid:
                turn.kill(i, DeathCause.FORFEIT, "illegal move: jumps need a grid")
                continue
            assert isinstance(topo, GridTopology)
            base = head * 4
            h = next((h for h in range(4) if topo.jump_table[base + h] == m.to), None)
            if h is None or (m.to == OFF and topo.step_table[base + h] == OFF):
                turn.kill(
                    i,
                    DeathCause.FORFEIT,
                    f"illegal move: a jump from {_where(turn, head)} cannot land on "
                    f"{_where(turn, m.to)}",
                )
                continue
            turn.jumps_left[i] -= 1
            turn.dest[i] = m.to
            continue
        if m.to == OFF:
            ok = grid and OFF in topo.step_table[head * 4 : head * 4 + 4]  # type: ignore[attr-defined]
        else:
            ok = m.to in topo.neighbours[head]
        if not ok:
            turn.kill(
                i,
                DeathCause.FORFEIT,
                f"illegal move: {_where(turn, m.to)} is not next to {_where(turn, head)}",
            )
            continue
        turn.dest[i] = m.to


@stage("movement.standard", quiet=True)
def standard(turn: Turn) -> None:
    """Each live cycle moves one step to a neighbouring cell.

    A missing move, a `Forfeit`, a destination that is not next to the head, or a jump kill
    the cycle with cause ``forfeit`` and the reason as detail. A move off the edge of a
    walled grid is legal (and deadly: see the collision stages).
    """
    _accept(turn, jumps_allowed=False)


@stage("movement.jump", quiet=True)
def jump(turn: Turn) -> None:
    """As ``movement.standard``, and a cycle with jumps left may jump two cells straight.

    The cell jumped over is not entered and gets no trail.
    """
    _accept(turn, jumps_allowed=True)


@stage("movement.rounds")
def rounds(turn: Turn) -> None:
    """Turbo rounds (the 3D course): normal cycles move on even rounds only.

    The round is ``turn - 1``. On an even round every live cycle must move; on an odd
    round only cycles in turbo (``Cycle.turbo > 0``) move, and they must. A cycle that
    must move and does not, or whose move is not to a neighbour, explodes (``forfeit``);
    moves given for cycles that do not move this round are ignored.
    """
    _accept(turn, jumps_allowed=False, rounds=True)

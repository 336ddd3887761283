"""Item stages (the 3D course): items appear, are picked up, used, and wear off.

Items are ``turbo``, ``ghost`` and ``points`` (`lightcycle.rules.ruleset.ITEM_KINDS`).
A cycle holds at most one; picking up another replaces it, except ``points``, which is
consumed at once and adds ``score_bonus`` to its team's score.
"""

from __future__ import annotations

from lightcycle.core.moves import DeathCause, Move
from lightcycle.rules.ruleset import ITEM_KINDS, Tron3DSettings
from lightcycle.rules.stages.registry import stage
from lightcycle.rules.turn import NO_MOVE, Turn


def _settings(turn: Turn) -> Tron3DSettings:
    s = turn.settings
    return s if isinstance(s, Tron3DSettings) else Tron3DSettings()


@stage("items.use")
def use(turn: Turn) -> None:
    """A cycle that moves with ``use_item`` uses the item it holds, from this move on.

    Turbo: the cycle moves every round for ``turbo_duration`` moves, this one included.
    Ghost: it passes through walls, trails and cycles for ``ghost_duration`` moves, this
    one included. Using an item it does not hold is an illegal move (``forfeit``).
    """
    s = _settings(turn)
    for i, m in turn.moves.items():
        if not (isinstance(m, Move) and m.use_item) or i >= len(turn.alive):
            continue
        if not turn.alive[i] or turn.dest[i] == NO_MOVE:
            continue
        kind = turn.held[i]
        if kind is None:
            turn.kill(i, DeathCause.FORFEIT, "illegal move: no item to use")
            turn.dest[i] = NO_MOVE
            continue
        turn.held[i] = None
        if kind == "turbo":
            turn.turbo[i] = s.turbo_duration
        elif kind == "ghost":
            turn.ghost[i] = s.ghost_duration


@stage("items.pickup")
def pickup(turn: Turn) -> None:
    """A cycle that ends its move on an item picks it up (``points`` score at once)."""
    s = _settings(turn)
    cycles = turn.before.cycles
    for i, d in enumerate(turn.dest):
        if d == NO_MOVE or not turn.alive[i] or turn.heads[i] != d:
            continue
        kind = turn.items.pop(d, None)
        if kind is None:
            continue
        if kind == "points":
            turn.scores[cycles[i].team] += s.score_bonus
        else:
            turn.held[i] = kind


@stage("items.timers")
def timers(turn: Turn) -> None:
    """Each move a cycle makes in turbo or as a ghost uses up one move of it."""
    for i, d in enumerate(turn.dest):
        if d != NO_MOVE and turn.alive[i]:
            if turn.turbo[i] > 0:
                turn.turbo[i] -= 1
            if turn.ghost[i] > 0:
                turn.ghost[i] -= 1


@stage("items.spawn")
def spawn(turn: Turn) -> None:
    """At the end of turn ``bonus_round`` an item appears on every free bonus cell.

    So the state bots see for round ``bonus_round`` shows them. The kind of each is
    drawn from the seed; a cell holding a wall, a trail or a head gets nothing.
    """
    s = _settings(turn)
    if turn.number != s.bonus_round:
        return
    rng = turn.rng("items")
    for cell in turn.before.board.bonus:
        if not (turn.occupied >> cell) & 1 and cell not in turn.items:
            turn.items[cell] = rng.choice(ITEM_KINDS)


@stage("score.moves")
def moves_score(turn: Turn) -> None:
    """``move_points`` (10) to a cycle's team for every move it makes and survives."""
    points = _settings(turn).move_points
    cycles = turn.before.cycles
    for i, d in enumerate(turn.dest):
        if d != NO_MOVE and turn.alive[i] and turn.heads[i] == d:
            turn.scores[cycles[i].team] += points

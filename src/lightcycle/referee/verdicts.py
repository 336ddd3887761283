"""Verdicts: what the referee says of each seat's move, and the forfeits they cause.

The referee judges (``ok``, ``timeout``, ``crashed``, ``bad_output``, ``illegal_move``,
``disqualified``); the ruleset decides what each verdict costs (its ``verdicts`` table:
the one cycle, or every cycle of the seat). Seat order never enters: all forfeits of a
turn go into the same simultaneous step, so two seats failing on one turn is decided by
the rules exactly like two cycles crashing on one turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.state import Cycle, GameState
from lightcycle.core.topology import GridTopology, Heading
from lightcycle.rules.legal import legal_moves, moves_this_turn, read_answer
from lightcycle.rules.ruleset import DEFAULT_VERDICT_EFFECTS, VERDICTS, Ruleset

SEVERITY = {v: i for i, v in enumerate(VERDICTS)}


@dataclass(frozen=True)
class Verdict:
    """One seat's verdict for one turn.

    Attributes:
        kind: one of ``ok``, ``timeout``, ``crashed``, ``bad_output``, ``illegal_move``,
            ``disqualified``.
        detail: what happened, for people (the bytes received, the exit signal and the
            tail of stderr...).
    """

    kind: str
    detail: str = ""

    @property
    def ok(self) -> bool:
        """Whether the move was accepted as it was."""
        return self.kind == "ok"

    def to_dict(self) -> dict[str, str]:
        """Plain data for replays."""
        return {"verdict": self.kind, "detail": self.detail}

    def __str__(self) -> str:
        return self.kind if not self.detail else f"{self.kind}: {self.detail}"


OK = Verdict("ok")


def effect(state: GameState, kind: str) -> str:
    """``cycle`` or ``team``: what verdict ``kind`` forfeits under the game's ruleset."""
    rs = state.ruleset
    table: Mapping[str, str] = rs.verdicts if isinstance(rs, Ruleset) else DEFAULT_VERDICT_EFFECTS
    return table.get(kind, "team")


def forfeit_team(state: GameState, team: int, verdict: Verdict) -> dict[int, Move | Forfeit]:
    """Forfeits for every live cycle of ``team``."""
    return {
        c.index: Forfeit(c.index, str(verdict)) for c in state.cycles if c.team == team and c.alive
    }


def _legal(state: GameState, c: Cycle, m: Move) -> bool:
    """Whether the rules accept ``m`` for ``c`` (cheap for the common grid step)."""
    topo = state.board.topology
    if isinstance(topo, GridTopology) and not m.jump:
        return m.to in topo.step_table[c.head * 4 : c.head * 4 + 4]
    return (m.to, m.jump) in {(lm.to, lm.jump) for lm in legal_moves(state, c.index)}


def _one_grid_step(
    state: GameState, team: int, answers: Mapping[int, object] | Mapping[int | str, object]
) -> Move | None:
    """The move of a seat with one cycle that answered one plain heading on a grid.

    This is nearly every answer of every duel, and the referee judges one per seat per
    turn, so it skips the general path's bookkeeping: any heading is a legal grid step
    (off a walled grid it is a crash the rules decide). Anything else, None: the general
    path judges it and words the verdict.
    """
    topo = state.board.topology
    if type(topo) is not GridTopology:
        return None
    ((key, answer),) = answers.items()
    if type(answer) is Heading:
        h = int(answer)
    elif type(answer) is int and 1 <= answer <= 4:
        h = answer - 1
    else:
        return None
    mine = [c for c in state.cycles if c[1] == team and c[4]]
    if len(mine) != 1 or mine[0][0] != key or not moves_this_turn(state, key):
        return None
    return Move(key, topo.step_table[mine[0][2] * 4 + h])


def judge_answers(
    state: GameState, team: int, answers: Mapping[int, object] | Mapping[int | str, object]
) -> tuple[dict[int, Move | Forfeit], Verdict]:
    """Turn a seat's answers (per cycle) into moves, refusing what the rules do not allow.

    ``answers`` is keyed by cycle index or cycle name; its order is the order the seat
    listed its cycles, kept in the moves returned. Only cycles that move this turn
    (`moves_this_turn`) need an answer.

    A cycle with no answer, an answer that is no move, or a move the rules reject gets
    the ``illegal_move`` verdict; the ruleset says whether that costs the cycle or the
    whole seat.
    """
    if len(answers) == 1:
        quick = _one_grid_step(state, team, answers)
        if quick is not None:
            return {quick.cycle: quick}, OK
    moves: dict[int, Move | Forfeit] = {}
    problems: list[str] = []
    alive = [c for c in state.cycles if c.team == team and c.alive]
    names = {c.name: c.index for c in alive if c.name}
    by_index: dict[int | str, object] = {
        names.get(k, k) if isinstance(k, str) else k: v for k, v in answers.items()
    }
    moving = {c.index: c for c in alive if moves_this_turn(state, c.index)}
    # the seat's cycles in the order it listed them (that order matters in teams/tron3d)
    listed = [i for i in by_index if isinstance(i, int) and i in moving]
    mine = [moving[i] for i in listed] + [c for i, c in moving.items() if i not in by_index]
    for c in mine:
        if c.index not in by_index:
            problems.append(f"no move for cycle {c.index}")
            continue
        try:
            m = read_answer(state, c.index, by_index[c.index])
        except ValueError as exc:
            problems.append(f"cycle {c.index}: {exc}")
            continue
        if not _legal(state, c, m):
            problems.append(f"cycle {c.index}: {m} is not a legal move")
            continue
        moves[c.index] = m
    owned = {c.index for c in alive}  # answers for cycles not moving now are ignored
    for key in by_index:
        if key not in owned:
            problems.append(f"answered for cycle {key}, which is not a live cycle of this seat")
    if not problems:
        return moves, OK
    verdict = Verdict("illegal_move", "; ".join(problems))
    if effect(state, "illegal_move") == "team":
        return forfeit_team(state, team, verdict), verdict
    for c in mine:
        if c.index not in moves:
            moves[c.index] = Forfeit(c.index, str(verdict))
    return moves, verdict

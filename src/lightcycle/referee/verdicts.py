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
from lightcycle.core.topology import GridTopology
from lightcycle.rules.legal import legal_moves, read_answer
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


def judge_answers(
    state: GameState, team: int, answers: Mapping[int, object]
) -> tuple[dict[int, Move | Forfeit], Verdict]:
    """Turn a seat's answers (per cycle) into moves, refusing what the rules do not allow.

    A cycle with no answer, an answer that is no move, or a move the rules reject gets
    the ``illegal_move`` verdict; the ruleset says whether that costs the cycle or the
    whole seat.
    """
    moves: dict[int, Move | Forfeit] = {}
    problems: list[str] = []
    mine = [c for c in state.cycles if c.team == team and c.alive]
    for c in mine:
        if c.index not in answers:
            problems.append(f"no move for cycle {c.index}")
            continue
        try:
            m = read_answer(state, c.index, answers[c.index])
        except ValueError as exc:
            problems.append(f"cycle {c.index}: {exc}")
            continue
        if not _legal(state, c, m):
            problems.append(f"cycle {c.index}: {m} is not a legal move")
            continue
        moves[c.index] = m
    owned = {c.index for c in mine}
    for key in answers:
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

"""What every viewer shows beside the board: per seat, the turn's moves, verdict, time, score.

The terminal status line, the HTML side panel and the view server's list page all tell
the same facts, so they are worked out once here from a replay and its re-simulated
states; the viewers only lay them out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lightcycle.core.state import GameState
from lightcycle.render.text import team_labels
from lightcycle.replay.model import Replay, Token

ARROWS = {"n": "↑", "e": "→", "s": "↓", "w": "←"}


def move_text(token: Token, unicode: bool = True) -> str:
    """A move token as people read it: ``↑`` (``n`` in ASCII), ``jump ↑``, ``node 17``,
    ``↑ + item``, ``forfeit (reason)``, or ``-`` for no move."""
    if token is None:
        return "-"
    if isinstance(token, dict):
        if "move" in token:
            return move_text(token["move"], unicode) + " + item"
        return f"forfeit ({token.get('forfeit', '')})"
    if isinstance(token, str):
        letter = token.lower()
        shown = ARROWS.get(letter, token) if unicode else letter
        return f"jump {shown}" if token.isupper() else shown
    return f"node {token}"


@dataclass(frozen=True)
class SeatRow:
    """One seat's line in a viewer for one turn.

    Attributes:
        name: the seat's name.
        bot: the bot spec that played it.
        moves: the moves its cycles made into this turn, as text.
        verdict: the referee's verdict when not ``ok`` (``"timeout: took 1.2 s"``), or "".
        time: seconds the seat took to move into this turn (``None``: not measured).
        score: the team's score.
        alive: how many of its cycles are alive.
        cycles: how many cycles it steers.
        fate: ``alive``, or how and when its last cycle died (``wall, turn 12``: the
            turn the viewers first show it dead, where turn 0 is the start).
        labels: its cycles' labels as the board shows them (``A``, ``A-J``).
    """

    name: str
    bot: str
    moves: str
    verdict: str
    time: float | None
    score: int
    alive: int
    cycles: int
    fate: str
    labels: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data for the HTML viewer."""
        return {
            "name": self.name,
            "bot": self.bot,
            "moves": self.moves,
            "verdict": self.verdict,
            "time": self.time,
            "score": self.score,
            "alive": self.alive,
            "cycles": self.cycles,
            "fate": self.fate,
            "labels": self.labels,
        }


def seat_rows(
    replay: Replay, states: Sequence[GameState], turn: int, unicode: bool = True
) -> list[SeatRow]:
    """Every seat's row for ``turn`` (0 is the start: no moves yet)."""
    tokens = replay.turns[turn - 1] if turn > 0 else []
    times = replay.times[turn - 1] if replay.times and 0 < turn <= len(replay.times) else None
    verdicts = (
        replay.verdicts[turn - 1] if replay.verdicts and 0 < turn <= len(replay.verdicts) else None
    )
    return rows_at(states[turn], tokens, times, verdicts, replay.seats, unicode)


def rows_at(
    state: GameState,
    tokens: Sequence[Token],
    times: Sequence[float | None] | None,
    verdicts: Sequence[dict[str, Any] | None] | None,
    seats: Sequence[dict[str, Any]],
    unicode: bool = True,
) -> list[SeatRow]:
    """Every seat's row for ``state`` from the turn's parts: what `seat_rows` reads from a
    replay, and what a live game (`lightcycle.viewer.live`) knows before its replay exists.

    Args:
        state: the state after the turn.
        tokens: the moves into it, per cycle (empty at the start).
        times: per seat, seconds taken (``None``: not measured).
        verdicts: per seat, the referee's verdict record, or ``None``.
        seats: per seat, ``name`` and ``bot``.
        unicode: arrows rather than letters.
    """
    rows = []
    for team in state.teams:
        cycles = state.cycles_of(team.index)
        parts = []
        for c in cycles:
            if c.index < len(tokens) and tokens[c.index] is not None:
                text = move_text(tokens[c.index], unicode)
                parts.append(f"{c.name} {text}" if c.name else text)
        v = verdicts[team.index] if verdicts and team.index < len(verdicts) else None
        verdict = ""
        if v:
            verdict = str(v.get("verdict", ""))
            if v.get("detail"):
                verdict += f": {v['detail']}"
        left = sum(c.alive for c in cycles)
        if left:
            fate = "alive"
        else:
            last = max(cycles, key=lambda c: c.death.turn if c.death else -1)
            fate = f"{last.death.cause.value}, turn {last.death.turn}" if last.death else "dead"
        seat = seats[team.index] if team.index < len(seats) else {}
        rows.append(
            SeatRow(
                name=team.name,
                bot=str(seat.get("bot", "")),
                moves=" ".join(parts) or "-",
                verdict=verdict,
                time=times[team.index] if times and team.index < len(times) else None,
                score=state.scores[team.index] if team.index < len(state.scores) else 0,
                alive=left,
                cycles=len(cycles),
                fate=fate,
                labels=team_labels(state, team.index),
            )
        )
    return rows


def result_text(replay: Replay) -> str:
    """The result in words: ``Alice (Player 1) has won (last team standing, turn 40).``"""
    names = [s.get("name", f"Player {i + 1}") for i, s in enumerate(replay.seats)]
    return outcome_text(replay.outcome, names)


def outcome_text(o: dict[str, Any] | None, names: Sequence[str]) -> str:
    """`result_text` from an outcome record (``ranks``, ``winner``, ``reason``, ``turn``)
    and the seats' names, so a live game says its result in the same words."""
    if o is None:
        return "unfinished"
    ranks = list(o.get("ranks", []))
    winner = o.get("winner")
    how = f"({o.get('reason', '')}, turn {o.get('turn')})"
    if winner is not None:
        return f"{names[winner]} (Player {winner + 1}) has won {how}"
    firsts = [names[i] for i, r in enumerate(ranks) if r == 1]
    if len(firsts) == len(ranks):
        return f"draw {how}"
    return f"draw between {', '.join(firsts)} {how}"

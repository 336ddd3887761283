"""``aichallenge``: the multi-player contest protocol (``turn`` / ``go``, moves n/e/s/w).

Set-up: ``turn 0``, then one ``key value`` line per parameter (``loadtime`` and
``turntime`` in milliseconds, 0 meaning not limited, ``no_rows``, ``no_cols``,
``no_players``, ``bot_id``, and parameters a bot must ignore if it does not know them),
then ``map`` and the rows (``.`` floor, ``%`` wall, ``a``, ``b``... each player's start),
then ``ready``. A wrap-around board adds the parameter ``wrap 1``; every game adds
``ruleset NAME@VERSION``. The bot answers ``go`` within loadtime.

Each turn: ``turn N``, one ``p ID ROW COL`` line per live player (ID as in ``bot_id``,
counted from 0), then ``go``; the bot answers ``n``, ``e``, ``s`` or ``w`` on a line
within turntime. ``end`` tells a bot the game is over for it.
"""

from __future__ import annotations

import re

from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology
from lightcycle.protocols.base import (
    Answers,
    Codec,
    Params,
    ProtocolError,
    UnsupportedGame,
    check_plain_rules,
)

_MOVES = {b"n": "n", b"e": "e", b"s": "s", b"w": "w"}
_KEY = re.compile(r"[a-z_][a-z0-9_]*")
_RESERVED = frozenset(
    {
        "turn",
        "map",
        "ready",
        "go",
        "end",
        "p",
        "loadtime",
        "turntime",
        "no_rows",
        "no_cols",
        "no_players",
        "bot_id",
        "wrap",
    }
)


def _ms(seconds: float | None) -> int:
    return 0 if seconds is None else max(1, round(seconds * 1000))


class AIChallenge(Codec):
    """One seat of a multi-player ``turn``/``go`` game (see the module docstring)."""

    name = "aichallenge"
    summary = "multi-player contest: turn/go lines, p ID ROW COL, answer n/e/s/w"
    wants_ready = True
    max_reply = 1024

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self._ended = False

    @classmethod
    def check(cls, state: GameState) -> None:
        """Grids, one cycle per player, at most 26 players."""
        check_plain_rules(state, "aichallenge")
        if not isinstance(state.board.topology, GridTopology):
            raise UnsupportedGame("the aichallenge protocol carries grids only; use jsonl")
        if len(state.cycles) != len(state.teams) or len(state.teams) > 26:
            raise UnsupportedGame(
                "the aichallenge protocol carries one cycle per player and at most 26 "
                "players; use jsonl"
            )

    def start(self, state: GameState, params: Params) -> bytes:
        self.check(state)
        for key, value in params.extra:
            if not _KEY.fullmatch(key) or key in _RESERVED or "\n" in value or "\r" in value:
                raise UnsupportedGame(
                    f"parameter {key!r}={value!r} cannot be announced: use a lower-case word "
                    f"other than {', '.join(sorted(_RESERVED))} and a one-line value"
                )
        self._ended = False
        topo = state.board.topology
        assert isinstance(topo, GridTopology)
        rows = [bytearray(b"." * topo.width) for _ in range(topo.height)]
        for c in range(topo.size):
            if (state.occupied >> c) & 1:
                rows[c // topo.width][c % topo.width] = 0x25  # %
        for cy in state.cycles:
            rows[cy.head // topo.width][cy.head % topo.width] = 0x61 + cy.team  # a, b...
        lines = [
            "turn 0",
            f"loadtime {_ms(params.first_move_time)}",
            f"turntime {_ms(params.move_time)}",
            f"no_rows {topo.height}",
            f"no_cols {topo.width}",
            f"no_players {len(state.teams)}",
            f"bot_id {self.seat}",
            *(["wrap 1"] if topo.wrap else []),
            *(f"{k} {v}" for k, v in params.extra),
            "map",
        ]
        text = "\n".join(lines).encode() + b"\n" + b"\n".join(bytes(r) for r in rows)
        return text + b"\nready\n"

    def read_ready(self, buf: bytearray) -> bool:
        line = self.take_line(buf, "go")
        if line is None:
            return False
        if line.strip() != b"go":
            raise ProtocolError(self.name, "'go' after ready", line)
        return True

    def turn(self, state: GameState) -> bytes:
        topo = state.board.topology
        assert isinstance(topo, GridTopology)
        w = topo.width
        parts = [f"turn {state.turn + 1}\n"]
        for cy in state.cycles:
            if cy.alive:
                parts.append(f"p {cy.team} {cy.head // w} {cy.head % w}\n")
        parts.append("go\n")
        return "".join(parts).encode()

    def read_move(self, buf: bytearray, state: GameState) -> Answers | None:
        line = self.take_line(buf, "one of n e s w")
        if line is None:
            return None
        move = _MOVES.get(line.strip())
        if move is None:
            raise ProtocolError(self.name, "one of n e s w on a line", line)
        return {self.cycle(state): move}

    def eliminated(self, state: GameState) -> bytes:
        if self._ended:
            return b""
        self._ended = True
        return b"end\n"

    def end(self, state: GameState) -> bytes:
        return self.eliminated(state)

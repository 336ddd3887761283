"""``sexp``: the Scheme course's protocol, Scheme data on lines.

The bot speaks first: its name on one line. The referee sends the board size as a pair
``(W . H)`` and the walls as a list of pairs ``((X . Y) ...)``. Each turn it sends the
bot's own position ``(X . Y)`` and then the opponent's, one per line; the bot answers a
symbol ``n``, ``e``, ``s`` or ``w``. At the end the referee sends ``win``, ``loss`` or
``draw``. Bots track trails themselves from the positions; the course plays on a torus,
but walled grids work the same way.
"""

from __future__ import annotations

from lightcycle.core.bitset import iter_cells
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

_BLANK = b" \t\r\n"
_DELIM = b" \t\r\n()'\""
_MOVES = {b"n": "n", b"e": "e", b"s": "s", b"w": "w"}


class Sexp(Codec):
    """One seat of a Scheme-protocol duel (see the module docstring)."""

    name = "sexp"
    summary = "Scheme course: name first, (W . H), walls, positions as pairs, answer n/e/s/w"
    hello = True
    max_reply = 256

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self._w = 1

    @classmethod
    def check(cls, state: GameState) -> None:
        """Two one-cycle players on a torus, or on a grid whose edge cells are all walls.

        The protocol never says whether the board wraps, and the course's bots assume it
        does; on a grid with a wall all round, wrapping or not makes no difference.
        """
        check_plain_rules(state, "sexp")
        topo = state.board.topology
        if not isinstance(topo, GridTopology):
            raise UnsupportedGame("the sexp protocol carries grids only; use jsonl")
        if len(state.teams) != 2 or len(state.cycles) != 2:
            raise UnsupportedGame("the sexp protocol carries two one-cycle players; use jsonl")
        if not topo.wrap and not all((state.board.walls >> c) & 1 for c in topo.edge_cells()):
            raise UnsupportedGame(
                "the sexp protocol cannot say that a board does not wrap: use a torus map, "
                "a map with a wall all round, or --protocol jsonl"
            )

    def read_hello(self, buf: bytearray) -> str | None:
        line = self.take_line(buf, "the bot's name")
        if line is None:
            return None
        name = line.decode("utf-8", "replace").strip()
        if not name:
            raise ProtocolError(self.name, "the bot's name on the first line", line)
        return name

    def start(self, state: GameState, params: Params) -> bytes:
        self.check(state)
        topo = state.board.topology
        assert isinstance(topo, GridTopology)
        self._w = topo.width
        walls = " ".join(
            f"({c % topo.width} . {c // topo.width})" for c in iter_cells(state.board.walls)
        )
        return f"({topo.width} . {topo.height})\n({walls})\n".encode()

    def turn(self, state: GameState) -> bytes:
        w = self._w
        mine = [c for c in state.cycles if c.team == self.seat]
        others = [c for c in state.cycles if c.team != self.seat]
        return "".join(f"({c.head % w} . {c.head // w})\n" for c in mine + others).encode()

    def read_move(self, buf: bytearray, state: GameState) -> Answers | None:
        i, n = 0, len(buf)
        while i < n and buf[i] in _BLANK:
            i += 1
        j = i
        while j < n and buf[j] not in _DELIM:
            j += 1
        token = bytes(buf[i:j])
        if i > self.max_reply:
            raise ProtocolError(
                self.name, f"a symbol n e s w within {self.max_reply} bytes", bytes(buf[:40])
            )
        if j == n and token not in _MOVES:  # no delimiter yet: maybe more to come
            if n > self.max_reply or (token and not any(m.startswith(token) for m in _MOVES)):
                raise ProtocolError(self.name, "one of the symbols n e s w", bytes(buf[i : i + 40]))
            return None
        move = _MOVES.get(token)
        if move is None:
            raise ProtocolError(self.name, "one of the symbols n e s w", bytes(buf[i : j + 1]))
        del buf[:j]
        return {self.cycle(state): move}

    def end(self, state: GameState) -> bytes:
        return self.result_word(state).encode() + b"\n"

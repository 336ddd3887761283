"""``tron2010``: the 2010 AI-challenge and Marlboro tron-engine protocol.

Every turn the referee writes the whole map from the bot's point of view: a line ``W H``,
then H rows of W characters: ``1`` the bot, ``2`` its opponent, ``#`` walls and every
trail, a space the floor. The bot answers one character ``1``-``4`` (north, east, south,
west); blanks before it are skipped. Nothing is sent at the start or the end of a game.

Bots of that era treat the outermost ring of the map as wall. So that they run unchanged
on a map whose edge cells are floor, the codec then sends the map framed by one ring of
``#``: the bot sees a map two cells wider and taller, and its headings mean the same.

The map is kept encoded between turns: a turn rewrites only the bytes of cells whose
content changed (the heads), never the whole map cell by cell.
"""

from __future__ import annotations

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
_ANSWER = {0x31: 1, 0x32: 2, 0x33: 3, 0x34: 4}  # b"1" .. b"4"


class Tron2010(Codec):
    """One seat of a 2010-protocol duel (see the module docstring)."""

    name = "tron2010"
    summary = "2010 AI challenge: whole ASCII map each turn, answer 1-4"
    reusable = True  # every turn is the whole map: a stateless bot can go on to a new game
    max_reply = 4096

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self._frame = bytearray()
        self._offset: list[int] = []  # byte offset of each cell in the frame
        self._heads: tuple[int, ...] = ()
        self._alive: tuple[bool, ...] = ()

    @classmethod
    def check(cls, state: GameState) -> None:
        """Two one-cycle players on a walled grid: all the 2010 protocol can say."""
        check_plain_rules(state, "tron2010")
        topo = state.board.topology
        if not isinstance(topo, GridTopology) or topo.wrap:
            raise UnsupportedGame(
                "the tron2010 protocol carries walled rectangular grids only; "
                "use --protocol sexp for a torus or jsonl for any board"
            )
        if len(state.teams) != 2 or len(state.cycles) != 2:
            raise UnsupportedGame(
                "the tron2010 protocol carries two players with one cycle each; "
                "use --protocol aichallenge or jsonl for more"
            )

    def start(self, state: GameState, params: Params) -> bytes:
        self.check(state)
        self._build(state)
        return b""

    def _build(self, state: GameState) -> None:
        topo = state.board.topology
        assert isinstance(topo, GridTopology)
        w, h = topo.width, topo.height
        edge = [
            c
            for c in range(topo.size)
            if topo.xy(c)[0] in (0, w - 1) or topo.xy(c)[1] in (0, h - 1)
        ]
        pad = 0 if all((state.board.walls >> c) & 1 for c in edge) else 1
        fw, fh = w + 2 * pad, h + 2 * pad
        header = f"{fw} {fh}\n".encode()
        rows = [bytearray(b"#" * fw) for _ in range(fh)]
        occ = state.occupied
        for c in range(topo.size):
            x, y = c % w, c // w
            rows[y + pad][x + pad] = 0x23 if (occ >> c) & 1 else 0x20
        self._frame = bytearray(header + b"".join(bytes(r) + b"\n" for r in rows))
        base = len(header)
        self._offset = [
            base + ((c // w) + pad) * (fw + 1) + (c % w) + pad for c in range(topo.size)
        ]
        self._heads = tuple(c.head for c in state.cycles)
        self._alive = tuple(c.alive for c in state.cycles)
        for cy in state.cycles:
            if cy.alive:
                self._frame[self._offset[cy.head]] = 0x31 if cy.team == self.seat else 0x32

    def turn(self, state: GameState) -> bytes:
        cycles = state.cycles
        alive = (cycles[0].alive, cycles[1].alive)
        if alive != self._alive:  # a death: trails may have gone; rebuild (rare)
            self._build(state)
            return bytes(self._frame)
        frame, offset, heads = self._frame, self._offset, self._heads
        for cy in cycles:
            old = heads[cy.index]
            if cy.head != old:
                frame[offset[old]] = 0x23
                frame[offset[cy.head]] = 0x31 if cy.team == self.seat else 0x32
        self._heads = (cycles[0].head, cycles[1].head)
        return bytes(frame)

    def read_move(self, buf: bytearray, state: GameState) -> Answers | None:
        i, n = 0, len(buf)
        while i < n and buf[i] in _BLANK:
            i += 1
        if i > self.max_reply:
            raise ProtocolError(
                self.name, f"one of 1 2 3 4 within {self.max_reply} bytes", bytes(buf[:40])
            )
        if i == n:
            return None
        heading = _ANSWER.get(buf[i])
        if heading is None:
            raise ProtocolError(self.name, "one of 1 2 3 4", bytes(buf[i : i + 40]))
        del buf[: i + 1]
        return {self.cycle(state): heading}

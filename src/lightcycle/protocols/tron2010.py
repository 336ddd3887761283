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
_CELL_BYTES = bytes.maketrans(b"01", b" #")


def _edge_walled(walls: int, w: int, h: int) -> bool:
    """Whether every cell on the edge of a ``w`` x ``h`` grid is wall."""
    full = (1 << w) - 1
    rows = [(walls >> (y * w)) & full for y in range(h)]
    return rows[0] == full and rows[-1] == full and all(r & 1 and r >> (w - 1) for r in rows)


class Tron2010(Codec):
    """One seat of a 2010-protocol duel (see the module docstring)."""

    name = "tron2010"
    summary = "2010 AI challenge: whole ASCII map each turn, answer 1-4"
    reusable = True  # every turn is the whole map: a stateless bot can go on to a new game
    max_reply = 4096

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self._frame = bytearray()
        self._geometry = (0, 1, 1)  # first cell's byte offset, map width, bytes per row
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
        row_mask = (1 << w) - 1
        pad = 0 if _edge_walled(state.board.walls, w, h) else 1
        fw, fh = w + 2 * pad, h + 2 * pad
        header = f"{fw} {fh}\n".encode()
        border = b"#" * fw + b"\n"
        side = b"#" * pad
        occ = state.occupied
        rows = [border] * pad
        for y in range(h):
            # a row's bits, lowest cell first, read as text: '1' trail or wall, '0' floor
            bits = format((occ >> (y * w)) & row_mask, f"0{w}b")[::-1]
            rows.append(side + bits.encode().translate(_CELL_BYTES) + side + b"\n")
        rows += [border] * pad
        self._frame = bytearray(header + b"".join(rows))
        self._geometry = (len(header) + pad * (fw + 1) + pad, w, fw + 1)
        self._heads = tuple(c.head for c in state.cycles)
        self._alive = tuple(c.alive for c in state.cycles)
        for cy in state.cycles:
            if cy.alive:
                self._frame[self._at(cy.head)] = 0x31 if cy.team == self.seat else 0x32

    def _at(self, cell: int) -> int:
        """The byte offset of ``cell`` in the frame."""
        base, w, stride = self._geometry
        return base + (cell // w) * stride + cell % w

    def turn(self, state: GameState) -> bytes:
        cycles = state.cycles
        alive = (cycles[0].alive, cycles[1].alive)
        if alive != self._alive:  # a death: trails may have gone; rebuild (rare)
            self._build(state)
            return bytes(self._frame)
        frame, at, heads = self._frame, self._at, self._heads
        for cy in cycles:
            old = heads[cy.index]
            if cy.head != old:
                frame[at(old)] = 0x23
                frame[at(cy.head)] = 0x31 if cy.team == self.seat else 0x32
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

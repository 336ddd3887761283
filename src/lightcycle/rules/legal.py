"""Legal moves and the reading of bots' answers, shared by bots, referee and environments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.state import Cycle, GameState
from lightcycle.core.topology import OFF, GridTopology, Heading
from lightcycle.rules.fast import windows
from lightcycle.rules.ruleset import Ruleset


def moves_this_turn(state: GameState, cycle: int) -> bool:
    """Whether ``cycle`` moves in the coming turn (and so must be given a move).

    Always, for a live cycle, except under turbo rounds (``movement.rounds``): there a
    cycle without turbo moves only on even rounds (round = turn - 1).
    """
    c = state.cycles[cycle]
    if not c[4] or state.outcome is not None:
        return False
    if state.turn % 2 == 0 or c.turbo > 0:
        return True
    rs = state.ruleset
    return not (isinstance(rs, Ruleset) and rs.has_rounds)


def legal_moves(state: GameState, cycle: int) -> list[Move]:
    """Every move the rules accept for ``cycle`` this turn, safe or not.

    On a grid: one move per heading whose destination is distinct (a move off a walled
    grid is legal and deadly), plus the jumps the cycle may still make. On a graph: one
    move per neighbouring node, and each again using the held item, if any. A cycle
    that does not move this turn (`moves_this_turn`) has none.
    """
    c = state.cycles[cycle]
    if not moves_this_turn(state, cycle):
        return []
    topo = state.board.topology
    if not isinstance(topo, GridTopology):
        steps = [Move(cycle, d) for d in topo.neighbours[c.head]]
        if c.item is not None:
            steps += [Move(cycle, d, use_item=True) for d in topo.neighbours[c.head]]
        return steps
    seen: set[int] = set()
    out: list[Move] = []
    for h in range(4):
        d = topo.step_table[c.head * 4 + h]
        if d not in seen:
            seen.add(d)
            out.append(Move(cycle, d))
    rs = state.ruleset
    if c.jumps_left > 0 and isinstance(rs, Ruleset) and "movement.jump" in rs.stages:
        for h in range(4):
            d = topo.jump_table[c.head * 4 + h]
            if d != OFF:
                out.append(Move(cycle, d, jump=True))
    return out


_Entry = tuple[int, int, dict[int, tuple[Move, ...]], tuple[Move, ...]]
"""One cycle on one cell with a window (see `lightcycle.rules.fast`): ``(lo, mask, table,
moves)``. ``moves`` are the cycle's shared single-step `Move` objects from that cell, in
neighbour order; ``table`` maps an occupancy pattern of the neighbours' bits
(``(occupied >> lo) & mask``) to the free ones among them, filled as patterns occur."""


class _Tables:
    """Per neighbour table: the cells' windows, and per cycle its shared `Move` objects.

    Moves are immutable, so handing out the same objects every turn is safe. ``rows``
    holds one `Move` per cycle and destination. ``entries`` holds, per cycle and cell, an
    `_Entry` (or ``False`` once the cell has been seen once): with it a call of
    `safe_moves` is one shift, one mask, one dictionary look-up and a list copy. An entry
    is made on a cycle's second visit to a cell only, because within a game a cycle never
    comes back to a cell: a one-off visit (every visit, in a single long game of many
    cycles) costs no more than reading the window and the row, while playouts repeated on
    one board (search, benchmarks, tournaments) soon find every entry made.
    """

    __slots__ = ("entries", "neighbours", "rows", "windows")

    def __init__(self, neighbours: tuple[tuple[int, ...], ...]) -> None:
        self.neighbours = neighbours
        self.windows = windows(neighbours)
        self.entries: list[list[_Entry | bool | None]] = []
        self.rows: list[list[Move | None]] = []

    def moves(self, cycle: int, cells: tuple[int, ...]) -> tuple[Move, ...]:
        """The shared moves of ``cycle`` to ``cells``."""
        while len(self.rows) <= cycle:
            self.entries.append([None] * len(self.neighbours))
            self.rows.append([None] * len(self.neighbours))
        row = self.rows[cycle]
        out = []
        for d in cells:
            m = row[d]
            if m is None:
                m = row[d] = Move(cycle, d)
            out.append(m)
        return tuple(out)

    def free(self, cycle: int, cell: int, occupied: int) -> list[Move]:
        """`safe_moves` without a complete entry: read the window and the row, and on the
        second visit to a cell with a window make the entry."""
        w = self.windows[cell]
        if w is None:
            cells: tuple[int, ...] = tuple(
                d for d in self.neighbours[cell] if not (occupied >> d) & 1
            )
        else:
            cells = w[2][(occupied >> w[0]) & w[1]]
        out = list(self.moves(cycle, cells))
        if w is not None:
            entries = self.entries[cycle]
            if entries[cell] is None:
                entries[cell] = False
            else:
                moves = self.moves(cycle, self.neighbours[cell])
                entries[cell] = (w[0], w[1], {(occupied >> w[0]) & w[1]: tuple(out)}, moves)
        return out


_TABLES: dict[int, _Tables] = {}
_TABLES_MAX = 64
_last_tables: tuple[object, _Tables] | None = None
"""The board and tables used last: one identity test instead of three attribute loads
and a dictionary look-up per call (a cache only: boards are immutable)."""


def safe_moves(state: GameState, cycle: int) -> list[Move]:
    """The legal single-step moves of ``cycle`` into free cells (no wall, no trail).

    The hottest helper of every playout, so it does not ask whether the cycle moves this
    turn at all: under turbo rounds (``tron3d``) check `moves_this_turn` first. The list is
    the caller's own; the `Move` objects in it are shared (they are immutable).
    """
    global _last_tables
    c = state.cycles[cycle]
    if not c[4] or state.outcome is not None:  # c[4]: alive
        return []
    board = state.board
    last = _last_tables
    if last is not None and last[0] is board:
        tables = last[1]
    else:
        nbrs = board.topology.neighbours
        found = _TABLES.get(id(nbrs))
        if found is None or found.neighbours is not nbrs:
            if len(_TABLES) >= _TABLES_MAX:
                _TABLES.clear()
            found = _TABLES[id(nbrs)] = _Tables(nbrs)
        tables = found
        _last_tables = (board, tables)
    head = c[2]
    try:
        e = tables.entries[cycle][head]
    except IndexError:
        e = None
    if type(e) is not tuple:  # None (never seen) or False (seen once)
        return tables.free(cycle, head, state.occupied)
    lo, mask, table, moves = e
    pattern = (state.occupied >> lo) & mask
    free = table.get(pattern)
    if free is None:
        free = table[pattern] = tuple(m for m in moves if not (pattern >> (m[1] - lo)) & 1)
    return [*free]


def read_answer(state: GameState, cycle: int, answer: object) -> Move:
    """Turn what a bot answered into a `Move` for ``cycle``.

    Grid bots answer a heading: a `Heading`, ``n/e/s/w``, ``north``..., or 1-4 (N, E, S,
    W). A jump is written ``("jump", heading)``. Graph bots answer the destination node.
    A `Move` passes through with its cycle checked.

    Raises:
        ValueError: naming the answer and the accepted forms (the caller records it as the
            reason of a forfeit).
    """
    if isinstance(answer, Move):
        if answer.cycle != cycle:
            raise ValueError(f"answered a move for cycle {answer.cycle}, expected cycle {cycle}")
        return answer
    topo = state.board.topology
    head = state.cycles[cycle].head
    if isinstance(topo, GridTopology):
        jump = False
        if isinstance(answer, tuple) and len(answer) == 2 and answer[0] == "jump":
            jump, answer = True, answer[1]
        if answer is None:
            raise ValueError("answered nothing (expected a heading such as 'n' or 1-4)")
        h = Heading.parse(answer)
        return Move(cycle, topo.jump(head, h) if jump else topo.move(head, h), jump=jump)
    if isinstance(answer, int) and not isinstance(answer, bool):
        return Move(cycle, answer)
    raise ValueError(f"answered {answer!r}; on a graph board answer the destination node (int)")


def answers_by_cycle(
    state: GameState, cycles: Sequence[Cycle], answer: Any
) -> list[tuple[int, Any]]:
    """Pair a team's answer with its moving ``cycles``, in the order the team listed them.

    ``answer`` is one move (for the first of ``cycles``) or a dict keyed by cycle index
    or name; cycles it leaves out come last with ``None`` (they forfeit).
    """
    if not isinstance(answer, dict):
        return [(cycles[0].index, answer), *((c.index, None) for c in cycles[1:])]
    mine: dict[object, int] = {c.index: c.index for c in cycles}
    mine.update({c.name: c.index for c in cycles if c.name})
    out: list[tuple[int, Any]] = []
    seen: set[int] = set()
    for key, a in answer.items():
        index = mine.get(key)
        if index is not None and index not in seen:
            seen.add(index)
            out.append((index, a))
    out += [(c.index, None) for c in cycles if c.index not in seen]
    return out


def team_moves(state: GameState, cycles: Sequence[Cycle], answer: Any) -> dict[int, Move | Forfeit]:
    """A team's answer read strictly into the moves of its moving ``cycles``.

    In the order the team listed them (`answers_by_cycle`; the order the sequential
    rulesets move a team in). A `Forfeit` answer forfeits every one of ``cycles`` with its
    reason; an answer `read_answer` refuses forfeits its cycle (``bad answer: ...``).
    """
    if isinstance(answer, Forfeit):
        return {c.index: Forfeit(c.index, answer.reason) for c in cycles}
    moves: dict[int, Move | Forfeit] = {}
    for index, a in answers_by_cycle(state, cycles, answer):
        try:
            moves[index] = read_answer(state, index, a)
        except ValueError as exc:
            moves[index] = Forfeit(index, f"bad answer: {exc}")
    return moves

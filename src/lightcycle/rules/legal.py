"""Legal moves and the reading of bots' answers, shared by bots, referee and environments."""

from __future__ import annotations

from lightcycle.core.moves import Move
from lightcycle.core.state import GameState
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


class _Tables:
    """Per neighbour table: the free-neighbour windows and shared `Move` objects.

    Moves are immutable, so handing out the same object every turn is safe and saves an
    allocation per cycle per turn on the hottest path of every playout.
    """

    __slots__ = ("neighbours", "rows", "windows")

    def __init__(self, neighbours: tuple[tuple[int, ...], ...]) -> None:
        self.neighbours = neighbours
        self.windows = windows(neighbours)
        self.rows: list[list[Move | None]] = []

    def row(self, cycle: int) -> list[Move | None]:
        while len(self.rows) <= cycle:
            self.rows.append([None] * len(self.neighbours))
        return self.rows[cycle]


_TABLES: dict[int, _Tables] = {}


def safe_moves(state: GameState, cycle: int) -> list[Move]:
    """The legal single-step moves of ``cycle`` into free cells (no wall, no trail).

    The hottest helper of every playout, so it does not ask whether the cycle moves this
    turn at all: under turbo rounds (``tron3d``) check `moves_this_turn` first.
    """
    c = state.cycles[cycle]
    if not c[4] or state.outcome is not None:  # c[4]: alive
        return []
    nbrs = state.board.topology.neighbours
    tables = _TABLES.get(id(nbrs))
    if tables is None or tables.neighbours is not nbrs:
        tables = _TABLES[id(nbrs)] = _Tables(nbrs)
    head = c[2]
    w = tables.windows[head]
    if w is None:
        occ = state.occupied
        free: tuple[int, ...] = tuple(d for d in nbrs[head] if not (occ >> d) & 1)
    else:
        free = w[2][(state.occupied >> w[0]) & w[1]]
    rows = tables.rows
    row = rows[cycle] if cycle < len(rows) else tables.row(cycle)
    out = []
    for d in free:
        m = row[d]
        if m is None:
            m = row[d] = Move(cycle, d)
        out.append(m)
    return out


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

"""`View`: what one seat sees at the start of a turn, with the helpers bot authors need.

Tron is a game of perfect information, so a view shows the whole board; what it adds is
the seat's own perspective (``me``, ``opponents``) and fast helpers (neighbours, free
cells, flood fill, distance maps) so that a first bot is a few lines long.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from lightcycle.core.bitset import iter_cells
from lightcycle.core.state import Cycle, GameState
from lightcycle.core.topology import OFF, GridTopology, Heading, Topology
from lightcycle.rules.legal import moves_this_turn, safe_moves


@dataclass(frozen=True)
class ClockView:
    """What the time control says about one seat's clock at the start of its move.

    `View.time_limit` is the one number that forfeits a move; this is the rest of the
    account, so that a bot can plan: save time on easy moves for the hard ones where a
    bank or an average limit lets it, and share a whole-game CPU budget out over the
    moves it expects to play. Seconds throughout; ``None``: not limited.

    Attributes:
        move: the per-move limit after the first move.
        first_move: the first move's limit (set-up included).
        bank_left: reserve left that moves slower than ``move`` draw on.
        average: the limit on the mean time of the moves after the first.
        moves: moves already charged (the first included).
        mean: the mean time of the charged moves after the first (0 before any).
        cpu: the CPU budget for the whole game.
        cpu_left: CPU seconds left of ``cpu`` (``None`` when there is no budget).
    """

    move: float | None = None
    first_move: float | None = None
    bank_left: float = 0.0
    average: float | None = None
    moves: int = 0
    mean: float = 0.0
    cpu: float | None = None
    cpu_left: float | None = None

    @classmethod
    def account(
        cls,
        move: float | None,
        first_move: float | None,
        bank_left: float,
        average: float | None,
        moves: int,
        used: float,
        cpu: float | None,
        cpu_used: float,
    ) -> ClockView:
        """The view of a time account kept as running totals (the referee's `Clock`,
        a relayed bot's own): ``used`` is the wall seconds of the moves after the first,
        ``cpu_used`` the CPU seconds of the game so far; a missing first-move limit is
        the per-move one."""
        after_first = moves - 1
        return cls(
            move=move,
            first_move=first_move if first_move is not None else move,
            bank_left=bank_left,
            average=average,
            moves=moves,
            mean=used / after_first if after_first > 0 else 0.0,
            cpu=cpu,
            cpu_left=None if cpu is None else max(0.0, cpu - cpu_used),
        )


class View:
    """One seat's view of a game state.

    Attributes:
        state: the full `GameState` (for bots that want everything).
        seat: this bot's team index.
        time_limit: seconds this move may take by the referee's clock (``None``: not
            limited, or not known); searching bots budget their thinking from it.
        clock: the rest of the seat's time account (`ClockView`), where the referee
            runs the bot in its own process; ``None`` where it is not known (bots behind
            a protocol get what their protocol says).
    """

    def __init__(
        self,
        state: GameState,
        seat: int,
        time_limit: float | None = None,
        clock: ClockView | None = None,
    ) -> None:
        self.state = state
        self.seat = seat
        self.time_limit = time_limit
        self.clock = clock

    # -- the board ---------------------------------------------------------------------
    @property
    def turn(self) -> int:
        """Turns played so far (0 on the first move)."""
        return self.state.turn

    @property
    def topology(self) -> Topology:
        """The board shape."""
        return self.state.board.topology

    @property
    def grid(self) -> GridTopology | None:
        """The grid topology, or ``None`` on a graph board."""
        topo = self.state.board.topology
        return topo if isinstance(topo, GridTopology) else None

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` of a grid (``(nodes, 1)`` on a graph board)."""
        g = self.grid
        return (g.width, g.height) if g else (self.topology.size, 1)

    @property
    def wrap(self) -> bool:
        """Whether the board is a torus."""
        g = self.grid
        return bool(g and g.wrap)

    @cached_property
    def walls(self) -> frozenset[int]:
        """The wall cells."""
        return frozenset(iter_cells(self.state.board.walls))

    @cached_property
    def trails(self) -> frozenset[int]:
        """Every trail cell, heads included."""
        return frozenset(iter_cells(self.state.occupied & ~self.state.board.walls))

    def is_free(self, cell: int) -> bool:
        """Whether ``cell`` is on the board and holds no wall or trail."""
        return self.state.is_free(cell)

    def neighbours(self, cell: int) -> tuple[int, ...]:
        """The cells one step from ``cell``."""
        return self.topology.neighbours[cell]

    def free_neighbours(self, cell: int) -> list[int]:
        """The free cells one step from ``cell``."""
        occ = self.state.occupied
        return [d for d in self.topology.neighbours[cell] if not (occ >> d) & 1]

    def xy(self, cell: int) -> tuple[int, int]:
        """``(x, y)`` of a grid cell (x the column, y the row, origin top-left)."""
        g = self.grid
        if g is None:
            raise ValueError("xy() needs a grid board")
        return g.xy(cell)

    def cell(self, x: int, y: int) -> int:
        """The grid cell at column ``x``, row ``y``."""
        g = self.grid
        if g is None:
            raise ValueError("cell() needs a grid board")
        return g.cell(x, y)

    def after(self, cell: int, heading: Heading | str | int) -> int:
        """The cell one step from ``cell`` towards ``heading`` (``OFF`` beyond a wall edge)."""
        g = self.grid
        if g is None:
            raise ValueError("after() needs a grid board; on graphs use neighbours()")
        return g.move(cell, Heading.parse(heading))

    # -- the cycles --------------------------------------------------------------------
    @property
    def cycles(self) -> tuple[Cycle, ...]:
        """Every cycle, alive or dead."""
        return self.state.cycles

    @property
    def my_cycles(self) -> tuple[Cycle, ...]:
        """This seat's cycles."""
        return self.state.cycles_of(self.seat)

    @property
    def me(self) -> Cycle:
        """This seat's first cycle (the only one in the duel variants)."""
        return self.my_cycles[0]

    @property
    def opponents(self) -> tuple[Cycle, ...]:
        """The live cycles of every other team."""
        return tuple(c for c in self.state.cycles if c.team != self.seat and c.alive)

    @property
    def moving_cycles(self) -> tuple[Cycle, ...]:
        """This seat's cycles that must be given a move this turn, in cycle order.

        Every live cycle, except in rulesets with turbo rounds (``tron3d``), where a cycle
        without turbo sits out odd rounds.
        """
        state = self.state
        return tuple(c for c in self.my_cycles if moves_this_turn(state, c.index))

    @property
    def settings(self) -> Any:
        """The ruleset's settings (``nb_rounds``, ``bonus_round``, ``jumps`` ...)."""
        return getattr(self.state.ruleset, "settings", None)

    @property
    def cpu(self) -> tuple[int, ...]:
        """Per team, the CPU microseconds its bot has used so far (``teams`` rulesets)."""
        return self.state.cpu or (0,) * len(self.state.teams)

    @property
    def positions(self) -> list[tuple[int, int]]:
        """``(x, y)`` of every cycle's head, in cycle order (grid boards)."""
        return [self.xy(c.head) for c in self.state.cycles]

    # -- moves -------------------------------------------------------------------------
    def legal_headings(self) -> list[Heading]:
        """The four headings on a grid (all legal; some may be deadly)."""
        return list(Heading)

    def safe_headings(self, cycle: Cycle | None = None) -> list[Heading]:
        """The headings that lead ``cycle`` (default: ``me``) into a free cell."""
        c = cycle or self.me
        g = self.grid
        if g is None or not c.alive:
            return []
        occ = self.state.occupied
        out = []
        for h in Heading:
            d = g.step_table[c.head * 4 + h]
            if d != OFF and not (occ >> d) & 1:
                out.append(h)
        return out

    def safe_destinations(self, cycle: Cycle | None = None) -> list[int]:
        """The free cells ``cycle`` (default: ``me``) can move to."""
        c = cycle or self.me
        return [m.to for m in safe_moves(self.state, c.index)]

    # -- analysis helpers ----------------------------------------------------------------
    def flood_fill(self, cell: int, blocked: int | None = None) -> int:
        """How many free cells are reachable from ``cell`` (``cell`` itself not counted).

        Args:
            cell: where to start (usually a head or a candidate destination).
            blocked: a bitmask of blocked cells (default: walls and trails).
        """
        occ = self.state.occupied if blocked is None else blocked
        nbrs = self.topology.neighbours
        seen = occ | (1 << cell)
        frontier = [cell]
        n = 0
        while frontier:
            nxt = []
            for c in frontier:
                for d in nbrs[c]:
                    if not (seen >> d) & 1:
                        seen |= 1 << d
                        nxt.append(d)
            n += len(nxt)
            frontier = nxt
        return n

    def distances(self, cell: int) -> list[int]:
        """Breadth-first distance from ``cell`` to every cell through free cells (-1: none)."""
        occ = self.state.occupied
        nbrs = self.topology.neighbours
        dist = [-1] * self.topology.size
        dist[cell] = 0
        queue = deque([cell])
        while queue:
            c = queue.popleft()
            nd = dist[c] + 1
            for d in nbrs[c]:
                if dist[d] < 0 and not (occ >> d) & 1:
                    dist[d] = nd
                    queue.append(d)
        return dist

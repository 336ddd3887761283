"""What `MultiStrong`'s cycles share in one turn: the board, the threats, the rules.

`MultiStrong` (`lightcycle.bots.multi`) decides its cycles one after the other; each
decision reads the same facts of the turn (where enemy heads may go, how contests for a
cell end under these rules, the round limit, the items), made once here, and measures
territory with `territory`.
"""

from __future__ import annotations

from lightcycle.bots import timing
from lightcycle.bots.search.bitboard import Kernel, kernel_for
from lightcycle.core.topology import OFF, GridTopology
from lightcycle.rules.legal import moves_this_turn
from lightcycle.rules.observe import View

TIGHT_CELLS = 1600
"""Territories of at most this many cells, divided by the square of the cycles to move
this turn, count by their `fill_bound`; larger ones by the cheaper checkerboard bound.
(Ten cycles to move: 16 cells; one: 1600. With many cycles territories are small and
the time is better spent elsewhere; and in ``teams`` CPU time decides contests.)"""

LOOKAHEAD_CELLS = 4000
"""Boards of at most this many cells (times the cycles to move) get the reply lookahead:
each move is also judged by the best next move after the worst reply of the nearest
enemy head within `REPLY_RADIUS` steps."""


class Turn:
    """What every cycle's decision shares in one turn: the board, the threats, the rules.

    Attributes:
        state: the state before the turn.
        kernel: the board's bit-parallel kernel.
        grid: the grid topology, or ``None`` on a graph board.
        movers: how many of this bot's cycles move this turn.
        tight: territories up to this size count by their `fill_bound`.
        lookahead: whether moves are judged one turn deeper (small boards).
        danger: free cells an enemy head may enter this turn.
        enemy_heads: the cells of every live enemy head.
        enemy_fronts: per enemy cycle moving this turn, its head and its free neighbours.
        lose: the chance of losing a contest for a cell (1: lost for sure).
        paranoid: contests are lost for sure, so enemies count as already on every
            free cell next to their heads.
        risk: per ``danger`` cell, the chance that a cycle of this bot moving there dies:
            that an enemy head next to it picks it (one of its free cells, at random as
            far as this bot knows), times that the contest is lost.
        can_jump: the rules allow jumps.
        remaining: moves a cycle without turbo still makes before the round limit
            (``None``: no limit that matters).
        items: items on the board, cell to kind (``item_mask``: their cells).
        item_worth: per item kind, its worth in moves.
        ghost_duration: moves a ghost item lasts.
        reserved: free bonus cells before the items appear (stepping on one spoils it).
    """

    def __init__(self, view: View, contest_win: bool) -> None:
        state = view.state
        self.state = state
        topo = state.board.topology
        self.kernel: Kernel = kernel_for(topo)
        self.grid = topo if isinstance(topo, GridTopology) else None
        self.nbrs = topo.neighbours
        self.movers = max(1, len(view.moving_cycles))
        self.tight = TIGHT_CELLS // self.movers**2
        self.lookahead = topo.size * self.movers <= LOOKAHEAD_CELLS
        occ = state.occupied
        stages = tuple(getattr(state.ruleset, "stages", ()))
        self.can_jump = "movement.jump" in stages
        if "collision.priority" in stages:
            lose = 0.05 if contest_win else 1.0  # the team with less CPU time wins
        elif "collision.random_order" in stages:
            lose = 0.5  # the first into the vertex wins; the order is a coin toss
        else:
            lose = 1.0  # simultaneous: both die
        danger = 0
        heads = 0
        stay: dict[int, float] = {}
        self.enemy_fronts: list[tuple[int, int]] = []
        for c in state.cycles:
            if not c.alive or c.team == view.seat:
                continue
            heads |= 1 << c.head
            if moves_this_turn(state, c.index):
                front = self.front(c.head)
                danger |= front
                self.enemy_fronts.append((c.head, front))
                # an enemy picks one of its free cells: each with chance 1/k
                share = 1.0 / max(1, front.bit_count())
                for d in self.nbrs[c.head]:
                    if (front >> d) & 1:
                        stay[d] = stay.get(d, 1.0) * (1.0 - share)
        self.danger = danger
        self.enemy_heads = heads
        # where contests are lost for sure, count enemies as already on every cell they
        # can enter this turn; where they are a coin toss, as on their heads
        self.paranoid = lose >= 1.0
        self.lose = lose
        self.risk = {d: lose * (1.0 - p) for d, p in stay.items()}
        settings = view.settings
        rounds = getattr(settings, "nb_rounds", None)
        self.remaining: int | None = None
        if isinstance(rounds, int):
            # turns state.turn + 1 .. rounds are left; normal cycles move on odd turns
            self.remaining = max(0, (rounds + 1) // 2 - (state.turn + 1) // 2)
        self.items = dict(state.items)
        points = float(getattr(settings, "move_points", 10) or 10)
        self.item_worth = {
            "points": float(getattr(settings, "score_bonus", 50)) / points,
            "turbo": float(getattr(settings, "turbo_duration", 8)) / 2,
            "ghost": 2.0,
        }
        self.ghost_duration = int(getattr(settings, "ghost_duration", 3))
        bonus_round = getattr(settings, "bonus_round", None)
        self.reserved = 0
        if isinstance(bonus_round, int) and state.turn < bonus_round:
            for b in state.board.bonus:
                if not (occ >> b) & 1:
                    self.reserved |= 1 << b
        self.item_mask = 0
        for cell in self.items:
            self.item_mask |= 1 << cell

    def front(self, cell: int) -> int:
        """The free cells next to ``cell``."""
        occ = self.state.occupied
        out = 0
        for d in self.nbrs[cell]:
            if not (occ >> d) & 1:
                out |= 1 << d
        return out

    def contested(self, value: float, cell: int) -> float:
        """The value of moving into a ``danger`` cell: the move's value if it survives
        the contest, nothing if not, and a little less to prefer a sure move."""
        return value * (1.0 - self.risk.get(cell, 0.0)) - 1.0

    def cap(self, value: float, turbo: int) -> float:
        """Room beyond the moves left before the round limit is worth little."""
        if self.remaining is None:
            return value
        limit = self.remaining + turbo
        return min(value, limit) + 0.01 * value


def moves_left(view: View) -> int:
    """The moves-left estimate: the free cells this seat's cycles reach, shared by the
    live cycles (they all fill the same board)."""
    k = kernel_for(view.topology)
    free = k.full & ~view.state.occupied
    heads = 0
    for c in view.my_cycles:
        if c.alive and c.head != OFF:
            heads |= 1 << c.head
    live = sum(1 for c in view.state.cycles if c.alive)
    cap = 2 * timing.HORIZON_MAX * max(1, live)
    reach, _ = k.flood_upto(heads, free, cap)
    return timing.moves_left(reach.bit_count(), live)


def territory(kernel: Kernel, mine: int, rivals: int, free: int) -> int:
    """The cells of ``free`` that ``mine`` reaches strictly before ``rivals``.

    As `Kernel.voronoi`, except that a cell both reach at once stops only ``mine``: the
    rivals go on from it (the pessimistic reading, which measured better in ``teams``
    than letting ties stop both), and that it stops as soon as ``mine`` can claim no
    more, since the rivals' expansion beyond that point cannot change the answer."""
    expand = kernel.expand
    avail = free
    fa, fb = mine, rivals
    territory = 0
    while fa:
        na = expand(fa) & avail
        nb = expand(fb) & avail
        avail &= ~(na | nb)
        na &= ~nb  # ties are nobody's; the rivals go on from them, this cycle does not
        territory |= na
        fa, fb = na, nb
    return territory

"""Search for the two-cycle duel: alpha-beta over simultaneous moves.

Simultaneous moves are searched the usual way for Tron: the searching side moves first
and the opponent answers knowing that move. That is pessimistic (the opponent is given
information it will not have), which is the safe side to err on. A joint move is two plies;
``depth`` below counts joint moves, and reports count plies.

What makes it deep enough in pure Python:

- iterative deepening, so the clock can stop it at any time with a complete answer from
  the last finished depth, and each depth orders its moves by the previous one;
- a transposition table kept across the moves of a game (the position two plies down is
  next turn's root), giving the best move first;
- killer moves per ply for both sides (far apart, the best answer rarely depends on
  the other side's move), then the history heuristic;
- a bit-parallel evaluation (`Kernel.voronoi`), whose cost grows with the board's
  diameter rather than its area.

With the ``fast`` extra (`native`) the evaluation and everything below the root's moves
run compiled, node for node the same search, several times faster.

The evaluation is the Voronoi territory difference: cells each cycle reaches first, plus
the moves inside each territory (``edge_weight`` per free neighbour of its cells: open
space beats a corridor of as many cells). When the board is tight it counts only the
usable part of each territory (`front_space`: what lies behind a cut cell counts once, by
the best branch, and a chamber on the battle front counts alone). When the two regions
no longer touch, the game is separated and the difference of the fillable areas decides
(`endgame.chain_bound`, the endgame's tighter chamber bound), a cell of it weighted far
above a territory's cell (1,000 against at most 13 with its four moves).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lightcycle.bots.search import native
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.chambers import fill_bound, front_space, parity_bound
from lightcycle.bots.search.endgame import chain_bound
from lightcycle.bots.search.options import SearchOptions as SearchOptions  # re-exported

WIN = 1_000_000
"""The value of a won position (minus the plies it takes, so quicker wins are better)."""

SEPARATED = 1_000
"""Weight of one cell of fillable-space advantage once the cycles are separated."""


TABLE_LIMIT = 150_000
"""Entries kept in the transposition table before it is cleared (about 40 MB on a 30x30
board: each key holds the whole board as an int; the compiled table's entries take 32
bytes each, and its slots 16-32)."""


_VALUE_BIAS = 1 << 22
"""Table entries are packed into one int (value, depth, bound flag, best move) and keyed
by one int (board, heads): a dict of ints only is invisible to the cyclic garbage
collector, so a collection during anyone's move never walks the table."""


def separated(kernel: Kernel, a: int, b: int, occ: int) -> bool:
    """Whether no free cell is reachable by both cycles on ``a`` and ``b`` any more
    (``occ``: every blocked cell, heads included).

    Heads side by side with no free cell between them are apart: a cycle cannot enter
    the other's head (it is a trail), so only a common free cell lets them meet. Taken
    as together, such a position went to the middle game's search, whose separated
    leaves are only bounded, and it chose a fill 3 cells short of the proven one (a lost
    game against the 2010 champion, tests/bots/search/vectors/duel.txt).
    """
    region = kernel.flood(1 << a, kernel.full & ~occ)
    return not (kernel.expand(region) & (1 << b))


class _Abort(Exception):
    """The clock or the node budget ran out in the middle of an iteration."""


@dataclass
class SearchResult:
    """The answer of one search.

    Attributes:
        move: the cell to move to (``None``: no legal move at all).
        value: its value from the searching side's view.
        plies: plies of the deepest completed iteration (2 per joint move).
        nodes: positions visited.
    """

    move: int | None
    value: int
    plies: int
    nodes: int


class DuelSearch:
    """Alpha-beta search of one board; keep one per game so the table carries over."""

    def __init__(
        self, kernel: Kernel, options: SearchOptions | None = None, compiled: bool = True
    ) -> None:
        """Args:
        kernel: the board's kernel.
        options: the search's knobs (default `SearchOptions()`).
        compiled: where the ``fast`` extra is installed, evaluate with the compiled
            copy of `evaluate` and search below the root with the compiled alpha-beta
            (`native`: the same values and nodes, several times faster); false keeps
            the pure-Python ones.
        """
        self.kernel = kernel
        self.options = options or SearchOptions()
        self.table: dict[int, int] = {}
        self.nodes = 0
        self._compiled = native.duel_for(kernel, self.options, SEPARATED) if compiled else None
        if self._compiled is not None:
            fast: native.Evaluate | None = self._compiled.evaluate
        else:  # the search loop could not be compiled where the evaluation could
            fast = native.evaluator(kernel, self.options, SEPARATED) if compiled else None
        if fast is not None:
            self.evaluate = fast  # type: ignore[method-assign,assignment]

    # -- evaluation --------------------------------------------------------------------
    def evaluate(self, a: int, b: int, occ: int) -> int:
        """The value of a quiet position for the cycle on ``a`` against the one on ``b``."""
        k = self.kernel
        free = k.full & ~occ
        ba, bb = 1 << a, 1 << b
        ta, tb, rest = k.voronoi(ba, bb, free)
        if free == ta | tb | rest and not (k.expand(ta | ba) & (tb | bb)):
            return SEPARATED * (self._fill(a, ta) - self._fill(b, tb))
        opts = self.options
        if opts.chambers and free.bit_count() <= opts.chamber_cells:
            if opts.front:
                room = free | ba | bb
                local = opts.front == 2
                ca, ea = front_space(k, a, ta, room, local)
                cb, eb = front_space(k, b, tb, room, local)
                return ca - cb + opts.edge_weight * (ea - eb)
            value = fill_bound(k, a, ta) - fill_bound(k, b, tb)
        else:
            value = ta.bit_count() - tb.bit_count()
        if opts.edge_weight:
            room = free | ba | bb
            value += opts.edge_weight * (k.edges(ta, room) - k.edges(tb, room))
        return value

    def _fill(self, head: int, region: int) -> int:
        opts = self.options
        if opts.chambers and region.bit_count() <= opts.fill_cells:
            return chain_bound(self.kernel, head, region)
        return parity_bound(self.kernel, head, region)

    def separated(self, a: int, b: int, occ: int) -> bool:
        """Whether no free path joins the two cycles any more."""
        return separated(self.kernel, a, b, occ)

    # -- search ------------------------------------------------------------------------
    def search(
        self,
        a: int,
        b: int,
        occ: int,
        out_of_time: Callable[[], bool] | None = None,
        node_limit: int | None = None,
        soft_stop: Callable[[int, int], bool] | None = None,
    ) -> SearchResult:
        """Choose a move for the cycle on ``a``.

        Args:
            a: the searching cycle's head.
            b: the opponent's head.
            occ: every blocked cell (walls and trails, heads included).
            out_of_time: polled at every node (every 64 nodes by the compiled search; a
                leaf that finds the cycles separated bounds both regions, milliseconds
                on a big board in pure Python); when true the current iteration is
                abandoned and the last completed one answers.
            node_limit: the node budget of the whole search (reproducible play).
            soft_stop: called with the plies just completed and the value they found;
                true means do not start another iteration (it would not finish in
                time; a value that swings between iterations may earn one more).
        """
        k = self.kernel
        nbrs = k.neighbours
        opts = self.options
        table = self.table if opts.tt else None
        if table is not None and len(table) > TABLE_LIMIT:
            table.clear()
        compiled = self._compiled
        if compiled is not None:
            if opts.tt and compiled.entries() > TABLE_LIMIT:
                compiled.clear()
            compiled.begin(occ, node_limit)
        killers_a: dict[int, int] = {}
        killers_b: dict[int, int] = {}
        use_killers = opts.killers
        hist_a = [0] * k.size
        hist_b = [0] * k.size
        evaluate = self.evaluate
        nodes = 0
        limit = node_limit if node_limit is not None else -1
        draw = opts.draw

        root_moves = [d for d in nbrs[a] if not (occ >> d) & 1]
        if not root_moves:
            return SearchResult(None, -WIN, 0, 0)
        if len(root_moves) == 1:
            return SearchResult(root_moves[0], 0, 0, 0)

        def max_node(a: int, b: int, occ: int, depth: int, alpha: int, beta: int, ply: int) -> int:
            nonlocal nodes
            nodes += 1
            if nodes == limit:
                raise _Abort
            if out_of_time is not None and out_of_time():
                raise _Abort
            am = [d for d in nbrs[a] if not (occ >> d) & 1]
            bm = [d for d in nbrs[b] if not (occ >> d) & 1]
            if not am:
                return draw if not bm else ply - WIN
            if not bm:
                return WIN - ply
            if depth == 0:
                return evaluate(a, b, occ)
            key = (occ << 32) | (a << 16) | b
            first = -1
            if table is not None:
                entry = table.get(key)
                if entry is not None:
                    first = entry & 0xFFFF
                    e_flag = ((entry >> 16) & 3) - 1
                    e_depth = (entry >> 18) & 0xFF
                    e_value = (entry >> 26) - _VALUE_BIAS
                    if e_depth >= depth:
                        if e_flag == 0:
                            return e_value
                        if e_flag > 0 and e_value >= beta:
                            return e_value
                        if e_flag < 0 and e_value <= alpha:
                            return e_value
            if len(am) > 1:
                killer = killers_a.get(ply, -1) if use_killers else -1
                am.sort(key=lambda d: (d != first, d != killer, -hist_a[d]))
            best = -WIN - 1
            best_move = am[0]
            a0 = alpha
            for ma in am:
                v = min_node(a, b, occ, ma, bm, depth, alpha, beta, ply)
                if v > best:
                    best = v
                    best_move = ma
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            if use_killers:
                                killers_a[ply] = ma
                                hist_a[ma] += depth * depth
                            break
            if table is not None:
                flag = 1 if best >= beta else (-1 if best <= a0 else 0)
                table[key] = (
                    ((best + _VALUE_BIAS) << 26)
                    | (min(depth, 255) << 18)
                    | ((flag + 1) << 16)
                    | best_move
                )
            return best

        def min_node(
            a: int,
            b: int,
            occ: int,
            ma: int,
            bm: list[int],
            depth: int,
            alpha: int,
            beta: int,
            ply: int,
        ) -> int:
            if len(bm) > 1 and use_killers:
                killer = killers_b.get(ply, -1)
                bm = sorted(bm, key=lambda d: (d != killer, -hist_b[d]))
            best = WIN + 1
            occ_a = occ | (1 << ma)
            for mb in bm:
                if mb == ma:
                    v = draw
                else:
                    v = max_node(ma, mb, occ_a | (1 << mb), depth - 1, alpha, beta, ply + 1)
                if v < best:
                    best = v
                    if v < beta:
                        beta = v
                        if beta <= alpha:
                            if use_killers:
                                killers_b[ply] = mb
                                hist_b[mb] += depth * depth
                            break
            return best

        best_move = root_moves[0]
        best_value = 0
        plies = 0
        order = list(root_moves)
        # the running iteration's best root move and value; once it is not order[0] (the
        # previous iteration's choice, searched first), it beat that choice exactly
        iter_best, alpha = order[0], best_value
        try:
            for depth in range(1, opts.max_depth + 1):
                alpha = -WIN - 1
                values: dict[int, int] = {}
                bm = [d for d in nbrs[b] if not (occ >> d) & 1]
                if not bm:
                    return SearchResult(order[0], WIN, plies, nodes)
                iter_best = order[0]
                for ma in order:
                    if compiled is None:
                        v = min_node(a, b, occ, ma, bm, depth, alpha, WIN + 1, 0)
                    else:
                        value = compiled.min_root(ma, bm, depth, alpha, WIN + 1, out_of_time)
                        nodes = compiled.nodes
                        if value is None:
                            raise _Abort
                        v = value
                    values[ma] = v
                    if v > alpha:
                        alpha = v
                        iter_best = ma
                best_move, best_value = iter_best, alpha
                plies = 2 * depth
                order.sort(key=lambda d: -values[d])
                if abs(best_value) >= WIN - 1000:
                    break
                if soft_stop is not None and soft_stop(plies, best_value):
                    break
        except _Abort:
            if opts.partial and iter_best != order[0]:
                best_move, best_value = iter_best, alpha
        finally:
            self.nodes += nodes
            # max_node and min_node call each other through their closures: a reference
            # cycle holding the table, which only the cyclic collector could free. Break it
            # so the table goes with its owner, not at a collection during someone's move.
            max_node = min_node = None  # type: ignore[assignment]
        return SearchResult(best_move, best_value, plies, nodes)

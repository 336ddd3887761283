"""The upper rungs of the duel ladder: floodfill, territory, medium and strong.

Each rung adds one idea to the one below, so a student can see what each idea is worth
(``bench/strength.py`` measures it):

- ``floodfill`` looks only at space: it keeps the room it can fill largest.
- ``territory`` also looks at the opponent: it takes the move that wins the most cells
  it reaches first (Voronoi territory), one ply deep.
- ``medium`` searches a few joint moves ahead with alpha-beta on territory.
- ``strong`` searches as deep as its clock allows (iterative deepening, transposition
  table, killer and history moves), counts only usable territory on tight boards, and
  once the cycles are separated plays the endgame with a fill solver that proves optimal
  fills.

The searching rungs play two-cycle duels under the classic rules (``classic``, ``torus``,
two-player ``ffa``) on any board. In other games (more cycles, jumps, items) ``strong``
hands over to `lightcycle.bots.multi.MultiStrong` and the others to a territory heuristic.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from lightcycle.bots import timing
from lightcycle.bots.api import Bot, MoveAnswer
from lightcycle.bots.builtin import answer_for, crash_move
from lightcycle.bots.collection import no_collection
from lightcycle.bots.multi import MultiStrong
from lightcycle.bots.search import native
from lightcycle.bots.search.bitboard import Kernel, kernel_for
from lightcycle.bots.search.chambers import fill_bound
from lightcycle.bots.search.duel import DuelSearch, SearchOptions, separated
from lightcycle.bots.search.endgame import greedy_fill, solve_fill
from lightcycle.bots.search.endgame import prepare as prepare_endgame
from lightcycle.core.moves import Move
from lightcycle.rules.observe import View

DEFAULT_MOVE_TIME = 0.1
"""Seconds per move a searching bot assumes when the referee gives no limit."""

MOVES_KEPT = 1000
"""Per-move figures (time, plies) a searching bot keeps for its report: a duel on the
largest boards is a few hundred moves; past this, only the means go on."""


class DuelPosition:
    """The two heads and the blocked cells of a duel, in the kernel's terms."""

    def __init__(self, view: View) -> None:
        self.kernel: Kernel = kernel_for(view.topology)
        self.me = view.me.head
        self.other = view.opponents[0].head
        self.occ = view.state.occupied

    @property
    def free(self) -> int:
        """Cells no cycle has entered."""
        return self.kernel.full & ~self.occ

    def moves(self, head: int) -> list[int]:
        """Free cells next to ``head``."""
        occ = self.occ
        return [d for d in self.kernel.neighbours[head] if not (occ >> d) & 1]


def is_duel(view: View) -> bool:
    """Whether the game is one cycle against one under the classic rules."""
    state = view.state
    rules = state.ruleset
    if not getattr(rules, "plain", False):
        return False
    alive = [c for c in state.cycles if c.alive]
    return len(alive) == 2 and len(view.my_cycles) == 1 and view.me.alive


class FloodFill(Bot):
    """Greedy flood fill: keep the most room it can count on, hug what is already there.

    For each free move it counts the moves it could make afterwards (the chamber-tree
    bound of its reachable region, so a pocket behind a narrow cut counts only once), but
    only through cells the opponent cannot enter next turn: room the opponent can cut off
    at once is not counted on. A cell the opponent could also enter this turn counts as no
    room at all. Ties go to the full room, then to the cell next to the most walls and
    trails, so it fills tightly instead of cutting its space in two.

    Before that it drops the moves that would let an opponent cut it off: counting only
    the cells it would reach before the opponent (the same bound over that part of its
    region), a move must keep at least 72% (`cutoff`) of the best move's room.
    It never counts the opponent's room: it does not try to cut the opponent off.
    """

    name = "FloodFill"
    reproducible = True
    cutoff = 0.72
    """Share of the best move's room reached first that a move must keep."""

    def move(self, view: View) -> MoveAnswer:
        if len(view.my_cycles) != 1:
            return _territory_fallback(view)
        k = kernel_for(view.topology)
        me = view.me.head
        occ = view.state.occupied
        moves = [d for d in k.neighbours[me] if not (occ >> d) & 1]
        if not moves:
            return crash_move(view)
        free = k.full & ~occ
        reach = 0
        for c in view.opponents:
            for d in k.neighbours[c.head]:
                reach |= 1 << d
        reach &= free

        def key(d: int) -> tuple[int, int, int]:
            rest = free & ~(1 << d)
            room = fill_bound(k, d, k.flood(1 << d, rest))
            sure = 0
            if not (reach >> d) & 1:
                sure = fill_bound(k, d, k.flood(1 << d, rest & ~reach))
            hug = sum(1 for e in k.neighbours[d] if not (rest >> e) & 1)
            return (sure, room, hug)

        def first(d: int) -> int:
            if (reach >> d) & 1:
                return 0
            rest = free & ~(1 << d)
            mine, _, _ = k.voronoi(1 << d, reach, rest & ~reach)
            return fill_bound(k, d, k.flood(1 << d, mine & rest))

        if len(moves) > 1:
            ahead = {d: first(d) for d in moves}
            top = max(ahead.values())
            moves = [d for d in moves if ahead[d] >= self.cutoff * top]
        return answer_for(view, max(moves, key=key))


class Territory(Bot):
    """One-ply territory: take the move that leaves it the most cells it reaches first.

    For each free move it counts the Voronoi territory (cells it reaches strictly before
    the opponent, the opponent standing where it is) and takes the move with the largest
    lead; a cell the opponent could also enter this turn is avoided unless it is clearly
    best. Once the two are separated it fills its region greedily, hugging walls.
    """

    name = "Territory"
    reproducible = True

    def move(self, view: View) -> MoveAnswer:
        if not is_duel(view):
            return _territory_fallback(view)
        pos = DuelPosition(view)
        k = pos.kernel
        moves = pos.moves(pos.me)
        if not moves:
            return crash_move(view)
        free = pos.free
        if separated(k, pos.me, pos.other, pos.occ):
            path = greedy_fill(k, pos.me, free)
            return answer_for(view, path[0] if path else moves[0])
        danger = 0
        for d in k.neighbours[pos.other]:
            danger |= 1 << d

        def key(d: int) -> tuple[int, int]:
            ta, tb, _ = k.voronoi(1 << d, 1 << pos.other, free & ~(1 << d))
            lead = ta.bit_count() - tb.bit_count()
            return (lead - (8 if (danger >> d) & 1 else 0), -d)

        return answer_for(view, max(moves, key=key))


TIMINGS = ("plan", "legacy")
"""How a searching bot spends its clock: ``plan`` (`lightcycle.bots.timing`) or
``legacy`` (the budget before it: 60% of the limit, the next iteration taken to cost
3.2 times the time so far), kept to measure the one against the other."""

HEAD_LOOK = 6
"""Steps a searching bot looks for the opponent's head when judging how critical a move
is (`timing.criticality` counts gaps up to 6)."""


class _Searcher(Bot):
    """Shared plumbing of the searching rungs: clock, search, endgame, depth report."""

    options = SearchOptions()
    solver = True
    pure_chambers = False
    """Whether the pure-Python search (no ``fast`` extra) counts chambers when it plays
    on the clock. It does not: in pure Python the count costs up to 200 microseconds a
    leaf on a tight board. Against the 2010 champion at 100 ms a move (200 games on
    held-out maps, docs/benchmarks.md) pure Python with the count searched 7 plies a move
    and scored 34.8%; without it, 15.5 plies and 47.8% (+94 Elo). The compiled search
    keeps it (19 plies with it); so does a node budget (``nodes=N``: the same moves with
    or without the extra)."""
    start_share = timing.START
    """Below this share of the move's target another iteration always starts
    (`timing.start_next`)."""
    fraction = 0.6
    growth = 3.2
    """The legacy clock: the share of the limit searched, and how many times the time so
    far the next iteration is taken to cost."""

    def __init__(
        self,
        nodes: int | None = None,
        depth: int | None = None,
        move_time: float | None = None,
        timing: str = "plan",
    ) -> None:
        for name, value in (("nodes", nodes), ("depth", depth), ("move_time", move_time)):
            if value is not None and not value > 0:
                # A budget of 0 or less would never be reached: a search without end.
                raise ValueError(f"{name} must be above 0, got {value}")
        if timing not in TIMINGS:
            raise ValueError(f"timing must be {' or '.join(TIMINGS)}, got {timing!r}")
        self.timing = timing
        # Load (or compile) the optional compiled evaluation now, before any game's
        # clock starts: numba's first import takes about a second.
        native.available()
        self.node_limit = nodes
        self.depth_limit = depth
        self.move_time = move_time
        # A node budget replaces the clock everywhere (search and endgame solver): the
        # moves are then fixed by the position. A depth cap alone is not enough, the
        # endgame solver still stops on the clock.
        self.reproducible = nodes is not None
        self._search: DuelSearch | None = None
        self._plan: list[int] = []
        self._plan_proven = False
        self.depths: list[int] = []
        self.nodes_total = 0
        self.move_ms: list[float] = []
        self.move_plies: list[int] = []
        self._plies = 0

    def report(self) -> dict[str, Any]:
        """Mean plies of completed search per searched move (``depth``), and per duel
        move its own time (``move_ms``, milliseconds from the call to the answer) and
        plies searched (``move_plies``: 0 for a forced move or the endgame), for the
        replay; ``think_ms`` is their mean."""
        out: dict[str, Any] = {}
        if self.depths:
            out["depth"] = sum(self.depths) / len(self.depths)
            out["searches"] = len(self.depths)
        if self.move_ms:
            out["think_ms"] = sum(self.move_ms) / len(self.move_ms)
            out["move_ms"] = list(self.move_ms)
            out["move_plies"] = list(self.move_plies)
        return out

    def _clock(
        self, view: View, start: float, pos: DuelPosition, endgame: bool = False
    ) -> tuple[Callable[[], bool] | None, Callable[[int, int], bool] | None]:
        """Stop functions for this move: a hard deadline and a 'do not start another
        iteration' test. With a node budget there is no clock (reproducible play).

        ``start`` is when `move` was called: the set-up before the search (reading the
        position, building tables on a new board) is on the referee's clock too.
        The budget is `timing.plan`'s: an iteration starts only if the next one, its
        cost predicted from the last two (`timing.next_cost`), ends by the target; the
        target and the stop grow on a critical move, and when the value swings between
        iterations. The endgame's fill solver (``endgame``: the cycles
        are separated) stops at the target: it has no iterations to predict, and the
        moves are many, so a longer one would meet the machine's stalls more often.
        """
        if self.node_limit is not None:
            return None, None
        if self.timing == "legacy":
            return self._legacy_clock(view, start)
        limit = self.move_time or view.time_limit
        clock = None if self.move_time else view.clock
        k = pos.kernel
        free = pos.free
        reach, _ = k.flood_upto(1 << pos.me, free, 2 * timing.HORIZON_MAX)
        left = timing.moves_left(reach.bit_count())
        gap = _head_gap(k, pos.me, pos.other, free)
        safe = len(pos.moves(pos.me))
        crit = timing.criticality(safe, gap)
        budget = timing.plan(limit, clock, view.turn, left, crit)
        hard = start + (budget.target if endgame else budget.hard)
        target = start + budget.target
        last_end = start
        costs: list[float] = []
        values: list[int] = []
        now = time.perf_counter

        def out_of_time() -> bool:
            return now() > hard

        def soft_stop(plies: int, value: int) -> bool:
            nonlocal last_end, target, hard
            t = now()
            costs.append(t - last_end)
            last_end = t
            values.append(value)
            if len(values) > 1:
                swing = abs(values[-1] - values[-2])
                more = timing.criticality(safe, gap, swing)
                if more > crit and not endgame:
                    again = timing.plan(limit, clock, view.turn, left, more)
                    target, hard = start + again.target, start + again.hard
            cost = timing.next_cost(costs[-1], costs[-2] if len(costs) > 1 else None)
            aim = min(target, hard) - start
            return not timing.start_next(t - start, cost, aim, self.start_share)

        return out_of_time, soft_stop

    def _legacy_clock(
        self, view: View, start: float
    ) -> tuple[Callable[[], bool], Callable[[int, int], bool]]:
        """The clock before `timing.plan` (``timing=legacy``), for measuring against."""
        limit = self.move_time or view.time_limit or DEFAULT_MOVE_TIME
        first = view.turn == 0
        budget = limit * (0.5 if first else self.fraction)
        hard = start + max(0.005, min(budget, limit - 0.02))

        def out_of_time() -> bool:
            return time.perf_counter() > hard

        growth = self.growth

        def soft_stop(plies: int, value: int) -> bool:
            return (time.perf_counter() - start) * growth > hard - start

        return out_of_time, soft_stop

    def move(self, view: View) -> MoveAnswer:
        # No cyclic garbage collection during a move: the search and the solver free what
        # they make by reference counting, and a full collection walks every tracked
        # object of the process (in a tournament worker: every game's leftovers), which
        # is not the move's to pay for. The allocations made meanwhile are counted all
        # the same, so a collection due comes right after the move, off the clock.
        start = time.perf_counter()
        with no_collection():
            if not is_duel(view):
                return self.fallback(view)
            self._plies = 0
            answer = self._duel_move(view, start)
            if len(self.move_ms) < MOVES_KEPT:
                self.move_ms.append(round(1000 * (time.perf_counter() - start), 1))
                self.move_plies.append(self._plies)
            return answer

    def start(self, game: View) -> None:
        """Build the board's search and endgame tables now, off every clock.

        On a big board they take longer than a move may (arena-50: about 90 ms for the
        endgame's), and made at the first move that needs them they were on its clock.
        """
        if is_duel(game):
            kernel = DuelPosition(game).kernel
            self._search_for(kernel)
            if self.solver:
                prepare_endgame(kernel)

    def _search_for(self, k: Kernel) -> DuelSearch:
        """The game's search on board ``k`` (made on the first call for a board)."""
        if self._search is None or self._search.kernel is not k:
            opts = self.options
            if self.depth_limit is not None:
                opts = replace(opts, max_depth=self.depth_limit)
            if self.node_limit is None and not self.pure_chambers and not native.available():
                opts = replace(opts, chambers=False)
            self._search = DuelSearch(k, opts)
        return self._search

    def _duel_move(self, view: View, start: float) -> MoveAnswer:
        pos = DuelPosition(view)
        k = pos.kernel
        moves = pos.moves(pos.me)
        if not moves:
            return crash_move(view)
        search = self._search_for(k)
        apart = search.separated(pos.me, pos.other, pos.occ)
        out_of_time, soft_stop = self._clock(view, start, pos, apart)
        if apart:
            return answer_for(view, self._endgame(pos, out_of_time))
        self._plan = []
        result = search.search(
            pos.me,
            pos.other,
            pos.occ,
            out_of_time=out_of_time,
            node_limit=self.node_limit,
            soft_stop=soft_stop,
        )
        if len(moves) > 1:
            self.depths.append(result.plies)
        self._plies = result.plies
        self.nodes_total += result.nodes
        return answer_for(view, result.move if result.move is not None else moves[0])

    def _endgame(self, pos: DuelPosition, out_of_time: Callable[[], bool] | None) -> int:
        k = pos.kernel
        free = pos.free
        plan = self._plan
        if plan and plan[0] in k.neighbours[pos.me] and (free >> plan[0]) & 1:
            if self._plan_proven:
                return self._next(plan)
        else:
            plan = []
        if not self.solver:
            path = greedy_fill(k, pos.me, free)
            return path[0] if path else pos.moves(pos.me)[0]
        budget = None if self.node_limit is None else max(1000, self.node_limit)
        fill = solve_fill(
            k, pos.me, free, node_limit=budget, out_of_time=out_of_time, incumbent=plan
        )
        self._plan = fill.path
        self._plan_proven = fill.proven
        if not fill.path:
            return pos.moves(pos.me)[0]
        return self._next(self._plan)

    def _next(self, plan: list[int]) -> int:
        step = plan[0]
        self._plan = plan[1:]
        return step

    def fallback(self, view: View) -> MoveAnswer:
        """The move in games that are not a two-cycle classic duel."""
        return _territory_fallback(view)


class Medium(_Searcher):
    """A medium search bot: alpha-beta on plain Voronoi territory, three joint moves deep.

    It searches at most 6 plies (3 joint moves: its move, the opponent's reply, three
    times; strong goes on as deep as its clock allows, about 12 plies) with no
    transposition table, no killer or history moves and no chamber analysis: it counts
    whole territories, cell by cell, where strong counts only their usable part and
    how open it is. It stops early if its clock runs short. It values a head-on crash
    (a draw) at 20 cells behind (contempt, ``draw=-20``): against the rungs below it a
    draw is a lost half point, so it steps into a cell the opponent can also take only
    when every other move looks worse.
    Once separated it plays the same fill solver as strong, which stops on the clock.
    So its moves depend on the machine's speed and load; ``builtin:medium:nodes=N``
    replaces the clock by a node budget (search and endgame), as for strong, and makes
    its play reproducible.
    """

    name = "Medium"
    options = SearchOptions(
        tt=False,
        killers=False,
        chambers=False,
        max_depth=3,
        draw=-20,
        edge_weight=0,
        partial=False,
    )
    solver = True


class Strong(_Searcher):
    """The top of the ladder.

    In a duel it searches simultaneous moves with iterative deepening alpha-beta (the
    opponent answering each of its moves), a transposition table kept across the game,
    killer and history move ordering, and an evaluation on Voronoi territory that counts
    how open each territory is (its inner moves, three times a cell's worth) and, at
    500 free cells or fewer, only the usable part of it: the 2010 champion's
    front-aware chamber count (a chamber on the battle front counts alone).
    Once the cycles are separated it switches to the endgame: a fill solver bounded by
    reachable area, checkerboard parity and the chamber tree, which proves optimal fills
    on small regions and never fills worse than a greedy wall-hugger.

    Its clock is `lightcycle.bots.timing`'s: from the time control (`View.clock`: the
    per-move limit, a bank, an average limit, a CPU budget) a target and a hard stop
    for the move: the target at 80% of the per-move limit less a measured safety
    margin, where a quiet move also stops; a critical move (two safe moves, heads
    close, the value swinging between iterations) aims and stops up to the limit less
    the margin. It starts no iteration it expects to end past the target (the cost
    predicted from the last two iterations' ratio). An iteration the stop cuts short
    still counts: a root move it has proven better than the last finished
    iteration's choice is played. ``timing=legacy`` restores the earlier clock (60% of
    the limit, the next iteration taken to cost 3.2 times the time so far), for
    measuring. Its report gives per move its time and plies (``move_ms``,
    ``move_plies``), which the referee stores in the replay.

    ``builtin:strong:nodes=N`` replaces the clock by a node budget, making its duel
    play reproducible (`Bot.reproducible`: the referee times it but does not forfeit
    it for time); ``depth=D`` caps the search at D joint moves (the endgame still stops
    on the clock); ``contempt=C`` values a head-on draw C below an even position
    (default 0), which pays against weaker bots.

    In other games (ffa with more players, teams, tron3d) it plays
    `lightcycle.bots.multi.MultiStrong`.
    """

    name = "Strong"
    # Under the legacy clock, starting iterations until 1/1.5 of the budget (cut-short
    # ones count, SearchOptions.partial) searched a ply deeper and scored +19 Elo (95% CI
    # -13..+52) head to head, but a longer move is likelier to meet one of this VM's
    # 50-120 ms stalls: 13-19 time-outs in 200 games against medium, not 1-5. The plan
    # clock starts none it expects to end past its target.

    def __init__(
        self,
        nodes: int | None = None,
        depth: int | None = None,
        move_time: float | None = None,
        contempt: int = 0,
        timing: str = "plan",
    ) -> None:
        super().__init__(nodes=nodes, depth=depth, move_time=move_time, timing=timing)
        if contempt < 0:
            raise ValueError(f"contempt must be 0 or more, got {contempt}")
        if contempt:
            # A draw valued ``contempt`` below an even position (a cell of open territory
            # is worth about 10). Off by default: against territory, contempt=30 scored
            # 85.8% instead of 81.2% (16 of 49 draws became wins), but against the 2010
            # champion 35.0% instead of 40.0% (40 games), and on the 2010 contest's maps
            # 55.5% against 54.8% (200 games, wins on some maps for a lost fill on
            # another): against a stronger bot a draw is worth keeping. For hosts whose
            # strong plays weaker bots.
            self.options = replace(self.options, draw=-contempt)
        self._multi: Bot | None = None

    def fallback(self, view: View) -> MoveAnswer:
        if self._multi is None:
            self._multi = _multi_bot()
        # MultiStrong stops on its CPU clock, node budget or not.
        self.reproducible = False
        return self._multi.move(view)

    def start(self, game: View) -> None:
        if not is_duel(game):
            self._multi = _multi_bot()
            self._multi.start(game)
            self.reproducible = False
            return
        super().start(game)


def _head_gap(k: Kernel, me: int, other: int, free: int) -> int | None:
    """Steps from ``me`` to the opponent's head through free cells, up to `HEAD_LOOK`
    (``None``: farther, or no path)."""
    target = 1 << other
    room = free | target
    seen = 1 << me
    frontier = seen
    for step in range(1, HEAD_LOOK + 1):
        frontier = k.expand(frontier) & room & ~seen
        if frontier & target:
            return step
        if not frontier:
            return None
        seen |= frontier
    return None


def _multi_bot() -> Bot:
    return MultiStrong()


def _territory_fallback(view: View) -> MoveAnswer:
    """For games beyond the duel: each moving cycle takes the free move with the most
    Voronoi territory for its team (team-mates' claims this turn count as taken)."""
    k = kernel_for(view.topology)
    state = view.state
    blocked = state.occupied
    answers: dict[int, Any] = {}
    mine = view.moving_cycles
    enemies = [c.head for c in view.opponents]
    for c in mine:
        moves = [d for d in k.neighbours[c.head] if not (blocked >> d) & 1]
        if not moves:
            answers[c.index] = Move(c.index, k.neighbours[c.head][0])
            continue
        free = k.full & ~blocked
        best = moves[0]
        if len(moves) > 1:
            foe = 0
            for h in enemies:
                foe |= 1 << h

            def key(d: int, foe: int = foe, free: int = free) -> int:
                terr = k.voronoi_many([1 << d, foe], free & ~(1 << d))
                return terr[0].bit_count() - terr[1].bit_count()

            best = max(moves, key=key)
        blocked |= 1 << best
        answers[c.index] = Move(c.index, best)
    if len(view.my_cycles) == 1 and mine:
        return answer_for(view, answers[mine[0].index].to)
    return answers


LADDER_TOP: dict[str, type[Bot]] = {
    "floodfill": FloodFill,
    "territory": Territory,
    "medium": Medium,
    "strong": Strong,
}
"""The upper rungs by registry name, weakest first."""

"""`MultiStrong`: the strong bot of every game that is not the two-cycle duel.

It plays ``ffa`` (3 to 8 players, one cycle each), ``teams`` (two teams of ten cycles with
one jump each, moves executed one by one) and ``tron3d`` (graph boards, two cycles per
player, turbo rounds and items), reading what it needs from the ruleset's stages and
settings rather than from its name.

Every turn it decides its moving cycles one after the other, most constrained first, and
lists them in that order (the execution order of the sequential rules). For each
candidate move of a cycle it estimates how many moves the cycle will still make:

- its *territory*: the free cells it reaches strictly before every other cycle (a
  bit-parallel Voronoi partition, stopped as soon as the cycle can claim no more),
  team-mates already decided counted where they go. Where a contest for a cell is lost
  for sure (``ffa``: both die; ``teams``: the team with more CPU time loses) enemies
  count as already standing on every free cell next to their heads, since simultaneous
  moves give them that choice; where it is a coin toss (``tron3d``), on their heads.
  Only the usable part of a territory counts (`fill_bound`: of the dead ends behind a
  cut cell a cycle fills only one; the checkerboard bound where that costs too much);
- its *room*: the free cells it can reach without passing a cell an enemy head may take
  this turn. A little of it is added, which decides in a crowd where every territory
  is empty but a cycle stepping into a dead end still dies first;
- on small boards, one turn deeper: its best next move after the worst reply of the
  nearest enemy head (mixed half and half with the above).

Once a cycle's region touches no other head it is *separated*: the region counts by its
`fill_bound`, and a small one is filled along the longest path `solve_fill` finds
(node-limited, so deterministic). Team-mates look after each other: a move that walls a
nearby team-mate into a pocket loses what that team-mate loses.

A move into a cell an enemy head may also enter keeps only the value it has if the
contest is won, weighted by the chance the enemy picks that cell (one of its free cells,
at random as far as this bot knows). In ``teams`` the bot reads the teams' CPU totals:
while its own stays clearly below the enemy's it moves first and wins contests, so it
no longer fears them. Jumps (``teams``) escape a pocket when the room they reach is much
larger. Items (``tron3d``) are walked to when no enemy head is nearer; a free bonus cell
is not stepped on before the items appear (that would spoil it); turbo is used as soon
as the cycle has room to spare, and ghost carries a trapped cycle through trails into
open space. With a round limit a cycle needs no more room than the moves left, so room
beyond that counts for little and items decide between otherwise equal moves.

Everything is deterministic for a game seed and seat: ties are broken by a generator
seeded like the reference bots', and the work per turn is bounded by node limits, not by
the clock. The clock (this thread's CPU time, which other processes do not inflate) is
only a safety net: past the hard stop of `lightcycle.bots.timing.plan` (from
``view.time_limit`` and the time control in ``view.clock``: a whole-game CPU budget is
shared out over the moves left, its free cells per live cycle) the remaining cycles take
a cheap one-step choice.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from lightcycle.bots import timing
from lightcycle.bots.api import Bot, MoveAnswer
from lightcycle.bots.multi_turn import Turn, moves_left, territory
from lightcycle.bots.search import native
from lightcycle.bots.search.chambers import fill_bound, parity_bound
from lightcycle.bots.search.endgame import solve_fill
from lightcycle.core.moves import Move
from lightcycle.core.state import Cycle
from lightcycle.core.topology import OFF
from lightcycle.rules.observe import View

DEFAULT_TIME = 0.1
"""Seconds assumed for a move when the view does not say (``view.time_limit`` is None)."""

SAFETY = 0.6
"""Fraction of the move's time after which the remaining cycles take the cheap choice,
where the referee says nothing of its time control (`View.clock` is ``None``)."""

HUG = 0.05
"""Value lost per free neighbour of the destination: between moves of equal room, hug
walls and trails, which leaves no holes behind."""

ROOM_WEIGHT = 0.1
"""Value of each reachable free cell, up to `ROOM_CAP`, on top of the territory."""

ROOM_CAP = 100
"""Reachable cells beyond this many add nothing more."""

REGION_CAP = 400
"""Regions are flooded up to this many cells: a larger one is taken as shared (its
territory decides) rather than measured; a separated one up to this size counts by its
`fill_bound`, whatever the number of cycles to move (few are ever separated at once)."""

ENDGAME_CELLS = 120
"""A separated region of at most this many cells is filled by the longest-path search; in
a larger one each step is chosen by its `fill_bound`, hugging walls between equals."""

FILL_NODES = 200
"""Node limit of the longest-path searches of one turn, shared by the cycles to move
(deterministic effort)."""

POCKET = 30
"""A cycle whose best step leaves it less room than this considers a ghost, and a
team-mate walled into less room than this is being hurt."""

ESCAPE_CELLS = 400
"""A cycle with a jump left whose region has fewer free cells than this looks for a jump
over the wall into a region at least twice as large."""

REPLY_RADIUS = 3
"""Enemy heads farther than this from a move's cell cannot cut it off next turn."""

REPLY_WEIGHT = 0.5
"""Weight of the lookahead's value against the one-step value."""

DEAD = -1.0e9
"""The value of a move that crashes at once."""


@dataclass
class _Plan:
    """A separated cycle's fill: the cells to enter, whether proven longest, and the
    region it leaves after its first step (the plan stays valid while that is unchanged)."""

    path: list[int]
    proven: bool
    region: int


@dataclass
class _Cycle:
    """One cycle's decision context: who else is where, and which team-mates to mind.

    Attributes:
        cycle: the cycle deciding.
        blocked: walls, trails and the cells team-mates claimed this turn.
        others: the cells of every other live cycle (team-mates decided: where they go).
        sources: the Voronoi rivals: ``others`` and, where contests are lost for sure,
            every free cell next to an enemy head.
        mates: nearby team-mates as (cell, room now), whose room a move must not take.
        danger: free cells an enemy head may enter this turn.
    """

    cycle: Cycle
    blocked: int
    others: int
    sources: int
    mates: list[tuple[int, int]]
    danger: int


class MultiStrong(Bot):
    """The strong bot for ``ffa``, ``teams`` and ``tron3d`` (see the module docstring).

    Per turn it decides the moving cycles most constrained first (fewest free
    neighbours), so a cycle with one way out gets it before a team-mate with many
    takes it, and lists them in that order, which is also the order the sequential
    rules execute them in. Each cycle takes the move of greatest estimated room, with
    collisions it could lose discounted; a separated cycle follows its longest fill.
    """

    name = "Strong"

    def __init__(self) -> None:
        # Load (or compile) the endgame's optional compiled bounds now, before any
        # game's clock starts (numba's first import takes about a second).
        native.available()
        self._rng = random.Random(0)
        self._plans: dict[int, _Plan] = {}
        self._times: list[float] = []
        self._turn_cost = 0.0

    def start(self, game: View) -> None:
        """Seed the tie-breaks from the game seed and the seat, like the reference bots."""
        self._rng = random.Random(f"strong:{game.state.seed}:{game.seat}")
        self._plans = {}
        self._times = []
        self._turn_cost = 0.0

    def report(self) -> dict[str, float]:
        """Mean milliseconds of CPU time per move in the game just played."""
        if not self._times:
            return {}
        return {"move_ms": 1000.0 * sum(self._times) / len(self._times)}

    def move(self, view: View) -> MoveAnswer:
        """Answer a `Move` per moving cycle, keyed by cycle index in execution order."""
        started = time.thread_time()
        limit = view.time_limit if view.time_limit else DEFAULT_TIME
        state = view.state
        if view.clock is None:
            deadline = started + SAFETY * limit
        else:
            left = moves_left(view)
            deadline = started + timing.plan(limit, view.clock, view.turn, left).hard
        cpu = view.cpu
        mine = cpu[view.seat] if view.seat < len(cpu) else 0
        theirs = min((t for i, t in enumerate(cpu) if i != view.seat), default=0)
        # teams: the team with less CPU time so far, this turn's included, moves first and
        # wins contests; count on that only with a margin of three of its own turns
        contest_win = mine + 3_000_000 * self._turn_cost < theirs
        turn = Turn(view, contest_win)
        occ = state.occupied
        movers = sorted(view.moving_cycles, key=lambda c: (turn.front(c.head).bit_count(), c.index))
        positions = {c.index: c.head for c in state.cycles if c.alive}
        mates = {c.index for c in view.my_cycles if c.alive}
        claimed = 0
        answer: dict[int, Move] = {}
        for c in movers:
            blocked = occ | claimed
            if time.thread_time() > deadline:
                m = self._cheap(turn, c, blocked)
            else:
                ctx = self._context(turn, c, blocked, positions, mates)
                m = self._choose(turn, ctx)
            answer[c.index] = m
            if m.to != OFF:
                claimed |= 1 << m.to
                positions[c.index] = m.to
        spent = time.thread_time() - started
        self._times.append(spent)
        self._turn_cost = spent
        return answer

    # -- one cycle -------------------------------------------------------------------------
    def _context(
        self,
        t: Turn,
        c: Cycle,
        blocked: int,
        positions: dict[int, int],
        mates: set[int],
    ) -> _Cycle:
        """Gather who is where for cycle ``c``'s decision."""
        kernel = t.kernel
        others = 0
        for i, p in positions.items():
            if i != c.index:
                others |= 1 << p
        sources = others | (t.danger if t.paranoid else 0)
        near = 1 << c.head
        for _ in range(3):
            near |= kernel.expand(near)
        free = kernel.full & ~blocked
        close: list[tuple[int, int]] = []
        for i in mates:
            p = positions[i]
            if i != c.index and (near >> p) & 1:
                room = kernel.flood_upto(1 << p, free & ~t.danger, POCKET)[0].bit_count()
                close.append((p, room))
        return _Cycle(c, blocked, others, sources, close, t.danger)

    def _choose(self, t: Turn, x: _Cycle) -> Move:
        """The move of one cycle (see the class docstring)."""
        c = x.cycle
        kernel = t.kernel
        if c.ghost > 0:
            return self._ghost_move(t, x, c.ghost, use=False)
        free_now = kernel.full & ~x.blocked
        region = kernel.flood(1 << c.head, free_now)
        size = region.bit_count()
        if t.can_jump and c.jumps_left > 0 and size < ESCAPE_CELLS:
            jump = self._jump(t, x, size)
            if jump is not None:
                return jump
        separated = not (kernel.expand(region) & x.others) and not (region & t.item_mask)
        if separated and region:
            m = self._fill_move(t, c, region)
            if m is not None:
                return m
        cache: dict[int, tuple[float, int]] = {}

        def assess(d: int) -> tuple[float, int]:
            got = cache.get(d)
            if got is None:
                got = cache[d] = self._assess(t, x, d)
            return got

        best: tuple[float, float] | None = None
        choice: Move | None = None
        best_room = -1
        for d in self._steps(t, c):
            if d == OFF or (x.blocked >> d) & 1:
                continue
            v, room = assess(d)
            if t.lookahead:
                v = self._reply(t, x, d, v)
            if (t.danger >> d) & 1:
                v = t.contested(v, d)
            key = (v, self._rng.random())
            if best is None or key > best:
                best, choice = key, Move(c.index, d)
            best_room = max(best_room, room)
        need = POCKET if t.remaining is None else min(POCKET, t.remaining)
        if c.item == "ghost" and best_room < need:
            g = self._ghost_move(t, x, t.ghost_duration, use=True)
            if g.use_item:
                return g
        if choice is None:
            return self._doomed(t, c, x.others)
        if c.item == "turbo" and c.turbo == 0 and best_room >= min(need, 8):
            return choice._replace(use_item=True)
        return choice

    def _steps(self, t: Turn, c: Cycle) -> list[int]:
        """The cells one step from ``c`` (``OFF`` included on a walled grid)."""
        if t.grid is not None:
            base = c.head * 4
            return list(dict.fromkeys(t.grid.step_table[base : base + 4]))
        return list(t.nbrs[c.head])

    def _assess(self, t: Turn, x: _Cycle, d: int) -> tuple[float, int]:
        """Estimate the moves cycle ``x`` still makes after moving to free cell ``d``.

        Alone in its region, the region's `fill_bound`; sharing it, its usable territory
        (`_territory`, `_usable`). Plus a little for room, capped by the moves left
        before a round limit; minus what nearby team-mates would lose of their room;
        plus the pull of items; minus a little for spoiling a bonus cell.

        Args:
            t: the turn.
            x: the cycle's decision context.
            d: the cell it would move to (free).

        Returns:
            The value, and the room at ``d``: free cells reachable without passing a cell
            an enemy head may take this turn (counted up to `ROOM_CAP`).
        """
        kernel = t.kernel
        c = x.cycle
        bit = 1 << d
        free = kernel.full & ~x.blocked & ~bit
        region, whole = kernel.flood_upto(bit, free, REGION_CAP)
        # room that no enemy can take this turn: a way out through a cell an enemy head
        # may enter now is no way out
        safe = free & ~x.danger
        if whole and not region & x.danger:
            room = region.bit_count()
        else:
            room = kernel.flood_upto(bit, safe, ROOM_CAP)[0].bit_count()
        hug = HUG * sum(1 for e in t.nbrs[d] if (free >> e) & 1)
        if not region:
            v = 0.0
        elif whole and not (kernel.expand(region | bit) & x.others):
            # alone in a region: how well it can be filled is all that matters
            v = float(fill_bound(kernel, d, region)) - 2 * hug
        else:
            rivals = x.sources & ~bit
            mine = territory(kernel, bit, rivals, free & ~rivals)
            n = mine.bit_count()
            v = self._usable(t, d, mine, n) - hug
        v = t.cap(v + ROOM_WEIGHT * min(room, ROOM_CAP), c.turbo)
        if x.mates:
            near = kernel.expand(bit)
            near |= kernel.expand(near)
        for p, before in x.mates:
            if not (near >> p) & 1:
                continue  # too far for one cell to wall it in
            after = kernel.flood_upto(1 << p, safe, POCKET)[0].bit_count()
            if after < before and after < POCKET:
                v -= min(before, POCKET) - after
        if t.items:
            v += self._item_pull(t, d, free)
        if (t.reserved >> d) & 1:
            v -= 3.0
        return v, room

    def _reply(self, t: Turn, x: _Cycle, d: int, value: float) -> float:
        """Judge the move to ``d`` one turn deeper against the nearest enemy head.

        The enemy head nearest ``d`` (within `REPLY_RADIUS` steps) moves to each of its
        free cells in turn; for each, this cycle's best next move from ``d`` is assessed
        with that enemy there; the enemy is assumed to pick the worst for this cycle
        (paranoid). The result is mixed with the one-step ``value``.
        """
        kernel = t.kernel
        ball = 1 << d
        target: tuple[int, int] | None = None
        for _ in range(REPLY_RADIUS):
            ball |= kernel.expand(ball)
            for head, front in t.enemy_fronts:
                if (ball >> head) & 1:
                    target = (head, front)
                    break
            if target is not None:
                break
        if target is None:
            return value
        head, front = target
        blocked = x.blocked | 1 << d
        others_danger = 0
        for h, f in t.enemy_fronts:
            if h != head:
                others_danger |= f
        worst: float | None = None
        for f in kernel.cells(front & ~blocked):
            blocked2 = blocked | 1 << f
            danger2 = (others_danger | kernel.expand(1 << f)) & ~blocked2
            others2 = (x.others & ~(1 << head)) | 1 << f
            sources2 = others2 | (danger2 if t.paranoid else 0)
            x2 = _Cycle(x.cycle, blocked2, others2, sources2, [], danger2)
            best = -10.0
            for n in t.nbrs[d]:
                if (blocked2 >> n) & 1:
                    continue
                v, _ = self._assess(t, x2, n)
                if (danger2 >> n) & 1:
                    v = v * (1.0 - 0.5 * t.lose) - 1.0
                if v > best:
                    best = v
            if worst is None or best < worst:
                worst = best
        if worst is None:
            return value
        return (1.0 - REPLY_WEIGHT) * value + REPLY_WEIGHT * worst

    def _usable(self, t: Turn, d: int, cells: int, n: int) -> float:
        """How many of the ``n`` cells of ``cells`` a cycle on ``d`` can really fill: the
        chamber-tree bound where the set is small enough to afford it, else the
        checkerboard bound."""
        if n <= t.tight:
            return float(fill_bound(t.kernel, d, cells))
        return float(parity_bound(t.kernel, d, cells))

    def _item_pull(self, t: Turn, d: int, free: int) -> float:
        """Worth of the items near ``d`` that no enemy reaches first, discounted by
        distance, so that cycles walk to them."""
        pull = 0.0
        kind = t.items.get(d)
        if kind is not None:
            pull += t.item_worth.get(kind, 0.0)
        want = t.item_mask & ~(1 << d)
        if not want:
            return pull
        expand = t.kernel.expand
        mine = 1 << d
        theirs = t.enemy_heads
        avail = free
        enemy_avail = free
        seen_enemy = 0
        for k in range(1, 16):
            mine = expand(mine) & avail
            avail &= ~mine
            theirs = expand(theirs) & enemy_avail
            enemy_avail &= ~theirs
            seen_enemy |= theirs
            got = mine & want & ~seen_enemy
            if got:
                for cell in t.kernel.cells(got):
                    pull += t.item_worth.get(t.items[cell], 0.0) * 0.8**k
                want &= ~got
            want &= ~seen_enemy
            if not want or not mine:
                break
        return pull

    def _fill_move(self, t: Turn, c: Cycle, region: int) -> Move | None:
        """Follow the longest fill of a separated region.

        A plan proven optimal last turn is kept while the region is exactly what it left;
        otherwise the search runs again (node-limited), seeded with the rest of the plan.
        """
        if region.bit_count() > ENDGAME_CELLS:
            return None
        nodes = max(10, FILL_NODES // t.movers)
        plan = self._plans.get(c.index)
        rest: list[int] | None = None
        if plan is not None and plan.path and plan.path[0] == c.head:
            rest = plan.path[1:]
        if plan is not None and rest and plan.proven and plan.region == region:
            path, proven = rest, True
        else:
            fill = solve_fill(t.kernel, c.head, region, node_limit=nodes, incumbent=rest)
            path, proven = fill.path, fill.proven
        if not path:
            return None
        self._plans[c.index] = _Plan(path, proven, region & ~(1 << path[0]))
        m = Move(c.index, path[0])
        roomy = t.remaining is not None and len(path) >= t.remaining + 4
        if c.item == "turbo" and c.turbo == 0 and roomy:
            m = m._replace(use_item=True)
        return m

    def _jump(self, t: Turn, x: _Cycle, room: int) -> Move | None:
        """A jump out of a pocket of ``room`` cells, when it lands in much more room.

        Of the jumps landing where at least ``2 * room + 10`` cells are reachable, the one
        of best value (contests discounted) is taken; none qualifies in open space, so
        the jump is kept for when it saves the cycle.
        """
        grid = t.grid
        if grid is None:
            return None
        c = x.cycle
        free = t.kernel.full & ~x.blocked
        top: tuple[float, int] | None = None
        for h in range(4):
            d = grid.jump_table[c.head * 4 + h]
            if d == OFF or (x.blocked >> d) & 1:
                continue
            if t.kernel.flood_upto(1 << d, free, 2 * room + 10)[0].bit_count() < 2 * room + 10:
                continue
            v, _ = self._assess(t, x, d)
            if (t.danger >> d) & 1:
                v = t.contested(v, d)
            if top is None or v > top[0]:
                top = (v, d)
        if top is not None:
            return Move(c.index, top[1], jump=True)
        return None

    def _ghost_move(self, t: Turn, x: _Cycle, moves: int, use: bool) -> Move:
        """The move of a ghost (``moves`` ghost moves left, this one included).

        A ghost may enter any neighbour; the value of entering one is the best of standing
        there (if free) and of going on as a ghost, and when the ghost wears off on an
        occupied cell, the best free cell next to it. With ``use`` the ghost item is used
        only if that beats every normal step clearly.
        """
        c = x.cycle
        blocked = x.blocked
        cache: dict[int, float] = {}

        def stand(d: int) -> float:
            v = cache.get(d)
            if v is None:
                v = cache[d] = self._assess(t, x, d)[0]
            return v

        def reach(d: int, left: int) -> float:
            best = stand(d) if not (blocked >> d) & 1 else DEAD
            if left > 0:
                for e in t.nbrs[d]:
                    if e != c.head:
                        best = max(best, reach(e, left - 1) - 0.5)
            elif (blocked >> d) & 1:
                for e in t.nbrs[d]:
                    if not (blocked >> e) & 1:
                        best = max(best, stand(e) - 1.0)
            return best

        scored = [(reach(d, moves - 1), self._rng.random(), d) for d in t.nbrs[c.head]]
        scored.sort(reverse=True)
        v, _, d = scored[0]
        if not use:
            return Move(c.index, d)
        normal = max(
            (
                stand(e) if not (t.danger >> e) & 1 else t.contested(stand(e), e)
                for e in t.nbrs[c.head]
                if not (blocked >> e) & 1
            ),
            default=DEAD,
        )
        if v > max(1.3 * normal, normal + 8):
            return Move(c.index, d, use_item=True)
        return Move(c.index, d)

    def _doomed(self, t: Turn, c: Cycle, others: int = 0) -> Move:
        """No safe move: a legal one (the cycle crashes, but does not forfeit).

        Where the rules make entering a head a contest (``teams``), it drives into an enemy
        head if one is next to it: the contest may still go its way. It never drives into
        a team-mate's head, which would be a contest against its own team.
        """
        steps = [d for d in self._steps(t, c) if d != OFF]
        if not steps:
            return Move(c.index, OFF)
        enemy = [d for d in steps if (t.enemy_heads >> d) & 1]
        mates = others & ~t.enemy_heads
        safe = [d for d in steps if not (mates >> d) & 1]
        return Move(c.index, (enemy or safe or steps)[0])

    def _cheap(self, t: Turn, c: Cycle, blocked: int) -> Move:
        """Out of time: the safe step with most free neighbours, avoiding contests."""
        best: tuple[int, int, int] | None = None
        for d in self._steps(t, c):
            if d == OFF or (blocked >> d) & 1:
                continue
            after = blocked | 1 << d
            key = (
                0 if (t.danger >> d) & 1 else 1,
                sum(1 for e in t.nbrs[d] if not (after >> e) & 1),
                d,
            )
            if best is None or key > best:
                best = key
        if best is None:
            if c.ghost > 0 or c.item == "ghost":
                return Move(c.index, t.nbrs[c.head][0], use_item=c.ghost == 0)
            return self._doomed(t, c)
        return Move(c.index, best[2])

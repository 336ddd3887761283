"""The built-in bots of the lower ladder: simple, documented behaviours to play against.

Each is deterministic for a given game seed and seat, so replays of games against them
re-run exactly.
"""

from __future__ import annotations

import random

from lightcycle.bots.api import Bot, MoveAnswer
from lightcycle.bots.search.bitboard import Kernel, kernel_for
from lightcycle.core.topology import GridTopology, Heading
from lightcycle.rules.observe import View


def _rng(view: View, salt: str) -> random.Random:
    return random.Random(f"{salt}:{view.state.seed}:{view.seat}")


def _choices(view: View) -> list[int]:
    """Destinations of ``me`` into free cells (grid or graph)."""
    return view.safe_destinations()


def answer_for(view: View, dest: int) -> MoveAnswer:
    """The answer that moves ``me`` to ``dest`` (a heading on grids, the node on graphs)."""
    g = view.grid
    if g is None:
        return dest
    h = g.heading_to(view.me.head, dest)
    return h if h is not None else Heading.N


def crash_move(view: View) -> MoveAnswer:
    """A legal move when none is safe (the cycle will die, but it does not forfeit)."""
    g = view.grid
    if g is None:
        return view.neighbours(view.me.head)[0]
    return Heading.N


class RandomBot(Bot):
    """Moves at random among its safe moves: the floor of the ladder.

    Each turn it picks uniformly among the free cells next to its head, so it never hits a
    wall or a trail while it has a safe move; it only crashes when every neighbour is
    taken. It never looks further than one step, so it wanders into pockets and cuts its
    own space in two; every bot that plans even a little beats it.
    """

    name = "Random"
    reproducible = True

    def __init__(self) -> None:
        self._rng: random.Random | None = None

    def start(self, game: View) -> None:
        self._rng = _rng(game, "random")

    def move(self, view: View) -> MoveAnswer:
        rng = self._rng or _rng(view, "random")
        self._rng = rng
        safe = _choices(view)
        return answer_for(view, rng.choice(safe)) if safe else crash_move(view)


class WallHugger(Bot):
    """Hugs walls: takes the free cell that touches the most walls and its own trail.

    Keeping close to walls and to its own trail fills space in tight rows and spirals
    instead of cutting it in two, which is all it takes to outlast a random mover. It
    looks two steps ahead only to skip a cell with no way on (a dead end) while it has
    another move; it never counts the room a move leads into and ignores the opponent, so
    a bot that comes after it takes the open space it leaves. Ties go to the first cell in
    the board's neighbour order (north, east, south, west on grids).
    """

    name = "WallHugger"
    reproducible = True

    def move(self, view: View) -> MoveAnswer:
        safe = _choices(view)
        if not safe:
            return crash_move(view)
        safe = [d for d in safe if view.free_neighbours(d)] or safe
        hug = view.state.board.walls | view.me.trail
        nbrs = view.topology.neighbours
        return answer_for(view, max(safe, key=lambda d: sum((hug >> e) & 1 for e in nbrs[d])))


POCKET = 10
"""The chaser skips a move into fewer free cells than this while another move has more."""


def _open_moves(k: Kernel, free: int, head: int) -> list[int]:
    """Free cells next to ``head``, without dead ends (cells with no way on) if it can."""
    moves = [d for d in k.neighbours[head] if (free >> d) & 1]
    open_ = [d for d in moves if any((free >> e) & 1 for e in k.neighbours[d])]
    return open_ or moves


def _gap(g: GridTopology, a: int, b: int) -> tuple[int, int]:
    """The x and y gaps between two cells of a grid (the short way round on a torus)."""
    (ax, ay), (bx, by) = g.xy(a), g.xy(b)
    dx, dy = abs(ax - bx), abs(ay - by)
    if g.wrap:
        dx, dy = min(dx, g.width - dx), min(dy, g.height - dy)
    return dx, dy


def pursuit_step(
    k: Kernel, grid: GridTopology | None, occ: int, head: int, targets: list[int]
) -> int | None:
    """The chaser's step from ``head`` towards the nearest of ``targets`` (None: no free move).

    It skips dead ends and pockets of fewer than `POCKET` cells while it has another move,
    then a cell a target could also enter this turn, and of the rest takes the one
    closest to a target as the crow flies (closing the larger gap first); on graph boards,
    which have no coordinates, the one with the shortest free path.
    """
    free = k.full & ~occ
    moves = _open_moves(k, free, head)
    if not moves:
        return None
    if len(moves) > 1:
        room = {d: k.flood_upto(1 << d, free & ~(1 << d), POCKET)[0].bit_count() for d in moves}
        least = min(POCKET, max(room.values()))
        moves = [d for d in moves if room[d] >= least]
    contested = {d for t in targets for d in k.neighbours[t]}
    moves = [d for d in moves if d not in contested] or moves
    if grid is None:
        goal = _goal(k, targets)

        def path(d: int) -> int:
            dist = _path_length(k, d, goal, free)
            return dist if dist >= 0 else 10**9

        return min(moves, key=path)

    def crow(d: int) -> tuple[int, int]:
        return min((dx + dy, max(dx, dy)) for dx, dy in (_gap(grid, d, t) for t in targets))

    return min(moves, key=crow)


class Chaser(Bot):
    """Chases the nearest opponent by dead reckoning.

    It steps towards the closest opponent head as the crow flies (Manhattan distance on
    grids, wrapping on tori; free-path distance on graph boards, which have no
    coordinates), closing the larger of the two gaps first. It does not find paths: a wall
    between them stops it until it slides around. It skips dead ends and pockets of fewer
    than ten cells while it has a roomier move, and never steps onto a cell the opponent
    could also enter this turn (both would die) while it has another. Beyond that it never
    counts room, and it always goes straight for the head, so its moves are easy to
    foresee and a runner can lead it where it wants. Once no opponent can be reached it
    keeps the most room, hugging walls and trails.
    """

    name = "Chaser"
    reproducible = True

    def move(self, view: View) -> MoveAnswer:
        k = kernel_for(view.topology)
        occ = view.state.occupied
        me = view.me.head
        targets = [c.head for c in view.opponents]
        if targets and k.flood(1 << me, k.full & ~occ) & _goal(k, targets):
            step = pursuit_step(k, view.grid, occ, me, targets)
            return answer_for(view, step) if step is not None else crash_move(view)
        moves = _open_moves(k, k.full & ~occ, me)
        if not moves:
            return crash_move(view)
        return answer_for(view, max(moves, key=lambda d: _room_then_hug(k, occ, d)))


class Runaway(Bot):
    """Runs away from the nearest opponent; plays the chase out when it is being chased.

    Normally it just runs: it takes the free move that ends farthest from the nearest
    opponent head (as the crow flies on grids, by free path on graph boards), ties going
    to the larger reachable region. It skips dead ends and, in a duel, moves into less
    than half the room of its roomiest move; running comes before room beyond that, so it
    gives ground and fills loosely, and a bot that keeps the most room out-lasts it.

    It also watches its opponent. When, in a duel on a grid, the opponent has made the
    chaser's move (`pursuit_step`, straight at it) on every turn so far, it expects the
    chase to go on: for each move that leads into at least a twentieth of its roomiest
    move's room, it plays eight turns ahead with the opponent chasing and itself running
    straight away (a crash of the opponent is best, its own worst; otherwise it counts
    how many more free cells it reaches first than the opponent, or how much more room
    it has if they have been cut apart), and takes the move whose chase ends best, then
    the farthest by free path, then the roomiest. That is how it leads a chaser past
    itself into a pocket. Once no opponent can be reached it simply keeps the most room,
    move by move.
    """

    name = "Runaway"
    reproducible = True
    plies = 8
    """Turns of chase it plays out."""

    def __init__(self) -> None:
        self._last: tuple[int, int, int, int] | None = None
        self._seen = 0
        self._followed = 0

    def start(self, game: View) -> None:
        self._last = None
        self._seen = self._followed = 0

    def move(self, view: View) -> MoveAnswer:
        k = kernel_for(view.topology)
        occ = view.state.occupied
        free = k.full & ~occ
        me = view.me.head
        targets = [c.head for c in view.opponents]
        last, self._last = self._last, None
        moves = [d for d in k.neighbours[me] if (free >> d) & 1]
        if not moves:
            return crash_move(view)
        room = {d: k.flood(1 << d, free & ~(1 << d)).bit_count() for d in moves}
        goal = _goal(k, targets)
        if not targets or not k.flood(1 << me, free) & goal:
            return answer_for(view, max(moves, key=lambda d: room[d]))
        g = view.grid
        if len(targets) == 1:
            self._last = (view.turn, me, targets[0], occ)
            if last is not None and last[0] == view.turn - 1:
                _, was_me, was_other, was_occ = last
                self._seen += 1
                if pursuit_step(k, g, was_occ, was_other, [was_me]) == targets[0]:
                    self._followed += 1
        if g is not None and len(targets) == 1 and self._seen >= 3 and self._followed == self._seen:
            return answer_for(view, self._escape(view, k, g, moves, room, goal))

        def away(d: int) -> tuple[int, int]:
            if g is None:
                dist = _path_length(k, d, goal, free)
                return (dist if dist >= 0 else 10**9, room[d])
            return (min(sum(_gap(g, d, t)) for t in targets), room[d])

        runs = _open_moves(k, free, me)
        if len(targets) == 1:
            top = max(room[d] for d in runs)
            runs = [d for d in runs if 2 * room[d] >= top]
        return answer_for(view, max(runs, key=away))

    def _escape(
        self,
        view: View,
        k: Kernel,
        g: GridTopology,
        moves: list[int],
        room: dict[int, int],
        goal: int,
    ) -> int:
        """The move whose chase, played out `plies` turns, ends best (then the farthest)."""
        occ = view.state.occupied
        free = k.full & ~occ
        me, other = view.me.head, view.opponents[0].head
        top = max(room.values())
        moves = [d for d in moves if 20 * room[d] >= top]

        def chase(d: int) -> int:
            o = pursuit_step(k, g, occ, other, [me])
            if o is None:
                return 10**6
            if o == d:
                return 0
            a, taken = d, occ | (1 << d) | (1 << o)
            for _ in range(self.plies):
                na = _flee_step(k, g, taken, a, o)
                no = pursuit_step(k, g, taken, o, [a])
                if na is None:
                    return 0 if no is None else -(10**6)
                if no is None:
                    return 10**6
                if na == no:
                    return 0
                a, o = na, no
                taken |= (1 << a) | (1 << o)
            rest = k.full & ~taken
            mine, theirs = k.flood(1 << a, rest), k.flood(1 << o, rest)
            if mine & theirs:
                mine, theirs, _ = k.voronoi(1 << a, 1 << o, rest)
            return mine.bit_count() - theirs.bit_count()

        def key(d: int) -> tuple[int, int, int]:
            dist = _path_length(k, d, goal, free)
            return (chase(d), dist if dist >= 0 else 10**9, room[d])

        return max(moves, key=key)


def _flee_step(k: Kernel, g: GridTopology, occ: int, head: int, other: int) -> int | None:
    """The runner's step in a played-out chase: farthest from ``other`` as the crow flies."""
    moves = _open_moves(k, k.full & ~occ, head)
    if not moves:
        return None
    return max(moves, key=lambda d: sum(_gap(g, d, other)))


def _room_then_hug(k: Kernel, occ: int, d: int) -> tuple[int, int]:
    free = k.full & ~occ & ~(1 << d)
    return (k.flood(1 << d, free).bit_count(), sum((occ >> e) & 1 for e in k.neighbours[d]))


def _goal(k: Kernel, targets: list[int]) -> int:
    """The cells next to any of ``targets``."""
    goal = 0
    for t in targets:
        for e in k.neighbours[t]:
            goal |= 1 << e
    return goal


def _path_length(k: Kernel, start: int, goal: int, free: int) -> int:
    """Moves from ``start`` to a cell of ``goal`` through free cells (-1: none reachable)."""
    if (goal >> start) & 1:
        return 0
    front = 1 << start
    avail = free & ~front
    dist = 0
    while front:
        dist += 1
        nxt = k.expand(front)
        if nxt & goal:
            return dist
        front = nxt & avail
        avail &= ~front
    return -1


BUILTIN: dict[str, type[Bot]] = {
    "random": RandomBot,
    "wallhugger": WallHugger,
    "chaser": Chaser,
    "runaway": Runaway,
}

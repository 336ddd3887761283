"""The built-in bots of the lower ladder: simple, documented behaviours to play against.

Each is deterministic for a given game seed and seat, so replays of games against them
re-run exactly.
"""

from __future__ import annotations

import random

from lightcycle.bots.api import Bot, MoveAnswer
from lightcycle.core.topology import Heading
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

    def move(self, view: View) -> MoveAnswer:
        safe = _choices(view)
        if not safe:
            return crash_move(view)
        safe = [d for d in safe if view.free_neighbours(d)] or safe
        hug = view.state.board.walls | view.me.trail
        nbrs = view.topology.neighbours
        return answer_for(view, max(safe, key=lambda d: sum((hug >> e) & 1 for e in nbrs[d])))


class Chaser(Bot):
    """Chases the nearest opponent by dead reckoning.

    It steps towards the closest opponent head as the crow flies (Manhattan distance on
    grids, wrapping on tori; free-path distance on graph boards, which have no
    coordinates), closing the larger of the two gaps first. It does not find paths: a wall between
    them stops it until it slides around. It never steps onto a cell the opponent could
    also enter this turn (both would die) while it has another free move, and it avoids a
    cell with no way on, but it never counts the room a move leads into, so a fleeing
    opponent can lead it into a pocket.
    """

    name = "Chaser"

    def move(self, view: View) -> MoveAnswer:
        safe = _choices(view)
        open_ = [d for d in safe if view.free_neighbours(d)]
        safe = open_ or safe
        if not safe:
            return crash_move(view)
        targets = [c.head for c in view.opponents]
        if not targets:
            return answer_for(view, safe[0])
        contested = {d for t in targets for d in view.neighbours(t)}
        calm = [d for d in safe if d not in contested] or safe
        g = view.grid
        if g is None:

            def path(d: int) -> int:
                dist = _distance_to_any(view, d, targets)
                return dist if dist >= 0 else 10**9

            return answer_for(view, min(calm, key=path))

        def crow(d: int) -> tuple[int, int]:
            x, y = g.xy(d)
            best = (10**9, 0)
            for t in targets:
                tx, ty = g.xy(t)
                dx, dy = abs(x - tx), abs(y - ty)
                if g.wrap:
                    dx, dy = min(dx, g.width - dx), min(dy, g.height - dy)
                best = min(best, (dx + dy, max(dx, dy)))
            return best

        return answer_for(view, min(calm, key=crow))


class Runaway(Bot):
    """Runs away: takes the free move that ends farthest (by free path) from the nearest
    opponent head; ties go to the larger reachable region.

    It avoids pockets, a move into less than a twentieth of the room of its roomiest move,
    but otherwise running comes before room, so it gives ground and can run itself into a
    corner. Unreachable opponents count as infinitely far, so once separated it simply
    keeps the most room.
    """

    name = "Runaway"

    def move(self, view: View) -> MoveAnswer:
        safe = _choices(view)
        if not safe:
            return crash_move(view)
        room = {d: view.flood_fill(d) for d in safe}
        top = max(room.values())
        safe = [d for d in safe if 20 * room[d] >= top]
        targets = [c.head for c in view.opponents]

        def key(d: int) -> tuple[int, int]:
            dist = _distance_to_any(view, d, targets)
            return (dist if dist >= 0 else 10**9, room[d])

        return answer_for(view, max(safe, key=key))


def _distance_to_any(view: View, start: int, targets: list[int]) -> int:
    """Free-path distance from ``start`` to a cell next to any target (-1: none reachable)."""
    if not targets:
        return -1
    goal: set[int] = set()
    for t in targets:
        goal.update(view.neighbours(t))
    if start in goal:
        return 0
    occ = view.state.occupied | (1 << start)
    nbrs = view.topology.neighbours
    frontier = [start]
    dist = 0
    seen = occ
    while frontier:
        dist += 1
        nxt = []
        for c in frontier:
            for d in nbrs[c]:
                if d in goal:
                    return dist
                if not (seen >> d) & 1:
                    seen |= 1 << d
                    nxt.append(d)
        frontier = nxt
    return -1


BUILTIN: dict[str, type[Bot]] = {
    "random": RandomBot,
    "wallhugger": WallHugger,
    "chaser": Chaser,
    "runaway": Runaway,
}

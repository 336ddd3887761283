"""The built-in bots of the lower ladder: simple, documented behaviours to play against.

Each is deterministic for a given game seed and seat, so replays of games against them
re-run exactly.
"""

from __future__ import annotations

import random

from lightcycle.bots.api import Bot, MoveAnswer
from lightcycle.core.topology import OFF, Heading
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
    """Moves at random, but never into a wall or trail when it has a safe move.

    Among the safe moves it picks uniformly; with none left it moves north and crashes.
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
    """Hugs walls and trails to fill space tightly.

    Of the safe moves it keeps those that lead into the largest reachable region (so it
    never walks into a pocket while a bigger area is open), then takes the one whose
    destination touches the most walls and trails; ties keep the current heading.
    """

    name = "WallHugger"

    def move(self, view: View) -> MoveAnswer:
        safe = _roomiest(view, _choices(view))
        if not safe:
            return crash_move(view)
        occ = view.state.occupied
        nbrs = view.topology.neighbours
        head = view.me.head
        prev = _previous_cell(view)

        def score(d: int) -> tuple[int, int]:
            touching = sum(1 for e in nbrs[d] if (occ >> e) & 1)
            straight = 1 if prev is not None and _straight(view, prev, head, d) else 0
            return (touching, straight)

        return answer_for(view, max(safe, key=score))


class Chaser(Bot):
    """Chases the nearest opponent: steps along a shortest free path towards the closest
    opponent head, trying to cut it off.

    It does not step onto a cell the opponent could also enter this turn (that collision
    kills both) while it has another safe move, and it ignores moves into a region less
    than half the size of its best one. With no opponent reachable it plays like a space
    filler: the safe move with the larger reachable region.
    """

    name = "Chaser"

    def move(self, view: View) -> MoveAnswer:
        safe = _roomy(view, _choices(view))
        if not safe:
            return crash_move(view)
        targets = [c.head for c in view.opponents]
        contested = {d for t in targets for d in view.neighbours(t)}
        calm = [d for d in safe if d not in contested] or safe
        best: tuple[int, int] | None = None
        choice = calm[0]
        for d in calm:
            dist = _distance_to_any(view, d, targets)
            key = (dist if dist >= 0 else 10**9, -view.flood_fill(d))
            if best is None or key < best:
                best, choice = key, d
        return answer_for(view, choice)


class Runaway(Bot):
    """Runs away: takes the safe move that ends farthest (by free path) from the nearest
    opponent head; ties go to the larger reachable region. Moves into a region less than
    half the size of its best one are ignored, and unreachable opponents count as
    infinitely far, so once separated it simply keeps the most room.
    """

    name = "Runaway"

    def move(self, view: View) -> MoveAnswer:
        safe = _roomy(view, _choices(view))
        if not safe:
            return crash_move(view)
        targets = [c.head for c in view.opponents]

        def key(d: int) -> tuple[int, int]:
            dist = _distance_to_any(view, d, targets)
            return (dist if dist >= 0 else 10**9, view.flood_fill(d))

        return answer_for(view, max(safe, key=key))


def _roomiest(view: View, moves: list[int]) -> list[int]:
    """The moves that lead into the largest reachable region."""
    if len(moves) < 2:
        return moves
    sizes = {d: view.flood_fill(d) for d in moves}
    top = max(sizes.values())
    return [d for d in moves if sizes[d] == top]


def _roomy(view: View, moves: list[int]) -> list[int]:
    """The moves whose reachable region is at least half the largest one."""
    if len(moves) < 2:
        return moves
    sizes = {d: view.flood_fill(d) for d in moves}
    top = max(sizes.values())
    return [d for d in moves if 2 * sizes[d] >= top]


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


def _previous_cell(view: View) -> int | None:
    """The cell ``me`` came from, if the trail shows a unique one."""
    me = view.me
    trail = me.trail
    cands = [d for d in view.neighbours(me.head) if (trail >> d) & 1]
    return cands[0] if len(cands) == 1 else None


def _straight(view: View, prev: int, head: int, dest: int) -> bool:
    g = view.grid
    if g is None:
        return False
    h1 = g.heading_to(prev, head)
    return h1 is not None and g.move(head, h1) == dest and dest != OFF


BUILTIN: dict[str, type[Bot]] = {
    "random": RandomBot,
    "wallhugger": WallHugger,
    "chaser": Chaser,
    "runaway": Runaway,
}

"""A Python Bot class for the 3D course (tron3d): short, readable and item-aware.

Every move scores 10 points, so a cycle is worth the moves it still makes. Each of my
cycles that moves this turn, one after the other, weighs its free neighbours by

- land: the free vertices it reaches strictly before every other head (a breadth-first
  race: what it can count on), plus a little of its room (every free vertex it reaches
  at all); neither counts past the moves left in the game;
- pockets: a neighbour whose room is less than the moves left ends this cycle's game
  early, so it is worth no more than that room, however safe;
- danger: an enemy head next to the vertex may step in first (the moves of a turn are
  made in a random order and the second cycle in crashes), so it keeps only part of
  its worth;
- items: the nearest item it reaches before every enemy head pulls it a little;
- hugging walls and trails (fewer free neighbours) breaks ties: it leaves no holes.

It uses a turbo at once when it has room (every move scores), and a ghost to get out
when it is trapped. Against three Dummies on cube and cylinder it wins about 11 games
in 12, in about 0.25 s of CPU a game.
"""

from collections import deque

from lightcycle.bots.api import Bot
from lightcycle.core.moves import Move
from lightcycle.rules.legal import moves_this_turn
from lightcycle.rules.observe import View

Graph = tuple[tuple[int, ...], ...]

ENOUGH = 30
"""Room (free vertices reachable) that is plenty: a turbo is used past it."""


class Grabber(Bot):
    name = "Grabber"

    def move(self, view: View) -> dict[int, Move]:
        state = view.state
        nbrs = view.topology.neighbours
        blocked = state.occupied
        enemies = [c.head for c in state.cycles if c.alive and c.team != view.seat]
        enemy_dist = distances(nbrs, blocked, enemies)
        rounds = getattr(state.ruleset, "settings", None)
        needed = (getattr(rounds, "nb_rounds", 200) - state.turn) // 2 + 10  # moves left
        # the chance an enemy head steps onto each vertex this turn (one of its free
        # neighbours, at random as far as I know), and half of that it gets there first
        threat: dict[int, float] = {}
        for h in enemies:
            exits = [d for d in nbrs[h] if not (blocked >> d) & 1]
            for d in exits:
                threat[d] = threat.get(d, 0.0) + 0.5 / len(exits)
        answer: dict[int, Move] = {}
        for c in view.my_cycles:
            if not moves_this_turn(state, c.index):
                continue
            free = [d for d in nbrs[c.head] if not (blocked >> d) & 1]
            room = {d: reach(nbrs, blocked | 1 << d, d, cap=needed + 1) for d in free}
            if max(room.values(), default=0) < 4 and c.item == "ghost":  # trapped: go through
                dest = max(nbrs[c.head], key=lambda d: reach(nbrs, blocked & ~(1 << d), d))
                answer[c.index] = Move(c.index, dest, use_item=True)
                blocked |= 1 << dest
                continue
            if not free:
                answer[c.index] = Move(c.index, nbrs[c.head][0])  # no way out
                continue
            rivals = [o.head for o in state.cycles if o.alive and o.index != c.index]
            others = distances(nbrs, blocked, rivals)
            land = {d: territory(nbrs, blocked, d, others) for d in free}
            mine = distances(nbrs, blocked, [c.head])
            ours = [i for i, _ in state.items if mine.get(i, 999) < enemy_dist.get(i, 999)]
            goal = distances(nbrs, blocked, [min(ours, key=mine.__getitem__)]) if ours else {}
            scores = {
                d: (
                    worth(land[d], room[d], needed, threat.get(d, 0.0), goal.get(d)),
                    -sum(not (blocked >> e) & 1 for e in nbrs[d]),  # hug walls and trails
                )
                for d in free
            }
            dest = max(free, key=scores.__getitem__)
            turbo = c.item == "turbo" and room[dest] >= ENOUGH and dest not in threat
            answer[c.index] = Move(c.index, dest, use_item=turbo)
            blocked |= 1 << dest
        return answer


def worth(land: int, room: int, needed: int, threat: float, goal: int | None) -> float:
    """What a move is worth (see the module docstring), rounded so that ties are ties."""
    value = min(land, needed) + 0.3 * min(room, needed)
    if room < needed:  # a pocket: it ends this cycle's game early
        value = min(value, room)
    value *= 1.0 - min(threat, 1.0)
    if goal is not None:  # items: a little
        value += 3.0 / (1 + goal)
    return round(value, 3)


def distances(nbrs: Graph, blocked: int, starts: list[int]) -> dict[int, int]:
    """Moves from the nearest of ``starts`` to every free vertex (a breadth-first search)."""
    dist = dict.fromkeys(starts, 0)
    todo = deque(starts)
    while todo:
        v = todo.popleft()
        for d in nbrs[v]:
            if d not in dist and not (blocked >> d) & 1:
                dist[d] = dist[v] + 1
                todo.append(d)
    return dist


def territory(nbrs: Graph, blocked: int, start: int, others: dict[int, int]) -> int:
    """The free vertices reached from ``start`` (one move away) before every other head."""
    dist = {start: 1}
    todo = deque([start])
    while todo:
        v = todo.popleft()
        for d in nbrs[v]:
            if d not in dist and not (blocked >> d) & 1 and dist[v] + 1 < others.get(d, 999):
                dist[d] = dist[v] + 1
                todo.append(d)
    return len(dist)


def reach(nbrs: Graph, blocked: int, start: int, cap: int = 250) -> int:
    """How many free vertices ``start`` reaches (counting stops at ``cap``)."""
    seen = {start}
    todo = [start]
    while todo and len(seen) < cap:
        for d in nbrs[todo.pop()]:
            if d not in seen and not (blocked >> d) & 1:
                seen.add(d)
                todo.append(d)
    return len(seen)

"""A Python Bot class for the 3D course (tron3d): short, readable and item-aware.

Each of my cycles that moves this turn, one after the other:

- goes for the nearest item it reaches before every enemy head, if the step towards it
  keeps enough room;
- else takes the free neighbour with the most room (the free cells it can reach; room
  beyond what the moves left need counts for nothing), avoiding a vertex an enemy head
  can also enter this turn (the first cycle in wins), hugging walls and trails;
- uses a turbo at once when it has room (every move scores), and a ghost to get out
  when it is trapped.
"""

from collections import deque

from lightcycle.bots.api import Bot
from lightcycle.core.moves import Move
from lightcycle.rules.legal import moves_this_turn
from lightcycle.rules.observe import View

ENOUGH = 30
"""Room (free cells reachable) that is plenty: past it, items and safety decide."""


class Grabber(Bot):
    name = "Grabber"

    def move(self, view: View) -> dict[int, Move]:
        state = view.state
        nbrs = view.topology.neighbours
        blocked = state.occupied
        enemies = [c.head for c in state.cycles if c.alive and c.team != view.seat]
        near_enemy = {d for h in enemies for d in nbrs[h]}
        enemy_dist = distances(nbrs, blocked, enemies)
        rounds = getattr(state.ruleset, "settings", None)
        needed = (getattr(rounds, "nb_rounds", 200) - state.turn) // 2 + 10  # moves left
        answer: dict[int, Move] = {}
        for c in view.my_cycles:
            if not moves_this_turn(state, c.index):
                continue
            free = [d for d in nbrs[c.head] if not (blocked >> d) & 1]
            room = {d: reach(nbrs, blocked | 1 << d, d) for d in free}
            best_room = max(room.values(), default=0)
            if best_room < 4 and c.item == "ghost":  # trapped: pass through a trail
                dest = max(nbrs[c.head], key=lambda d: reach(nbrs, blocked & ~(1 << d), d))
                answer[c.index] = Move(c.index, dest, use_item=True)
                blocked |= 1 << dest
                continue
            if not free:
                answer[c.index] = Move(c.index, nbrs[c.head][0])  # no way out
                continue
            mine = distances(nbrs, blocked, [c.head])
            ours = [i for i, _ in state.items if mine.get(i, 999) < enemy_dist.get(i, 999)]
            goal = distances(nbrs, blocked, [min(ours, key=mine.__getitem__)]) if ours else {}
            # room beyond the moves left is worth nothing; then safety, items, and hugging
            # walls and trails (fewer free neighbours), which leaves no holes behind
            scores = {
                d: (
                    min(room[d], 2 * needed),
                    d not in near_enemy,
                    -goal.get(d, 999),
                    -sum(not (blocked >> e) & 1 for e in nbrs[d]),
                )
                for d in free
            }
            dest = max(free, key=scores.__getitem__)
            turbo = c.item == "turbo" and room[dest] >= ENOUGH
            answer[c.index] = Move(c.index, dest, use_item=turbo)
            blocked |= 1 << dest
        return answer


def distances(nbrs: tuple[tuple[int, ...], ...], blocked: int, starts: list[int]) -> dict[int, int]:
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


def reach(nbrs: tuple[tuple[int, ...], ...], blocked: int, start: int, cap: int = 250) -> int:
    """How many free vertices ``start`` reaches (counting stops at ``cap``)."""
    seen = {start}
    todo = [start]
    while todo and len(seen) < cap:
        for d in nbrs[todo.pop()]:
            if d not in seen and not (blocked >> d) & 1:
                seen.add(d)
                todo.append(d)
    return len(seen)

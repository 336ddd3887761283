"""A good Python Bot class: the free neighbour with the most room (flood fill)."""

from lightcycle.bots.api import Bot
from lightcycle.core.moves import Move
from lightcycle.rules.observe import View


class Roomy(Bot):
    name = "Roomy"

    def move(self, view: View) -> Move:
        state = view.state
        nbrs = view.topology.neighbours
        blocked = state.occupied
        me = view.my_cycles[0]

        def room(start: int) -> int:
            seen = {start}
            todo = [start]
            while todo:
                c = todo.pop()
                for d in nbrs[c]:
                    if d not in seen and not (blocked >> d) & 1:
                        seen.add(d)
                        todo.append(d)
            return len(seen)

        free = [d for d in nbrs[me.head] if not (blocked >> d) & 1]
        if not free:
            return Move(me.index, nbrs[me.head][0])
        return Move(me.index, max(free, key=lambda d: (room(d), -d)))

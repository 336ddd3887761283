"""A first team for the team course, in Python: a `Bot` class the judge runs for you.

A file that defines a class derived from ``Bot`` needs no protocol: the judge calls its
``move(view)`` once a turn with a `lightcycle.rules.observe.View` of the game (the
board, every cycle, which cells are taken: walls and trails, which vanish when their
cycle explodes). ``move`` answers a `Move` for each of your live cycles, as a dict
``{cycle index: Move}``; the dict's order is the order your cycles move in.

How it plays: each cycle in turn takes the free cell next to it with the most room
behind it (the cells it could still reach: a flood fill), keeping away from cells an
enemy head could also enter this turn; between cells with as much room it hugs walls
and trails, so that it fills its room without leaving holes. A cell an earlier cycle of
ours chose this turn counts as taken, so the most hemmed-in cycles choose first. Make
it smarter from here: use the jump (``Move(..., jump=True)``), think about the enemy.

Try it:  lightcycle match --ruleset teams --map court-small --bot py:bot.py
         --bot builtin:random
"""

from lightcycle.bots.api import Bot
from lightcycle.core.moves import Move
from lightcycle.rules.observe import View

ROOM_CAP = 400
"""Room beyond this many cells makes no difference (and the flood fill stops there)."""


class Starter(Bot):
    name = "Starter team"

    def move(self, view: View) -> dict[int, Move]:
        nbrs = view.topology.neighbours  # nbrs[cell]: the cells one move away
        taken = view.state.occupied  # a bitmask: bit `cell` is set for walls and trails

        def free(cell: int) -> list[int]:
            return [d for d in nbrs[cell] if not (taken >> d) & 1]

        def room(start: int) -> int:
            """How many free cells can be reached from ``start`` (a flood fill)."""
            seen = {start}
            todo = [start]
            while todo and len(seen) < ROOM_CAP:
                for d in free(todo.pop()):
                    if d not in seen:
                        seen.add(d)
                        todo.append(d)
            return len(seen)

        # the cells an enemy head could enter this turn
        contested = {d for c in view.opponents for d in free(c.head)}
        answer: dict[int, Move] = {}
        # the cycles with the fewest ways out choose first
        for c in sorted(view.moving_cycles, key=lambda c: len(free(c.head))):
            best, best_score = None, (-1, 0)
            for d in free(c.head):
                space = room(d) // (4 if d in contested else 1)
                score = (space, -len(free(d)))  # the most room, then the fewest exits
                if score > best_score:
                    best, best_score = d, score
            if best is None:  # boxed in: any move will do
                best = nbrs[c.head][0]
            answer[c.index] = Move(c.index, best)
            taken |= 1 << best  # our later cycles keep out of it
        return answer

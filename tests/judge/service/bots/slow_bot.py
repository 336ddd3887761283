"""A good Python Bot class that thinks slowly (50 ms a move): its games last seconds, long
enough to kill the worker playing one (tests/judge/service/test_worker.py)."""

import time

from lightcycle.bots.api import Bot
from lightcycle.core.moves import Move
from lightcycle.rules.observe import View


class Slow(Bot):
    name = "Slow"

    def move(self, view: View) -> Move:
        time.sleep(0.05)
        nbrs = view.topology.neighbours
        blocked = view.state.occupied
        me = view.my_cycles[0]

        def exits(cell: int) -> int:
            return sum(1 for e in nbrs[cell] if not (blocked >> e) & 1)

        free = [d for d in nbrs[me.head] if not (blocked >> d) & 1]
        if not free:
            return Move(me.index, nbrs[me.head][0])
        return Move(me.index, max(free, key=lambda d: (exits(d), -d)))

"""A Python Bot class that always takes its first neighbour: it runs into a wall within
a few moves, so it loses its official games quickly (tests/judge/service/test_rounds.py)."""

from lightcycle.bots.api import Bot
from lightcycle.core.moves import Move
from lightcycle.rules.observe import View


class Wall(Bot):
    name = "Wall"

    def move(self, view: View) -> Move:
        me = view.my_cycles[0]
        return Move(me.index, view.topology.neighbours[me.head][0])

"""The reference bot of the 3D course (``tron3d@1``): ``dummy``.

In the course, a submission was accepted only once it won four games against three
``Dummy`` players, so ``dummy`` is deliberately easy: short-sighted, item-blind and
predictable, yet it does not drive into walls when it has a choice.
"""

from __future__ import annotations

import random

from lightcycle.bots.api import Bot, MoveAnswer
from lightcycle.core.moves import Move
from lightcycle.rules.legal import moves_this_turn
from lightcycle.rules.observe import View


class Dummy(Bot):
    """Each moving cycle steps to a random free neighbour, preferring ones with a way on.

    It looks one vertex ahead only: among the free neighbours it keeps those that have
    another free neighbour after the move (if any), and picks one with a seeded coin.
    It never uses items and ignores the other players; with no free neighbour it moves
    to its first neighbour and crashes.
    """

    name = "Dummy"
    reproducible = True

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def start(self, game: View) -> None:
        self.rng = random.Random(f"dummy:{game.state.seed}:{game.seat}")

    def move(self, view: View) -> MoveAnswer:
        state = view.state
        nbrs = view.topology.neighbours
        blocked = state.occupied
        answer: dict[int, Move] = {}
        for c in view.my_cycles:
            if not moves_this_turn(state, c.index):
                continue
            free = [d for d in nbrs[c.head] if not (blocked >> d) & 1]
            onward = [d for d in free if any(not ((blocked | 1 << d) >> e) & 1 for e in nbrs[d])]
            pick = onward or free
            dest = self.rng.choice(pick) if pick else nbrs[c.head][0]
            blocked |= 1 << dest
            answer[c.index] = Move(c.index, dest)
        return answer


TRON3D_BOTS: dict[str, type[Bot]] = {"dummy": Dummy}
"""The 3D course's reference bots by registry name."""

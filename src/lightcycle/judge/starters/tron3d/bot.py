"""A first bot for the 3D course, in Python: a `Bot` class the judge runs for you.

A file that defines a class derived from ``Bot`` needs no protocol: the judge calls its
``move(view)`` each round one of your cycles moves, with a `lightcycle.rules.observe.View`
of the game: the board is a graph (``view.topology.neighbours[v]``: the vertices next
to vertex ``v``), ``view.state.occupied`` has a bit set for each vertex taken by a trail
or a head (a trail vanishes when its cycle crashes), and ``view.moving_cycles`` are your
two cycles that move this round (without turbo a cycle moves every other round). Answer
a `Move` for each: ``{cycle index: Move(index, vertex)}``.

Scoring: 10 points a move survived, and 50 for a points item: survive longest.

How it plays: each moving cycle takes the free vertex next to it from which it reaches
the most vertices before any other cycle can (its "land": a breadth-first race against
every other head) and a little of its room (every vertex it reaches at all), neither
counted past the moves the game has left, and no more than its room when it leads into
a pocket smaller than that; a vertex an enemy head could also enter this round is worth
half (who moves first is drawn each round; the second one in crashes). The nearest item
it reaches before every enemy pulls it a little (turbo and points items are points).
Between equal vertices it hugs walls and trails, leaving no holes. It uses a turbo at
once (more moves, more points) when it has room. It wins about 19 games in 20 against
three Dummies, and qualifying takes 4 wins in a row: make it smarter from here (use a
ghost to escape a trap, look a move further ahead).

Try it:  lightcycle match --ruleset tron3d --map cube --bot py:bot.py
         --bot builtin:dummy --bot builtin:dummy --bot builtin:dummy
"""

from lightcycle.bots.api import Bot
from lightcycle.core.moves import Move
from lightcycle.rules.observe import View

FAR = 1_000_000
"""A distance for "never reached"."""


class Starter(Bot):
    name = "Starter"

    def move(self, view: View) -> dict[int, Move]:
        nbrs = view.topology.neighbours  # nbrs[v]: the vertices one move from v
        taken = view.state.occupied  # a bitmask: bit v is set for walls, trails, heads
        turn = view.turn + 1  # the round being played is turn - 1
        moves_left = (view.settings.nb_rounds - turn) // 2 + 2  # about: one every 2 rounds

        def free(v: int) -> list[int]:
            return [d for d in nbrs[v] if not (taken >> d) & 1]

        def distances(starts: list[int], limit: dict[int, int]) -> dict[int, int]:
            """Moves from the nearest of ``starts`` to each free vertex it reaches
            strictly before ``limit`` says another cycle does (a breadth-first search)."""
            dist = dict.fromkeys(starts, 0)
            todo = list(starts)
            for v in todo:  # todo grows as we go: each vertex in the order reached
                for d in free(v):
                    if d not in dist and dist[v] + 1 < limit.get(d, FAR):
                        dist[d] = dist[v] + 1
                        todo.append(d)
            return dist

        enemies = [c.head for c in view.opponents]
        contested = {d for h in enemies for d in free(h)}  # enemies may enter these now
        enemy_dist = distances(enemies, {})  # how soon the nearest enemy gets anywhere
        answer: dict[int, Move] = {}
        for c in view.moving_cycles:
            others = [o.head for o in view.cycles if o.alive and o.index != c.index]
            theirs = distances(others, {})  # how soon another cycle gets to each vertex
            ahead = {v: t - 1 for v, t in theirs.items()}  # we are one move behind
            # the nearest item this cycle reaches before every enemy pulls it a little
            # (view.state.items: (vertex, kind) pairs lying on the board)
            mine = distances([c.head], {})
            items = [v for v, _ in view.state.items if mine.get(v, FAR) < enemy_dist.get(v, FAR)]
            goal = distances([min(items, key=mine.__getitem__)], {}) if items else {}
            best, best_score, best_room = None, (-1.0, 0), 0
            for d in free(c.head):
                land = len(distances([d], ahead))
                room = len(distances([d], {}))  # every vertex it reaches at all
                # its land and a little of its room, as far as the game goes on
                worth = min(land, moves_left) + 0.3 * min(room, moves_left)
                if room < moves_left:  # a pocket: this cycle's game ends in there
                    worth = min(worth, room)
                if d in contested:  # an enemy may come in first
                    worth /= 2
                if d in goal:
                    worth += 3 / (1 + goal[d])
                score = (worth, -len(free(d)))  # then hug walls and trails
                if score > best_score:
                    best, best_score, best_room = d, score, room
            if best is None:  # boxed in: any move will do
                answer[c.index] = Move(c.index, nbrs[c.head][0])
                continue
            turbo = c.item == "turbo" and best_room >= 20
            answer[c.index] = Move(c.index, best, use_item=turbo)
            taken |= 1 << best  # my other cycle keeps out of it
        return answer

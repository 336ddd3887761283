"""The reference bots of the team course (``teams@1``): ten cycles a side, one jump each.

They are the yardsticks of the course's grading rubric ("wins 3 of 3 against
RandomBot", "wins 9 of 10 against LookBot"), so each does exactly what its docstring
says and is deterministic for a given game seed and seat. All three steer every cycle
of their team, listing their cycles front to back so that a cycle never plans to enter
a cell an earlier cycle of its own team has just claimed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from lightcycle.bots.api import Bot, MoveAnswer
from lightcycle.core.moves import Move
from lightcycle.core.state import Cycle
from lightcycle.core.topology import OFF, GridTopology, Heading
from lightcycle.rules.legal import moves_this_turn
from lightcycle.rules.observe import View


class TeamBot(Bot):
    """Shared plumbing: one decision per moving cycle, claimed cells kept per turn.

    Subclasses implement `choose`; the answer is a dict from cycle index to `Move`, in
    the order the cycles were decided.
    """

    salt = "team"
    reproducible = True

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def start(self, game: View) -> None:
        self.rng = random.Random(f"{self.salt}:{game.state.seed}:{game.seat}")

    def move(self, view: View) -> MoveAnswer:
        grid = view.grid
        if grid is None:
            raise ValueError(f"{self.name} plays grid boards only")
        blocked = view.state.occupied
        answer: dict[int, Move] = {}
        for c in self.order(view):
            m = self.choose(view, grid, c, blocked)
            answer[c.index] = m
            if m.to != OFF:
                blocked |= 1 << m.to
        return answer

    def order(self, view: View) -> Iterator[Cycle]:
        """The team's moving cycles, in the order they are decided and listed."""
        state = view.state
        return (c for c in view.my_cycles if moves_this_turn(state, c.index))

    def choose(self, view: View, grid: GridTopology, c: Cycle, blocked: int) -> Move:
        """The move of cycle ``c``; ``blocked`` holds walls, trails and claimed cells."""
        raise NotImplementedError


def _free(cell: int, blocked: int) -> bool:
    return cell != OFF and not (blocked >> cell) & 1


def _steps(grid: GridTopology, c: Cycle, blocked: int) -> list[tuple[Heading, int]]:
    return [(h, d) for h in Heading if _free(d := grid.move(c.head, h), blocked)]


def _jumps(grid: GridTopology, c: Cycle, blocked: int) -> list[tuple[Heading, int]]:
    if c.jumps_left <= 0:
        return []
    return [(h, d) for h in Heading if _free(d := grid.jump(c.head, h), blocked)]


def room(grid: GridTopology, start: int, blocked: int, limit: int) -> int:
    """Free cells reachable from ``start`` (itself included), counting up to ``limit``."""
    if not _free(start, blocked):
        return 0
    nbrs = grid.neighbours
    seen = blocked | (1 << start)
    frontier = [start]
    n = 1
    while frontier and n < limit:
        nxt = []
        for cell in frontier:
            for d in nbrs[cell]:
                if not (seen >> d) & 1:
                    seen |= 1 << d
                    nxt.append(d)
        n += len(nxt)
        frontier = nxt
    return min(n, limit)


def ray(grid: GridTopology, start: int, heading: Heading, blocked: int, limit: int) -> int:
    """Free cells straight ahead of ``start`` towards ``heading`` (at most ``limit``)."""
    n = 0
    cell = grid.move(start, heading)
    while n < limit and _free(cell, blocked):
        n += 1
        cell = grid.move(cell, heading)
    return n


class RandomTeamBot(TeamBot):
    """Every cycle makes a random legal move that does not crash at once.

    Each cycle picks uniformly among its steps into free cells (cells its team-mates
    claimed earlier this turn count as taken); with none, among its jumps into free
    cells; with neither, it moves north and explodes.
    """

    name = "RandomBot"
    salt = "randombot"

    def choose(self, view: View, grid: GridTopology, c: Cycle, blocked: int) -> Move:
        steps = _steps(grid, c, blocked)
        if steps:
            return Move(c.index, self.rng.choice(steps)[1])
        jumps = _jumps(grid, c, blocked)
        if jumps:
            return Move(c.index, self.rng.choice(jumps)[1], jump=True)
        return Move(c.index, grid.move(c.head, Heading.N))


class LineBot(TeamBot):
    """Each cycle goes straight until blocked, then turns to the side with more room.

    Cycles start heading for the other team's edge. When the cell ahead is taken, the
    cycle compares the free area (flood fill, capped at 200 cells) behind its two side
    cells and turns towards the larger; if both sides are blocked it turns back the
    only way left, and with no step at all it jumps straight ahead if it can.
    """

    name = "LineBot"
    salt = "linebot"

    def __init__(self) -> None:
        super().__init__()
        self.heading: dict[int, Heading] = {}

    def choose(self, view: View, grid: GridTopology, c: Cycle, blocked: int) -> Move:
        h = self.heading.get(c.index)
        if h is None:
            h = Heading.S if grid.xy(c.head)[1] < grid.height // 2 else Heading.N
        ahead = grid.move(c.head, h)
        if not _free(ahead, blocked):
            sides = [Heading((h + 1) % 4), Heading((h + 3) % 4)]
            rooms = [room(grid, grid.move(c.head, s), blocked, 200) for s in sides]
            if max(rooms) > 0:
                h = sides[0] if rooms[0] >= rooms[1] else sides[1]
            elif _free(grid.jump(c.head, h), blocked) and c.jumps_left > 0:
                self.heading[c.index] = h
                return Move(c.index, grid.jump(c.head, h), jump=True)
            elif _free(grid.move(c.head, h.opposite), blocked):
                h = h.opposite
        self.heading[c.index] = h
        return Move(c.index, grid.move(c.head, h))


class LookBot(TeamBot):
    """Each cycle looks ahead in every direction and takes the most open one.

    For each free step it scores, in order: whether the room behind it (flood fill
    capped at 400 cells) is at least a pocket of 20 cells, whether an enemy head could
    enter the same cell this turn (a contest it may lose on CPU time), the room, and
    the free run straight ahead (up to 30 cells), and takes the best. When every step
    leads into a pocket and a jump leads into more room, it uses its jump to escape
    over the blocking trail. Ties go to keeping its heading, then to a seeded coin.
    """

    name = "LookBot"
    salt = "lookbot"
    ROOM = 400
    RAY = 30
    POCKET = 20

    def __init__(self) -> None:
        super().__init__()
        self.heading: dict[int, Heading] = {}

    def _score(
        self,
        grid: GridTopology,
        dest: int,
        h: Heading,
        blocked: int,
        current: Heading | None,
        danger: int,
    ) -> tuple[bool, bool, int, int, int, float]:
        space = room(grid, dest, blocked, self.ROOM)
        return (
            space >= self.POCKET,
            not (danger >> dest) & 1,
            space,
            ray(grid, dest, h, blocked, self.RAY),
            1 if h == current else 0,
            self.rng.random(),
        )

    def choose(self, view: View, grid: GridTopology, c: Cycle, blocked: int) -> Move:
        current = self.heading.get(c.index)
        here = blocked | (1 << c.head)
        danger = 0
        for o in view.opponents:
            for d in grid.neighbours[o.head]:
                danger |= 1 << d
        best: tuple[tuple[bool, bool, int, int, int, float], Heading, int, bool] | None = None
        for h, d in _steps(grid, c, blocked):
            key = self._score(grid, d, h, here, current, danger)
            if best is None or key > best[0]:
                best = (key, h, d, False)
        if best is None or not best[0][0]:
            for h, d in _jumps(grid, c, blocked):
                key = self._score(grid, d, h, here, current, danger)
                if key[2] > (best[0][2] if best else 0):
                    best = (key, h, d, True)
        if best is None:
            return Move(c.index, grid.move(c.head, current or Heading.N))
        _, h, d, jump = best
        self.heading[c.index] = h
        return Move(c.index, d, jump=jump)


TEAM_BOTS: dict[str, type[Bot]] = {
    "randombot": RandomTeamBot,
    "linebot": LineBot,
    "lookbot": LookBot,
}
"""The team course's reference bots by registry name."""

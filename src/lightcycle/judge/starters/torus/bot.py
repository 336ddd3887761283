"""A first bot for the Scheme course's torus duel, in Python (the sexp protocol).

Your bot speaks first: its name on one line. The judge then sends the board's size as a
pair ``(W . H)`` and the walls as one list of pairs ``((X . Y) ...)`` (``()``: none).
Each turn it sends your position ``(X . Y)``, then your opponent's, one per line: answer
``n``, ``e``, ``s`` or ``w`` (y grows downwards, so north is y - 1). At the end it sends
``win``, ``loss`` or ``draw``. The board wraps round (a torus): leaving it on one side
brings you back on the other. Only positions are sent, so the bot remembers every cell
it has seen taken: each position becomes trail when its cycle moves on.

How it plays: of the free cells next to it, it takes the one from which it reaches the
most cells before its opponent can (its "land": a breadth-first race), keeping away
from the cells the opponent could enter on the same turn (both in one cell: a draw).
Between cells with as much land it hugs walls and trails, so that it fills its room
without leaving holes. Make it smarter from here.

Try it:  lightcycle match --map torus-20 --bot 'cmd:python3 bot.py' --bot builtin:random
         --protocol sexp
Print to stderr to debug: stdout carries your answers only.
"""

import re
import sys

# (answer, dx, dy): y grows downwards, so north is y - 1
HEADINGS = [("n", 0, -1), ("e", 1, 0), ("s", 0, 1), ("w", -1, 0)]
PAIR = re.compile(r"\(\s*(-?\d+)\s+\.\s+(-?\d+)\s*\)")  # (X . Y)

Cell = tuple[int, int]  # (x, y)


def pairs(line: str) -> list[Cell]:
    """Every ``(X . Y)`` pair of a line, in order."""
    return [(int(x), int(y)) for x, y in PAIR.findall(line)]


def free_cells(here: Cell, taken: set[Cell], size: Cell) -> list[tuple[str, Cell]]:
    """The free cells next to ``here`` on the torus, with the answer that goes there."""
    x, y = here
    found = []
    for answer, dx, dy in HEADINGS:
        c = ((x + dx) % size[0], (y + dy) % size[1])
        if c not in taken:
            found.append((answer, c))
    return found


def distances(start: Cell, taken: set[Cell], size: Cell, limit: dict[Cell, int]) -> dict[Cell, int]:
    """Moves from ``start`` to each free cell it reaches strictly before ``limit`` says
    the opponent does (a breadth-first search)."""
    dist = {start: 0}
    todo = [start]
    for here in todo:  # todo grows as we go: each cell in the order it was reached
        for _, c in free_cells(here, taken, size):
            if c not in dist and dist[here] + 1 < limit.get(c, 1_000_000):
                dist[c] = dist[here] + 1
                todo.append(c)
    return dist


def choose(me: Cell, other: Cell, taken: set[Cell], size: Cell) -> str:
    """The answer this turn (north when every way is blocked)."""
    theirs = distances(other, taken, size, {})  # how soon the opponent gets to each cell
    best, best_score = "n", (-1, 0)
    for answer, c in free_cells(me, taken, size):
        # my land from c: c is one move away, and the opponent starts moving now
        land = len(distances(c, taken, size, {k: v - 1 for k, v in theirs.items()}))
        if theirs.get(c) == 1:  # the opponent could step here too: both would crash
            land //= 4
        score = (land, -len(free_cells(c, taken, size)))  # most land, then fewest exits
        if score > best_score:
            best, best_score = answer, score
    return best


def main() -> None:
    print("Starter", flush=True)  # our name; flush: the judge waits for it
    (size,) = pairs(sys.stdin.readline())
    taken = set(pairs(sys.stdin.readline()))  # the walls
    while True:
        line = sys.stdin.readline()
        if not line or line.strip() in ("win", "loss", "draw"):
            return  # the game is over
        me, other = pairs(line)[0], pairs(sys.stdin.readline())[0]
        taken.update((me, other))  # both heads leave a trail
        print(choose(me, other, taken, size), flush=True)


main()

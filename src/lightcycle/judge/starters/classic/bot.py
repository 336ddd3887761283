"""A first bot for the classic duel (the 2010 AI challenge's tron2010 protocol).

Every turn the judge writes the whole map: a line ``W H``, then ``H`` rows of ``W``
characters: ``1`` is you, ``2`` your opponent, ``#`` a wall or a trail, a space is
free floor. You answer one digit: 1 north, 2 east, 3 south, 4 west (y grows downwards,
so north is y - 1). Nothing marks the end of a game: your input just ends.

How it plays: of the free cells next to it, it takes the one from which it reaches the
most cells before its opponent can (its "land": a breadth-first race), keeping away from
the cells the opponent could enter on the same turn (both cycles in one cell: a draw).
Between cells with as much land it hugs walls and trails (the cell with the fewest free
neighbours), so that it fills its room without leaving holes. Make it smarter from here:
look a few moves ahead.

Try it:  lightcycle match --map chambers --bot 'cmd:python3 bot.py' --bot builtin:random
         --protocol tron2010
Print to stderr to debug: stdout carries your moves only.
"""

import sys

# (answer, dx, dy) for north, east, south and west
HEADINGS = [("1", 0, -1), ("2", 1, 0), ("3", 0, 1), ("4", -1, 0)]

Cell = tuple[int, int]  # (x, y)


def read_map() -> list[str] | None:
    """One turn's map as a list of rows; None when the game is over (no more input)."""
    line = sys.stdin.readline()
    while line and not line.strip():  # skip blank lines between maps
        line = sys.stdin.readline()
    if not line:
        return None
    width, height = map(int, line.split())
    # keep the spaces at the end of a row: they are floor
    return [sys.stdin.readline().rstrip("\r\n").ljust(width, "#") for _ in range(height)]


def find(rows: list[str], char: str) -> Cell:
    """Where ``char`` (1: me, 2: the opponent) is on the map, as (x, y)."""
    for y, row in enumerate(rows):
        if char in row:
            return row.index(char), y
    return 0, 0


def distances(rows: list[str], start: Cell, limit: dict[Cell, int]) -> dict[Cell, int]:
    """Moves from ``start`` to each free cell it reaches strictly before ``limit`` says the
    opponent does (a breadth-first search)."""
    dist = {start: 0}
    todo = [start]
    for x, y in todo:  # todo grows as we go: each cell in the order it was reached
        for _, dx, dy in HEADINGS:
            cell = (x + dx, y + dy)
            if (
                cell not in dist
                and rows[cell[1]][cell[0]] == " "
                and dist[(x, y)] + 1 < limit.get(cell, 1_000_000)
            ):
                dist[cell] = dist[(x, y)] + 1
                todo.append(cell)
    return dist


def choose(rows: list[str]) -> str:
    """The heading to take this turn (north when every way is blocked)."""
    (x, y), opponent = find(rows, "1"), find(rows, "2")
    theirs = distances(rows, opponent, {})  # how soon the opponent gets to each cell
    ahead = {cell: moves - 1 for cell, moves in theirs.items()}  # we are one move behind
    best, best_score = "1", (-1, 0)
    for answer, dx, dy in HEADINGS:
        nx, ny = x + dx, y + dy
        if rows[ny][nx] != " ":  # a wall, a trail or a head: never go there
            continue
        land = len(distances(rows, (nx, ny), ahead))
        if theirs.get((nx, ny)) == 1:  # the opponent could step here too
            land //= 4
        exits = sum(rows[ny + ey][nx + ex] == " " for _, ex, ey in HEADINGS)
        score = (land, -exits)  # the most land first, then the fewest exits
        if score > best_score:
            best, best_score = answer, score
    return best


while (rows := read_map()) is not None:
    print(choose(rows), flush=True)  # flush: the judge waits for your answer

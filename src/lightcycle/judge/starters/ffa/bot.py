"""A first bot for the free-for-all (the aichallenge protocol: 2 to 26 players).

The judge first sends the set-up, one ``key value`` line each (``no_rows``, ``no_cols``,
``bot_id``: your player number, ``wrap 1`` on a torus...), then ``map`` and the rows
(``.`` floor, ``%`` wall, ``a``, ``b``... the players' cycles) and ``ready``: answer
``go``. Each turn it sends ``turn N``, one line ``p ID ROW COL`` per player still in the
game and ``go``: answer ``n``, ``e``, ``s`` or ``w``. ``end`` says your game is over.
Only heads are sent, so the bot remembers every cell it has seen taken: a trail stays.

How it plays: of the free cells next to it, it takes the one from which it reaches the
most cells before any other cycle can (its "land": a breadth-first race against every
other head), keeping away from the cells another head could enter on the same turn (two
cycles in one cell both crash). Between cells with as much land it hugs walls and
trails, so that it fills its room without leaving holes. Make it smarter from here.

Try it:  lightcycle match --map ffa4 --bot 'cmd:python3 bot.py' --bot builtin:random
         --bot builtin:random --bot builtin:random --protocol aichallenge
Print to stderr to debug: stdout carries your answers only.
"""

import sys

# (answer, dx, dy): rows grow downwards, so north is y - 1
HEADINGS = [("n", 0, -1), ("e", 1, 0), ("s", 0, 1), ("w", -1, 0)]

Cell = tuple[int, int]  # (x, y)
params: dict[str, str] = {}  # the set-up's key value lines
taken: set[Cell] = set()  # walls, trails and heads, as (x, y)
width = height = 0
wrap = False


def cell(x: int, y: int) -> Cell | None:
    """The cell at (x, y), wrapped round a torus; None when off a walled map."""
    if wrap:
        return x % width, y % height
    return (x, y) if 0 <= x < width and 0 <= y < height else None


def free_cells(x: int, y: int) -> list[tuple[str, Cell]]:
    """The free cells next to (x, y), with the answer that goes there."""
    found = []
    for answer, dx, dy in HEADINGS:
        c = cell(x + dx, y + dy)
        if c is not None and c not in taken:
            found.append((answer, c))
    return found


def distances(starts: list[Cell], limit: dict[Cell, int]) -> dict[Cell, int]:
    """Moves from the nearest of ``starts`` to each free cell it reaches strictly before
    ``limit`` says another cycle does (a breadth-first search)."""
    dist = dict.fromkeys(starts, 0)
    todo = list(starts)
    for here in todo:  # todo grows as we go: each cell in the order it was reached
        for _, c in free_cells(*here):
            if c not in dist and dist[here] + 1 < limit.get(c, 1_000_000):
                dist[c] = dist[here] + 1
                todo.append(c)
    return dist


def choose(me: Cell, others: list[Cell]) -> str:
    """The answer this turn (north when every way is blocked)."""
    theirs = distances(others, {})  # how soon the nearest other head gets to each cell
    best, best_score = "n", (-1, 0)
    for answer, c in free_cells(*me):
        # my land from c: c is one move away, and the other heads start moving now
        land = len(distances([c], {k: v - 1 for k, v in theirs.items()}))
        if theirs.get(c) == 1:  # another head could step here too: both would crash
            land //= 4
        score = (land, -len(free_cells(*c)))  # the most land, then the fewest exits
        if score > best_score:
            best, best_score = answer, score
    return best


heads: dict[int, Cell] = {}
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "map":  # the rows follow, up to "ready"
        width, height = int(params["no_cols"]), int(params["no_rows"])
        wrap = params.get("wrap") == "1"
        for y in range(height):
            for x, char in enumerate(sys.stdin.readline().strip()):
                if char != ".":  # a wall or a cycle
                    taken.add((x, y))
    elif words[0] == "ready":
        print("go", flush=True)  # flush: the judge waits for your answer
    elif words[0] == "turn":
        heads = {}
    elif words[0] == "p":  # p ID ROW COL
        head = (int(words[3]), int(words[2]))
        heads[int(words[1])] = head
        taken.add(head)
    elif words[0] == "go":
        me = heads.pop(int(params["bot_id"]))
        print(choose(me, list(heads.values())), flush=True)
    elif words[0] == "end":
        break
    elif len(words) == 2:  # a set-up line: key value
        params[words[0]] = words[1]

"""The 2010 protocol for the misbehaving bots: read one map, find a free heading."""

import sys


def read_map():
    """Rows of the next map, or None at the end of input."""
    line = sys.stdin.readline()
    if not line:
        return None
    w, h = map(int, line.split())
    return [sys.stdin.readline().rstrip("\n").ljust(w) for _ in range(h)]


def free_heading(rows):
    """A heading 1-4 into a free cell (1 if none)."""
    x = y = 0
    for i, row in enumerate(rows):
        if "1" in row:
            x, y = row.index("1"), i
            break
    for answer, (dx, dy) in zip("1234", [(0, -1), (1, 0), (0, 1), (-1, 0)], strict=True):
        if rows[y + dy][x + dx] == " ":
            return answer
    return "1"


def answer(text):
    sys.stdout.write(text)
    sys.stdout.flush()


def play(turns=None):
    """Play sensibly for ``turns`` turns (all if None); return False at end of input."""
    n = 0
    while turns is None or n < turns:
        rows = read_map()
        if rows is None:
            return False
        answer(free_heading(rows) + "\n")
        n += 1
    return True

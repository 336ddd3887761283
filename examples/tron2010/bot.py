#!/usr/bin/env python3
# Starter bot for the tron2010 protocol (the 2010 AI challenge). Python 3.11, standard
# library only. Run it against a built-in bot, from the repository root:
#
#   lightcycle match --map ring --bot 'cmd:python3 examples/tron2010/bot.py' \
#       --bot builtin:chaser --protocol tron2010
#
# Every turn the referee writes "W H" and then H rows of W characters: '1' is this bot,
# '2' the opponent, '#' a wall or a trail, ' ' the floor. The bot answers one character:
# 1 north, 2 east, 3 south, 4 west (y grows downwards, so north is y - 1). Nothing marks
# the start or the end of a game: the referee just closes stdin.
#
# stdout carries the moves only: write diagnostics to stderr.

import sys

# (answer, dx, dy) for north, east, south and west
HEADINGS = [("1", 0, -1), ("2", 1, 0), ("3", 0, 1), ("4", -1, 0)]


def read_map():
    """Read one turn's map: a list of rows, or None at the end of input."""
    line = sys.stdin.readline()
    while line and not line.strip():  # tolerate blank lines between maps
        line = sys.stdin.readline()
    if not line:
        return None
    width, height = map(int, line.split())
    rows = []
    for _ in range(height):
        row = sys.stdin.readline().rstrip("\r\n")  # keep the spaces: they are the floor
        rows.append(row.ljust(width, "#")[:width])
    return rows


def is_free(rows, x, y):
    """Whether (x, y) is on the map and holds floor (no wall, trail or head)."""
    return 0 <= y < len(rows) and 0 <= x < len(rows[y]) and rows[y][x] == " "


def choose(rows):
    """The heading into a free cell with the most free neighbours; north if none."""
    me = next(((row.index("1"), y) for y, row in enumerate(rows) if "1" in row), (0, 0))
    best, best_score = "1", -1
    for answer, dx, dy in HEADINGS:
        x, y = me[0] + dx, me[1] + dy
        if not is_free(rows, x, y):
            continue
        score = sum(is_free(rows, x + ex, y + ey) for _, ex, ey in HEADINGS)
        if score > best_score:
            best, best_score = answer, score
    return best


def main():
    turn = 0
    while (rows := read_map()) is not None:
        turn += 1
        move = choose(rows)
        sys.stdout.write(move + "\n")
        sys.stdout.flush()  # the referee waits for the answer: never leave it buffered
        print(f"turn {turn}: answered {move}", file=sys.stderr)
    print(f"end of input after {turn} turns", file=sys.stderr)


if __name__ == "__main__":
    main()

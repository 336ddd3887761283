#!/usr/bin/env python3
# Starter bot for the sexp protocol (the Scheme course: Scheme data on lines). Python
# 3.11, standard library only. Run it against a built-in bot, from the repository root:
#
#   lightcycle match --map torus-20 --bot 'cmd:python3 examples/sexp/bot.py' \
#       --bot builtin:chaser --protocol sexp
#
# We speak first: our name on one line. Then the referee sends the board size "(W . H)"
# and the walls "((X . Y) (X . Y) ...)" (maybe "()"), then each turn our position
# "(X . Y)" and the opponent's, one per line; we answer n, e, s or w on a line. At the end
# it sends "win", "loss" or "draw" instead of a position: then we stop.
# The board is a torus: leaving one edge comes back in at the opposite edge. Only
# positions are sent, so the bot remembers every cell it has seen taken: the trails.
#
# stdout carries the answers only: write diagnostics to stderr.

import re
import sys

NAME = "StarterPy"
PAIR = re.compile(r"\(\s*(-?\d+)\s*\.\s*(-?\d+)\s*\)")  # (X . Y)
# (answer, dx, dy): y grows downwards, so north is y - 1
MOVES = [("n", 0, -1), ("e", 1, 0), ("s", 0, 1), ("w", -1, 0)]


def read_pair():
    """Read a line "(X . Y)" as (x, y); None for win/loss/draw or the end of input."""
    line = sys.stdin.readline()
    m = PAIR.search(line)
    if m is None:
        print(f"game over: {line.strip() or 'end of input'}", file=sys.stderr)
        return None
    return int(m[1]), int(m[2])


def choose(me, blocked, width, height):
    """The move into a free cell with the most free neighbours; north if none."""

    def is_free(x, y):
        return (x % width, y % height) not in blocked  # % wraps round the torus

    best, best_score = "n", -1
    for move, dx, dy in MOVES:
        x, y = me[0] + dx, me[1] + dy
        if not is_free(x, y):
            continue
        score = sum(is_free(x + ex, y + ey) for _, ex, ey in MOVES)
        if score > best_score:
            best, best_score = move, score
    return best


def main():
    print(NAME, flush=True)  # the referee waits for our name before anything else
    size = read_pair()
    if size is None:
        return
    width, height = size
    blocked = {(int(x), int(y)) for x, y in PAIR.findall(sys.stdin.readline())}
    print(f"board {width}x{height}, {len(blocked)} walls", file=sys.stderr)
    turn = 0
    while (me := read_pair()) is not None and (him := read_pair()) is not None:
        turn += 1
        blocked.add(me)
        blocked.add(him)
        move = choose(me, blocked, width, height)
        print(move, flush=True)
        print(f"turn {turn}: at {me}, answered {move}", file=sys.stderr)


if __name__ == "__main__":
    main()

"""A tron2010 bot that takes its time: 0.02 s a move, so a series lasts long enough to be
interrupted. Any arguments are ignored: a test passes a marker path, to find the bot's
processes by their command line afterwards.
"""

import sys
import time

HEADINGS = [("1", 0, -1), ("2", 1, 0), ("3", 0, 1), ("4", -1, 0)]


def main() -> None:
    while line := sys.stdin.readline():
        width, height = map(int, line.split())
        rows = [sys.stdin.readline().rstrip("\n").ljust(width) for _ in range(height)]
        y = next(i for i, row in enumerate(rows) if "1" in row)
        x = rows[y].index("1")
        answer = next((a for a, dx, dy in HEADINGS if rows[y + dy][x + dx] == " "), "1")
        time.sleep(0.02)
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


main()

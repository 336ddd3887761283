"""A 2010-protocol bot that follows a script given on its command line, for referee tests.

Each argument is one turn: ``1``-``4`` answers that heading, ``H+SECONDS`` (``1+0.3``)
answers it after waiting that long, ``garbage`` answers ``x``, ``crash`` exits with
status 3, ``sleep`` never answers. After the script it answers ``1`` (north) every turn.
"""

import sys
import time


def main() -> None:
    script = sys.argv[1:]
    turn = 0
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        h = int(line.split()[1])
        for _ in range(h):
            sys.stdin.readline()
        action = script[turn] if turn < len(script) else "1"
        turn += 1
        if action == "crash":
            sys.exit(3)
        if action == "sleep":
            time.sleep(3600)
        if "+" in action:
            action, wait = action.split("+")
            time.sleep(float(wait))
        sys.stdout.write(("x" if action == "garbage" else action) + "\n")
        sys.stdout.flush()


main()

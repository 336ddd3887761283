#!/usr/bin/env python3
# Starter bot for the aichallenge protocol (turn / go, 2 to 26 players). Python 3.11,
# standard library only. Run it against built-in bots, from the repository root:
#
#   lightcycle match --map ring --bot 'cmd:python3 examples/aichallenge/bot.py' \
#       --bot builtin:chaser --protocol aichallenge
#   lightcycle match --map ffa4 --bot 'cmd:python3 examples/aichallenge/bot.py' \
#       --bot builtin:chaser --bot builtin:random --bot builtin:wallhugger --protocol aichallenge
#
# Set-up: "turn 0", "key value" lines (loadtime, turntime, no_rows, no_cols, no_players,
# bot_id and maybe keys we do not know: ignore those), "map", the rows ('.' floor,
# '%' wall, 'a', 'b'... the starts of players 0, 1...), "ready". We answer "go".
# Each turn: "turn N", one "p ID ROW COL" line per live player, "go"; we answer n, e, s
# or w on a line. "end" means the game is over for us: exit.
# Only positions are sent, so the bot remembers every cell it has seen taken: the trails.
# Moving off the grid kills, so off-grid cells count as blocked.
#
# stdout carries the answers only: write diagnostics to stderr.

import sys

# (answer, drow, dcol): row 0 is the top, so north is row - 1
MOVES = [("n", -1, 0), ("e", 0, 1), ("s", 1, 0), ("w", 0, -1)]


def answer(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()  # the referee waits for the answer: never leave it buffered


def choose(me, blocked, rows, cols):
    """The move into a free cell with the most free neighbours; north if none."""

    def is_free(r, c):
        return 0 <= r < rows and 0 <= c < cols and (r, c) not in blocked

    best, best_score = "n", -1
    for move, dr, dc in MOVES:
        r, c = me[0] + dr, me[1] + dc
        if not is_free(r, c):
            continue
        score = sum(is_free(r + er, c + ec) for _, er, ec in MOVES)
        if score > best_score:
            best, best_score = move, score
    return best


def main():
    params = {}  # every "key value" line of the set-up, known or not
    blocked = set()  # (row, col) of walls, starts and trails
    me = (0, 0)
    turn = 0
    while line := sys.stdin.readline():
        words = line.split()
        if not words:
            continue
        key = words[0]
        if key == "turn":
            turn = int(words[1])
        elif key == "map":
            for r in range(int(params["no_rows"])):
                for c, ch in enumerate(sys.stdin.readline().strip()):
                    if ch != ".":  # '%' is a wall, a letter a player's start
                        blocked.add((r, c))
        elif key == "ready":
            print(f"set-up: {params}", file=sys.stderr)
            answer("go")
        elif key == "p":
            player, r, c = (int(w) for w in words[1:4])
            blocked.add((r, c))
            if player == int(params["bot_id"]):
                me = (r, c)
        elif key == "go":
            move = choose(me, blocked, int(params["no_rows"]), int(params["no_cols"]))
            answer(move)
            print(f"turn {turn}: at {me}, answered {move}", file=sys.stderr)
        elif key == "end":
            print(f"game over after turn {turn}", file=sys.stderr)
            break
        else:
            params[key] = " ".join(words[1:])


if __name__ == "__main__":
    main()

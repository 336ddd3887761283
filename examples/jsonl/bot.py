#!/usr/bin/env python3
# Starter bot for the jsonl protocol (lightcycle's own: one JSON object per line).
# Python 3.11, standard library only. Run it against a built-in bot, from the repository
# root:
#
#   lightcycle match --map arena-15 --bot 'cmd:python3 examples/jsonl/bot.py' \
#       --bot builtin:chaser --protocol jsonl
#
# Every message has a "type": "start" (the board, our "seat", the cycles), "turn" (the
# heads of all cycles), "out" (we have no cycle left), "end" (the "result"). We answer
# each turn with {"move": "n"} (or "e", "s", "w"), or {"moves": {"ID": "n", ...}} when
# our seat steers several cycles. After "end" another "start" may follow: the same
# process plays the next game. This bot plays grid boards (walled or wrapping).
# Only heads are sent each turn, so the bot remembers every cell it has seen taken.
#
# stdout carries the answers only: write diagnostics to stderr.

import json
import sys

# (answer, dx, dy): y grows downwards, so north is y - 1
MOVES = [("n", 0, -1), ("e", 1, 0), ("s", 0, 1), ("w", -1, 0)]


class Game:
    """What we know of the game being played."""

    def __init__(self, start):
        board = start["board"]
        if board["kind"] != "grid":
            sys.exit("this starter bot plays grid boards only")
        self.width, self.height, self.wrap = board["width"], board["height"], board["wrap"]
        self.seat = start["seat"]
        self.blocked = {tuple(xy) for xy in board["walls"]}
        self.see(start["cycles"])

    def see(self, cycles):
        """Every head is taken for good: it becomes part of a trail."""
        self.blocked.update(tuple(c["head"]) for c in cycles)

    def cell(self, x, y):
        """The cell at (x, y), wrapped on a torus; None if off a walled board."""
        if self.wrap:
            return x % self.width, y % self.height
        return (x, y) if 0 <= x < self.width and 0 <= y < self.height else None

    def is_free(self, x, y, taken=()):
        c = self.cell(x, y)
        return c is not None and c not in self.blocked and c not in taken

    def choose(self, head, taken):
        """The move into a free cell with the most free neighbours; north if none."""
        best, best_score = "n", -1
        for move, dx, dy in MOVES:
            x, y = head[0] + dx, head[1] + dy
            if not self.is_free(x, y, taken):
                continue
            score = sum(self.is_free(x + ex, y + ey, taken) for _, ex, ey in MOVES)
            if score > best_score:
                best, best_score = move, score
        return best

    def answer(self, cycles):
        """The reply to a turn: one move per live cycle of our seat."""
        moves, taken = {}, set()  # taken: where our other cycles go this turn
        for c in cycles:
            if c["team"] == self.seat and c["alive"]:
                move = self.choose(c["head"], taken)
                moves[str(c["id"])] = move
                _, dx, dy = MOVES["nesw".index(move)]
                taken.add(self.cell(c["head"][0] + dx, c["head"][1] + dy))
        if len(moves) == 1:
            return {"move": next(iter(moves.values()))}
        return {"moves": moves}


def main():
    game = None
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "start":
            game = Game(msg)  # a new game: forget everything about the last one
            print(f"start: seat {game.seat}, {game.width}x{game.height}", file=sys.stderr)
        elif kind == "turn":
            game.see(msg["cycles"])
            reply = json.dumps(game.answer(msg["cycles"]), separators=(",", ":"))
            print(reply, flush=True)  # the referee waits for the answer: never leave it buffered
            print(f"turn {msg['turn']}: {reply}", file=sys.stderr)
        elif kind == "out":
            print("out: no cycle left", file=sys.stderr)
        elif kind == "end":
            print(f"end: {msg['result']} ({msg.get('reason', '')})", file=sys.stderr)
            game = None


if __name__ == "__main__":
    main()

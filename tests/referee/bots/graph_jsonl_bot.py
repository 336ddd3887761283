#!/usr/bin/env python3
"""A jsonl test bot for graph boards (tron3d@1): stdlib only, several cycles per seat.

Each turn it answers for every cycle of its seat whose "moving" is true, keyed by cycle
NAME when the cycle has one, else by id, listing its cycles in reverse id order (so the
referee's keeping of the listed order is exercised). Each cycle steps to a neighbour
that holds no head and that it has not seen taken (every head it has seen counts as
taken for good), preferring neighbours with more such neighbours; it uses an item it
holds every fifth turn.
"""

import json
import sys


def main():
    edges = {}
    seen = set()
    seat = None
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "start":
            board = msg["board"]
            if board["kind"] != "graph":
                sys.exit("graph boards only")
            edges = {v: set() for v in range(board["nodes"])}
            for a, b in board["edges"]:
                edges[a].add(b)
                edges[b].add(a)
            seen = set(board["walls"]) | {c["head"] for c in msg["cycles"]}
            seat = msg["seat"]
        elif kind == "turn":
            seen.update(c["head"] for c in msg["cycles"])
            moves = {}
            claimed = set()
            mine = [c for c in msg["cycles"] if c["team"] == seat and c["moving"]]
            for c in sorted(mine, key=lambda c: -c["id"]):
                options = [v for v in sorted(edges[c["head"]]) if v not in seen | claimed]
                options.sort(key=lambda v: -len(edges[v] - seen - claimed))
                to = options[0] if options else sorted(edges[c["head"]])[0]
                claimed.add(to)
                move = {"to": to}
                if c["item"] and msg["turn"] % 5 == 0:
                    move["use_item"] = True
                moves[c["name"] or str(c["id"])] = move
            sys.stdout.write(json.dumps({"moves": moves}) + "\n")
            sys.stdout.flush()
        elif kind == "end":
            seen = set()


if __name__ == "__main__":
    main()

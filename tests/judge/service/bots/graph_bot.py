"""A jsonl program for graph boards (tron3d): each cycle takes the free neighbour with
the most room it can reach (a flood fill), avoiding nodes next to other heads."""

import json
import sys


def main() -> None:
    nbrs: list[list[int]] = []
    taken: set[int] = set()
    seat = 0
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "start":
            board = m["board"]
            nbrs = [[] for _ in range(board["nodes"])]
            for a, b in board["edges"]:
                nbrs[a].append(b)
                nbrs[b].append(a)
            taken = set(board["walls"])
            seat = m["seat"]
        elif m["type"] == "turn":
            cycles = m["cycles"]
            taken.update(c["head"] for c in cycles)
            others = {c["head"] for c in cycles if c["team"] != seat and c["alive"]}
            danger = {d for h in others for d in nbrs[h]}
            moves = {}
            for c in cycles:
                if c["team"] != seat or not c["alive"] or not c["moving"]:
                    continue
                free = [d for d in nbrs[c["head"]] if d not in taken]
                best = max(
                    free, key=lambda d: (d not in danger, room(nbrs, taken, d)), default=None
                )
                dest = best if best is not None else nbrs[c["head"]][0]
                taken.add(dest)
                moves[str(c["id"])] = dest
            print(json.dumps({"moves": moves}), flush=True)


def room(nbrs: list[list[int]], taken: set[int], start: int) -> int:
    seen = {start}
    todo = [start]
    while todo and len(seen) < 150:
        for d in nbrs[todo.pop()]:
            if d not in seen and d not in taken:
                seen.add(d)
                todo.append(d)
    return len(seen)


main()

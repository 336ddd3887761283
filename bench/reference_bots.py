"""The variants' reference bots: is each rung of the team course clear, and is
the 3D course's ``dummy`` easy to beat?

Plays ``--games`` games per pairing on a team map (default ``court``, the tournament
size), seats swapped every other game, seeds 0, 1, 2 ...; prints wins, draws and losses
of the first bot of each pairing. Then ``--games`` tron3d games on ``icosphere`` of a
ten-line first bot (`FirstBot`, below: each cycle steps to the free neighbour with the
most free neighbours) against three ``dummy`` bots, rotating its seat; a win is a first
place alone. The bots are deterministic for a seed, so the figures repeat exactly.

Run from the repository root::

    python bench/reference_bots.py [--games 20] [--map court]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from lightcycle.bots.api import Bot  # noqa: E402
from lightcycle.referee.local import play  # noqa: E402
from lightcycle.rules.observe import View  # noqa: E402


class FirstBot(Bot):
    """What a student writes first: each cycle to the free neighbour with most free ones."""

    name = "FirstBot"

    def move(self, view: View) -> dict[int, int]:
        taken = view.state.occupied
        answer = {}
        for c in view.moving_cycles:
            free = [d for d in view.neighbours(c.head) if not (taken >> d) & 1]
            if not free:
                answer[c.index] = view.neighbours(c.head)[0]
                continue
            best = max(free, key=lambda d: sum(not (taken >> e) & 1 for e in view.neighbours(d)))
            answer[c.index] = best
            taken |= 1 << best
        return answer


PAIRINGS = [("lookbot", "linebot"), ("linebot", "randombot"), ("lookbot", "randombot")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--map", default="court")
    args = parser.parse_args()
    print(f"teams@1 on {args.map}, {args.games} games per pairing, seats swapped")
    print(f"{'pairing':24} {'W':>4} {'D':>4} {'L':>4} {'avg turns':>10} {'s/game':>7}")
    for a, b in PAIRINGS:
        w = d = lost = turns = 0
        t0 = time.perf_counter()
        for seed in range(args.games):
            swap = seed % 2 == 1
            bots = [b, a] if swap else [a, b]
            result = play(args.map, bots, seed=seed, ruleset="teams")
            me = 1 if swap else 0
            turns += result.final.turn
            if result.outcome.winner is None:
                d += 1
            elif result.outcome.winner == me:
                w += 1
            else:
                lost += 1
        per = (time.perf_counter() - t0) / args.games
        print(f"{a + ' v ' + b:24} {w:4d} {d:4d} {lost:4d} {turns / args.games:10.0f} {per:7.2f}")
    print(f"\ntron3d@1 on icosphere, {args.games} games, FirstBot against three dummies")
    firsts = 0
    for seed in range(args.games):
        seat = seed % 4
        bots: list[object] = ["dummy"] * 4
        bots[seat] = FirstBot
        result = play("icosphere", bots, seed=seed, ruleset="tron3d")  # type: ignore[arg-type]
        firsts += result.outcome.winner == seat
    print(f"FirstBot first alone in {firsts} of {args.games} games")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The team course's reference bots against each other (issue 4): is each rung clear?

Plays ``--games`` games per pairing on a team map (default ``court``, the tournament
size), seats swapped every other game, seeds 0, 1, 2 ...; prints wins, draws and losses
of the first bot of each pairing. The bots are deterministic for a seed, so the figures
repeat exactly.

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

from lightcycle.referee.local import play  # noqa: E402

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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

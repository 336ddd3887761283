"""Variant speed: turns per second of teams@1 and tron3d@1 beside the classic duel.

Each column plays whole games through the public engine (``new_game`` then ``step`` until
the outcome), every cycle that moves this turn choosing a uniformly random move into a
free cell (any legal move when none is free), as the test suite's random players do:

- ``classic``: classic@1 on ``arena-30`` (two cycles), the baseline;
- ``teams``: teams@1 on ``court`` (64x48, two teams of ten cycles with jumps; each turn
  the teams are handed random CPU times, so the priority order varies);
- ``tron3d``: tron3d@1 on ``icosphere`` with four players of two cycles (turbo rounds,
  items, scores).

A variant turn moves more cycles than a duel turn, so the table shows turns/s and cycle
moves/s, and the ratio of each against the classic column measured in the same run.
Columns play for ``--seconds`` each, interleaved ``--repeats`` times; medians are shown.

Run from the repository root::

    python bench/variant_speed.py [--seconds 1.0] [--repeats 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from lightcycle.maps.registry import get_map  # noqa: E402
from lightcycle.rules.engine import new_game, step  # noqa: E402
from lightcycle.rules.legal import legal_moves, moves_this_turn, safe_moves  # noqa: E402

COLUMNS: dict[str, tuple[str, str, int]] = {
    "classic": ("classic", "arena-30", 2),
    "teams": ("teams", "court", 2),
    "tron3d": ("tron3d", "icosphere", 4),
}


def play_for(name: str, seconds: float, seed: int) -> tuple[int, int, int]:
    """Play games of column ``name`` for about ``seconds``; return (turns, moves, games)."""
    ruleset, map_name, players = COLUMNS[name]
    spec = get_map(map_name)
    rng = random.Random(seed)
    choice = rng.choice
    cpu_rng = random.Random(seed + 1)
    measures_cpu = ruleset == "teams"
    turns = moves_made = games = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        state = new_game(ruleset, spec, seed=rng.randrange(1 << 30), players=players)
        while state.outcome is None:
            moves = {}
            for c in state.cycles:
                if moves_this_turn(state, c.index):
                    options = safe_moves(state, c.index) or legal_moves(state, c.index)
                    moves[c.index] = choice(options)
            cpu = (cpu_rng.randrange(100), cpu_rng.randrange(100)) if measures_cpu else None
            state = step(state, moves, cpu)
            turns += 1
            moves_made += len(moves)
        games += 1
    return turns, moves_made, games


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=1.0, help="time slice per column")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repetitions")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    rates: dict[str, list[tuple[float, float]]] = {k: [] for k in COLUMNS}
    games: dict[str, int] = dict.fromkeys(COLUMNS, 0)
    for r in range(args.repeats):
        for name in COLUMNS:
            t0 = time.perf_counter()
            turns, moves, g = play_for(name, args.seconds, args.seed + r)
            dt = time.perf_counter() - t0
            rates[name].append((turns / dt, moves / dt))
            games[name] += g
    result: dict[str, Any] = {"repeats": args.repeats, "seconds": args.seconds, "columns": {}}
    base_turns = statistics.median(t for t, _ in rates["classic"])
    base_moves = statistics.median(m for _, m in rates["classic"])
    for name, values in rates.items():
        t = [v[0] for v in values]
        m = [v[1] for v in values]
        result["columns"][name] = {
            "ruleset_map": f"{COLUMNS[name][0]} on {COLUMNS[name][1]}",
            "turns_per_s": statistics.median(t),
            "turns_min": min(t),
            "turns_max": max(t),
            "moves_per_s": statistics.median(m),
            "games": games[name],
            "turns_vs_classic": statistics.median(t) / base_turns,
            "moves_vs_classic": statistics.median(m) / base_moves,
        }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"median of {args.repeats} interleaved slices of {args.seconds} s")
    print(
        f"{'column':8} {'ruleset on map':22} {'turns/s':>9} {'(min-max)':>15} "
        f"{'moves/s':>9} {'turns vs classic':>17} {'moves vs classic':>17} {'games':>6}"
    )
    for name, c in result["columns"].items():
        span = f"({c['turns_min']:.0f}-{c['turns_max']:.0f})"
        print(
            f"{name:8} {c['ruleset_map']:22} {c['turns_per_s']:9.0f} {span:>15} "
            f"{c['moves_per_s']:9.0f} {c['turns_vs_classic']:16.2f}x "
            f"{c['moves_vs_classic']:16.2f}x {c['games']:6d}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Strength of `MultiStrong` in the multi-player variants against their reference bots.

Plays ``--games`` games per pairing, seeds 0, 1, 2 ..., rotating Strong's seat (game g
puts it in seat ``g % players``), through the in-process referee (`lightcycle.play`):

- ``ffa`` on ``ffa4``: Strong against three copies of ``random``, ``wallhugger``,
  ``chaser`` and ``runaway`` (one pairing each);
- ``teams`` on ``court`` (64x48, ten cycles a side): Strong against ``randombot``,
  ``linebot`` and ``lookbot``;
- ``tron3d`` with four players on ``icosahedron`` and on ``cube`` (Strong against three
  ``dummy``), and with two players on ``cube`` (against one ``dummy``).

Per pairing it prints wins, draws and losses (in games of more than two players: a win
is a first place alone, a draw a shared first place), the win rate with its 95% Wilson
score interval, Strong's mean placement (1 is best) and its mean time per move (wall
clock and thread CPU time, in milliseconds). The bots are deterministic for a seed, so
the figures repeat, up to the clock.

Run from the repository root::

    python bench/strength_variants.py [--games 20] [--only ffa,teams] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from lightcycle.bots.multi import MultiStrong  # noqa: E402
from lightcycle.referee.local import play  # noqa: E402
from lightcycle.rules.observe import View  # noqa: E402


@dataclass(frozen=True)
class Pairing:
    """One line of the table: Strong against ``players - 1`` copies of ``opponent``."""

    variant: str
    ruleset: str
    map: str
    opponent: str
    players: int

    @property
    def label(self) -> str:
        """``ffa4: 3x chaser`` or ``court: lookbot``."""
        many = f"{self.players - 1}x " if self.players > 2 else ""
        return f"{self.map}/{self.players}p: {many}{self.opponent}"


PAIRINGS = [
    *(Pairing("ffa", "ffa", "ffa4", o, 4) for o in ("random", "wallhugger", "chaser", "runaway")),
    *(Pairing("teams", "teams", "court", o, 2) for o in ("randombot", "linebot", "lookbot")),
    Pairing("tron3d", "tron3d", "icosahedron", "dummy", 4),
    Pairing("tron3d", "tron3d", "cube", "dummy", 4),
    Pairing("tron3d", "tron3d", "cube", "dummy", 2),
]


class TimedStrong(MultiStrong):
    """`MultiStrong` that records the wall-clock and CPU time of every move."""

    def __init__(self) -> None:
        super().__init__()
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def move(self, view: View) -> Any:
        """Time `MultiStrong.move`."""
        w, c = time.perf_counter(), time.thread_time()
        answer = super().move(view)
        self.cpu.append(time.thread_time() - c)
        self.wall.append(time.perf_counter() - w)
        return answer


@dataclass
class Tally:
    """What one pairing produced."""

    pairing: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    places: list[int] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        """The figures as plain data (times in milliseconds)."""
        low, high = wilson(self.wins, self.games)
        return {
            "pairing": self.pairing,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": self.wins / self.games if self.games else 0.0,
            "win_rate_ci95": [low, high],
            "mean_place": sum(self.places) / len(self.places) if self.places else 0.0,
            "move_ms": 1000 * sum(self.wall) / len(self.wall) if self.wall else 0.0,
            "move_cpu_ms": 1000 * sum(self.cpu) / len(self.cpu) if self.cpu else 0.0,
            "max_move_ms": 1000 * max(self.wall) if self.wall else 0.0,
            "seconds": self.seconds,
        }


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def run(p: Pairing, games: int) -> Tally:
    """Play ``games`` games of pairing ``p``, Strong's seat rotating."""
    tally = Tally(p.label)
    t0 = time.perf_counter()
    for seed in range(games):
        seat = seed % p.players
        strong = TimedStrong()
        bots: list[Any] = [p.opponent] * p.players
        bots[seat] = strong
        result = play(p.map, bots, seed=seed, ruleset=p.ruleset)
        ranks = result.outcome.ranks
        firsts = sum(1 for r in ranks if r == 1)
        tally.games += 1
        tally.places.append(ranks[seat])
        if ranks[seat] != 1:
            tally.losses += 1
        elif firsts == 1:
            tally.wins += 1
        else:
            tally.draws += 1
        tally.wall += strong.wall
        tally.cpu += strong.cpu
    tally.seconds = time.perf_counter() - t0
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=20, help="games per pairing")
    parser.add_argument(
        "--only", default="", help="comma-separated variants or maps to play (ffa,teams,cube)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    wanted = {w.strip() for w in args.only.split(",") if w.strip()}
    chosen = [p for p in PAIRINGS if not wanted or wanted & {p.variant, p.map, p.opponent}]
    results = []
    if not args.json:
        print(
            f"MultiStrong, {args.games} games per pairing, seeds 0..{args.games - 1}, seats rotated"
        )
        print(
            f"{'pairing':30} {'W':>3} {'D':>3} {'L':>3} {'win rate':>8} {'95% CI':>13} "
            f"{'place':>5} {'ms/move':>8} {'cpu ms':>7} {'max ms':>7} {'s':>6}"
        )
    for p in chosen:
        s = run(p, args.games).summary()
        results.append(s)
        if not args.json:
            low, high = s["win_rate_ci95"]
            print(
                f"{s['pairing']:30} {s['wins']:3d} {s['draws']:3d} {s['losses']:3d} "
                f"{s['win_rate']:8.0%} {f'{low:.0%}-{high:.0%}':>13} {s['mean_place']:5.2f} "
                f"{s['move_ms']:8.1f} {s['move_cpu_ms']:7.1f} {s['max_move_ms']:7.1f} "
                f"{s['seconds']:6.0f}",
                flush=True,
            )
    if args.json:
        print(json.dumps({"games": args.games, "pairings": results}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

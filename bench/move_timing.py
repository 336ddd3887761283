"""How strong spends its clock: think time per move, depth, time-outs, and the duel.

``strong`` with the clock of `lightcycle.bots.timing` (``timing=plan``) plays
``strong:timing=legacy`` (the clock before it: 60% of the limit, the next iteration
taken to cost 3.2 times the time so far) at ``--move`` seconds a move, in side-swapped
pairs (the same map and seed with the seats swapped) on the built-in two-player maps,
for ``--minutes`` or ``--pairs`` pairs, whichever ends first. Both play in this process
through the referee (`play_game`), one game at a time; ``--hogs N`` starts N processes
that spin beside it (the load of another game on this 2-core machine).

Per side it prints the bot's own time per move (from its report: the call to the answer;
mean, median, p99, max), the referee's time per move (what the clock charges), their
difference (the referee's share of a move plus the thread's scheduling delays: what the
safety margin `timing.MARGIN` is for), the plies searched per searched move, the moves
over the limit and the time-out forfeits; then the plan side's score with its Elo and
95% interval (few pairs: noisy, read the interval).

Run from the repository root::

    python bench/move_timing.py [--minutes 10] [--pairs 1000] [--move 0.1] [--hogs 1]
        [--noise SECONDS] [--pure]

``--noise 30`` first spins a thread for 30 s beside the hogs and prints how much of each
move-long window the machine took from it (what `timing.MARGIN` is measured against).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from lightcycle.maps.spec import MapSpec  # noqa: E402
from lightcycle.referee.clock import TimeControl  # noqa: E402
from lightcycle.referee.game import GameRecord, play_game  # noqa: E402
from lightcycle.referee.players import make_player, parse_bot_spec  # noqa: E402
from lightcycle.rules.variants import get_ruleset  # noqa: E402
from lightcycle.sandbox import Limits  # noqa: E402
from lightcycle.tournament.mappool import builtin_pool  # noqa: E402

SIDES = {"plan": "builtin:strong", "legacy": "builtin:strong:timing=legacy"}


def _hog(stop: Any) -> None:
    """Spin until told to stop: one core's worth of someone else's work."""
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x += 1


class Side:
    """One clock's figures over the games."""

    def __init__(self) -> None:
        self.own_ms: list[float] = []
        self.ref_ms: list[float] = []
        self.gap_ms: list[float] = []
        self.plies: list[float] = []
        self.over = 0
        self.timeouts = 0

    def add(self, record: GameRecord, seat: int, limit: float) -> None:
        report = record.replay.reports[seat] if record.replay.reports else {}
        own = [float(x) for x in report.get("move_ms", [])]
        plies = [int(p) for p in report.get("move_plies", [])]
        times = [row[seat] for row in record.replay.times or []]
        ref = [1000.0 * t for t in times if t is not None]
        # the bot records a move only in a duel position, as the referee does from turn 0
        for i, (o, r) in enumerate(zip(own, ref[: len(own)], strict=False)):
            if i == 0:
                continue  # the first move has its own limit and pays for set-up
            self.own_ms.append(o)
            self.ref_ms.append(r)
            self.gap_ms.append(r - o)
            if r > 1000.0 * limit:
                self.over += 1
        self.plies += [p for p in plies if p > 0]
        if record.seats[seat].verdict.kind == "timeout":
            self.timeouts += 1

    def lines(self, name: str) -> list[str]:
        def pct(xs: list[float], q: float) -> float:
            if not xs:
                return math.nan
            s = sorted(xs)
            return s[min(len(s) - 1, int(q * len(s)))]

        def row(label: str, xs: list[float]) -> str:
            if not xs:
                return f"  {label:26} -"
            mean, median = statistics.fmean(xs), statistics.median(xs)
            return (
                f"  {label:26} mean {mean:6.1f}  median {median:6.1f}"
                f"  p99 {pct(xs, 0.99):6.1f}  max {max(xs):6.1f}"
            )

        depth = statistics.fmean(self.plies) if self.plies else math.nan
        return [
            f"{name}: {len(self.own_ms)} moves after the first",
            row("own time per move, ms", self.own_ms),
            row("referee's time per move, ms", self.ref_ms),
            row("referee minus own, ms", self.gap_ms),
            f"  plies per searched move     {depth:.2f}",
            f"  moves over the limit        {self.over}",
            f"  time-out forfeits           {self.timeouts}",
        ]


def noise(seconds: float, window: float) -> list[str]:
    """The scheduling noise a running thread meets: spin for ``seconds`` reading the
    clock, and per ``window`` (a move's length) add up the gaps between two readings
    longer than 0.2 ms (the time the thread was not running) and keep the longest.

    The total is how much of a move the machine takes (a bot on a wall clock just
    searches less); the longest gap is what a move can overrun its hard stop by (the
    thread is off the processor when the stop comes): the safety margin must cover the
    usual one; the rare stalls no margin can."""
    clock = time.perf_counter
    lost: list[float] = []
    longest: list[float] = []
    end = clock() + seconds
    last = clock()
    window_end = last + window
    acc = top = 0.0
    while last < end:
        now = clock()
        gap = now - last
        if gap > 0.0002:
            acc += gap
            top = max(top, gap)
        last = now
        if now >= window_end:
            lost.append(1000.0 * acc)
            longest.append(1000.0 * top)
            acc = top = 0.0
            window_end = now + window

    def line(label: str, xs: list[float]) -> str:
        s = sorted(xs)

        def q(p: float) -> float:
            return s[min(len(s) - 1, int(p * len(s)))]

        return (
            f"  {label}: median {q(0.5):.1f}  p90 {q(0.9):.1f}  p99 {q(0.99):.1f}  "
            f"p99.9 {q(0.999):.1f}  max {s[-1]:.1f}"
        )

    return [
        f"scheduling noise: {len(lost)} windows of {1000 * window:.0f} ms in {seconds:.0f} s",
        line("ms lost per window", lost),
        line("longest gap per window, ms", longest),
    ]


def _play(a: str, b: str, spec: MapSpec, seed: int, control: TimeControl) -> GameRecord:
    players = [make_player(parse_bot_spec(s), Limits(), None) for s in (a, b)]
    return play_game(players, spec, get_ruleset("classic"), seed, control)


def _elo(score: float, n: int, var: float) -> tuple[float, float, float]:
    def elo(p: float) -> float:
        p = min(max(p, 1e-6), 1 - 1e-6)
        return -400 * math.log10(1 / p - 1)

    margin = 1.96 * math.sqrt(var / n) if n else math.nan
    return elo(score), elo(score - margin), elo(score + margin)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--minutes", type=float, default=10.0, help="stop after this long")
    ap.add_argument("--pairs", type=int, default=1000, help="stop after this many pairs")
    ap.add_argument("--move", type=float, default=0.1, help="seconds per move")
    ap.add_argument("--hogs", type=int, default=1, help="spinning processes beside the games")
    ap.add_argument("--seed", type=int, default=1, help="first game seed")
    ap.add_argument(
        "--noise",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="first measure the scheduling noise this long (with the hogs running)",
    )
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--pure", action="store_true", help="pure Python (LIGHTCYCLE_NATIVE=0)")
    args = ap.parse_args(argv)
    if args.pure:
        os.environ["LIGHTCYCLE_NATIVE"] = "0"
    control = TimeControl(move=args.move, first_move=1.0)
    pool = [m for m in builtin_pool(2) if not getattr(m.topology, "wrap", False)]
    stop = multiprocessing.Event()
    hogs = [multiprocessing.Process(target=_hog, args=(stop,)) for _ in range(args.hogs)]
    for h in hogs:
        h.start()
    if args.noise > 0:
        print("\n".join(noise(args.noise, args.move)), flush=True)
    sides = {name: Side() for name in SIDES}
    pair_scores: list[float] = []
    t0 = time.perf_counter()
    try:
        for i in range(args.pairs):
            if time.perf_counter() - t0 > 60 * args.minutes:
                break
            spec = pool[i % len(pool)]
            seed = args.seed + i
            score = 0.0
            for plan_seat in (0, 1):
                seats = [SIDES["plan"], SIDES["legacy"]]
                if plan_seat == 1:
                    seats.reverse()
                rec = _play(seats[0], seats[1], spec, seed, control)
                sides["plan"].add(rec, plan_seat, args.move)
                sides["legacy"].add(rec, 1 - plan_seat, args.move)
                ranks = rec.outcome.ranks
                mine, theirs = ranks[plan_seat], ranks[1 - plan_seat]
                score += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
            pair_scores.append(score / 2)
    finally:
        stop.set()
        for h in hogs:
            h.join()
    n = len(pair_scores)
    elapsed = time.perf_counter() - t0
    load = os.getloadavg()[0]
    print(
        f"{2 * n} games ({n} side-swapped pairs) on {len(pool)} maps at {args.move * 1000:.0f} ms "
        f"a move, {args.hogs} hog(s), {elapsed:.0f} s, 1-min load {load:.1f}, "
        f"{'pure' if args.pure else 'native where installed'}"
    )
    for name, side in sides.items():
        print("\n".join(side.lines(f"{name} ({SIDES[name]})")))
    if n:
        mean = statistics.fmean(pair_scores)
        var = statistics.pvariance(pair_scores) if n > 1 else 0.25
        elo, lo, hi = _elo(mean, n, var)
        print(f"plan vs legacy: score {mean:.1%}  Elo {elo:+.0f} (95% CI {lo:+.0f} .. {hi:+.0f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

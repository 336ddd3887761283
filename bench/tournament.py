"""Tournament speed: matches per second of the runner, its scaling, its overhead.

A round robin of eight bots on the 15x15 ``arena-15`` (every ordered pair, ``--rounds``
rounds: 56 games a round), measured in the same run, ``--repeats`` times interleaved:

- ``direct``: the same games played in a plain loop in this process (`play_game` with
  players kept between games, as a pool worker keeps them): no schedule, no database,
  no ratings, no replay files. The baseline.
- ``runner -j1``: `run_tournament` with one worker (in this process): schedule, play,
  write the replay, rate, commit to SQLite (WAL), each match with its rating updates
  (the matches finished at one moment share a transaction).
- ``runner -j2`` and ``runner -jN`` (N = all cores): the same with a process pool, the
  matches sent in batches; the pool's start-up (spawning the workers, importing
  lightcycle) is part of the time.

Two sets of bots: eight instant built-in bots (in-process), and eight subprocess bots
(the Python starter of ``examples/jsonl``, a process kept per worker and bot between
games). Figures are medians (min-max) of the repeats, and ratios against the ``direct``
baseline and the one-worker runner of the same run. The per-match overhead is
``(runner -j1 - direct) / games``; its parts (commit, replay file, rating update) are
timed on their own in the same run.

Run from the repository root::

    python bench/tournament.py [--rounds 4] [--repeats 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import pickle
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from lightcycle.referee.game import play_game  # noqa: E402
from lightcycle.tournament.config import load_config  # noqa: E402
from lightcycle.tournament.plan import Plan, make_plan  # noqa: E402
from lightcycle.tournament.play import init_worker, match_result  # noqa: E402
from lightcycle.tournament.ratings import RatingBook  # noqa: E402
from lightcycle.tournament.runner import run_tournament  # noqa: E402
from lightcycle.tournament.store import Store  # noqa: E402
from lightcycle.tournament.workers import PlayerCache, default_workers  # noqa: E402

BUILTIN = [
    "builtin:random",
    "builtin:wallhugger",
    "builtin:chaser",
    "builtin:runaway",
    "builtin:floodfill",
    "builtin:dummy",
    "builtin:random",
    "builtin:chaser",
]
SUBPROCESS = [
    f'{{ spec = "cmd:{sys.executable} {ROOT / "examples/jsonl/bot.py"}", protocol = "jsonl", '
    f'name = "jsonl {i + 1}" }}'
    for i in range(8)
]


def config_text(bots: list[str], rounds: int) -> str:
    quoted = [b if b.startswith("{") else json.dumps(b) for b in bots]
    return (
        'name = "bench"\nformat = "round-robin"\nmaps = ["arena-15"]\n'
        f"rounds = {rounds}\nseed = 1\nbots = [{', '.join(quoted)}]\n"
        "[time]\nmove = 5.0\nfirst_move = 5.0\n"
    )


def make(folder: Path, bots: list[str], rounds: int) -> Plan:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bench.toml"
    path.write_text(config_text(bots, rounds), encoding="utf-8")
    return make_plan(load_config(path))


def _seats(plan: Plan, players: PlayerCache, entrants: Sequence[int]) -> list[Any]:
    """The kept players of ``entrants``, named as the tournament names them."""
    seats = []
    for e in entrants:
        ent = plan.entrants[e]
        player = players.get(ent.name, ent.spec, plan.limits, None)
        player.name = ent.name
        seats.append(player)
    return seats


def direct(plan: Plan) -> tuple[float, list[tuple[int, ...]]]:
    """Play the schedule's games in a loop; seconds and the places of each game."""
    pairings = plan.format.schedule({}).pairings
    players = PlayerCache()
    ranks: list[tuple[int, ...]] = []
    t0 = time.perf_counter()
    try:
        for p in pairings:
            seats = _seats(plan, players, p.seats)
            record = play_game(
                seats,
                plan.maps[p.map],
                plan.rulesets[p.map],
                seed=p.seed,
                controls=[plan.controls[e][p.map] for e in p.seats],
            )
            ranks.append(tuple(record.outcome.ranks))
    finally:
        players.shutdown()
    return time.perf_counter() - t0, ranks


def runner(plan: Plan, workers: int) -> tuple[float, list[tuple[int, ...]]]:
    """Run the whole tournament from an empty store; seconds and the places of each game."""
    t0 = time.perf_counter()
    run_tournament(plan, workers=workers)
    seconds = time.perf_counter() - t0
    with Store(plan.config.database_url) as store:
        tid = store.tournament().id  # type: ignore[union-attr]
        ranks = [sr.result.ranks for sr in store.results(tid)]
    return seconds, ranks


def cpu_seconds() -> float:
    """CPU seconds of this process and of every descendant reaped so far.

    Pool workers are reaped when the runner shuts its pool down, and bot programs when
    their player stops them, so after a run this counts all the work the run caused,
    whatever else the machine was doing.
    """
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn: Any, *args: Any) -> tuple[float, float, list[tuple[int, ...]]]:
    """``fn(*args)`` returning (seconds, ranks): wall seconds, CPU seconds and the ranks."""
    c0 = cpu_seconds()
    seconds, ranks = fn(*args)
    return seconds, cpu_seconds() - c0, ranks


def fresh_map_cost(plan: Plan, pairings: list[Any]) -> float:
    """CPU seconds a game costs more on a map unpickled for it than on a map kept.

    Before batches, every task carried its own pickled map, so a worker played each game
    on a new map object and rebuilt the tables bots and rules cache per board; a worker
    now keeps one copy per run. Interleaved, best of three, to tame a busy machine.
    """
    cache = PlayerCache()

    def games(fresh: bool) -> float:
        t0 = time.process_time()
        for p in pairings:
            spec, rs = plan.maps[p.map], plan.rulesets[p.map]
            if fresh:
                spec, rs = pickle.loads(pickle.dumps((spec, rs)))
            seats = _seats(plan, cache, p.seats)
            controls = [plan.controls[e][p.map] for e in p.seats]
            play_game(seats, spec, rs, seed=p.seed, controls=controls)
        return (time.process_time() - t0) / len(pairings)

    try:
        games(False)  # warm up
        kept, fresh = [], []
        for _ in range(3):
            kept.append(games(False))
            fresh.append(games(True))
    finally:
        cache.shutdown()
    return min(fresh) - min(kept)


def parts(plan: Plan, samples: int = 200) -> dict[str, float]:
    """Seconds per match of the runner's own work, each part timed alone."""
    pairings = plan.format.schedule({}).pairings[:samples]
    p0 = pairings[0]
    players = [plan.entrants[e] for e in p0.seats]
    cache = PlayerCache()
    seats = [cache.get(e.name, e.spec, plan.limits, None) for e in players]
    record = play_game(seats, plan.maps[p0.map], plan.rulesets[p0.map], seed=p0.seed)
    cache.shutdown()
    out: dict[str, float] = {}
    out["a fresh copy of the map per game (CPU)"] = fresh_map_cost(plan, pairings[:40])
    folder = Path(tempfile.mkdtemp(prefix="lc-bench-parts-"))
    try:
        t0 = time.perf_counter()
        Store(f"sqlite:///{folder / 'new.db'}").close()
        out["new store, once per run"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        workers = max(2, default_workers())
        with ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=init_worker,
            initargs=(os.getpid(),),
        ) as pool:
            list(pool.map(abs, range(workers)))
        out[f"pool of {workers} start, once per run"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        for i in range(len(pairings)):
            record.replay.save(folder / f"{i}.json")
        out["replay file"] = (time.perf_counter() - t0) / len(pairings)
        book = RatingBook()
        t0 = time.perf_counter()
        for p in pairings:
            book.rate([(plan.entrants[e].name, r) for e, r in zip(p.seats, (1, 2), strict=True)])
        out["rating update"] = (time.perf_counter() - t0) / len(pairings)
        store = Store(f"sqlite:///{folder / 'parts.db'}")
        names = [(e.name, e.spec_text, e.filler) for e in plan.entrants]
        tid = store.create_tournament("parts", "round-robin", "{}", names)
        store.add_matches(
            tid,
            [
                {
                    "key": p.key,
                    "seq": i,
                    "round": p.round,
                    "label": p.label,
                    "map": plan.maps[p.map].id,
                    "seed": p.seed,
                    "seats": p.seats,
                }
                for i, p in enumerate(pairings)
            ],
        )
        ids = store.entrant_ids(tid)
        rows = store.matches(tid)
        book = RatingBook()
        prepared = []
        for m in rows:
            res = match_result(m.key, m.seats, record, f"replays/{m.key}.json")
            ups = book.rate([(plan.entrants[s.entrant].name, s.rank) for s in res.seats])
            prepared.append((m, res, ups))
        half = len(prepared) // 2
        t0 = time.perf_counter()
        for m, res, ups in prepared[:half]:
            store.record(tid, m, res, ups, ids)
        out["commit (SQLite), 1 match per transaction"] = (time.perf_counter() - t0) / half
        rest = prepared[half:]
        t0 = time.perf_counter()
        for i in range(0, len(rest), 16):
            store.record_many(tid, rest[i : i + 16], ids)
        out["commit (SQLite), 16 per transaction"] = (time.perf_counter() - t0) / len(rest)
        store.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return out


def fmt_range(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=4, help="round robin rounds (56 games each)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    cores = default_workers()
    worker_counts = sorted({1, 2, cores})
    tmp = Path(tempfile.mkdtemp(prefix="lc-bench-tournament-"))
    figures: dict[str, dict[str, list[float]]] = {}
    cpu_ms: dict[str, dict[str, list[float]]] = {}
    games: dict[str, int] = {}
    load = [os.getloadavg()[0]]
    try:
        for r in range(args.repeats):
            for kind, bots in (("builtin", BUILTIN), ("subprocess", SUBPROCESS)):
                cols = figures.setdefault(kind, {})
                cpus = cpu_ms.setdefault(kind, {})
                plan = make(tmp / f"{kind}-direct-{r}", bots, args.rounds)
                seconds, cpu, want = timed(direct, plan)
                games[kind] = len(want)
                cols.setdefault("direct", []).append(len(want) / seconds)
                cpus.setdefault("direct", []).append(cpu * 1000 / len(want))
                for w in worker_counts:
                    plan = make(tmp / f"{kind}-j{w}-{r}", bots, args.rounds)
                    seconds, cpu, got = timed(runner, plan, w)
                    if got != want:
                        raise SystemExit(f"{kind} -j{w}: the runner's games differ from direct")
                    cols.setdefault(f"runner -j{w}", []).append(len(got) / seconds)
                    cpus.setdefault(f"runner -j{w}", []).append(cpu * 1000 / len(got))
                print(f"repeat {r + 1}/{args.repeats}: {kind} done", file=sys.stderr)
                load.append(os.getloadavg()[0])
        plan = make(tmp / "parts", BUILTIN, args.rounds)
        breakdown = parts(plan)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    report: dict[str, Any] = {
        "rounds": args.rounds,
        "repeats": args.repeats,
        "cores": cores,
        "cpu": os.cpu_count(),
        "python": sys.version.split()[0],
        "load_average_1min": load,
        "games": games,
        "matches_per_second": figures,
        "cpu_ms_per_match": cpu_ms,
        "parts_ms": {k: v * 1000 for k, v in breakdown.items()},
    }
    lines = [
        f"1-minute load average during the run: {min(load):.1f}-{max(load):.1f} "
        f"on {cores} cores (other work competes for the cores above 0)"
    ]
    for kind, cols in figures.items():
        base = statistics.median(cols["direct"])
        one = statistics.median(cols["runner -j1"])
        lines.append(
            f"\n{kind} bots: {games[kind]} games per run; matches/s and CPU ms per match "
            "(this process and its children), medians (min-max)"
        )
        for name, values in cols.items():
            ratio = statistics.median(values) / base
            cpu = cpu_ms[kind][name]
            lines.append(
                f"  {name:<12} {fmt_range(values):>24}   {ratio:5.2f}x direct   "
                f"CPU {fmt_range(cpu):>20} ms"
            )
        ratios = [a / b for a, b in zip(cols["runner -j2"], cols["runner -j1"], strict=True)]
        lines.append(
            f"  scaling 1 -> 2 workers: {statistics.median(cols['runner -j2']) / one:.2f}x "
            f"(per repeat {min(ratios):.2f}-{max(ratios):.2f}x)"
        )
        if cores > 2:
            lines.append(
                f"  scaling 1 -> {cores} workers: "
                f"{statistics.median(cols[f'runner -j{cores}']) / one:.2f}x"
            )
        overhead = (1 / one - 1 / base) * 1000
        cpu_over = statistics.median(cpu_ms[kind]["runner -j1"]) - statistics.median(
            cpu_ms[kind]["direct"]
        )
        lines.append(
            f"  runner overhead beyond the games (-j1): {overhead:.2f} ms wall, "
            f"{cpu_over:.2f} ms CPU per match"
        )
        report.setdefault("overhead_ms", {})[kind] = {"wall": overhead, "cpu": cpu_over}
        report.setdefault("scaling_1_to_2", {})[kind] = statistics.median(cols["runner -j2"]) / one
    lines.append("\nparts of the runner's work, ms (per match unless said), each timed alone:")
    for name, ms in report["parts_ms"].items():
        lines.append(f"  {name:<32} {ms:8.2f}")
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"round robin of 8 bots on arena-15, {args.rounds} rounds; {cores} cores")
        print("\n".join(lines))


if __name__ == "__main__":
    main()

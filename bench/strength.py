"""Strength of the duel ladder: search depth, endgame fills, and pairings.

Three measurements, each against a baseline measured in the same run:

- ``depth``: the plies ``builtin:strong`` completes when asked for a move with a 100 ms
  limit, on an open 30x30 board (``arena-30``) in the opening (positions after 0-20
  turns of two seeded territory bots, so the heads are still in open space). The
  baseline is the same positions searched by ``builtin:medium``'s search options.
- ``endgame``: regions of 40 to 100 cells (random rooms carved from a 14x14 board, each
  a single region); the optimum of each is proven by an unlimited solve first, then the
  endgame solver gets 100 ms: how often it reaches the optimum and how often it also
  proves it, against the greedy wall-hugging fill as the baseline.
- ``native``: the compiled duel search (``pip install 'lightcycle[fast]'``: its
  evaluation and its alpha-beta below the root) against the pure-Python one, the
  baseline, on open 30x30 boards in the opening and on tight
  15x15 rooms after 6-30 turns (where the evaluation bounds territories by the chamber
  tree): the search's time for the same node budget (and that its result is
  identical), and the plies each completes in 100 ms; then the endgame solver with its
  compiled copies against the pure one on 120 of the endgame bench's rooms (nodes a
  CPU-second at 1,500 nodes each, identical fills required).
- ``separated``: how well a separated leaf's value calls the game: positions where the
  cycles have just been cut apart (from games of two noisy territory bots on the duel
  map pool, with seeded random continuations from the turns before each separation),
  each side's optimum fill proven by the endgame solver; the search's value (the chain
  bound of both regions) against the greedy fill as the baseline, and the 2010
  champion's close call (greedy fills where the bounds are within 3 cells).
- ``ladder``: ``lightcycle duel`` pairings at 100 ms per move (side-swapped games on
  the built-in two-player maps plus seeded random symmetric maps, all cores): score,
  Elo difference with its 95% confidence interval, and the mean search depth.

Run from the repository root::

    python bench/strength.py depth [--positions 30]
    python bench/strength.py endgame [--regions 40]
    python bench/strength.py native [--positions 30]
    python bench/strength.py separated [--games 60]
    python bench/strength.py ladder [--games 200] [--maps POOL] [--pairs strong:territory,...]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Mapping
from dataclasses import replace

from lightcycle.bots.api import Bot, MoveAnswer
from lightcycle.bots.ladder import Medium, Strong
from lightcycle.bots.registry import LADDER, make_bot
from lightcycle.bots.search import native
from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.duel import DuelSearch, separated
from lightcycle.bots.search.endgame import chain_bound, greedy_fill, solve_fill
from lightcycle.core.topology import GridTopology
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapError
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.local import collect_moves, default_ruleset
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.observe import View
from lightcycle.tournament.mappool import parse_pool


class _Noisy(Bot):
    """The territory bot, with a random safe move three times in ten."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.inner = make_bot("territory")

    def move(self, view: View) -> MoveAnswer:
        safe = view.safe_headings()
        if safe and self.rng.random() < 0.3:
            return self.rng.choice(safe)
        return self.inner.move(view)


def _opening_positions(
    count: int, seed: int, board: str = "arena-30", turns: tuple[int, int] = (0, 20)
) -> list[View]:
    """Seat-0 views of ``board`` after ``turns`` (0-20) turns of two territory bots
    (seeded noise)."""
    spec = get_map(board)
    rng = random.Random(seed)
    views: list[View] = []
    while len(views) < count:
        state = new_game("classic", spec, seed=rng.randrange(10**6))
        bots = [_Noisy(rng), _Noisy(rng)]
        for _ in range(rng.randint(*turns)):
            if state.outcome is not None:
                break
            state = step(state, collect_moves(state, bots))
        if state.outcome is None and len(View(state, 0).safe_headings()) > 1:
            views.append(View(state, 0, time_limit=0.1))
    return views


def bench_depth(positions: int, seed: int) -> dict[str, float]:
    """Plies completed at a 100 ms limit: strong's own clock, and medium's options."""
    views = _opening_positions(positions, seed)
    strong_plies: list[int] = []
    strong_ms: list[float] = []
    for view in views:
        bot = Strong()
        t0 = time.perf_counter()
        bot.move(view)
        strong_ms.append((time.perf_counter() - t0) * 1000)
        strong_plies.append(int(bot.report().get("depth", 0)))
    full_plies: list[int] = []
    medium_plies: list[int] = []
    for view in views:
        k = Kernel(view.topology)
        a, b, occ = view.me.head, view.opponents[0].head, view.state.occupied
        for options, out in ((Strong.options, full_plies), (Medium.options, medium_plies)):
            opts = replace(options, max_depth=64)
            deadline = time.perf_counter() + 0.1
            res = DuelSearch(k, opts).search(
                a, b, occ, out_of_time=lambda d=deadline: time.perf_counter() > d
            )
            out.append(res.plies)
    return {
        "positions": len(views),
        "strong_move_plies_median": statistics.median(strong_plies),
        "strong_move_plies_min": min(strong_plies),
        "strong_move_ms_median": statistics.median(strong_ms),
        "strong_move_ms_max": max(strong_ms),
        "search_100ms_plies_median": statistics.median(full_plies),
        "search_100ms_plies_min": min(full_plies),
        "baseline_medium_options_100ms_plies_median": statistics.median(medium_plies),
        "share_at_least_12_plies_in_100ms": sum(p >= 12 for p in full_plies) / len(views),
    }


def bench_native(positions: int, seed: int) -> dict[str, float]:
    """The compiled search against the pure one: search time for 2,000 nodes (same
    result required) and plies completed in 100 ms, on open 30x30 boards in the opening
    and on tight 15x15 rooms."""
    if not native.available():
        raise SystemExit(f"the compiled search is not in use: {native.why_not()}")
    out: dict[str, float] = {}
    for label, board, turns in (("open30", "arena-30", (0, 20)), ("tight15", "arena-15", (6, 30))):
        views = _opening_positions(positions, seed, board, turns)
        ratios: list[float] = []
        same = 0
        plies: dict[bool, list[int]] = {False: [], True: []}
        for view in views:
            k = Kernel(view.topology)
            a, b, occ = view.me.head, view.opponents[0].head, view.state.occupied
            results = {}
            seconds = {}
            for compiled in (False, True):
                t0 = time.perf_counter()
                results[compiled] = DuelSearch(k, compiled=compiled).search(
                    a, b, occ, node_limit=2000
                )
                seconds[compiled] = time.perf_counter() - t0
                deadline = time.perf_counter() + 0.1
                res = DuelSearch(k, compiled=compiled).search(
                    a, b, occ, out_of_time=lambda d=deadline: time.perf_counter() > d
                )
                plies[compiled].append(res.plies)
            same += results[False] == results[True]
            ratios.append(seconds[False] / seconds[True])
        out |= {
            f"{label}_positions": len(views),
            f"{label}_identical_results_2000_nodes": same,
            f"{label}_speedup_2000_nodes_median": statistics.median(ratios),
            f"{label}_speedup_2000_nodes_min": min(ratios),
            f"{label}_baseline_pure_100ms_plies_median": statistics.median(plies[False]),
            f"{label}_compiled_100ms_plies_median": statistics.median(plies[True]),
            f"{label}_compiled_100ms_plies_min": min(plies[True]),
        }
    return out | _native_rows(seed) | _native_endgame(seed)


class _Leaves(DuelSearch):
    """A pure search that keeps the positions it evaluates."""

    def __init__(self, kernel: Kernel) -> None:
        super().__init__(kernel, compiled=False)
        self.seen: list[tuple[int, int, int]] = []

    def evaluate(self, a: int, b: int, occ: int) -> int:
        self.seen.append((a, b, occ))
        return super().evaluate(a, b, occ)


def _native_rows(seed: int) -> dict[str, float]:
    """The compiled evaluation on grids, a row per int64 (bit-parallel) against the
    cell-by-cell kernel (what graphs and grids over 56 wide use), the baseline: time a
    call on the leaves of 3,000-node searches of 6 positions a board, median of five
    passes (equal values required)."""
    kernels = native._load()
    assert kernels is not None
    out: dict[str, float] = {}
    for label, board, turns in (
        ("open30", "arena-30", (0, 20)),
        ("open50", "arena-50", (0, 20)),
        ("tight15", "arena-15", (6, 30)),
    ):
        leaves: list[tuple[Kernel, list[tuple[int, int, int]]]] = []
        for view in _opening_positions(6, seed, board, turns):
            k = Kernel(view.topology)
            search = _Leaves(k)
            search.search(
                view.me.head, view.opponents[0].head, view.state.occupied, node_limit=3000
            )
            leaves.append((k, search.seen))
        per_call: dict[bool, float] = {}
        values: dict[bool, list[int]] = {}
        for rows in (False, True):
            passes = []
            for _ in range(5):
                seconds, calls, got = 0.0, 0, []
                for k, seen in leaves:
                    args = native._evaluation(k, Strong.options, 1000)[:-1]
                    grid = native._grid(k) if rows else None
                    tables = kernels.evaluation_tables(*args, grid)
                    evaluate = kernels.evaluator_for(tables, k.size)
                    t0 = time.perf_counter()
                    got += [evaluate(a, b, occ) for a, b, occ in seen]
                    seconds += time.perf_counter() - t0
                    calls += len(seen)
                passes.append(seconds / calls)
            per_call[rows], values[rows] = statistics.median(passes), got
        out |= {
            f"{label}_rows_equal_values": values[False] == values[True],
            f"{label}_eval_cells_us": 1e6 * per_call[False],
            f"{label}_eval_rows_us": 1e6 * per_call[True],
            f"{label}_eval_rows_speedup": per_call[False] / per_call[True],
        }
    return out


def _native_endgame(seed: int) -> dict[str, float]:
    """The endgame solver with its compiled copies against the pure one: 120 of the
    endgame bench's rooms (four seeds from ``seed`` on) at 1,500 nodes each, CPU time
    of the whole set, the fastest of three passes each way (identical fills required)."""
    rooms = [r for s in range(seed, seed + 4) for r in endgame_regions(30, s)]
    solve_fill(*rooms[0], node_limit=10)  # load the compiled kernels outside the timing
    fills: dict[bool, list[tuple[list[int], int, bool, int]]] = {}
    cpu: dict[bool, float] = {}
    for compiled in (False, True):
        best = float("inf")
        for _ in range(3):
            t0 = time.process_time()
            got = []
            for k, head, region in rooms:
                f = solve_fill(k, head, region, node_limit=1500, compiled=compiled)
                got.append((f.path, f.bound, f.proven, f.nodes))
            best = min(best, time.process_time() - t0)
        fills[compiled], cpu[compiled] = got, best
    same = sum(x == y for x, y in zip(fills[False], fills[True], strict=True))
    nodes = sum(f[3] for f in fills[True])
    return {
        "endgame_rooms": len(rooms),
        "endgame_identical_fills_1500_nodes": same,
        "endgame_nodes": nodes,
        "endgame_baseline_pure_nodes_per_cpu_second": nodes / cpu[False],
        "endgame_compiled_nodes_per_cpu_second": nodes / cpu[True],
        "endgame_speedup": cpu[False] / cpu[True],
    }


def endgame_regions(count: int, seed: int) -> list[tuple[Kernel, int, int]]:
    """The endgame bench's rooms: 40-100 cells carved from a seeded 14x14 board, each
    with its head (tests/bots/search/test_native_endgame.py solves them too)."""
    rng = random.Random(seed)
    k = Kernel(GridTopology(14, 14))
    out: list[tuple[Kernel, int, int]] = []
    while len(out) < count:
        free = sum(1 << c for c in range(196) if rng.random() < rng.choice((0.8, 0.9, 0.97)))
        head = rng.randrange(196)
        free &= ~(1 << head)
        cells: list[int] = []
        for layer in k.layers(1 << head, free):
            cells += k.cells(layer)
        size = rng.randint(40, 100)
        region = k.flood(1 << head, sum(1 << c for c in cells[:size]))
        if region.bit_count() >= 40:
            out.append((k, head, region))
    return out


def bench_endgame(regions: int, seed: int, prove_seconds: float) -> dict[str, float | str]:
    """How often 100 ms of endgame search reaches (and proves) the optimum."""
    reached = proven = greedy_opt = unknown = 0
    times: list[float] = []
    gaps: list[int] = []
    sizes: list[int] = []
    missed: list[str] = []
    for index, (k, head, region) in enumerate(endgame_regions(regions, seed)):
        deadline = time.perf_counter() + prove_seconds
        ref = solve_fill(k, head, region, out_of_time=lambda d=deadline: time.perf_counter() > d)
        if not ref.proven:
            unknown += 1
            continue
        optimum = len(ref.path)
        sizes.append(region.bit_count())
        t0 = time.perf_counter()
        stop = t0 + 0.1
        fill = solve_fill(k, head, region, out_of_time=lambda s=stop: time.perf_counter() > s)
        times.append(time.perf_counter() - t0)
        reached += len(fill.path) == optimum
        if len(fill.path) < optimum:
            missed.append(
                f"region {index} ({region.bit_count()} cells): {len(fill.path)} of {optimum}"
            )
        proven += fill.proven
        greedy = len(greedy_fill(k, head, region))
        greedy_opt += greedy == optimum
        gaps.append(optimum - greedy)
    n = len(times)
    return {
        "regions_with_known_optimum": n,
        "regions_not_proven_offline": unknown,
        "cells_median": statistics.median(sizes) if sizes else 0,
        "reached_optimum_in_100ms": reached / n if n else 0.0,
        "proved_optimum_in_100ms": proven / n if n else 0.0,
        "baseline_greedy_reaches_optimum": greedy_opt / n if n else 0.0,
        "greedy_gap_cells_mean": statistics.mean(gaps) if gaps else 0.0,
        "solve_ms_median": statistics.median(times) * 1000 if times else 0.0,
        "missed": "; ".join(missed) or "none",
    }


def separated_positions(games: int, seed: int, maps: str) -> list[tuple[Kernel, int, int, int]]:
    """Positions ``(kernel, a, b, occ)`` where the cycles have just been separated: the
    separation of each game of two noisy territory bots, and seeded random joint moves
    from each of the ten turns before it until the cycles part (a search's leaves are
    positions like these, mostly not the one the game reached)."""
    rng = random.Random(seed)
    pool = parse_pool(maps, seed)
    out: list[tuple[Kernel, int, int, int]] = []
    for g in range(games):
        spec = pool[g % len(pool)]
        state = new_game(default_ruleset(spec, 2), spec, seed=rng.randrange(10**6))
        k = Kernel(spec.topology)
        bots = [_Noisy(rng), _Noisy(rng)]
        history: list[tuple[int, int, int]] = []
        while state.outcome is None:
            a, b, occ = state.cycles[0].head, state.cycles[1].head, state.occupied
            if separated(k, a, b, occ):
                out.append((k, a, b, occ))
                break
            history.append((a, b, occ))
            state = step(state, collect_moves(state, bots))
        for a0, b0, occ0 in history[-10:]:
            a, b, occ = a0, b0, occ0
            for _ in range(60):
                am = [d for d in k.neighbours[a] if not (occ >> d) & 1]
                bm = [d for d in k.neighbours[b] if not (occ >> d) & 1]
                if not am or not bm:
                    break
                a, b = rng.choice(am), rng.choice(bm)
                if a == b:
                    break
                occ |= (1 << a) | (1 << b)
                if separated(k, a, b, occ):
                    out.append((k, a, b, occ))
                    break
    return out


def bench_separated(
    games: int, seed: int, maps: str, prove_seconds: float
) -> dict[str, float | str]:
    """How often each estimate of a separated position's fills calls its outcome (who
    fills more, or a tie) right, against the proven optima."""
    calls = {"chain_bound": 0, "baseline_greedy": 0, "close_call_greedy": 0}
    close_calls = dict.fromkeys(calls, 0)
    n = close = unproven = exact = 0
    errors: list[int] = []

    def sign(x: int) -> int:
        return (x > 0) - (x < 0)

    positions = separated_positions(games, seed, maps)
    for index, (k, a, b, occ) in enumerate(positions):
        if index % 20 == 0:
            print(f"\rproving position {index + 1} of {len(positions)}", end="", file=sys.stderr)
        free = k.full & ~occ
        bounds: list[int] = []
        greedy: list[int] = []
        best: list[int] = []
        for head in (a, b):
            region = k.flood(1 << head, free)
            bounds.append(chain_bound(k, head, region))
            greedy.append(len(greedy_fill(k, head, region)))
            stop = time.perf_counter() + prove_seconds
            fill = solve_fill(k, head, region, out_of_time=lambda s=stop: time.perf_counter() > s)
            best.append(len(fill.path) if fill.proven else -1)
        if min(best) < 0:
            unproven += 1
            continue
        n += 1
        errors += [u - o for u, o in zip(bounds, best, strict=True)]
        exact += bounds == best
        truth = sign(best[0] - best[1])
        bound_diff = bounds[0] - bounds[1]
        is_close = 0 < abs(bound_diff) <= 3
        close += is_close
        guesses = {
            "chain_bound": bound_diff,
            "baseline_greedy": greedy[0] - greedy[1],
            "close_call_greedy": greedy[0] - greedy[1] if is_close else bound_diff,
        }
        for name, guess in guesses.items():
            right = sign(guess) == truth
            calls[name] += right
            if is_close:
                close_calls[name] += right
    print(file=sys.stderr)
    figures: dict[str, float | str] = {
        "positions_with_proven_optima": n,
        "positions_not_proven": unproven,
        "chain_bound_exact_both_sides": exact / n if n else 0.0,
        "chain_bound_minus_optimum_mean": statistics.mean(errors) if errors else 0.0,
        "chain_bound_minus_optimum_min": min(errors) if errors else 0,
        "chain_bound_minus_optimum_max": max(errors) if errors else 0,
    }
    for name, count in calls.items():
        figures[f"{name}_calls_right"] = count / n if n else 0.0
    figures["close_positions_bounds_within_3"] = close
    for name, count in close_calls.items():
        figures[f"{name}_calls_right_when_close"] = count / close if close else 0.0
    return figures


def bench_ladder(pairs: list[tuple[str, str]], games: int, workers: int | None, maps: str) -> None:
    """Duels at 100 ms per move; prints one line per pairing as it finishes.

    The default pool has 100 maps (the built-in duel maps and random symmetric ones), so
    200 games are 200 different games: the deterministic lower rungs would replay the
    same game on a small pool, and the confidence interval would lie.
    """
    from lightcycle.tournament.duel import run_duel

    control = TimeControl(move=0.1, first_move=1.0)
    for a, b in pairs:
        res = run_duel(
            f"builtin:{a}",
            f"builtin:{b}",
            maps=maps,
            games=games,
            control=control,
            workers=workers,
            seed=1,
        )
        est = res.pentanomial.estimate()
        w, d, lost = res.trinomial.wins, res.trinomial.draws, res.trinomial.losses
        depth = res.bots[0].to_dict().get("depth")
        print(
            f"{a:>10} vs {b:<10} +{w} ={d} -{lost}  score {est.score:.1%}  "
            f"Elo {est.elo:+.0f} ± {est.margin:.0f}  depth {depth}  "
            f"({res.wall_seconds:.0f} s)",
            flush=True,
        )


def _print(figures: Mapping[str, float | str]) -> None:
    for key, value in figures.items():
        print(f"{key:45} {value:.3g}" if isinstance(value, float) else f"{key:45} {value}")


def _count(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    d = sub.add_parser(
        "depth",
        help="plies strong completes in 100 ms on an open 30x30 board",
        description="Plies strong completes when asked for a move with a 100 ms limit, on "
        "open 30x30 positions, against medium's search options on the same positions. "
        "Example: python bench/strength.py depth --positions 30",
    )
    d.add_argument("--positions", type=_count, default=30)
    d.add_argument("--seed", type=int, default=1)
    e = sub.add_parser(
        "endgame",
        help="how often 100 ms of endgame search reaches the proven optimum",
        description="Rooms of 40-100 cells carved from a seeded 14x14 board: each room's "
        "optimum is proven by a long solve (--prove-seconds; rooms it cannot prove are "
        "left out and counted), then the solver gets 100 ms of wall time: how often it "
        "reaches the optimum and proves it, against the greedy fill. Wall time, so run it "
        "on an idle machine. Example: python bench/strength.py endgame --regions 30 "
        "--prove-seconds 10 --seed 1",
    )
    e.add_argument("--regions", type=_count, default=40)
    e.add_argument("--seed", type=int, default=1)
    e.add_argument("--prove-seconds", type=float, default=20.0)
    nat = sub.add_parser(
        "native",
        help="compiled duel search and endgame (the fast extra) against pure Python",
        description="The compiled duel search against the pure one, same run: search time "
        "for 2,000 nodes (identical results required) and plies in 100 ms, on open 30x30 "
        "and tight 15x15 boards; then the endgame solver, compiled against pure, on 120 "
        "bench rooms at 1,500 nodes (identical fills required). Needs numba (pip install "
        "'lightcycle[fast]'). Example: python bench/strength.py native --positions 20",
    )
    nat.add_argument("--positions", type=_count, default=30)
    nat.add_argument("--seed", type=int, default=1)
    sep = sub.add_parser(
        "separated",
        help="how well the separated leaf's value calls the game, against proven optima",
        description="Positions where the cycles have just been separated (noisy territory "
        "games on the map pool, and random continuations from the ten turns before each "
        "separation); each side's optimum proven by the endgame solver (positions it "
        "cannot prove in --prove-seconds are left out and counted). How often the chain "
        "bound (strong's value), the greedy fill (baseline) and the 2010 champion's close "
        "call say who fills more. Example: python bench/strength.py separated --games 60",
    )
    sep.add_argument("--games", type=_count, default=60)
    sep.add_argument("--seed", type=int, default=1)
    sep.add_argument("--maps", default="builtin,random:20", help="the map pool")
    sep.add_argument("--prove-seconds", type=float, default=2.0)
    lad = sub.add_parser(
        "ladder",
        help="lightcycle duel pairings of the ladder at 100 ms a move",
        description="Side-swapped duels at 100 ms a move between neighbouring rungs of "
        "the ladder and strong against floodfill and territory, one line per pairing. "
        "Example: python bench/strength.py ladder --games 200 --pairs strong:territory",
    )
    lad.add_argument("--games", type=_count, default=200)
    lad.add_argument("--workers", type=int, default=None)
    lad.add_argument("--maps", default="builtin,random:88", help="the duel's map pool")
    default_pairs = [f"{LADDER[i + 1]}:{LADDER[i]}" for i in range(len(LADDER) - 1)]
    default_pairs += ["strong:floodfill", "strong:territory"]
    lad.add_argument("--pairs", default=",".join(default_pairs))
    args = p.parse_args(argv)
    if args.what in ("separated", "ladder"):
        try:
            parse_pool(args.maps)  # only whether it reads; the seed names random maps
        except MapError as exc:
            p.error(f"--maps: {exc}")
    if args.what == "depth":
        _print(bench_depth(args.positions, args.seed))
    elif args.what == "endgame":
        _print(bench_endgame(args.regions, args.seed, args.prove_seconds))
    elif args.what == "native":
        _print(bench_native(args.positions, args.seed))
    elif args.what == "separated":
        _print(bench_separated(args.games, args.seed, args.maps, args.prove_seconds))
    else:
        pairs = [tuple(x.split(":")) for x in args.pairs.split(",")]
        bench_ladder(pairs, args.games, args.workers, args.maps)  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Step speed: random playouts on an open 30x30 walled arena, four ways.

Measures turns per second of the same random playouts with

1. ``C``: ``bench/c/playout.c``, compiled here with ``gcc -O2`` (the baseline);
2. ``internal``: `lightcycle.rules.fast.SearchBoard`, the bitboard step bots use for search;
3. ``public``: the validated engine, ``lightcycle.rules.engine.step``;
4. ``naive``: a plain set-of-(x, y)-tuples Python step written below.

The arena: a 30x30 grid whose border cells are walls (28x28 free), cycles starting at
(x=7, y=15) and (x=22, y=14), ``cell = y * 30 + x``. A playout repeats turns until a cycle
dies; each turn every live cycle moves to a uniformly random free neighbour (its first
neighbour, N, when none is free). The three Python columns use the same policy expression,
``free[int(rnd() * len(free))]`` with ``rnd = random.Random(seed).random``, and consume the
random stream identically, so with one seed they play the very same games; a cross-check
at start-up verifies that (and prints MISMATCH if they do not). The C column uses its own
splitmix64 stream and the same policy.

Each implementation plays for a fixed time slice, the slices interleaved
(C, internal, public, naive, C, internal, ...) ``--repeats`` times; the table shows the
median turns/s (min-max) and the ratios of the medians against the targets:
C/internal <= 50x, C/public <= 100x, internal/naive and public/naive >= 2x.

Run from the repository root::

    python bench/step_speed.py [--seconds 1.0] [--repeats 5] [--seed 1] [--json]

The benchmark measures the code in this tree's ``src/`` (it puts it first on ``sys.path``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
C_SOURCE = ROOT / "bench" / "c" / "playout.c"

WIDTH = HEIGHT = 30
START_A = 15 * WIDTH + 7  # (x=7, y=15)
START_B = 14 * WIDTH + 22  # (x=22, y=14)
TARGETS = {
    "C/internal": ("<=", 50.0),
    "C/public": ("<=", 100.0),
    "internal/naive": (">=", 2.0),
    "public/naive": (">=", 2.0),
}
CROSS_CHECK_PLAYOUTS = 300

# A playout function takes ``rnd`` (a bound ``random.Random.random``) and returns
# ``(turns, killed)``: the turns played and the bitmask of cycles killed on the last one
# (1: cycle 0 died, 2: cycle 1 died, 3: both, a draw).
Playout = Callable[[Callable[[], float]], tuple[int, int]]


def border_cells() -> list[int]:
    """The wall cells of the arena: every cell on the border of the 30x30 grid."""
    return [
        y * WIDTH + x
        for y in range(HEIGHT)
        for x in range(WIDTH)
        if x in (0, WIDTH - 1) or y in (0, HEIGHT - 1)
    ]


# --------------------------------------------------------------------------- internal


def make_internal() -> Playout:
    """Playouts on `SearchBoard`: ``free_moves(i)`` per cycle, a random pick, ``step``."""
    from lightcycle.core.bitset import from_cells
    from lightcycle.core.topology import GridTopology
    from lightcycle.rules.fast import SearchBoard

    nbrs = GridTopology(WIDTH, HEIGHT).neighbours
    start_occ = from_cells(border_cells()) | (1 << START_A) | (1 << START_B)

    def playout(rnd: Callable[[], float]) -> tuple[int, int]:
        board = SearchBoard(nbrs, start_occ, [START_A, START_B])
        heads = board.heads  # mutated in place by step
        free_moves = board.free_moves
        step = board.step
        turns = 0
        while True:
            turns += 1
            fa = free_moves(0)
            a = fa[int(rnd() * len(fa))] if fa else nbrs[heads[0]][0]
            fb = free_moves(1)
            b = fb[int(rnd() * len(fb))] if fb else nbrs[heads[1]][0]
            killed = step([a, b])
            if killed:
                return turns, killed

    return playout


# --------------------------------------------------------------------------- public


def make_public() -> Playout:
    """Playouts on the validated engine: ``new_game`` then ``step(state, moves)``."""
    from lightcycle.core.bitset import from_cells
    from lightcycle.core.moves import Move
    from lightcycle.core.state import Board
    from lightcycle.core.topology import GridTopology
    from lightcycle.maps.spec import MapSpec
    from lightcycle.rules.engine import new_game, step
    from lightcycle.rules.legal import safe_moves
    from lightcycle.rules.variants import get_ruleset

    topo = GridTopology(WIDTH, HEIGHT)
    nbrs = topo.neighbours
    spec = MapSpec(
        name="bench-30",
        board=Board(topo, walls=from_cells(border_cells())),
        starts=((START_A,), (START_B,)),
    )
    ruleset = get_ruleset("classic")

    def playout(rnd: Callable[[], float]) -> tuple[int, int]:
        state = new_game(ruleset, spec, seed=0)
        turns = 0
        while state.outcome is None:
            turns += 1
            moves: dict[int, Move] = {}
            for c in state.cycles:
                if c.alive:
                    i = c.index
                    free = safe_moves(state, i)  # the public API's safe moves
                    moves[i] = free[int(rnd() * len(free))] if free else Move(i, nbrs[c.head][0])
            state = step(state, moves)
        winner = state.outcome.winner
        return turns, 3 if winner is None else (2 if winner == 0 else 1)

    return playout


# --------------------------------------------------------------------------- naive

DIRECTIONS = ((0, -1), (1, 0), (0, 1), (-1, 0))  # N, E, S, W, as the topology orders them


class NaiveBoard:
    """The textbook Python step: walls and trails as sets of ``(x, y)`` tuples."""

    def __init__(self, walls: set[tuple[int, int]], heads: list[tuple[int, int]]) -> None:
        self.walls = walls
        self.trail = set(heads)
        self.heads: list[tuple[int, int] | None] = list(heads)

    def neighbours(self, i: int) -> list[tuple[int, int]]:
        head = self.heads[i]
        if head is None:
            return []
        x, y = head
        return [
            (x + dx, y + dy)
            for dx, dy in DIRECTIONS
            if 0 <= x + dx < WIDTH and 0 <= y + dy < HEIGHT
        ]

    def free_moves(self, i: int) -> list[tuple[int, int]]:
        head = self.heads[i]
        if head is None:
            return []
        x, y = head
        free = []
        for dx, dy in DIRECTIONS:
            p = (x + dx, y + dy)
            in_grid = 0 <= p[0] < WIDTH and 0 <= p[1] < HEIGHT
            if in_grid and p not in self.walls and p not in self.trail:
                free.append(p)
        return free

    def step(self, moves: list[tuple[int, int]]) -> set[int]:
        """Move every live cycle at once; return the indices of the cycles killed."""
        dead = set()
        for i, p in enumerate(moves):
            if self.heads[i] is None:
                continue
            if p in self.walls or p in self.trail:
                dead.add(i)
            for j in range(i + 1, len(moves)):
                if self.heads[j] is not None and moves[j] == p:
                    dead.add(i)
                    dead.add(j)
        for i, p in enumerate(moves):
            if self.heads[i] is None:
                continue
            if i in dead:
                self.heads[i] = None
            else:
                self.trail.add(p)
                self.heads[i] = p
        return dead


def make_naive() -> Playout:
    """Playouts on `NaiveBoard`, with the same policy as the other Python columns."""
    walls = {(c % WIDTH, c // WIDTH) for c in border_cells()}
    start = [(START_A % WIDTH, START_A // WIDTH), (START_B % WIDTH, START_B // WIDTH)]

    def playout(rnd: Callable[[], float]) -> tuple[int, int]:
        board = NaiveBoard(walls, start)
        turns = 0
        while True:
            turns += 1
            moves = []
            for i in range(2):
                free = board.free_moves(i)
                moves.append(free[int(rnd() * len(free))] if free else board.neighbours(i)[0])
            dead = board.step(moves)
            if dead:
                return turns, (1 if 0 in dead else 0) | (2 if 1 in dead else 0)

    return playout


# --------------------------------------------------------------------------- running


def run_python(playout: Playout, seconds: float, seed: int) -> dict[str, float]:
    """Play ``playout`` until ``seconds`` have passed; return counts and turns/s."""
    rnd = random.Random(seed).random
    clock = time.perf_counter
    playouts = turns = 0
    start = clock()
    while True:
        t, _ = playout(rnd)
        turns += t
        playouts += 1
        now = clock()
        if now - start >= seconds:
            break
    elapsed = now - start
    return {"playouts": playouts, "turns": turns, "seconds": elapsed, "rate": turns / elapsed}


def compile_c(workdir: str) -> tuple[Path | None, str]:
    """Compile playout.c; return the executable (or None) and a note on what happened."""
    candidates = [os.environ.get("CC", ""), "gcc", "cc", "clang"]
    cc = next((shutil.which(c) for c in candidates if c and shutil.which(c)), None)
    if cc is None:
        return None, "skipped: no C compiler found (tried $CC, gcc, cc, clang)"
    exe = Path(workdir) / "playout"
    cmd = [cc, "-O2", "-o", str(exe), str(C_SOURCE)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, f"skipped: {' '.join(cmd)} failed:\n{proc.stderr.strip()}"
    return exe, f"{Path(cc).name} -O2 {C_SOURCE.relative_to(ROOT)}"


def run_c(exe: Path, seconds: float, seed: int) -> dict[str, float]:
    """Run the C playouts for ``seconds``; the program times itself."""
    out = subprocess.run(
        [str(exe), str(seed), repr(seconds)], capture_output=True, text=True, check=True
    ).stdout
    data = json.loads(out)
    data["rate"] = data["turns"] / data["seconds"]
    return data


def cross_check(playouts: dict[str, Playout], seed: int) -> str:
    """Check that the Python columns play identical games from one seed."""
    results = {}
    for name, playout in playouts.items():
        rnd = random.Random(seed).random
        results[name] = [playout(rnd) for _ in range(CROSS_CHECK_PLAYOUTS)]
    first_name, first = next(iter(results.items()))
    for name, games in results.items():
        if games != first:
            at = next(i for i, (x, y) in enumerate(zip(games, first, strict=True)) if x != y)
            return (
                f"MISMATCH: {name} and {first_name} differ at playout {at}: "
                f"{games[at]} != {first[at]} (turns, killed); the columns do not play "
                "the same rules"
            )
    return (
        f"{', '.join(results)} played the same {CROSS_CHECK_PLAYOUTS} games "
        f"(seed {seed}, {sum(t for t, _ in first)} turns)"
    )


def measure(seconds: float, repeats: int, seed: int, log: Callable[[str], None]) -> dict[str, Any]:
    """Run the whole benchmark and return its figures."""
    if str(ROOT / "src") not in sys.path:
        sys.path.insert(0, str(ROOT / "src"))
    notes: dict[str, str] = {}
    pythons: dict[str, Playout] = {"internal": make_internal()}
    try:
        public = make_public()
        public(random.Random(seed).random)  # one game, so a broken engine shows here
        pythons["public"] = public
    except Exception as exc:
        notes["public"] = f"not available ({type(exc).__name__}: {exc})"
    pythons["naive"] = make_naive()

    notes["cross-check"] = cross_check(pythons, seed)
    for playout in pythons.values():  # warm up every column once
        run_python(playout, min(0.2, seconds), seed)

    with tempfile.TemporaryDirectory(prefix="lightcycle-bench-") as tmp:
        exe, notes["C"] = compile_c(tmp)
        runners: dict[str, Callable[[int], dict[str, float]]] = {}
        if exe is not None:
            runners["C"] = lambda s: run_c(exe, seconds, s)
        for name, playout in pythons.items():
            runners[name] = lambda s, p=playout: run_python(p, seconds, s)
        samples: dict[str, list[dict[str, float]]] = {name: [] for name in runners}
        for r in range(repeats):
            for name, run in runners.items():
                samples[name].append(run(seed + r))
            log(
                f"repeat {r + 1}/{repeats}: "
                + ", ".join(f"{n} {s[-1]['rate']:,.0f}" for n, s in samples.items())
                + " turns/s"
            )

    columns = {}
    for name, runs in samples.items():
        rates = [x["rate"] for x in runs]
        playouts = sum(x["playouts"] for x in runs)
        turns = sum(x["turns"] for x in runs)
        median = statistics.median(rates)
        columns[name] = {
            "turns_per_s_median": median,
            "turns_per_s_min": min(rates),
            "turns_per_s_max": max(rates),
            "ns_per_turn_median": 1e9 / median,
            "rates": rates,
            "playouts": playouts,
            "turns": turns,
            "turns_per_playout": turns / playouts,
        }
    ratios = {}
    for key, (op, target) in TARGETS.items():
        # "C/internal": C's turns/s over internal's (how many times slower than C);
        # "internal/naive": internal's over naive's (how many times faster than naive)
        top, bottom = key.split("/")
        if top not in columns or bottom not in columns:
            ratios[key] = {"ratio": None, "target": f"{op}{target:g}x", "verdict": "n/a"}
            continue
        ratio = columns[top]["turns_per_s_median"] / columns[bottom]["turns_per_s_median"]
        pairs = zip(columns[top]["rates"], columns[bottom]["rates"], strict=True)
        paired = [t / b for t, b in pairs]
        ok = ratio <= target if op == "<=" else ratio >= target
        ratios[key] = {
            "ratio": ratio,
            "paired_min": min(paired),
            "paired_max": max(paired),
            "target": f"{op}{target:g}x",
            "verdict": "PASS" if ok else "MISS",
        }
    return {
        "benchmark": "step_speed",
        "arena": "30x30 grid, border walls (28x28 free), starts (7,15) and (22,14)",
        "seconds_per_slice": seconds,
        "repeats": repeats,
        "seed": seed,
        "python": sys.version.split()[0],
        "columns": columns,
        "ratios": ratios,
        "notes": notes,
    }


def report(result: dict[str, Any]) -> str:
    """The human-readable table."""
    cols, notes = result["columns"], result["notes"]
    lines = [
        f"step speed: random playouts, {result['arena']}",
        f"{result['repeats']} interleaved repeats of {result['seconds_per_slice']:g} s per "
        f"column, seed {result['seed']}, Python {result['python']}; medians (min-max)",
        "",
        f"{'column':<10}{'turns/s median (min-max)':>36}{'ns/turn':>10}"
        f"{'playouts':>12}{'turns/playout':>15}",
    ]
    for name in ("C", "internal", "public", "naive"):
        if name not in cols:
            why = notes.get(name, "not measured")
            lines.append(f"{name:<10}{why if name == 'public' else 'C ' + why}")
            continue
        c = cols[name]
        spread = (
            f"{c['turns_per_s_median']:,.0f} "
            f"({c['turns_per_s_min']:,.0f}-{c['turns_per_s_max']:,.0f})"
        )
        lines.append(
            f"{name:<10}{spread:>36}{c['ns_per_turn_median']:>10,.0f}"
            f"{c['playouts']:>12,}{c['turns_per_playout']:>15.1f}"
        )
    lines += ["", f"{'ratio':<16}{'median':>9}{'per-repeat':>16}{'target':>9}  verdict"]
    for key, r in result["ratios"].items():
        meaning = "slower than C" if key.startswith("C/") else "faster than naive"
        if r["ratio"] is None:
            lines.append(f"{key:<16}{'-':>9}{'-':>16}{r['target']:>9}  n/a")
            continue
        paired = f"{r['paired_min']:.1f}-{r['paired_max']:.1f}x"
        lines.append(
            f"{key:<16}{r['ratio']:>8.1f}x{paired:>16}{r['target']:>9}  {r['verdict']}  ({meaning})"
        )
    lines += ["", f"C build: {notes.get('C', '-')}", f"cross-check: {notes['cross-check']}"]
    if "public" in notes:
        lines.append(f"public step: {notes['public']}")
    return "\n".join(lines)


Measure = Callable[[float, int, int, Callable[[str], None]], dict[str, Any]]
"""A benchmark's ``measure(seconds, repeats, seed, log)``: its figures."""


def bench_main(
    argv: list[str] | None,
    doc: str | None,
    default_seconds: float,
    measure: Measure,
    report: Callable[[dict[str, Any]], str],
) -> int:
    """The command line of a speed benchmark (this one, ``bench/envs_speed.py``):
    ``--seconds --repeats --seed --json``, ``measure`` with its progress on stderr, then
    ``report``'s table (or the figures as JSON) on stdout."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=default_seconds, help="time slice per run")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repetitions")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first repeat")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be positive and --repeats at least 1")

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    result = measure(args.seconds, args.repeats, args.seed, log)
    print(json.dumps(result, indent=2) if args.json else report(result))
    return 0


def main(argv: list[str] | None = None) -> int:
    return bench_main(argv, __doc__, 1.0, measure, report)


if __name__ == "__main__":
    sys.exit(main())

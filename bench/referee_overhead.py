"""Referee overhead: a full referee turn against the bare pipe round trip.

Two copies of ``bench/c/trivial_bot.c`` (compiled here with ``gcc -O2``) play the 2010
protocol. The same turns are measured two ways, interleaved ``--repeats`` times:

1. ``referee``: `lightcycle.referee.game.play_game` with both bots as sandboxed
   programs (own session and PID namespace, stderr drained, time controls on): per
   turn it encodes both maps incrementally, writes both requests, waits for both
   replies on a selector, parses them, judges the moves, records the replay and steps
   the engine. Time per turn is measured from the first request to the end of the game.
2. ``bare``: the minimal loop a referee cannot beat: the very same map bytes, encoded
   once before timing, written to two plain ``subprocess.Popen`` bots, then one
   blocking ``os.read`` per bot for its answer. No parsing, no rules, no clocks.

The ratio ``referee/bare`` (medians, with the range of per-repeat ratios) is checked
against the target of 2.5x. Two more tables measure process start-up against a
match's time, on two matches:

- ``example``: the match of the README's example command, 10 side-swapped games on ``ring``
  against the in-process chaser;
- ``smallest``: ``--games`` (default 50) games on arena-15 against the in-process
  wallhugger: the shortest games there are, so the largest share start-up can take.

In each, the starter bots play where each game takes a new process (tron2010; with no
spare, or with the match's default of one spare started while the previous game plays),
where a jsonl bot is kept between games, and where a tron2010 bot is kept because its
author allows it (``reuse``). Start-up = the time the match loop spent starting and
stopping processes (waiting for a start or a spare, handing a finished process to the
reaper, the clean-up at the end) plus each game's first reply beyond a typical reply.
The time the pool's threads spend starting and ending processes beside the games is
shown too: it is not on the match's path, but it is CPU the machine spends, and a slower
match shows it in ``per game``.

Run from the repository root::

    python bench/referee_overhead.py [--map arena-50] [--repeats 7] [--games 50]
        [--startup example,smallest] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import lightcycle.referee.match as match_mod  # noqa: E402
from lightcycle.maps.registry import get_map  # noqa: E402
from lightcycle.protocols.base import Params  # noqa: E402
from lightcycle.protocols.tron2010 import Tron2010  # noqa: E402
from lightcycle.referee.clock import TimeControl  # noqa: E402
from lightcycle.referee.game import play_game  # noqa: E402
from lightcycle.referee.match import run_match  # noqa: E402
from lightcycle.referee.players import BotSpec, ProgramPlayer  # noqa: E402
from lightcycle.replay.model import Replay  # noqa: E402
from lightcycle.rules.variants import get_ruleset  # noqa: E402
from lightcycle.sandbox import Limits  # noqa: E402

TARGET = 2.5
STARTUP_MATCHES: dict[str, tuple[str, str, int]] = {
    # the match of the README's example command: ring, 10 games, sides swapped, vs chaser
    "example": ("ring", "chaser", 10),
    # the smallest: the shortest games there are (a 15x15 room, bots that answer at once)
    "smallest": ("arena-15", "wallhugger", 50),
}
CONTROL = TimeControl(move=5.0, first_move=5.0)


def compile_bot(tmp: Path) -> Path:
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        sys.exit("needs gcc or cc to compile bench/c/trivial_bot.c")
    exe = tmp / "trivial_bot"
    subprocess.run([cc, "-O2", "-o", str(exe), str(ROOT / "bench/c/trivial_bot.c")], check=True)
    return exe


def referee_run(exe: Path, map_name: str) -> tuple[float, float, int, Replay]:
    """One game through the referee: seconds per turn, the referee thread's CPU seconds
    per turn, turns, the replay."""
    spec = BotSpec(text=str(exe), kind="program", command=(str(exe),), protocol="tron2010")
    players = [ProgramPlayer(spec, Limits(), None), ProgramPlayer(spec, Limits(), None)]
    marks: list[float] = []
    cpu: list[float] = []
    try:
        record = play_game(
            players,
            get_map(map_name),
            get_ruleset("classic"),
            seed=1,
            controls=CONTROL,
            on_turn=lambda state: (
                marks.append(time.perf_counter()),
                cpu.append(time.thread_time()),
            ),
        )
    finally:
        for p in players:
            p.shutdown()
    turns = record.final.turn
    # marks[0]: after set-up; marks[-1]: after the last step (before closing processes)
    return (marks[-1] - marks[0]) / turns, (cpu[-1] - cpu[0]) / turns, turns, record.replay


def frames_of(replay: Replay) -> list[tuple[bytes, bytes]]:
    """The exact bytes each seat was sent on each turn of ``replay``."""
    codecs = [Tron2010(0), Tron2010(1)]
    states = list(replay.states())
    first = states[0]
    for c in codecs:
        c.start(first, Params())
    return [(codecs[0].turn(s), codecs[1].turn(s)) for s in states[:-1]]


def bare_run(exe: Path, frames: list[tuple[bytes, bytes]], seats: int = 2) -> float:
    """Seconds per turn of the minimal write-both, read-both loop."""
    procs = [
        subprocess.Popen([str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        for _ in range(seats)
    ]
    ins = [p.stdin.fileno() for p in procs]  # type: ignore[union-attr]
    outs = [p.stdout.fileno() for p in procs]  # type: ignore[union-attr]
    write, read = os.write, os.read
    try:
        t0 = time.perf_counter()
        for pair in frames:
            for fd, frame in zip(ins, pair, strict=False):
                write(fd, frame)
            for fd in outs:
                read(fd, 64)  # the 2-byte answer arrives in one piece
        elapsed = time.perf_counter() - t0
    finally:
        for p in procs:
            p.stdin.close()  # type: ignore[union-attr]
            p.wait()
    return elapsed / len(frames)


def _spy(real: Any, seen: list[ProgramPlayer]) -> Any:
    """Wrap ``make_player`` to keep the program players a match creates."""

    def spy(s: BotSpec, limits: Limits, log_dir: Path | None, spares: int = 0) -> Any:
        p = real(s, limits, log_dir, spares)
        if isinstance(p, ProgramPlayer):
            seen.append(p)
        return p

    return spy


def compile_example(tmp: Path, protocol: str) -> Path:
    """Compile the C starter bot of ``protocol`` (``examples/PROTOCOL/bot.c``)."""
    cc = shutil.which("gcc") or shutil.which("cc")
    exe = tmp / f"{protocol}_bot"
    if not exe.exists():
        src = ROOT / "examples" / protocol / "bot.c"
        subprocess.run([str(cc), "-O2", "-o", str(exe), str(src)], check=True)
    return exe


def startup_share(
    trivial: Path,
    games: int,
    tmp: Path,
    map_name: str,
    opponent: str,
    starters: bool,
    repeats: int,
) -> list[dict[str, Any]]:
    """Start-up cost as a share of a ``games``-game side-swapped match on ``map_name``
    against the in-process ``opponent``, with and without process reuse: per case the
    run of median share among ``repeats`` runs, with the range of shares.

    The C bot of the 2010 protocol is the trivial bench bot, or with ``starters`` the C
    starter bot of ``examples/tron2010`` (which plays whole games); the other bots are
    always the starter bots of ``examples/``.
    """

    def program(text: str, command: tuple[str, ...], protocol: str) -> BotSpec:
        return BotSpec(text=text, kind="program", command=command, protocol=protocol)

    c2010 = compile_example(tmp, "tron2010") if starters else trivial
    c_bot = program("c2010", (str(c2010),), "tron2010")
    py_bot = program("py2010", (sys.executable, str(ROOT / "examples/tron2010/bot.py")), "tron2010")
    c_jsonl = program("cjsonl", (str(compile_example(tmp, "jsonl")),), "jsonl")
    py_jsonl = program("pyjsonl", (sys.executable, str(ROOT / "examples/jsonl/bot.py")), "jsonl")
    c_name = "C starter bot" if starters else "trivial C bot"
    cases = [
        (f"tron2010 {c_name}, a process per game, no spare", c_bot, 0),
        (f"tron2010 {c_name}, a process per game, 1 spare", c_bot, 1),
        (f"tron2010 {c_name}, one process reused", replace(c_bot, reuse=True), 1),
        ("jsonl C starter bot, one process reused", c_jsonl, 1),
        ("jsonl Python starter bot, one process reused", py_jsonl, 1),
        ("tron2010 Python starter bot, a process per game, no spare", py_bot, 0),
        ("tron2010 Python starter bot, a process per game, 1 spare", py_bot, 1),
        ("tron2010 Python starter bot, one process reused", replace(py_bot, reuse=True), 1),
    ]
    samples: list[list[dict[str, Any]]] = [[] for _ in cases]
    for r in range(repeats):  # interleaved, so a burst of load hits every case alike
        for n, (label, spec, spares) in enumerate(cases):
            out = tmp / f"{map_name}-{opponent}-{n}-{r}"
            samples[n].append(_startup_match(label, spec, spares, games, map_name, opponent, out))
    rows = []
    for runs in samples:
        runs.sort(key=lambda row: row["share"])
        row = runs[len(runs) // 2]  # the median run (the upper one of an even count)
        row["share_range"] = [runs[0]["share"], runs[-1]["share"]]
        rows.append(row)
    return rows


def _startup_match(
    label: str, spec: BotSpec, spares: int, games: int, map_name: str, opponent: str, out: Path
) -> dict[str, Any]:
    """Play one start-up match and measure it (see `startup_share`)."""
    other = BotSpec(text=f"builtin:{opponent}", kind="inproc")
    players_seen: list[ProgramPlayer] = []
    real = match_mod.make_player
    match_mod.make_player = _spy(real, players_seen)  # type: ignore[assignment]
    try:
        result = run_match(
            [spec, other],
            [get_map(map_name)],
            get_ruleset("classic"),
            games=games,
            swap_sides=True,
            control=CONTROL,
            out_dir=out,
            spares=spares,
        )
    finally:
        match_mod.make_player = real  # type: ignore[assignment]
    player = players_seen[0]
    first_extra = 0.0
    moves = 0
    for g in result.games:
        replay = Replay.load(out / str(g.replay))
        seat = g.bots.index(result.stats[0].name)
        times = [t[seat] for t in replay.times or [] if t[seat] is not None]
        moves += len(times)
        if len(times) > 1:
            typical = statistics.median(times[1:])
            first_extra += max(0.0, times[0] - typical)
    startup = player.startup_seconds + first_extra
    return {
        "case": label,
        "reused": player.starts == 1,
        "games": games,
        "process_starts": player.starts,
        "startup_s": round(startup, 4),
        "match_s": round(result.wall_seconds, 4),
        "share": round(startup / result.wall_seconds, 4),
        "bot_moves": moves,
        # the think time per move, on average, at which start-up would be 5% of the match
        "break_even_ms": round(
            1000 * max(0.0, startup / 0.05 - result.wall_seconds) / max(1, moves), 3
        ),
        "per_start_ms": round(1000 * startup / max(1, player.starts), 2),
        "per_game_ms": round(1000 * result.wall_seconds / games, 2),
        "spares": spares if not player.reuses else 0,
        "spares_unused": player.spares_unused,
        "first_reply_extra_s": round(first_extra, 4),
        "background_s": round(player.background_seconds, 4),
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--map", default="arena-50")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--games", type=int, default=50, help="games of the smallest start-up match")
    ap.add_argument(
        "--startup",
        default="example,smallest",
        help="start-up matches to play, comma-separated: example, smallest (default both)",
    )
    ap.add_argument(
        "--startup-repeats", type=int, default=3, help="runs of each start-up match (median)"
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    args.startup = [x.strip() for x in args.startup.split(",") if x.strip()]
    unknown = set(args.startup) - {"example", "smallest"}
    if unknown:
        ap.error(f"--startup: unknown match {sorted(unknown)}; choose from example, smallest")
    STARTUP_MATCHES["smallest"] = ("arena-15", "wallhugger", args.games)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        exe = compile_bot(tmp)
        ref_t, ref_cpu, bare_t, single_t, ratios = [], [], [], [], []
        turns = 0
        for _ in range(args.repeats):
            per_turn, cpu_per_turn, turns, replay = referee_run(exe, args.map)
            ref_cpu.append(cpu_per_turn)
            frames = frames_of(replay)
            b = bare_run(exe, frames)
            s = bare_run(exe, frames, seats=1)
            ref_t.append(per_turn)
            bare_t.append(b)
            single_t.append(s)
            ratios.append(per_turn / b)
        med = statistics.median
        result = {
            "map": args.map,
            "turns_per_game": turns,
            "frame_bytes": len(frames[0][0]),
            "referee_us": round(med(ref_t) * 1e6, 1),
            "referee_cpu_us": round(med(ref_cpu) * 1e6, 1),
            "bare_us": round(med(bare_t) * 1e6, 1),
            "bare_one_bot_us": round(med(single_t) * 1e6, 1),
            "referee/bare": round(med(ref_t) / med(bare_t), 2),
            "ratio_range": [round(min(ratios), 2), round(max(ratios), 2)],
            "target": TARGET,
            "startup": {
                name: {
                    "map": m,
                    "opponent": opp,
                    "games": g,
                    "rows": startup_share(
                        exe, g, tmp, m, opp, name == "example", args.startup_repeats
                    ),
                }
                for name, (m, opp, g) in STARTUP_MATCHES.items()
                if name in args.startup
            },
        }

    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"map {result['map']}: {turns} turns per game, {result['frame_bytes']} bytes per map")
    print(f"  referee turn      {result['referee_us']:8.1f} us  (median of {args.repeats})")
    print(f"  referee CPU       {result['referee_cpu_us']:8.1f} us  (the referee thread's own)")
    print(f"  bare round trip   {result['bare_us']:8.1f} us  (both bots)")
    print(f"  bare, one bot     {result['bare_one_bot_us']:8.1f} us")
    ok = "PASS" if result["referee/bare"] <= TARGET else "MISS"
    print(
        f"  referee/bare      {result['referee/bare']:8.2f} x  (range {result['ratio_range'][0]}"
        f"-{result['ratio_range'][1]}; target <= {TARGET}x: {ok})"
    )
    for name, block in result["startup"].items():
        print(
            f"start-up share, {name} match: {block['games']} side-swapped games on "
            f"{block['map']} against the in-process {block['opponent']}:"
        )
        for r in block["rows"]:
            ok = ("PASS" if r["share"] < 0.05 else "MISS") if r["reused"] else "n/a"
            print(
                f"  {r['case']:<58} {r['process_starts']:3d} starts  {r['startup_s']:7.3f} s of "
                f"{r['match_s']:7.3f} s = {100 * r['share']:5.1f}% "
                f"({100 * r['share_range'][0]:.1f}-{100 * r['share_range'][1]:.1f}%; "
                f"target < 5%: {ok}); "
                f"{r['per_start_ms']:.1f} ms per start, {r['per_game_ms']:.1f} ms per game; "
                f"under 5% if the bot thinks {r['break_even_ms']:.2f} ms a move; "
                f"first replies +{1000 * r['first_reply_extra_s']:.1f} ms, "
                f"{1000 * r['background_s']:.0f} ms in the background, "
                f"{r['spares_unused']} spare(s) unused"
            )
    if result["startup"]:
        print(
            "n/a: a process per game is the protocol's own (the 2010, multi-player and Scheme "
            "protocols cannot announce a new game); the target is for reused processes.\n"
            "These bots answer at once; 'under 5% if the bot thinks X ms a move' is the average "
            "time per move at which the same start-up would be 5% of the match"
        )


if __name__ == "__main__":
    main()

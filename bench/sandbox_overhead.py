"""Sandbox overhead: process start-up and per-turn round trip, full sandbox against none.

An echo bot (one line in, one line out) in C (compiled here with ``gcc -O2``) and in
Python is started as a `lightcycle.sandbox.BotProcess` at two sandbox levels:

- ``none``: today's default (own session, PID namespace where possible, ``RLIMIT_DATA``);
- ``full``: bubblewrap with its own user id (as root), a read-only system view, a scratch
  tmpfs, new network, PID, IPC and UTS namespaces, the seccomp filter and the limits.

For each start it measures ``start``: from the call to the first reply (what a game's first
move pays), then ``turn``: the median round trip of ``--turns`` lines written and answered
(what every later move pays), then ``close``. Starts of the two levels are interleaved,
``--repeats`` times each, so the machine's load falls on both alike; the table shows the
medians and the ratio ``full/none`` of each. The issue's goal: the full sandbox costs
start-up time, not per-turn time (a turn ratio near 1).

Run from the repository root (the full level needs ``scripts/install-sandbox``)::

    python bench/sandbox_overhead.py [--repeats 15] [--turns 200] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from lightcycle.sandbox import BotProcess, Limits, SandboxError  # noqa: E402
from lightcycle.sandbox.check import require  # noqa: E402

C_ECHO = r"""
#include <stdio.h>
#include <string.h>
int main(void) {
    char line[256];
    setvbuf(stdout, NULL, _IONBF, 0);
    while (fgets(line, sizeof line, stdin)) fputs(line, stdout);
    return 0;
}
"""

PY_ECHO = """import sys
for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
"""


def reply(proc: BotProcess, timeout: float = 10.0) -> bytes:
    """Wait for one whole line from ``proc`` (the bot answers one line per line)."""
    data = b""
    end = time.monotonic() + timeout
    while not data.endswith(b"\n"):
        left = end - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no reply from {proc.argv}: {proc.stderr_tail()!r}")
        select.select([proc.stdout_fd], [], [], left)
        data += proc.read()
    return data


def one_start(argv: list[str], folder: Path, level: str, turns: int) -> dict[str, float]:
    """Start, first reply, ``turns`` round trips, close: seconds of each part."""
    t0 = time.perf_counter()
    proc = BotProcess(argv, cwd=folder, limits=Limits(sandbox=level))
    try:
        proc.send(b"hello\n")
        reply(proc)
        t1 = time.perf_counter()
        trips = []
        for _ in range(turns):
            s = time.perf_counter()
            proc.send(b"1\n")
            reply(proc)
            trips.append(time.perf_counter() - s)
    finally:
        t2 = time.perf_counter()
        proc.close(grace=0.5)
        t3 = time.perf_counter()
    return {"start": t1 - t0, "turn": statistics.median(trips), "close": t3 - t2}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=15, help="starts per bot and level")
    ap.add_argument("--turns", type=int, default=200, help="round trips per start")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    if args.repeats < 1 or args.turns < 1:
        ap.error("--repeats and --turns take a count of 1 or more")
    try:
        require("full")
    except SandboxError as exc:
        sys.exit(f"error: {exc}")
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        sys.exit("error: no C compiler (gcc or cc) for the C echo bot")
    with tempfile.TemporaryDirectory(prefix="lightcycle-bench-") as tmp:
        folder = Path(tmp) / "bot"
        folder.mkdir()
        (folder / "echo.c").write_text(C_ECHO)
        (folder / "echo.py").write_text(PY_ECHO)
        subprocess.run([gcc, "-O2", "-o", str(folder / "echo"), str(folder / "echo.c")], check=True)
        for p in (Path(tmp), folder, *folder.iterdir()):  # readable by a pool user id
            p.chmod(0o755)
        bots = {"C": ["./echo"], "Python": [sys.executable, "echo.py"]}
        runs: dict[tuple[str, str], list[dict[str, float]]] = {}
        for _ in range(args.repeats):
            for name, argv in bots.items():
                for level in ("none", "full"):
                    runs.setdefault((name, level), []).append(
                        one_start(argv, folder, level, args.turns)
                    )
    figures = {
        f"{name}/{level}": {
            part: statistics.median(r[part] for r in rs) for part in ("start", "turn", "close")
        }
        for (name, level), rs in runs.items()
    }
    load = os.getloadavg()[0]
    if args.json:
        print(json.dumps({"load": load, "repeats": args.repeats, "figures": figures}, indent=1))
        return
    print(f"medians of {args.repeats} starts each, {args.turns} turns a start; load {load:.2f}")
    print(f"{'bot':8} {'part':6} {'none ms':>9} {'full ms':>9} {'full/none':>9}")
    for name in bots:
        for part in ("start", "turn", "close"):
            none = figures[f"{name}/none"][part] * 1000
            full = figures[f"{name}/full"][part] * 1000
            print(f"{name:8} {part:6} {none:9.3f} {full:9.3f} {full / none:9.2f}")


if __name__ == "__main__":
    main()

"""How long this machine keeps a ready process waiting: the floor under every time limit.

A process that sleeps 1 ms in a loop should wake about every millisecond. On a shared
or virtual machine it sometimes wakes much later: the host ran something else. No bot
and no referee can answer faster than the machine lets them run, so a bot whose moves
take 25 ms can still overrun a 100 ms limit when such a stall lands in its move. Run
this beside a match to tell a bot's slow move from the machine's.

Run from the repository root::

    python bench/machine_stalls.py [--seconds 60] [--over-ms 20]
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seconds", type=float, default=60.0, help="how long to watch")
    ap.add_argument("--over-ms", type=float, default=20.0, help="report wake-ups later than this")
    args = ap.parse_args()
    clock = time.perf_counter
    end = clock() + args.seconds
    last = clock()
    wakeups = 0
    stalls: list[float] = []
    while last < end:
        time.sleep(0.001)
        now = clock()
        wakeups += 1
        if (now - last) * 1000 > args.over_ms:
            stalls.append((now - last) * 1000)
        last = now
    stalls.sort()
    worst = ", ".join(f"{s:.1f}" for s in stalls[-8:]) or "none"
    print(
        f"{wakeups} wake-ups in {args.seconds:.0f} s; {len(stalls)} came more than "
        f"{args.over_ms:.0f} ms after the last (a 1 ms sleep); longest, ms: {worst}"
    )


if __name__ == "__main__":
    main()

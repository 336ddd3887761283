"""A worker process for the official round's kill -9 test: `run_worker` with the real
steps on `ROUND_DUEL` (its hooks start the round's next stages).

Usage: python -m tests.judge.service.round_worker DB_URL
"""

from __future__ import annotations

import dataclasses
import signal
import sys
import threading

from lightcycle.judge.service.contest import OfficialSpec
from lightcycle.judge.service.worker import run_worker
from tests.judge.service.programs import DUEL

ROUND_DUEL = dataclasses.replace(
    DUEL,
    maps=("arena-10",),
    official=OfficialSpec(finalists=1, rounds_per_start=1, group_size=2, filler="builtin:random"),
)
"""The match tests' duel on a smaller map (short games), with elimination rounds of
duels until a champion, one round a start."""


def main() -> None:
    """Work until SIGTERM (or until killed, which is the point)."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    run_worker(sys.argv[1], ROUND_DUEL, stop=stop, poll=0.05, heartbeat=0.15, stall=1.0)


if __name__ == "__main__":
    main()

"""A worker process for the kill -9 test: `run_worker` with a `RecordingStep`.

Usage: python -m tests.judge.service.killable_worker DB_URL RUNS_FILE
"""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

from lightcycle.judge.service.worker import run_worker
from tests.judge.service.fakes import CONTEST, RecordingStep


def main() -> None:
    """Work until SIGTERM (or until killed, which is the point)."""
    url, runs = sys.argv[1], Path(sys.argv[2])
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    run_worker(
        url,
        CONTEST,
        stop=stop,
        poll=0.05,
        heartbeat=0.15,
        stall=1.0,
        max_attempts=50,
        step=RecordingStep(runs, 0.03, 0.12),
    )


if __name__ == "__main__":
    main()

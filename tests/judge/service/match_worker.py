"""A worker process for the match kill -9 test: `run_worker` with the real steps
(`matchplay.run_job`) on the match tests' duel contest; `start` and `stop_all` for
the tests that run such processes (any module given to `start`).

Usage: python -m tests.judge.service.match_worker DB_URL
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.worker import run_worker
from tests.judge.service.programs import DUEL

ROOT = Path(__file__).resolve().parents[3]


def start(*args: str, module: str = "tests.judge.service.match_worker") -> subprocess.Popen[bytes]:
    """A worker process (``python -m MODULE ARGS...``), its output discarded."""
    return subprocess.Popen(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def stop_all(procs: Sequence[subprocess.Popen[bytes]]) -> None:
    """Stop every process still running (SIGTERM: the current job is finished first;
    SIGKILL after 20 s) and reap them all."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def main(contest: Contest = DUEL) -> None:
    """Work on ``contest`` until SIGTERM (or until killed, which is the point), with
    heartbeats and a stall limit short enough for a test (`round_worker` too)."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    run_worker(sys.argv[1], contest, stop=stop, poll=0.05, heartbeat=0.15, stall=1.0)


if __name__ == "__main__":
    main()

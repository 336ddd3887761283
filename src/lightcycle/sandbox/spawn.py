"""Starting bot processes on one long-lived thread, and reaping what they leave.

`SPAWNER` starts every sandboxed process (see `Spawner` for why one thread); `MAINS` and
`SPAWN_LOCK` keep the reaping of orphans (a subreaper referee adopts its bots' orphans)
away from the main processes that their ``Popen`` must reap. `check_executable` refuses a
program that cannot run before anything starts.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

from lightcycle.sandbox import proctree
from lightcycle.sandbox.limits import SandboxError
from lightcycle.sandbox.prefixes import become_subreaper


def reap(pid: int, timeout: float = 1.0) -> None:
    """Reap ``pid`` if it became our child (we are a subreaper); give up after ``timeout``."""
    end = time.monotonic() + timeout
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done or time.monotonic() > end:
            return
        time.sleep(0.005)


def check_executable(program: str, cwd: str | os.PathLike[str] | None) -> None:
    """Refuse at once a program that cannot run, rather than as a crash on turn 1."""
    if os.sep in program:
        path = Path(cwd or ".") / program
        if not path.is_file():
            raise SandboxError(f"cannot start {program!r}: no such file (looked at {path})")
        if not os.access(path, os.X_OK):
            raise SandboxError(
                f"cannot start {program!r}: not executable (chmod +x {path}, or run it "
                "through its interpreter, e.g. cmd:'python3 bot.py')"
            )
        check_interpreter(path)
    elif shutil.which(program) is None:
        raise SandboxError(f"cannot start {program!r}: no such program on the PATH")


def check_interpreter(path: Path) -> None:
    """Refuse a script whose ``#!`` interpreter does not exist."""
    try:
        with path.open("rb") as f:
            head = f.readline(256)
    except OSError:
        return
    if not head.startswith(b"#!"):
        return
    words = head[2:].split()
    if words and not Path(os.fsdecode(words[0])).is_file():
        raise SandboxError(
            f"cannot start {str(path)!r}: its #! interpreter {os.fsdecode(words[0])} does not exist"
        )


MAINS: set[int] = set()  # main pids of live BotProcesses: never reaped behind Popen's back
SPAWN_LOCK = threading.Lock()
"""Held while a process starts and while orphans are reaped: spares start on another
thread, and a bot that dies at once must not be reaped as an orphan before its pid is in
`MAINS`, or its ``Popen`` would never learn its exit status."""


def reap_orphans() -> None:
    """Reap zombie children that are no bot's main process.

    As a subreaper the referee adopts the orphans of every bot it runs without a PID
    namespace: a daemon's exited middle process, for one. Bots' main processes are left
    to their ``Popen``, which must read their exit status itself.
    """
    me = os.getpid()
    with SPAWN_LOCK:
        for p in proctree.processes():
            if p.ppid == me and p.state == "Z" and p.pid not in MAINS:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(p.pid, os.WNOHANG)


def children(pid: int) -> set[int]:
    """The children of ``pid`` (from ``/proc/PID/task/PID/children`` where the kernel has
    it: one read instead of a scan of every process)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as f:
            return {int(x) for x in f.read().split()}
    except (OSError, ValueError):
        return {p.pid for p in proctree.processes() if p.ppid == pid}


def reap_sandbox_orphans() -> None:
    """Reap what bubblewrap leaves to a subreaper referee.

    Bubblewrap learns its sandbox's exit status through a pipe and exits without reaping
    the sandbox's first process; the kernel hands that zombie to the nearest subreaper.
    A referee that became one (for a bot run without a PID namespace) reaps it here; any
    other referee leaves it to PID 1, which reaps it.
    """
    if become_subreaper.cache_info().currsize and become_subreaper():
        reap_orphans()


class Spawner:
    """One long-lived thread that starts every sandboxed process.

    Bubblewrap's ``--die-with-parent`` (``PR_SET_PDEATHSIG``) fires when the *thread*
    that started it ends, not the process: a bot started on a pool's starter thread or
    a match's worker thread would be killed when that thread finished. Starting them all
    on this daemon thread, which lives as long as the referee, ties every bot to the
    referee process itself, whatever kills it. The hand-over costs tens of microseconds,
    against milliseconds for the start itself.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[
            tuple[Callable[[], subprocess.Popen[bytes]], Future[subprocess.Popen[bytes]]]
        ] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def run(self, start: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._serve, name="sandbox-spawner", daemon=True
                )
                self._thread.start()
        done: Future[subprocess.Popen[bytes]] = Future()
        self._jobs.put((start, done))
        return done.result()

    def _serve(self) -> None:
        while True:
            start, done = self._jobs.get()
            try:
                done.set_result(start())
            except BaseException as exc:  # handed to the caller, which re-raises it
                done.set_exception(exc)


SPAWNER = Spawner()

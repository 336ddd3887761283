"""`SparePool`: processes of one command started before they are needed, ended in the background.

Starting a bot program costs its referee a few milliseconds of ``fork``/``exec`` and the
bot an interpreter start (30-40 ms for Python), and ending one costs a wait for its exit.
In a series of short games that is most of a match. A pool moves both off the caller's
path:

- **spares**: while a process plays, the pool's starter thread already starts the next
  one (up to ``spares`` started, unused processes), so `SparePool.take` usually returns at
  once a process whose interpreter has finished loading;
- **retiring**: `SparePool.retire` closes the process's input and returns; the reaper
  thread gives it its grace period, kills what is left (every process of its tree, as
  `BotProcess.close` does) and reaps it. With ``kill`` the process group gets SIGKILL at
  once (a bot that failed must stop using the machine now), and only the waiting for
  the tree to be gone is left to the reaper thread: a referee's turn loop never waits
  for a PID namespace to be torn down.

A spare must not be able to take CPU from a game being timed. With ``held_start`` a
spare is started *held* (`lightcycle.sandbox.proctree.hold_prefix`): its process, its
limits and its PID namespace or bubblewrap sandbox are set up ahead, but the bot's own
code does not run until `take` releases it with one line on its stdin, so a hostile
spare has nothing to spin with. What it saves is the referee's part of a start and the
sandbox's set-up; a Python bot still loads its interpreter on its game's first move
(whose limit is meant for that). Lighter holds were measured and refused: a spare at
``SCHED_IDLE`` or ``nice 19`` is still a session of its own, hence an autogroup of its
own, which the kernel shares the CPU with as with any other (a spinning ``SCHED_IDLE``
spare took half of a timed bot's CPU on a host with autogroups), and a bot can undo both
with ``setsid``; a SIGSTOP after the start lets the first instructions run. Whatever a
process did before its game is the game's to judge all the same: `take` hands a spare
out whatever became of it.

Every process is still a `BotProcess` with all its guarantees (own session and PID
namespace, memory limit, bounded stderr tail). `SparePool.close` kills the unused spares
and finishes every retirement before it returns, so nothing the pool started outlives
it; a pool that was never closed is closed when the interpreter exits. The starter
thread lives until then: a bot's parent-death signal (`lightcycle.sandbox.reaper`) fires
when the thread that started it ends.

The threads spend their time in system calls that release the GIL (``fork``/``exec``
waits, ``waitpid``, sleeps), so they do not slow the thread that plays the game.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import signal
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable

from lightcycle.sandbox import proctree
from lightcycle.sandbox.process import BotProcess, SandboxError

MAX_SPARES = 8
"""The most spares a pool keeps: each is a process holding memory while it waits."""

_POLL = 0.002  # seconds between looks at retiring processes that have not exited yet

_POOLS: weakref.WeakSet[SparePool] = weakref.WeakSet()


def kill_now(proc: BotProcess) -> None:
    """SIGKILL ``proc``'s process group and first process, without waiting for anything.

    The first process of a PID namespace takes the namespace with it, and a bot
    without one has the rest of its tree killed by `BotProcess.kill` later; what takes
    time (waiting until every process is gone and reaped) is left to the caller, or to
    `SparePool.retire` on its reaper thread.
    """
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    if proc.poll() is None:
        with contextlib.suppress(OSError):
            proc.proc.kill()


def _end(proc: BotProcess, grace: float, killed: bool) -> None:
    """Close ``proc``; after `kill_now`, first make sure its whole tree is gone.

    `BotProcess.close` trusts a PID namespace whose first process has exited to be
    empty, which holds when it exited by itself; `kill_now` killed it under its
    namespace's init, which must still be waited for (and reaped).
    """
    if killed:
        proc.kill()
    proc.close(grace=0.0 if killed else grace)


def release(proc: BotProcess) -> None:
    """Let a held spare's program start (`lightcycle.sandbox.proctree.hold_prefix`)."""
    proc.send(proctree.HOLD_LINE)


@atexit.register
def _close_all() -> None:  # a safety net: run_match and friends close their pools
    for pool in list(_POOLS):
        with contextlib.suppress(Exception):
            pool.close()


class SparePool:
    """Started processes of one command, kept ready, and finished ones ended off-path.

    Args:
        start: starts one process (a `BotProcess` of the command, with its limits). It
            runs on the caller's thread when no spare is ready; its `SandboxError`
            reaches the caller from `take`.
        spares: how many started, unused processes to keep (0: start on demand only;
            at most `MAX_SPARES`).
        held_start: starts a held spare (on the starter thread); `take` releases it
            (`release`). ``None``: spares are started by ``start``, and run at once.

    Attributes:
        spares: the number of spares kept.
        started: processes started, spares included (used or not).
        from_spares: processes `take` handed out that were started ahead.
        unused: spares killed unused by `close`.
        waited: seconds callers spent in `take`, `retire` and `close`: the pool's cost on
            the caller's path.
        background: seconds the threads spent starting and ending processes, overlapped
            with the caller's work.
    """

    def __init__(
        self,
        start: Callable[[], BotProcess],
        spares: int = 1,
        held_start: Callable[[], BotProcess] | None = None,
    ) -> None:
        if not 0 <= spares <= MAX_SPARES:
            raise ValueError(f"spares must be between 0 and {MAX_SPARES}, got {spares}")
        self._start = start
        self._start_spare = held_start if held_start is not None else start
        self._releases = held_start is not None
        self.spares = spares
        self.started = 0
        self.from_spares = 0
        self.unused = 0
        self.waited = 0.0
        self.background = 0.0
        self._cond = threading.Condition()
        self._ready: deque[BotProcess] = deque()
        self._out: list[BotProcess] = []  # handed out by take(), not retired yet
        self._starting = False
        self._failed = False  # a spare could not start: stop trying, let take() raise
        self._closed = False
        self._finished = False  # close() is done: the starter thread may end
        self._starter: threading.Thread | None = None
        # (process, end of its grace, whether it was killed at once) or None: stop
        self._retiring: queue.SimpleQueue[tuple[BotProcess, float, bool] | None] = (
            queue.SimpleQueue()
        )
        self._reaper: threading.Thread | None = None
        _POOLS.add(self)

    # -- starting ----------------------------------------------------------------------
    def take(self) -> BotProcess:
        """A started process: a spare if one is ready (or on its way), else a new one.

        A spare is handed out whatever became of it since it started (its game judges
        what it did: output written ahead, an exit with its status and stderr tail),
        released first (``held_start``).

        Raises:
            SandboxError: the program cannot be started.
        """
        t0 = time.perf_counter()
        try:
            with self._cond:
                if self._closed:
                    raise SandboxError("the process pool is closed")
                while self._starting and not self._ready:
                    self._cond.wait()  # one is nearly there: cheaper than a new start
                proc = self._ready.popleft() if self._ready else None
                if proc is not None:
                    self.from_spares += 1
            if proc is None:
                proc = self._start()
                with self._cond:
                    self.started += 1
            elif self._releases:
                release(proc)
            with self._cond:
                self._out.append(proc)
            self._refill()
            return proc
        finally:
            self.waited += time.perf_counter() - t0

    def _refill(self) -> None:
        if self.spares == 0:
            return
        with self._cond:
            if self._starter is None and not self._closed:
                self._starter = threading.Thread(
                    target=self._run_starter, name="spare-starter", daemon=True
                )
                self._starter.start()
            self._cond.notify_all()

    def _run_starter(self) -> None:
        while True:
            with self._cond:
                while not self._closed and (
                    self._failed or len(self._ready) >= self.spares or self._starting
                ):
                    self._cond.wait()
                if self._closed:
                    # the bots this thread started die with it (their parent-death
                    # signal): it ends only once close() has ended them all
                    while not self._finished:
                        self._cond.wait()
                    return
                self._starting = True
            t0 = time.perf_counter()
            proc: BotProcess | None = None
            with contextlib.suppress(SandboxError, OSError):  # take() will report it
                proc = self._start_spare()
            leftover: BotProcess | None = None
            with self._cond:
                self._starting = False
                if proc is None:
                    self._failed = True
                else:
                    self.started += 1
                    if self._closed:
                        leftover = proc
                        self.unused += 1
                    else:
                        self._ready.append(proc)
                self._cond.notify_all()
            if leftover is not None:
                leftover.close(grace=0)
            self.background += time.perf_counter() - t0

    # -- ending ------------------------------------------------------------------------
    def retire(self, proc: BotProcess, grace: float = 0.0, kill: bool = False) -> None:
        """End ``proc`` in the background: its input closes now, it gets ``grace`` seconds
        to exit by itself, then every process of its tree is killed and reaped.

        With ``kill``, its process group is killed now instead (`kill_now`): no grace.
        Its stderr tail is written to its log when it is gone.
        """
        t0 = time.perf_counter()
        if kill:
            kill_now(proc)
            grace = 0.0
        proc.close_stdin()  # the bot sees the end of its input at once
        with self._cond:
            with contextlib.suppress(ValueError):
                self._out.remove(proc)
            closed = self._closed
            if not closed and self._reaper is None:
                self._reaper = threading.Thread(
                    target=self._run_reaper, name="process-reaper", daemon=True
                )
                self._reaper.start()
        if closed:
            _end(proc, grace, kill)
        else:
            self._retiring.put((proc, time.perf_counter() + grace, kill))
        self.waited += time.perf_counter() - t0

    def _run_reaper(self) -> None:
        pending: list[tuple[BotProcess, float, bool]] = []
        stopping = False
        while pending or not stopping:
            try:
                item = self._retiring.get(timeout=_POLL) if pending else self._retiring.get()
                if item is None:
                    stopping = True
                else:
                    pending.append(item)
            except queue.Empty:
                pass
            now = time.perf_counter()
            still: list[tuple[BotProcess, float, bool]] = []
            for proc, deadline, killed in pending:
                if proc.poll() is None and now < deadline:
                    still.append((proc, deadline, killed))
                    continue
                t0 = time.perf_counter()
                with contextlib.suppress(Exception):  # never leave the others unreaped
                    _end(proc, 0.0, killed)
                self.background += time.perf_counter() - t0
            pending = still

    def close(self) -> None:
        """Kill the unused spares, and the processes handed out and not retired; finish
        every retirement; idempotent.

        Returns when no process the pool started is left, none a zombie.
        """
        t0 = time.perf_counter()
        with self._cond:
            first = not self._closed
            self._closed = True
            spares = list(self._ready)
            self._ready.clear()
            out, self._out = self._out, []
            self.unused += len(spares)
            starter, reaper = self._starter, self._reaper
            self._cond.notify_all()
        with self._cond:
            while self._starting:  # it kills a process it was starting once it sees this
                self._cond.wait()
        for proc in (*out, *spares):
            proc.close(grace=0)
        if reaper is not None:
            if first:
                self._retiring.put(None)
            reaper.join()
        with self._cond:  # every process is gone: the starter thread may end now
            self._finished = True
            self._cond.notify_all()
        if starter is not None:
            starter.join()  # also waits for its kill of a process started too late
        _POOLS.discard(self)
        self.waited += time.perf_counter() - t0

    def __enter__(self) -> SparePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

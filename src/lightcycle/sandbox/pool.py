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
  `BotProcess.close` does) and reaps it.

Every process is still a `BotProcess` with all its guarantees (own session and PID
namespace, memory limit, bounded stderr tail). `SparePool.close` kills the unused spares
and finishes every retirement before it returns, so nothing the pool started outlives
it; a pool that was never closed is closed when the interpreter exits.

The threads spend their time in system calls that release the GIL (``fork``/``exec``
waits, ``waitpid``, sleeps), so they do not slow the thread that plays the game.
"""

from __future__ import annotations

import atexit
import contextlib
import queue
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable

from lightcycle.sandbox.process import BotProcess, SandboxError

MAX_SPARES = 8
"""The most spares a pool keeps: each is a process holding memory while it waits."""

_POLL = 0.002  # seconds between looks at retiring processes that have not exited yet

_POOLS: weakref.WeakSet[SparePool] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:  # a safety net: run_match and friends close their pools
    for pool in list(_POOLS):
        with contextlib.suppress(Exception):
            pool.close()


class SparePool:
    """Started processes of one command, kept ready, and finished ones ended off-path.

    Args:
        start: starts one process (a `BotProcess` of the command, with its limits). It
            runs on the starter thread for spares and on the caller's thread when no
            spare is ready; its `SandboxError` reaches the caller from `take`.
        spares: how many started, unused processes to keep (0: start on demand only;
            at most `MAX_SPARES`).

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

    def __init__(self, start: Callable[[], BotProcess], spares: int = 1) -> None:
        if not 0 <= spares <= MAX_SPARES:
            raise ValueError(f"spares must be between 0 and {MAX_SPARES}, got {spares}")
        self._start = start
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
        self._starter: threading.Thread | None = None
        self._retiring: queue.SimpleQueue[tuple[BotProcess, float] | None] = queue.SimpleQueue()
        self._reaper: threading.Thread | None = None
        _POOLS.add(self)

    # -- starting ----------------------------------------------------------------------
    def take(self) -> BotProcess:
        """A started process: a spare if one is ready (or on its way), else a new one.

        A spare is handed out whatever became of it since it started: a bot that died
        while loading gets the verdict a freshly started one would (``crashed``, with
        its stderr tail).

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
                    return
                self._starting = True
            t0 = time.perf_counter()
            proc: BotProcess | None = None
            with contextlib.suppress(SandboxError, OSError):  # take() will report it
                proc = self._start()
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
    def retire(self, proc: BotProcess, grace: float = 0.0) -> None:
        """End ``proc`` in the background: its input closes now, it gets ``grace`` seconds
        to exit by itself, then every process of its tree is killed and reaped.

        Its stderr tail is written to its log when it is gone.
        """
        t0 = time.perf_counter()
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
            proc.close(grace=grace)
        else:
            self._retiring.put((proc, time.perf_counter() + grace))
        self.waited += time.perf_counter() - t0

    def _run_reaper(self) -> None:
        pending: list[tuple[BotProcess, float]] = []
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
            still: list[tuple[BotProcess, float]] = []
            for proc, deadline in pending:
                if proc.poll() is None and now < deadline:
                    still.append((proc, deadline))
                    continue
                t0 = time.perf_counter()
                with contextlib.suppress(Exception):  # never leave the others unreaped
                    proc.close(grace=0)
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
        if starter is not None:
            starter.join()  # it kills a process it was starting when it sees the pool closed
        for proc in (*out, *spares):
            proc.close(grace=0)
        if reaper is not None:
            if first:
                self._retiring.put(None)
            reaper.join()
        _POOLS.discard(self)
        self.waited += time.perf_counter() - t0

    def __enter__(self) -> SparePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

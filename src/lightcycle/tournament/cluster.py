"""Tournaments and duels on a Ray cluster, behind the `concurrent.futures` seam.

The runner (`lightcycle.tournament.runner`) and the duel (`lightcycle.tournament.duel`)
play through any `concurrent.futures.Executor`. `RayExecutor` is one whose tasks are Ray
tasks, so the same code that fills one machine's cores fills a cluster's, and nothing in
the runner or the duel knows Ray exists. Ray is a heavy dependency (a 79 MB wheel and a
set of daemons), so it is an extra (``pip install 'lightcycle[cluster]'``) and is imported
only when an executor is made; without it lightcycle works as before and asking for Ray
says which extra to install.

What a process pool gives its workers, this gives Ray's worker processes:

- **The per-worker initializer.** A pool runs ``initializer(*initargs)`` once per worker
  process; Ray has no such hook for tasks, so every task goes through `_run_in_worker`,
  which runs the initializer the first time a process sees it (a module-level set). Ray
  keeps a job's worker processes for the whole job, so players (and bot programs
  speaking ``jsonl``) live per worker for the whole tournament, as in a pool.
- **The parent watchdog.** The pools the runner and the duel make pass their own process
  id to the initializer, and `lightcycle.tournament.workers.watch_parent` ends a worker whose
  parent is no longer that process. A Ray worker's parent is the node's raylet, never the
  driver (and on another machine the driver's id means nothing), so the initializers
  here get no id: the watchdog then watches the worker's own parent, the raylet, and
  stops the worker's bot programs when the node's Ray goes away, never before.
- **The same working directory.** Every task first moves into the driver's working
  directory, so relative paths (bot files, ``--out``) mean the same on every node. A
  node without that directory refuses the task with `ClusterError`: every node needs the
  same files at the same paths (a shared file system), and the output folder must be
  shared too, because workers write the replays and bot logs there.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, InvalidStateError
from typing import Any, Generic, ParamSpec, TypeVar

from lightcycle.tournament import pairplay, play

EXTRA = "pip install 'lightcycle[cluster]' (from a clone: pip install -e '.[cluster]')"
"""How to install what `RayExecutor` needs."""

_P = ParamSpec("_P")
_T = TypeVar("_T")


class ClusterError(Exception):
    """Ray is missing, or a cluster cannot run lightcycle's tasks (the message says how)."""


def import_ray() -> Any:
    """The ``ray`` module, imported on first use (typed ``Any``: Ray ships partial types).

    Raises:
        ClusterError: Ray is not installed; the message names the extra.
    """
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise ClusterError(
            f"running on Ray needs the ray package, which is not installed ({exc}): {EXTRA}"
        ) from None


_DONE_INITIALIZERS: set[tuple[str, str, str]] = set()
"""The initializers this process has run, by qualified name and arguments."""
_INIT_LOCK = threading.Lock()


def _run_in_worker(
    cwd: str | None,
    initializer: Callable[..., object] | None,
    initargs: tuple[Any, ...],
    fn: Callable[..., _T],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> _T:
    """Run ``fn`` in a Ray worker, after the worker's one-time set-up.

    Ray tasks have no initializer; this is it: move into ``cwd`` (every task, cheap),
    then run ``initializer`` unless this process already did.

    Raises:
        ClusterError: this node has no directory ``cwd``.
    """
    if cwd is not None and os.getcwd() != cwd:
        try:
            os.chdir(cwd)
        except OSError as exc:
            raise ClusterError(
                f"the Ray worker on {os.uname().nodename} cannot enter the driver's working "
                f"directory {cwd} ({exc.strerror}): every node needs the same files at the "
                "same paths (docs/tournaments.md, 'On a cluster')"
            ) from None
    if initializer is not None:
        key = (initializer.__module__, initializer.__qualname__, repr(initargs))
        with _INIT_LOCK:
            if key not in _DONE_INITIALIZERS:
                initializer(*initargs)
                _DONE_INITIALIZERS.add(key)
    return fn(*args, **kwargs)


class RayFuture(Future[_T], Generic[_T]):
    """A task's future: the result of its Ray object, and `cancel` cancels the task.

    ``ObjectRef.future()`` alone would cancel only the future, leaving the task to run
    (and to write its replay) after the runner gave up on it.
    """

    def __init__(self, ref: Any, ray: Any) -> None:
        super().__init__()
        self._ref = ref
        self._ray = ray
        ref.future().add_done_callback(self._copy)

    def _copy(self, inner: Future[_T]) -> None:
        exc = inner.exception()
        try:
            if exc is not None:
                self.set_exception(exc)  # a RayTaskError that is also the task's own error
            else:
                self.set_result(inner.result())
        except InvalidStateError:  # cancelled meanwhile: nobody wants the result
            pass

    def cancel(self) -> bool:
        """Cancel the task: a queued task never runs; a running one is interrupted.

        Returns:
            Whether the future is now cancelled (``False`` once it has a result).
        """
        if not super().cancel():
            return False
        with contextlib.suppress(Exception):  # already finished, or Ray shutting down
            self._ray.cancel(self._ref)
        return True


class RayExecutor(Executor):
    """A `concurrent.futures.Executor` whose tasks run as Ray tasks on a Ray cluster.

    Connects to the cluster at ``address`` or, by default, starts a private local Ray
    for this process (stopped by `shutdown`). Pass `max_workers` to the runner or the
    duel as their ``workers``: it is how many tasks they keep in flight.

    Args:
        address: a running cluster: ``auto`` (the one ``ray start`` began on this machine,
            or ``RAY_ADDRESS``), ``HOST:PORT`` of its head, or ``ray://HOST:10001``;
            ``None``: start a local Ray with ``max_workers`` CPUs. If this process is
            already connected to Ray (``ray.init`` was called), that connection is used
            and left open.
        max_workers: the CPUs a local Ray gets, and what the runner and the duel size
            their tasks in flight by; ``None``: the cluster's CPUs. Each task takes one
            CPU; on a running cluster Ray places the tasks it is sent wherever CPUs are
            free, so this sizes the work in flight rather than capping it.
        initializer: run once in each Ray worker process before its first task, like a
            process pool's (`init_tournament_worker`, `init_duel_worker`).
        initargs: its arguments.
        cwd: the directory every task runs in; ``None``: this process's working
            directory, so relative paths mean the same everywhere.

    Raises:
        ClusterError: Ray is not installed.
        ValueError: ``max_workers`` below 1.
    """

    def __init__(
        self,
        address: str | None = None,
        max_workers: int | None = None,
        initializer: Callable[..., object] | None = None,
        initargs: tuple[Any, ...] = (),
        cwd: str | None = None,
    ) -> None:
        if max_workers is not None and max_workers < 1:
            raise ValueError(f"max_workers must be >= 1, got {max_workers}")
        ray = import_ray()
        self._ray = ray
        self._owns_ray = not ray.is_initialized()
        if self._owns_ray:
            if address is None:
                ray.init(
                    address="local",  # a private Ray: never a cluster found by chance
                    num_cpus=max_workers,
                    include_dashboard=False,
                    log_to_driver=False,  # bots' output goes to their logs, not the terminal
                    logging_level="ERROR",
                )
            else:
                ray.init(address=address, log_to_driver=False, logging_level="ERROR")
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.max_workers = max_workers if max_workers is not None else max(1, cpus)
        self._cwd = cwd if cwd is not None else os.getcwd()
        self._initializer = initializer
        self._initargs = initargs
        self._remote = ray.remote(num_cpus=1)(_run_in_worker)
        self._futures: set[RayFuture[Any]] = set()
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> Future[_T]:
        """Run ``fn(*args, **kwargs)`` as a Ray task (``fn`` must be importable there).

        Raises:
            RuntimeError: after `shutdown`.
        """
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot submit to a RayExecutor after shutdown")
            ref = self._remote.remote(
                self._cwd, self._initializer, self._initargs, fn, args, dict(kwargs)
            )
            future: RayFuture[_T] = RayFuture(ref, self._ray)
            self._futures.add(future)
        future.add_done_callback(self._forget)
        return future

    def _forget(self, future: Future[Any]) -> None:
        with self._lock:
            self._futures.discard(future)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop taking tasks; cancel or wait for those running; stop a Ray we started.

        Args:
            wait: wait for the tasks still running.
            cancel_futures: cancel the tasks not finished first.
        """
        with self._lock:
            self._closed = True
            pending = list(self._futures)
        if cancel_futures:
            for future in pending:
                future.cancel()
        if wait:
            for future in pending:
                if not future.cancelled():
                    future.exception()  # waits; the caller saw or will see the error
        if self._owns_ray and self._ray.is_initialized():
            self._owns_ray = False
            self._ray.shutdown()


def init_tournament_worker() -> None:
    """A tournament's Ray worker set-up: `play.init_worker` watching the raylet."""
    play.init_worker(None)


def init_duel_worker() -> None:
    """A duel's Ray worker set-up: the duel pool's, watching the raylet."""
    pairplay.init_worker(None)


def tournament_executor(address: str | None = None, workers: int | None = None) -> RayExecutor:
    """A `RayExecutor` for `run_tournament`: its workers keep players between batches."""
    return RayExecutor(address, workers, initializer=init_tournament_worker)


def duel_executor(address: str | None = None, workers: int | None = None) -> RayExecutor:
    """A `RayExecutor` for `run_duel`: its workers keep players between pairs."""
    return RayExecutor(address, workers, initializer=init_duel_worker)

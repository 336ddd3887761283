"""What every pool worker of a duel or a tournament shares: players, maps, the watchdog.

A worker keeps one player per bot for all the tasks it plays (`PlayerCache`), so a program
whose protocol allows it (``jsonl``) runs as one process per worker rather than one per
game; `worker_players` stops those programs when the worker exits or its runner dies
(`watch_parent`). `kept_map` keeps one copy of each map per process, `save_replay` writes
replays where duels and tournaments both look for them, and `InlineExecutor` plays in the
calling process (``workers=1``) behind the same `concurrent.futures` seam as a pool.
"""

from __future__ import annotations

import multiprocessing.util
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import ParamSpec, TypeVar

from lightcycle.maps.spec import MapSpec
from lightcycle.referee.game import GameRecord
from lightcycle.referee.players import BotSpec, Player, make_player
from lightcycle.sandbox import Limits


class PlayerCache:
    """The players of one worker, kept from pair to pair so programs can stay running.

    Keyed by the role (A or B) as well as the spec, so a bot playing itself gets two
    players, as it must.
    """

    def __init__(self) -> None:
        self._players: dict[tuple[str, str, str, str | None], Player] = {}

    def get(self, role: str, spec: BotSpec, limits: Limits, log_dir: str | None) -> Player:
        """The player for ``spec`` in ``role``, made on first use."""
        key = (role, repr(spec), repr(limits), log_dir)  # a BotSpec holds a dict: no hash
        player = self._players.get(key)
        if player is None:
            player = make_player(spec, limits, Path(log_dir) if log_dir else None)
            self._players[key] = player
        return player

    def shutdown(self) -> None:
        """Stop every program (idempotent)."""
        players, self._players = list(self._players.values()), {}
        for p in players:
            p.shutdown()


def save_replay(record: GameRecord, out: Path | None, name: str) -> str | None:
    """Write a game's replay as ``replays/NAME.json`` under ``out``; its relative path.

    Duels and tournaments both store that relative path with the result, so the output
    folder can be moved as a whole. ``None`` (nothing written) without an ``out``.
    """
    if out is None:
        return None
    replay = f"replays/{name}.json"
    (out / "replays").mkdir(parents=True, exist_ok=True)
    record.replay.save(out / replay)
    return replay


PARENT_POLL = 0.5
"""Seconds between a pool worker's checks that the process that started it is alive."""


def watch_parent(parent: int, shutdown: Callable[[], None]) -> None:
    """End this pool worker, after ``shutdown``, once process ``parent`` is gone.

    A worker whose runner was killed (``kill -9``, out of memory) would otherwise wait for
    work forever and keep its bot programs running.

    Args:
        parent: the runner's process id, passed in by the runner: a worker still starting
            when the runner dies would take its new parent (init) for the runner.
        shutdown: stops the worker's players.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        try:
            shutdown()
        finally:
            os._exit(1)

    threading.Thread(target=watch, name="lightcycle-parent-watch", daemon=True).start()


def worker_players(parent: int | None = None) -> PlayerCache:
    """A pool worker's players, stopped when the worker exits or its runner dies.

    Pool workers leave through multiprocessing's exit path, which skips ``atexit`` but
    runs ``multiprocessing.util.Finalize`` callbacks: that is where programs are stopped.

    Args:
        parent: the runner's process id (``initargs=(os.getpid(),)``); see `watch_parent`.
    """
    players = PlayerCache()
    multiprocessing.util.Finalize(None, players.shutdown, exitpriority=10)
    watch_parent(os.getppid() if parent is None else parent, players.shutdown)
    return players


_KEPT_MAPS: dict[MapSpec, MapSpec] = {}
_KEPT_MAPS_MAX = 256


def kept_map(spec: MapSpec) -> MapSpec:
    """This process's copy of a map equal to ``spec``: the first one it was given.

    Each task arrives with its own unpickled map, and bots and the rules cache tables
    per board object (`lightcycle.rules.fast.windows`): on a new object every pair they
    were rebuilt every pair, which cost about half an instant-bot game's CPU per game.
    Equal maps are interchangeable (frozen dataclasses), so the first copy serves.
    """
    kept = _KEPT_MAPS.get(spec)
    if kept is None:
        if len(_KEPT_MAPS) >= _KEPT_MAPS_MAX:
            _KEPT_MAPS.clear()
        kept = _KEPT_MAPS[spec] = spec
    return kept


_P = ParamSpec("_P")
_T = TypeVar("_T")


class InlineExecutor(Executor):
    """Runs each task at once in the calling thread: ``workers=1`` without processes.

    Keeps the duel's scheduling code identical for one worker and many, and keeps
    tracebacks and debuggers in one process.
    """

    def submit(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> Future[_T]:
        """Run ``fn`` now and return its finished future (exceptions are kept in it)."""
        future: Future[_T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:  # the caller sees it from future.result(), as with a pool
            future.set_exception(exc)
        return future


def default_workers() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover -- macOS, Windows
        return max(1, os.cpu_count() or 1)

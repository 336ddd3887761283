"""``lightcycle judge serve``: the website and its workers in one command.

A class on one machine needs one command: the website (uvicorn) in the main thread and
``workers`` workers (`lightcycle.judge.service.worker.run_worker`) in threads beside it.
Threads are enough: a worker spends its time waiting for the builds and games it runs in
sandboxed processes, not in Python. More workers, on this machine or others, are
``lightcycle judge worker`` processes on the same database.

A third kind of thread, the scheduler (`Judge.tick`, every `SCHEDULE_EVERY_S`), starts
official rounds at the contest's ``[official] schedule`` times
(`lightcycle.judge.service.rounds.start_due`: the database decides, so each time starts
at most one round even with several ``judge serve`` processes) and tops a ladder up
(`lightcycle.judge.service.ladder.fill_now`).

Stopping (Ctrl-C, SIGTERM): uvicorn stops taking requests (the official pages' event
streams end at once), then the workers finish their current step and record it; one
still busy after `GRACE_S` hands its job back to the queue (another worker or the next
start redoes it), so stopping loses nothing.
"""

from __future__ import annotations

import datetime as dt
import logging
import socket
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lightcycle.judge.web.auth import load_secret_key

if TYPE_CHECKING:
    from lightcycle.judge.service.contest import Contest
    from lightcycle.judge.service.worker import Step

log = logging.getLogger(__name__)

GRACE_S = 10.0
"""Seconds the workers have to finish their current step after a stop request."""

SCHEDULE_EVERY_S = 20.0
"""How often the scheduler looks for a scheduled round that is due: a round starts at
most this long after its time."""


class ServeError(RuntimeError):
    """The judge cannot start (a port in use, a key file it cannot make); one line."""


class Judge:
    """The website and its workers, started by `run` and stopped by `stop` (or a signal).

    Args:
        contest: the loaded contest (its ``[judge]`` table gives the database, key file,
            host, port and worker count; the arguments override them).
        workers, host, port: overrides of the contest file's values (``port`` 0: any
            free port, read back from `port` once `ready` is set).
        step: what workers run (default: the pipeline; tests pass a fast one).
        announce: called with the site's URL once it listens.
        schedule_every: seconds between the scheduler's looks (`tick`).
        clock: the time now, in UTC (tests pass a fixed one).

    Raises:
        ServeError: the port is taken or the key file cannot be made.
        lightcycle.storage.StorageError: the database cannot be opened.
    """

    def __init__(
        self,
        contest: Contest,
        *,
        workers: int | None = None,
        host: str | None = None,
        port: int | None = None,
        step: Step | None = None,
        announce: Callable[[str], None] | None = None,
        schedule_every: float = SCHEDULE_EVERY_S,
        clock: Callable[[], dt.datetime] | None = None,
    ) -> None:
        from lightcycle.judge.service.store import JudgeStore
        from lightcycle.judge.web.app import create_app
        from lightcycle.judge.web.auth import KeyFileError

        self.contest = contest
        self.workers = contest.judge.workers if workers is None else workers
        self.host = host or contest.judge.host
        wanted = contest.judge.port if port is None else port
        self.step = step
        self.announce = announce
        self.schedule_every = schedule_every
        self.clock = clock or (lambda: dt.datetime.now(dt.UTC))
        self.ready = threading.Event()
        self.halt = threading.Event()
        self.abandon = threading.Event()
        self.threads: list[threading.Thread] = []
        try:
            key = load_secret_key(Path(contest.judge.secret_key_file))
        except KeyFileError as exc:
            raise ServeError(str(exc)) from None
        self.store = JudgeStore(contest.judge.database)  # migrates before any worker starts
        try:
            self.sock = _listen(self.host, wanted)
        except BaseException:
            self.store.close()
            raise
        self.port = int(self.sock.getsockname()[1])
        self.app = create_app(self.store, contest, key, stopping=self.halt)
        self.server: Any = None

    @property
    def url(self) -> str:
        """The site's address."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def run(self) -> None:
        """Serve until `stop` or a signal, then stop the workers (see the module docstring)."""
        import uvicorn

        from lightcycle.judge.service.worker import run_worker

        config = uvicorn.Config(
            self.app,
            log_level="warning",
            lifespan="off",
            timeout_graceful_shutdown=int(GRACE_S),  # a request still open then is cut
        )
        self.server = uvicorn.Server(config)
        for i in range(self.workers):
            thread = threading.Thread(
                target=self._work,
                args=(run_worker, i + 1),
                name=f"judge-worker-{i + 1}",
                daemon=True,
            )
            thread.start()
            self.threads.append(thread)
        scheduler = threading.Thread(target=self._schedule, name="judge-scheduler", daemon=True)
        if self.scheduled:
            scheduler.start()
        watcher = threading.Thread(target=self._watch, name="judge-ready", daemon=True)
        watcher.start()
        try:
            self.server.run(sockets=[self.sock])
        finally:
            self.halt.set()
            self._stop_workers()
            if scheduler.is_alive():
                scheduler.join(timeout=GRACE_S)  # a look in progress ends its transaction
            self.sock.close()
            self.store.close()
            watcher.join(timeout=5)

    def stop(self) -> None:
        """Ask the website to stop (from another thread); `run` then stops the workers."""
        self.halt.set()
        if self.server is not None:
            self.server.should_exit = True

    @property
    def scheduled(self) -> bool:
        """Whether this contest has anything for the scheduler to do."""
        official = self.contest.official
        return official.mode == "ladder" or (
            official.mode == "elimination" and bool(official.schedule)
        )

    def tick(self) -> int | None:
        """One look of the scheduler: start the round of a scheduled time that is due
        (None: none started), or top the ladder up."""
        from lightcycle.judge.service import ladder, rounds

        if self.contest.official.mode == "ladder":
            ladder.fill_now(self.store.engine, self.contest)
            return None
        rid = rounds.start_due(self.store.engine, self.contest, self.clock())
        if rid is not None:
            log.info("scheduled round started (round id %d)", rid)
        return rid

    def _schedule(self) -> None:
        while not self.halt.is_set():
            try:
                self.tick()
            except Exception:  # the database away for a moment: the next look retries
                log.exception("the scheduler failed; it looks again in %.0f s", self.schedule_every)
            self.halt.wait(self.schedule_every)

    def _watch(self) -> None:
        while not self.halt.is_set():
            if self.server is not None and self.server.started:
                self.ready.set()
                if self.announce is not None:
                    self.announce(self.url)
                break
            self.halt.wait(0.05)
        while not self.halt.wait(0.1):
            if self.server is not None and self.server.should_exit:
                self.halt.set()  # a signal stopped uvicorn: end the event streams now
        if self.server is not None:
            self.server.should_exit = True

    def _work(self, run_worker: Callable[..., Any], number: int) -> None:
        from lightcycle.judge.service.worker import default_name

        try:
            run_worker(
                self.contest.judge.database,
                self.contest,
                name=f"{default_name()}:w{number}",
                stop=self.halt,
                abandon=self.abandon,
                step=self.step,
            )
        except Exception:  # a worker's end must not take the website with it
            log.exception("worker %d stopped on an error", number)

    def _stop_workers(self) -> None:
        busy = [t for t in self.threads if t.is_alive()]
        if busy:
            print(
                f"stopping: {len(busy)} worker(s) finish their current step "
                f"(at most {GRACE_S:.0f} s, then it goes back to the queue)",
                file=sys.stderr,
            )
        for thread in busy:
            thread.join(timeout=GRACE_S)
            if thread.is_alive():
                self.abandon.set()
        for thread in busy:
            thread.join(timeout=GRACE_S)


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``, or a one-line `ServeError`."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ServeError(
            f"cannot listen on {host}: {exc.strerror}; give --host 127.0.0.1"
        ) from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ServeError(
            f"cannot listen on {host}:{port}: {exc.strerror}; choose another with --port"
        ) from None
    sock.set_inheritable(True)
    return sock


def serve(
    contest_path: Path,
    *,
    workers: int | None = None,
    host: str | None = None,
    port: int | None = None,
    db: str | None = None,
) -> None:
    """Load ``contest_path`` and run its judge until Ctrl-C or SIGTERM.

    Raises:
        lightcycle.judge.service.contest.ContestError: a bad contest file (one line).
        ServeError, lightcycle.storage.StorageError: the judge cannot start (one line).
    """
    from lightcycle.judge.service.contest_file import load_contest

    contest = load_contest(contest_path, database=db)
    judge = Judge(
        contest,
        workers=workers,
        host=host,
        port=port,
        announce=lambda url: print(
            f"judge {contest.name} on {url} with {judge.workers} worker(s); Ctrl-C stops it",
            flush=True,
        ),
    )
    judge.run()

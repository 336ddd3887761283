"""What the commands that play series (match, duel, grade) share: their output folder,
their exit status after a Ctrl-C, their start (strays reaped, SIGTERM and SIGHUP taken as
a Ctrl-C), and their counted nouns.

Results are never written over: a run writes into a folder of its own, a default folder
is made unique even for two runs started in the same second, and a folder the user names
must be new or empty, since old replays beside a new ``results.json`` would be read as
one run.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType

INTERRUPTED = 130
"""Exit status after a Ctrl-C (128 + SIGINT), as shells report an interrupted program."""

RUNS = frozenset({"match", "duel", "grade", "tournament"})
"""The commands that run bot programs: `start_run` prepares each."""

TERMINATIONS = (signal.SIGTERM, signal.SIGHUP)
"""Signals that end a run the way Ctrl-C does (`start_run`)."""

_received: list[int] = []  # termination signals taken as a Ctrl-C, for `die_as_signalled`


def _as_interrupt(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    signal.signal(signum, signal.SIG_DFL)  # a second one ends the referee at once
    raise KeyboardInterrupt


def _redeliver_lost_interrupts(
    previous: Callable[[sys.UnraisableHookArgs], object],
) -> Callable[[sys.UnraisableHookArgs], None]:
    """A ``sys.unraisablehook`` that raises a lost Ctrl-C again in the main thread.

    Python runs a signal handler in the main thread at its next check between bytecodes,
    and that may be inside a finalizer: a ``__del__`` (``Popen.__del__`` when a bot's
    process object is dropped) or a weak reference's callback, run when a reference
    count reaches zero or by the cyclic collector. An exception raised there cannot
    propagate: Python prints "Exception ignored in ..." and goes on. A SIGTERM or SIGHUP
    taken as a Ctrl-C was then lost, its handler already reset to the default, and the
    referee played on as if nothing had been sent (to the end of the match, or until a
    second signal).

    So a `KeyboardInterrupt` that ends up here is raised again through the handler it
    came from: a thread sends the main thread that signal again a moment later, once it
    has left this hook (a handler run inside the hook would be lost too). If it lands in
    a finalizer again, it comes back here and goes round once more.
    """
    wanted = threading.Event()
    signals: list[int] = []
    threads: list[threading.Thread] = []

    def deliver() -> None:
        main = threading.main_thread().ident
        assert main is not None
        while True:
            wanted.wait()
            wanted.clear()
            time.sleep(0.001)  # the main thread leaves the finalizer and this hook
            # a real signal, not `_thread.interrupt_main`: it also ends a wait the main
            # thread is blocked in (a sleep, a poll, a lock)
            signal.pthread_kill(main, signals[-1])

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if not (
            isinstance(unraisable.exc_type, type)
            and issubclass(unraisable.exc_type, KeyboardInterrupt)
            and threading.current_thread() is threading.main_thread()
        ):
            previous(unraisable)
            return
        try:
            signum = _received[-1] if _received else signal.SIGINT
            if signum != signal.SIGINT and signal.getsignal(signum) is signal.SIG_DFL:
                signal.signal(signum, _as_interrupt)  # the handler it came from, once more
            if not callable(signal.getsignal(signum)):  # a Ctrl-C with no handler left
                previous(unraisable)
                return
            signals.append(signum)
            if not threads:
                threads.append(threading.Thread(target=deliver, name="interrupts", daemon=True))
                threads[0].start()
            wanted.set()
        except KeyboardInterrupt:  # the one asked for came in here after all: once more
            wanted.set()

    return hook


def start_run() -> Callable[[], None]:
    """Prepare a command that runs bot programs; returns what undoes it.

    - ends strays: bot processes whose referee died before (`reap_strays`), unless
      ``LIGHTCYCLE_REAP_STRAYS=0`` (the test suite sets it: its tests kill referees on
      purpose and look at what their bots do next, while other tests run commands);
    - makes SIGTERM and SIGHUP (``timeout``, ``kill``, a closed terminal) end the run as
      Ctrl-C does: finished games are kept and every bot is killed and reaped. A
      signal already ignored (``nohup``) or handled stays so. A second signal of the
      same kind ends the referee at once; its bots still die with it (their
      parent-death signal, `lightcycle.sandbox.reaper`). One that Python could not
      raise where it landed (inside a finalizer) is raised again, not lost
      (`_redeliver_lost_interrupts`).
    """
    from lightcycle.sandbox.strays import reap_strays

    if os.environ.get("LIGHTCYCLE_REAP_STRAYS") != "0":
        reap_strays()
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    before = {s: signal.getsignal(s) for s in TERMINATIONS}
    for signum, handler in before.items():
        if handler is signal.SIG_DFL:
            signal.signal(signum, _as_interrupt)
    unraisable = sys.unraisablehook
    sys.unraisablehook = _redeliver_lost_interrupts(unraisable)

    def undo() -> None:
        for signum, handler in before.items():
            if signal.getsignal(signum) in (_as_interrupt, signal.SIG_DFL):
                signal.signal(signum, handler)
        sys.unraisablehook = unraisable

    return undo


def die_as_signalled() -> None:
    """After a run a SIGTERM or SIGHUP ended cleanly, die of that signal.

    A shell, ``timeout`` or a supervisor then sees the status it expects (143 for
    SIGTERM) rather than the Ctrl-C status the clean-up path exits with.
    """
    if not _received:
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed terminal: nothing to say
            stream.flush()
    signum = _received[0]
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


class RunOptionError(ValueError):
    """An option value no run can use (``duel --games 3``), found before anything runs.

    One of the project's input errors: `lightcycle.cli.common.user_errors` prints it as
    one red line, unlike Typer's usage box.
    """


class OutputFolderError(RunOptionError):
    """An output folder that cannot be used: it holds earlier results, or is a file."""


def check_output_file(path: Path, option: str, suffixes: tuple[str, ...]) -> None:
    """Refuse an output file that cannot be what ``option`` writes, before any work.

    The name must end in one of ``suffixes`` (a PNG in ``out.txt`` is a surprise later);
    it must not be a folder, and the nearest existing folder above it must be a folder
    (``afile/x.json`` where ``afile`` is a file cannot be made).

    Raises:
        RunOptionError: naming the option, the path and what would work.
    """
    if path.suffix.lower() not in suffixes:
        raise RunOptionError(
            f"{option} {path}: the file's name should end in {' or '.join(suffixes)} "
            f"(e.g. {path.with_suffix(suffixes[0]).name})"
        )
    if path.is_dir():
        raise RunOptionError(f"{option} {path} is a folder; give a file name inside it")
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise RunOptionError(f"{option} {path}: {parent} is a file, not a folder")


def counted(n: int, noun: str) -> str:
    """``1 game``, ``2 games``: a count with its noun in the right number."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def check_free(out: Path, option: str = "--out") -> None:
    """Refuse ``out`` unless it is new or an empty folder.

    Raises:
        OutputFolderError: naming the folder and what to do instead.
    """
    if out.exists() and not out.is_dir():
        raise OutputFolderError(f"{option} {out} is a file; give a folder for the results")
    if out.is_dir() and any(out.iterdir()):
        raise OutputFolderError(
            f"{option} {out} is not empty and results are never written over earlier ones; "
            "choose another folder or delete this one"
        )
    if not out.exists():
        _probe_create(out)


def _probe_create(out: Path) -> None:
    """Make ``out`` (and the folders above it that are missing) and remove them again:
    a folder the system refuses (under /proc, below a file, read-only) is refused now,
    before any game is played, rather than when the first result is written."""
    missing = [out, *(p for p in out.parents if not p.exists())]
    try:
        out.mkdir(parents=True)
    except FileExistsError:
        return
    except OSError as exc:
        raise _cannot_create(out, exc) from None
    for folder in missing:  # deepest first: each is empty, made just now
        with contextlib.suppress(OSError):
            folder.rmdir()


def claim_folder(out: Path | None, default: Path | None = None) -> tuple[Path | None, bool]:
    """The folder a run writes into, made now; and whether this call created it.

    Args:
        out: the folder the user named (new or empty, see `check_free`).
        default: without ``out``, where to write: made unique by adding ``-2``, ``-3``...
            when taken, atomically (``mkdir`` fails on a folder that exists, so two runs
            started at once never share one). ``None``: nothing is written.

    Raises:
        OutputFolderError: ``out`` holds earlier results or is a file.
    """
    if out is not None:
        check_free(out)
        try:
            out.mkdir(parents=True)
        except FileExistsError:
            check_free(out)  # made by someone else meanwhile: still usable if empty
            return out, False
        except OSError as exc:
            raise _cannot_create(out, exc) from None
        return out, True
    if default is None:
        return None, False
    try:
        default.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cannot_create(default.parent, exc) from None
    for k in itertools.count(1):
        path = default if k == 1 else default.with_name(f"{default.name}-{k}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        except OSError as exc:
            raise _cannot_create(path, exc) from None
        return path, True
    raise AssertionError("unreachable")  # pragma: no cover


def _cannot_create(path: Path, exc: OSError) -> OutputFolderError:
    """The one-line error for an output folder the system refuses to make."""
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    why = f"{parent} is a file" if parent.exists() and not parent.is_dir() else exc.strerror
    return OutputFolderError(
        f"cannot create the output folder {path}: {why or exc}; choose a folder you can write to"
    )


def release_folder(path: Path, created: bool) -> None:
    """Undo `claim_folder` for a run that failed before its first game finished.

    A folder this run created goes; a folder that was empty before is emptied again. So
    a mistake found when a bot starts (a missing program) leaves nothing behind.
    """
    if created:
        shutil.rmtree(path, ignore_errors=True)
        return
    for child in path.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)

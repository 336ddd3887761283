"""The referee's lifeline: a lock it holds while it lives, checked by each bot just before
the bot's own program runs.

Why: the parent-death signal that ends a bot with its referee is asked for by each
process of the start chain *after* it is forked, so a referee killed in between leaves
an orphan that never gets it. `lightcycle.sandbox.reaper.start_prefix` closes that window
for the first process (it checks ``$PPID``), but a PID namespace forks once more:
bubblewrap's inner process (the namespace's init) asks for its signal only after the
sandbox's set-up, milliseconds after the ``clone``, and ``unshare --fork --kill-child``'s
child just after its ``fork``. A referee SIGKILLed in that window takes the outer
process with it while the inner one, not yet armed, runs the bot on: 1 in 200 random
kills of a referee during a match left a bot running (until the next run's
`lightcycle.sandbox.strays.reap_strays`).

How: each referee process creates, on first use, a file of its own
(``lightcycle-referee-OWNER-RANDOM/lifeline`` in the temporary folder: the folder 0700
and unguessable, the file 0644) and holds an exclusive ``flock`` on it until it exits;
the kernel drops the lock when the process dies, however it dies, before its children
are signalled. `check_prefix` is a shell, placed after the last fork of the chain
(inside bubblewrap, the file bound read-only at `INSIDE`; after ``unshare``), that runs
``flock -n -s FILE true`` (util-linux): success means nobody holds the lock, so the
referee is gone, and the shell ends (status 0) before the bot's program starts;
otherwise it ``exec``s the program. A referee that dies after the check finds the inner
process armed: it asks for the signal as its first step after the fork, while the check
needs a shell and a ``flock`` to start.

The descriptor is close-on-exec, so no bot holds the lock; a forked child closes its
copy (`_after_fork`) and makes its own when it starts bots.

The same lock wakes the referee's undertaker (`start_undertaker`,
`lightcycle.sandbox.undertaker`) when the referee dies: it ends what no check inside a
start can reach (a bubblewrap blocked in its set-up, an init not yet armed).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from functools import cache
from pathlib import Path

from lightcycle.sandbox import proctree, reaper
from lightcycle.sandbox.limits import MARK

PREFIX = "lightcycle-referee-"
"""Name prefix of each referee's lifeline folder in the temporary folder."""

INSIDE = "/run/lightcycle-lifeline"
"""Where bubblewrap binds the lifeline in a bot's sandbox (read-only)."""

_LOCK = threading.Lock()
_HELD: dict[int, tuple[int, Path]] = {}  # pid -> (locked descriptor, the file)
_UNDERTAKERS: dict[int, subprocess.Popen[bytes]] = {}  # pid -> its undertaker


@cache
def flock_path() -> str | None:
    """util-linux ``flock``, followed to the program itself (only system folders are
    bound in a sandbox), or ``None``; looked up once (every bot start asks)."""
    found = shutil.which("flock")
    return None if found is None else os.path.realpath(found)


def path() -> Path | None:
    """This process's lifeline, made and locked on first use; ``None`` where ``flock``
    is missing or the file cannot be made (the bots then start without the check)."""
    me = os.getpid()
    held = _HELD.get(me)
    if held is not None:
        return held[1]
    if flock_path() is None:
        return None
    with _LOCK:
        held = _HELD.get(me)
        if held is not None:
            return held[1]
        try:
            top = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{reaper.owner_tag()}-"))
            file = top / "lifeline"
            fd = os.open(file, os.O_RDONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
            os.fchmod(fd, 0o644)  # whatever the umask: the bot's user id opens it
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            return None
        _HELD[me] = (fd, file)
        atexit.register(_remove, me)
        undertaker = start_undertaker(file)
        if undertaker is not None:
            _UNDERTAKERS[me] = undertaker
        return file


def start_undertaker(file: Path) -> subprocess.Popen[bytes] | None:
    """This referee's undertaker (`lightcycle.sandbox.undertaker`), waiting on ``file``;
    ``None`` where it cannot start (the next run's reaper then does its work)."""
    flock = flock_path()
    if flock is None:
        return None
    package = str(Path(__file__).resolve().parents[2])  # importable however we were
    env = {k: v for k, v in os.environ.items() if k != MARK}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package, env.get("PYTHONPATH")) if p)
    command = [flock, "-s", str(file), sys.executable, "-m", "lightcycle.sandbox.undertaker"]
    try:
        return subprocess.Popen(
            [*command, reaper.owner_tag(), str(file)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # a terminal's Ctrl-C is the referee's, not its
        )
    except OSError:
        return None


def check_prefix(lifeline: str) -> tuple[str, ...]:
    """The shell that ends at once where ``lifeline``'s lock is free (its referee is
    gone) and otherwise runs the rest of the command (see the module)."""
    flock = flock_path()
    if flock is None:
        return ()
    script = f'{shlex.quote(flock)} -n -s {shlex.quote(lifeline)} true && exit 0; exec "$@"'
    return ("/bin/sh", "-c", script, "lightcycle-bot")


def is_held(file: Path) -> bool:
    """Whether some live process holds ``file``'s lock (a shared lock is refused)."""
    try:
        fd = os.open(file, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def remove_stale() -> list[Path]:
    """Remove this user's lifeline folders whose referee is gone; the folders removed.

    Called by `lightcycle.sandbox.strays.reap_strays`: a referee killed by SIGKILL
    leaves its (empty, unlocked) file behind.
    """
    removed = []
    base = Path(tempfile.gettempdir())
    with contextlib.suppress(OSError):
        for top in base.glob(f"{PREFIX}*"):
            owner = reaper.owner_of(top.name[len(PREFIX) :])  # TAG-RANDOM: a mark's shape
            if owner is None or owner[2] != reaper.pid_namespace():
                continue
            if top.lstat().st_uid != os.geteuid() or not top.is_dir() or top.is_symlink():
                continue
            if proctree.start_time(owner[0]) != owner[1] and not is_held(top / "lifeline"):
                shutil.rmtree(top, ignore_errors=True)
                removed.append(top)
    return removed


def _remove(pid: int) -> None:
    """At exit: end the undertaker (nothing is left to bury), then remove the file and
    its folder (the lock goes with the process)."""
    held = _HELD.get(pid)
    if held is None or pid != os.getpid():
        return
    undertaker = _UNDERTAKERS.pop(pid, None)
    if undertaker is not None:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            undertaker.kill()
            undertaker.wait(5)
    with contextlib.suppress(OSError):
        held[1].unlink()
        held[1].parent.rmdir()


def _after_fork() -> None:
    """In a forked child: close the parent's locked descriptor (the lock stays the
    parent's), so the child's own bots check the child."""
    me = os.getpid()
    for pid, (fd, _) in list(_HELD.items()):
        if pid != me:
            with contextlib.suppress(OSError):
                os.close(fd)
            del _HELD[pid]
    for pid in [p for p in _UNDERTAKERS if p != me]:
        del _UNDERTAKERS[pid]  # the parent's, not this child's to end


os.register_at_fork(after_in_child=_after_fork)

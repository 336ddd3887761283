"""A pool of user ids for sandboxed bots: one id per live bot, never shared.

Why: a bot that runs as the referee's user can read what that user can, signal its other
processes and count against its process limit. Each sandboxed bot of a root referee runs
as its own otherwise unused user id instead, so ``RLIMIT_NPROC`` counts that bot's
processes alone and no bot can signal, trace or read the files of another.

The range is ``LIGHTCYCLE_SANDBOX_UIDS`` (``FIRST-LAST``, default ``61000-61999``: 1000
ids, far more than the bots one host runs at once, spares included). Ids that name a user
in the password database are skipped. An id is taken with a lock in this process and an
``flock`` on a file in a root-only folder, so referee processes running side by side (a
tournament's workers) never hand out the same id; the kernel drops the ``flock`` when the
process that holds it dies, so a referee killed by SIGKILL leaks nothing.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import threading
from pathlib import Path

from lightcycle.sandbox.limits import SandboxError

UIDS_VARIABLE = "LIGHTCYCLE_SANDBOX_UIDS"
DEFAULT_RANGE = (61000, 61999)
LOCK_DIR = Path("/run/lightcycle-sandbox-uids")
"""Where the per-id lock files live (``/run`` is a tmpfs: emptied at boot)."""


def uid_range() -> tuple[int, int]:
    """The configured range of pool ids, first and last included.

    Raises:
        SandboxError: ``LIGHTCYCLE_SANDBOX_UIDS`` is not ``FIRST-LAST`` with
            ``1000 <= FIRST <= LAST < 2**31``.
    """
    raw = os.environ.get(UIDS_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_RANGE
    first_s, sep, last_s = raw.partition("-")
    try:
        first, last = int(first_s), int(last_s)
    except ValueError:
        first, last = -1, -1
    if not sep or not 1000 <= first <= last < 2**31:
        raise SandboxError(
            f"{UIDS_VARIABLE}={raw!r} is not a range of unused user ids: "
            "set it like 61000-61999 (FIRST-LAST, at least 1000)"
        )
    return first, last


def _is_user(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


class UidPool:
    """Hands out user ids of the configured range, one per holder, across processes."""

    def __init__(self, lock_dir: Path = LOCK_DIR) -> None:
        self._lock = threading.Lock()
        self._held: dict[int, int] = {}  # uid -> fd of its locked file
        self._lock_dir = lock_dir
        self._next = 0

    def acquire(self) -> int:
        """An id no live bot of this host uses; release it with `release`.

        Raises:
            SandboxError: every id of the range is in use (or its lock folder cannot
                be made); the message says how to widen the range.
        """
        first, last = uid_range()
        size = last - first + 1
        with self._lock:
            try:
                self._lock_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            except OSError as exc:
                raise SandboxError(
                    f"cannot make the sandbox's user-id lock folder {self._lock_dir}: "
                    f"{exc.strerror or exc} (the referee must run as root to use a uid pool)"
                ) from exc
            for step in range(size):
                uid = first + (self._next + step) % size
                if uid in self._held or _is_user(uid):
                    continue
                fd = os.open(self._lock_dir / str(uid), os.O_RDWR | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(fd)
                    continue  # another referee process holds it
                os.set_inheritable(fd, False)
                self._held[uid] = fd
                self._next = (uid - first + 1) % size
                return uid
        raise SandboxError(
            f"no free sandbox user id: all {size} of {UIDS_VARIABLE}={first}-{last} are in "
            f"use; widen the range (e.g. {UIDS_VARIABLE}={first}-{last + size})"
        )

    def release(self, uid: int) -> None:
        """Give ``uid`` back (its processes must be gone). Unknown ids are ignored."""
        with self._lock:
            fd = self._held.pop(uid, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)  # closing drops the flock

    def held(self) -> list[int]:
        """The ids this process holds now."""
        with self._lock:
            return sorted(self._held)


POOL = UidPool()
"""The process-wide pool every `BotProcess` takes its id from."""

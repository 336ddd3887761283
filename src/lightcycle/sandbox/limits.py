"""The limits a bot runs under, and the error a start that cannot be made raises.

Apart from `lightcycle.sandbox.process` so that every module of the sandbox (bubblewrap's
command line, the uid pool, the seccomp compiler, builds) can name them without importing
the process machinery, and without import cycles.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass

MARK = "LIGHTCYCLE_BOT_MARK"


class SandboxError(RuntimeError):
    """A bot program that cannot be started (missing file, not executable, a sandbox
    the host cannot give...); the message says why and what to do."""


SANDBOX_LEVELS = ("none", "uid", "auto", "full")
"""From weakest to strongest; ``auto`` is the strongest this host gives
(`lightcycle.sandbox.uidlevel.effective`)."""


@dataclass(frozen=True)
class Limits:
    """Limits of one bot process.

    Attributes:
        memory: bytes of data segment (``RLIMIT_DATA``) and, where the host gives
            cgroups, of all the bot's memory, shared memory and tmpfs files included
            (`lightcycle.sandbox.cgroups`); ``None`` for no limit.
        stderr_tail: bytes of stderr kept (the last ones); the rest is counted, not kept.
        isolate: ``auto`` (a PID namespace where the system allows it), ``pidns``
            (required) or ``none``; for ``sandbox="none"`` only (bubblewrap always
            makes a PID namespace).
        max_pending: bytes of unread input the bot may leave before it is refused.
        sandbox: ``none`` (run as the referee's user, as above), ``uid`` (a root
            referee without bubblewrap: a user id of its own and no capabilities,
            `lightcycle.sandbox.uidlevel`), ``auto`` (the strongest this host offers:
            ``full``, else ``uid`` for a root referee, else ``none``) or ``full`` (every
            protection of `lightcycle.sandbox.check`, else `SandboxError`).
        processes: ``RLIMIT_NPROC`` in the sandbox (``None``: no limit). The kernel
            counts it per user id, so it bounds the bot's processes only where the
            bot has its own user id (a root referee's uid pool) or user namespace.
            Where the host gives cgroups it is also the bot's ``pids.max`` (processes
            and threads, plus the sandbox's own few), at every sandbox level.
        open_files: ``RLIMIT_NOFILE`` in the sandbox.
        file_size: ``RLIMIT_FSIZE`` in the sandbox: the largest file it can write.
        scratch: bytes of the sandbox's writable ``/tmp`` (a tmpfs, gone with the bot).
        network: keep the host's network (default: a new, empty network namespace).
        held: start held: nothing of the program runs until one line is written to
            its stdin (a spare waiting for its game; `lightcycle.sandbox.pool`).
        work: in the sandbox, bytes of a fresh writable tmpfs mounted at the working
            directory instead of the read-only bind of its host folder (a build's work
            folder, `lightcycle.sandbox.build`); ``None``: the folder is bound read-only.
    """

    memory: int | None = 1 << 30
    stderr_tail: int = 64 * 1024
    isolate: str = "auto"
    max_pending: int = 4 << 20
    sandbox: str = "none"
    processes: int | None = 64
    open_files: int | None = 256
    file_size: int | None = 64 << 20
    scratch: int = 64 << 20
    network: bool = False
    held: bool = False
    work: int | None = None


def describe_status(code: int | None) -> str:
    """``exit code 3``, ``killed by signal SIGSEGV`` or ``still running``."""
    if code is None:
        return "still running"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return f"killed by signal {name}"
    return f"exit code {code}"

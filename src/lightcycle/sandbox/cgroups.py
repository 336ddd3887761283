"""One cgroup per bot: a memory limit that counts shared memory, and a process limit.

Why: ``RLIMIT_DATA`` counts a process's private data only. ``MAP_SHARED`` anonymous
memory, SysV shared memory and files in a tmpfs (the sandbox's ``/tmp``, bubblewrap's
``/dev/shm``) escape it, and ``RLIMIT_NPROC`` counts per user id, not per bot. The
kernel's memory controller charges every page a bot's processes touch, those included,
to the bot's cgroup, and its pids controller counts the bot's processes and threads.

Where the host gives them (`detect`):

- **cgroup v2** (unified): the referee's own cgroup (``/proc/self/cgroup``) must be
  writable (root, or a cgroup delegated to the user: ``systemd-run --user --scope -p
  Delegate=yes``) and have the ``memory`` and ``pids`` controllers. A cgroup that holds
  processes cannot give controllers to its children, so the referee first moves itself
  into a leaf ``lightcycle-referee`` beside the bots' parent when it must.
- **cgroup v1**: writable ``memory`` and ``pids`` hierarchies (a root referee).

Everything is made under a ``lightcycle`` group inside the referee's own cgroup, so
nothing outside its subtree is touched. Each bot gets ``lightcycle/bot-MARK`` (its
`lightcycle.sandbox.reaper` mark, which names its referee): a memory limit of
`Limits.memory` with swap off (``memory.memsw.limit_in_bytes`` or ``memory.swap.max``),
and ``pids.max`` of `Limits.processes` plus the few processes of the sandbox itself.
The bot's first process joins its group before anything of the bot runs (a shell step of
`lightcycle.sandbox.reaper.start_prefix`); the group is removed once its processes are
gone, and groups of referees that died are removed by `remove_stale`.

``LIGHTCYCLE_CGROUPS=off`` turns them off (a host whose administrator limits bots
another way; the tests that show what they prevent).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import shlex
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from lightcycle.sandbox import proctree, reaper

VARIABLE = "LIGHTCYCLE_CGROUPS"
PARENT = "lightcycle"
LEAF = "lightcycle-referee"
PREFIX = "bot-"
PIDS_OVERHEAD = 4
"""Processes of the sandbox itself in a bot's group (the shell that joins, ``unshare``
or bubblewrap's two): ``pids.max`` is `Limits.processes` plus these."""

DELEGATE_HINT = (
    "run the referee as root, or in a cgroup delegated to its user "
    "(systemd-run --user --scope -p Delegate=yes lightcycle ...)"
)


@dataclass(frozen=True)
class Hierarchy:
    """Where bot groups are made.

    Attributes:
        version: 1 or 2.
        parents: the ``lightcycle`` folders bot groups go in: v1 one per controller
            (memory, then pids), v2 one.
    """

    version: int
    parents: tuple[Path, ...]

    def describe(self) -> str:
        """``cgroup v1 memory+pids under /sys/fs/cgroup/memory/...``, for the check."""
        return f"cgroup v{self.version} memory+pids under {', '.join(str(p) for p in self.parents)}"


def disabled() -> str | None:
    """Why cgroups are turned off by ``LIGHTCYCLE_CGROUPS`` (``None``: they are not)."""
    value = os.environ.get(VARIABLE, "").strip().lower()
    if value in ("off", "0", "no", "false"):
        return f"turned off by {VARIABLE}={value} (unset it to use them)"
    return None


def own_cgroups(text: str) -> dict[str, str]:
    """``/proc/self/cgroup`` as ``{controller: path}``; v2's unified line is ``""``."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        for c in controllers.split(",") if controllers else [""]:
            out[c] = path
    return out


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """cgroup mounts: (mount point, root in the hierarchy, fs type, super options)."""
    out: list[tuple[str, str, str, set[str]]] = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        out.append((fields[4], fields[3], tail[0], set(tail[2].split(","))))
    return out


def _inside(mount: str, root: str, path: str) -> Path | None:
    """The folder of cgroup ``path`` under a mount of hierarchy folder ``root``."""
    if root != "/" and not (path == root or path.startswith(root.rstrip("/") + "/")):
        return None
    rel = path[len(root) :] if root != "/" else path
    return Path(mount) / rel.lstrip("/")


def _make_parent(folder: Path) -> None:
    folder.mkdir(exist_ok=True)


def _detect_v1(own: dict[str, str]) -> Hierarchy | str:
    found: dict[str, Path] = {}
    for mount, root, fstype, options in _mounts():
        if fstype != "cgroup":
            continue
        for c in ("memory", "pids"):
            if c in options and c in own and c not in found:
                where = _inside(mount, root, own[c])
                if where is not None:
                    found[c] = where
    if not found:
        return "no cgroup v1 memory or pids hierarchy is mounted"
    if set(found) != {"memory", "pids"}:
        lack = "pids" if "memory" in found else "memory"
        return f"cgroup v1 has no {lack} hierarchy mounted"
    parents = []
    for c in ("memory", "pids"):
        try:
            _make_parent(found[c] / PARENT)
        except OSError as exc:
            return f"cgroup v1 {c} at {found[c]} is not writable ({exc.strerror}): {DELEGATE_HINT}"
        parents.append(found[c] / PARENT)
    return Hierarchy(1, tuple(parents))


def _controllers(folder: Path, name: str) -> set[str]:
    try:
        return set((folder / name).read_text().split())
    except OSError:
        return set()


def _detect_v2(own: dict[str, str]) -> Hierarchy | str:
    mounts = [m for m in _mounts() if m[2] == "cgroup2"]
    if not mounts or "" not in own:
        return "no cgroup v2 hierarchy is mounted"
    mount, root, _, _ = mounts[0]
    here = _inside(mount, root, own[""])
    if here is None:
        return "this process's cgroup v2 group is outside the mounted hierarchy"
    need = {"memory", "pids"}
    if not need <= _controllers(here, "cgroup.controllers"):
        have = " ".join(sorted(_controllers(here, "cgroup.controllers"))) or "none"
        return (
            f"cgroup v2 at {here} lacks the memory and pids controllers (has: {have}): "
            f"{DELEGATE_HINT}"
        )
    parent = here / PARENT
    try:
        if not need <= _controllers(here, "cgroup.subtree_control"):
            try:
                (here / "cgroup.subtree_control").write_text("+memory +pids")
            except OSError as exc:
                if exc.errno != errno.EBUSY:
                    raise
                # processes in `here` keep it from giving controllers to children (the
                # "no internal processes" rule): this referee moves into a leaf
                leaf = here / LEAF
                leaf.mkdir(exist_ok=True)
                (leaf / "cgroup.procs").write_text(str(os.getpid()))
                (here / "cgroup.subtree_control").write_text("+memory +pids")
        _make_parent(parent)
        if not need <= _controllers(parent, "cgroup.subtree_control"):
            (parent / "cgroup.subtree_control").write_text("+memory +pids")
    except OSError as exc:
        why = "other processes share it" if exc.errno == errno.EBUSY else exc.strerror
        return f"cgroup v2 at {here} cannot be used ({why}): {DELEGATE_HINT}"
    return Hierarchy(2, (parent,))


@cache
def detect() -> Hierarchy | str:
    """The hierarchy bot groups are made in, or why there is none (checked once).

    v2 first (a host with both mounts v2 for the unified part only, usually without
    controllers), then v1. A probe group is made and removed, so a hierarchy found here
    works. Leftover groups of dead referees are removed on the way (`remove_stale`),
    killing what is left in them, unless ``LIGHTCYCLE_REAP_STRAYS=0`` says strays are
    left alone: then only the empty ones go (a test that killed its referee on purpose
    looks at those processes itself).
    """
    try:
        own = own_cgroups(Path("/proc/self/cgroup").read_text())
    except OSError:
        return "this system has no cgroups (/proc/self/cgroup is missing)"
    reasons = []
    for probe in (_detect_v2, _detect_v1):
        found = probe(own)
        if isinstance(found, str):
            reasons.append(found)
            continue
        try:
            group = BotGroup(found, f"probe-{reaper.new_mark()}", 64 << 20, 8)
        except OSError as exc:
            reasons.append(f"cgroup v{found.version}: cannot make a group ({exc.strerror})")
            continue
        group.remove()
        _remove_stale(found, kill=os.environ.get("LIGHTCYCLE_REAP_STRAYS") != "0")
        return found
    return "; ".join(reasons)


def hierarchy() -> Hierarchy | None:
    """`detect`'s hierarchy, unless none or cgroups are turned off (`disabled`)."""
    if disabled() is not None:
        return None
    found = detect()
    return found if isinstance(found, Hierarchy) else None


def status() -> tuple[bool, str]:
    """Whether bots get cgroups here, and how (or why not and what to do)."""
    off = disabled()
    if off is not None:
        return False, off
    found = detect()
    if isinstance(found, str):
        return False, found
    return True, (
        f"{found.describe()}: memory counts shared memory and tmpfs files, swap off; "
        "pids.max per bot"
    )


class BotGroup:
    """The cgroup of one bot (a folder per hierarchy), made with its limits set.

    Args:
        where: the hierarchy.
        mark: the bot's mark; the group is ``bot-MARK``, so its referee can be judged.
        memory: bytes of memory, shared memory and tmpfs included (``None``: no limit).
        processes: the bot's processes and threads (``None``: no limit).

    Raises:
        OSError: a folder or a limit could not be written (what was made is removed).
    """

    def __init__(
        self, where: Hierarchy, mark: str, memory: int | None, processes: int | None
    ) -> None:
        self.version = where.version
        self.memory = memory
        self.folders = [p / f"{PREFIX}{mark}" for p in where.parents]
        self._oom_kills = 0
        self.removed = False
        made: list[Path] = []
        try:
            for folder in self.folders:
                folder.mkdir()
                made.append(folder)
            self._set_limits(memory, processes)
        except OSError:
            for folder in reversed(made):
                with contextlib.suppress(OSError):
                    folder.rmdir()
            raise

    def _write(self, name: str, value: str, required: bool = True) -> None:
        for folder in self.folders:
            path = folder / name
            if path.exists():
                path.write_text(value)
                return
        if required:
            raise OSError(errno.ENOENT, f"no {name} in {self.folders[0]}")

    def _set_limits(self, memory: int | None, processes: int | None) -> None:
        if self.version == 1:
            if memory is not None:
                self._write("memory.limit_in_bytes", str(memory))
                # swap counted too (absent where the kernel does not account swap)
                self._write("memory.memsw.limit_in_bytes", str(memory), required=False)
            if processes is not None:
                self._write("pids.max", str(processes + PIDS_OVERHEAD))
        else:
            if memory is not None:
                self._write("memory.max", str(memory))
                self._write("memory.swap.max", "0", required=False)
            self._write("memory.oom.group", "1", required=False)  # the whole bot goes
            if processes is not None:
                self._write("pids.max", str(processes + PIDS_OVERHEAD))

    def join_script(self) -> str:
        """Shell commands that move the running shell (``$$``) into the group."""
        return " && ".join(
            f"echo $$ > {shlex.quote(str(folder / 'cgroup.procs'))}" for folder in self.folders
        )

    def oom_kills(self) -> int:
        """How many of the bot's processes the kernel killed over the memory limit
        (remembered once the group is removed)."""
        if self.removed:
            return self._oom_kills
        name, key = ("memory.oom_control", "oom_kill")
        if self.version == 2:
            name = "memory.events"
        for folder in self.folders:
            try:
                text = (folder / name).read_text()
            except OSError:
                continue
            for line in text.splitlines():
                words = line.split()
                if len(words) == 2 and words[0] == key and words[1].isdigit():
                    self._oom_kills = max(self._oom_kills, int(words[1]))
        return self._oom_kills

    def processes(self) -> list[int]:
        """Pids in the group (this PID namespace's numbers)."""
        return sorted(set().union(*(_procs(f) for f in self.folders)))

    def remove(self, timeout: float = 0.2) -> bool:
        """Remove the group once its processes are gone; whether it is gone.

        Retries for up to ``timeout`` seconds (exiting processes leave a group a moment
        after they are reaped); a group left is retried by the next bot's start and by
        `remove_stale`.
        """
        if self.removed:
            return True
        self.oom_kills()
        end = time.monotonic() + timeout
        while True:
            left = [f for f in self.folders if f.exists()]
            for folder in left:
                with contextlib.suppress(OSError):
                    folder.rmdir()
            if not any(f.exists() for f in self.folders):
                self.removed = True
                return True
            if time.monotonic() >= end:
                _LEFT.append(self)
                return False
            time.sleep(0.005)


_LEFT: list[BotGroup] = []  # groups that were not empty yet when their bot was closed


@atexit.register
def _retry_left_at_exit() -> None:  # what is still busy then is `remove_stale`'s
    with contextlib.suppress(Exception):
        _retry_left()


def _procs(folder: Path) -> set[int]:
    try:
        return {int(x) for x in (folder / "cgroup.procs").read_text().split()}
    except (OSError, ValueError):
        return set()


def _retry_left() -> None:
    for group in list(_LEFT):
        with contextlib.suppress(ValueError):
            _LEFT.remove(group)
        group.remove(timeout=0.0)
    # a group failing again was appended again: tried next time


def _mark_of(name: str) -> str:
    """The bot's mark in group ``name`` (``bot-MARK`` or ``bot-probe-MARK``)."""
    mark = name[len(PREFIX) :]
    return mark[len("probe-") :] if mark.startswith("probe-") else mark


def _owner_gone(name: str) -> bool:
    """Whether the referee named by group ``name`` is gone for sure."""
    owner = reaper.owner_of(_mark_of(name))
    if owner is None or owner[2] != reaper.pid_namespace():
        return False  # cannot judge: left alone
    return proctree.start_time(owner[0]) != owner[1]


def _remove_stale(
    where: Hierarchy,
    timeout: float = 1.0,
    kill: bool = True,
    gone: Callable[[str], bool] = _owner_gone,
) -> list[int]:
    """Remove ``where``'s groups of dead referees (see `remove_stale`); a group whose
    processes were just killed is retried for up to ``timeout`` seconds. Without
    ``kill``, a group with processes in it stays as it is. ``gone``: which groups
    (by name) to remove."""
    killed: list[int] = []
    stale: list[Path] = []
    for parent in where.parents:
        try:
            names = [n for n in os.listdir(parent) if n.startswith(PREFIX)]
        except OSError:
            continue
        for name in names:
            if not gone(name):
                continue
            folder = parent / name
            inside = _procs(folder)
            if inside and not kill:
                continue
            stale.append(folder)
            for pid in inside:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
    end = time.monotonic() + (timeout if killed else 0.0)
    while True:
        for folder in stale:
            with contextlib.suppress(OSError):
                folder.rmdir()
        stale = [f for f in stale if f.exists()]
        if not stale or time.monotonic() >= end:
            return sorted(set(killed))  # still busy: the next pass removes it
        time.sleep(0.01)


def remove_stale() -> list[int]:
    """Remove the groups of referees that are gone; SIGKILL what is left in them.

    Called by `lightcycle.sandbox.strays.reap_strays`. Groups of live referees, and
    of referees in another PID namespace (whose pids mean something else here), stay.

    Returns:
        The pids killed.
    """
    found = hierarchy()
    if found is None:
        return []
    _retry_left()
    return _remove_stale(found)


def remove_referee(referee: str) -> list[int]:
    """Remove the groups of one referee known to be gone (its
    `lightcycle.sandbox.reaper.owner_tag`), SIGKILLing what is in them: its
    undertaker's job (`lightcycle.sandbox.undertaker`). A group holds every process of
    its bot's start from the first shell on, those that carry no mark included
    (bubblewrap's own).

    Returns:
        The pids killed.
    """
    found = hierarchy()
    if found is None:
        return []

    def theirs(name: str) -> bool:
        return reaper.tag_of(_mark_of(name)) == referee  # gone: its lifeline's lock is free

    return _remove_stale(found, gone=theirs)


def group_for(mark: str, memory: int | None, processes: int | None) -> BotGroup | None:
    """A new group for one bot, or ``None`` where cgroups are off, missing or failing
    (the bot then has its rlimits only; `BotProcess.protections` says which)."""
    if memory is None and processes is None:
        return None
    found = hierarchy()
    if found is None:
        return None
    if _LEFT:
        _retry_left()
    try:
        return BotGroup(found, mark, memory, processes)
    except OSError:
        return None


def clear_cache() -> None:
    """Forget the detection (tests change the host between calls)."""
    detect.cache_clear()

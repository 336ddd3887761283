"""Reading the process table from ``/proc``: descendants, CPU times, marked processes.

Linux only; on other systems these helpers find nothing and the caller falls back to
process-group signals.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True, slots=True)
class ProcInfo:
    """One line of the process table.

    Attributes:
        pid, ppid, pgid, sid: as the kernel reports them.
        state: ``R``, ``S``, ``Z`` (zombie) ...
        own_cpu: user + system seconds of the process itself, in clock ticks (10 ms).
        reaped_cpu: the same for the children it has reaped.
    """

    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str
    own_cpu: float
    reaped_cpu: float

    @property
    def cpu(self) -> float:
        """Seconds of the process and its reaped children, at clock-tick resolution."""
        return self.own_cpu + self.reaped_cpu

    def precise_cpu(self) -> float:
        """As `cpu`, but the process's own time from ``/proc/PID/task/*/schedstat``.

        ``stat`` counts in clock ticks (10 ms) and a bot's move often takes less, so CPU
        budgets and per-turn CPU times read each thread's run time in nanoseconds where
        the kernel has it (reaped children are only known in ticks). It costs a few more
        reads per process, so scans that only look for processes do not pay it.
        """
        return max(self.own_cpu, _run_seconds(self.pid) or 0.0) + self.reaped_cpu


def read_stat(pid: int) -> ProcInfo | None:
    """The process ``pid`` from ``/proc/PID/stat``, or ``None`` if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    # the command name may hold spaces and parentheses: split after the last ")"
    rest = raw[raw.rfind(b")") + 2 :].split()
    try:
        own = (int(rest[11]) + int(rest[12])) / _TICK  # exited threads included
        reaped = (int(rest[13]) + int(rest[14])) / _TICK
        return ProcInfo(
            pid, int(rest[1]), int(rest[2]), int(rest[3]), rest[0].decode(), own, reaped
        )
    except (IndexError, ValueError):
        return None


def start_time(pid: int) -> int | None:
    """When ``pid`` started, in clock ticks since boot (``/proc/PID/stat``), or ``None``.

    A pid is reused once its process is gone; a pid with its start time names one
    process for good, so a mark can name the referee that started a bot.
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    try:
        return int(raw[raw.rfind(b")") + 2 :].split()[19])  # field 22 of stat(5)
    except (IndexError, ValueError):
        return None


def _run_seconds(pid: int) -> float | None:
    """CPU seconds of every thread of ``pid`` from schedstat, or ``None`` if unavailable."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    total = 0
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                total += int(f.read().split()[0])
        except (OSError, IndexError, ValueError):
            if tid == str(pid):
                return None  # no schedstat on this kernel: fall back to ticks
    return total / 1e9 if tasks else None


def processes() -> Iterator[ProcInfo]:
    """Every process this user can see."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return
    for name in names:
        if name.isdigit():
            info = read_stat(int(name))
            if info is not None:
                yield info


def tree(root: int, sid: int | None = None) -> list[ProcInfo]:
    """``root`` and its descendants, plus every process of session ``sid``.

    Descendants are found through parent links, so a daemon that left the session but
    was re-parented inside the bot's PID namespace is still found.
    """
    table = list(processes())
    children: dict[int, list[ProcInfo]] = {}
    for p in table:
        children.setdefault(p.ppid, []).append(p)
    found: dict[int, ProcInfo] = {}
    stack = [p for p in table if p.pid == root or (sid is not None and p.sid == sid)]
    while stack:
        p = stack.pop()
        if p.pid in found:
            continue
        found[p.pid] = p
        stack.extend(children.get(p.pid, ()))
    return list(found.values())


def marked(variable: str, value: str) -> list[int]:
    """Processes whose environment holds ``variable=value`` (a bot's inherited mark)."""
    needle = f"{variable}={value}".encode()
    out = []
    for name in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read()
        except OSError:
            continue
        if needle in env.split(b"\0"):
            out.append(int(name))
    return out


HOLD_LINE = b"\n"
"""What releases a held program (`hold_prefix`): one empty line on its stdin."""


@cache
def hold_prefix() -> tuple[str, ...]:
    """The command prefix that holds a program until one line arrives on its stdin.

    A shell waits in ``read`` (no CPU) and then ``exec``s the rest of the command; it
    reads its line a byte at a time, so the program gets every byte written after it.
    Input that ends first ends the shell: the program never runs.
    """
    return ("/bin/sh", "-c", 'read -r _ || exit 0; exec "$@"', "lightcycle-held")

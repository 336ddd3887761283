"""What a bot may leave behind: the checks every no-survivor test shares."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import ClassVar

from lightcycle.sandbox import proctree
from lightcycle.sandbox.process import MARK, BotProcess, SandboxError


def leftovers(proc: BotProcess) -> list[int]:
    """Processes of ``proc``'s bot still present: marked, or in its session or tree."""
    found = set(proctree.marked(MARK, proc.mark))
    found.update(p.pid for p in proctree.tree(proc.pid, proc.pid))
    return sorted(found)


SHARED = ("/dev/shm", "/tmp", "/var/tmp")
"""The world-writable folders a bot below the full sandbox can leave files in."""


def planted(tag: str) -> list[Path]:
    """The files the uid-level probe (``attacks/uid_level.py tag=TAG``) left in `SHARED`
    and that are still there (``lightcycle-left-TAG-RANDOM``: one per probe process)."""
    return sorted(p for where in SHARED for p in Path(where).glob(f"lightcycle-left-{tag}-*"))


def ticks_now() -> int:
    """Clock ticks since boot now: the clock of `lightcycle.sandbox.proctree.start_time`."""
    with open("/proc/uptime") as f:
        return int(float(f.read().split()[0]) * os.sysconf("SC_CLK_TCK"))


TEST_STARTED = [0]
"""When the running test began (`ticks_now`); set by the suite's autouse fixture."""


def zombie_children() -> set[int]:
    """This process's children that have exited and not been reaped, started during the
    running test.

    The referee is a subreaper, so an orphan that an earlier test of this worker left
    running is handed to this process when it ends, maybe in the middle of a later test:
    that zombie is the earlier test's, and it started before this one began.
    """
    me = os.getpid()
    return {
        p.pid
        for p in proctree.processes()
        if p.ppid == me
        and p.state == "Z"
        and (proctree.start_time(p.pid) or TEST_STARTED[0]) >= TEST_STARTED[0]
    }


class Recorder(BotProcess):
    """A `BotProcess` that remembers every process started (spares included), for the
    leftover checks: tests put it in place of the referee's ``BotProcess``."""

    started: ClassVar[list[BotProcess]] = []

    def __init__(self, *a, **kw) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*a, **kw)
        Recorder.started.append(self)


@cache
def full_unavailable() -> str | None:
    """Why this host cannot give ``sandbox="full"`` (``None``: it can)."""
    from lightcycle.sandbox.check import require

    try:
        require("full")
    except SandboxError as exc:
        return str(exc)
    return None

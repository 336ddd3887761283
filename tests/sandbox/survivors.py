"""What a bot may leave behind: the checks every no-survivor test shares."""

from __future__ import annotations

import os
from functools import cache
from typing import ClassVar

from lightcycle.sandbox import proctree
from lightcycle.sandbox.process import MARK, BotProcess, SandboxError


def leftovers(proc: BotProcess) -> list[int]:
    """Processes of ``proc``'s bot still present: marked, or in its session or tree."""
    found = set(proctree.marked(MARK, proc.mark))
    found.update(p.pid for p in proctree.tree(proc.pid, proc.pid))
    return sorted(found)


def zombie_children() -> set[int]:
    """This process's children that have exited and not been reaped."""
    me = os.getpid()
    return {p.pid for p in proctree.processes() if p.ppid == me and p.state == "Z"}


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

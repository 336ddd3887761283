"""What a bot may leave behind: the checks every no-survivor test shares."""

from __future__ import annotations

import os

from lightcycle.sandbox import proctree
from lightcycle.sandbox.process import MARK, BotProcess


def leftovers(proc: BotProcess) -> list[int]:
    """Processes of ``proc``'s bot still present: marked, or in its session or tree."""
    found = set(proctree.marked(MARK, proc.mark))
    found.update(p.pid for p in proctree.tree(proc.pid, proc.pid))
    return sorted(found)


def zombie_children() -> set[int]:
    """This process's children that have exited and not been reaped."""
    me = os.getpid()
    return {p.pid for p in proctree.processes() if p.ppid == me and p.state == "Z"}

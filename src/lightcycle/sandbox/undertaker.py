"""A referee's undertaker: what its death leaves running, ended the moment it dies.

The parent-death signals and the lifeline's check (`lightcycle.sandbox.lifeline`) end a
dead referee's bots in every case but two, both in a bot's start under bubblewrap:

- bubblewrap's inner process waits, right after its ``clone``, for the outer one to
  release it (a ``read`` of an eventfd it holds open itself); an outer process killed
  with its referee before that leaves the inner one blocked for good, before any check
  of ours can run;
- the namespace's init asks for its parent-death signal just after it forks the bot's
  first process; a referee that dies after that process passed the lifeline's check but
  before the init asked (the init not scheduled for those milliseconds, on a loaded
  machine) leaves the bot running.

Until now those waited for the next run's `lightcycle.sandbox.strays.reap_strays`. Each
referee process that starts bots now also starts its undertaker once
(`lightcycle.sandbox.lifeline.path`): ``flock -s LIFELINE python -m
lightcycle.sandbox.undertaker TAG``, in a session of its own, carrying no mark. ``flock``
waits for a shared lock on the referee's lifeline, which it gets only when the referee
is gone, however it died; then `bury` kills that referee's marked processes and their
descendants, and everything in its bots' cgroups (bubblewrap's processes included,
which carry no mark), and removes its lifeline. A referee that exits normally kills its
undertaker first (nothing is left to bury). Another referee's strays are left alone
here, whatever ``LIGHTCYCLE_REAP_STRAYS`` says: this is the referee's own clean-up.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
from pathlib import Path

from lightcycle.sandbox import cgroups, lifeline, reaper


def bury(referee: str, file: Path | None = None) -> list[int]:
    """Kill what dead referee ``referee`` (its `reaper.owner_tag`) left; the pids killed.

    Args:
        referee: the referee's tag, known to be gone (its lifeline's lock is free):
            its marked processes are killed without asking whether it lives.
        file: its lifeline, removed with its folder once nobody holds it.
    """
    found = reaper.strays(referee)
    for pid in found:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    killed = cgroups.remove_referee(referee)
    if file is not None and file.name == "lifeline":
        top = file.parent
        if top.name.startswith(lifeline.PREFIX + referee + "-"):
            shutil.rmtree(top, ignore_errors=True)
    return sorted({*found, *killed})


def main(argv: list[str]) -> int:
    """``python -m lightcycle.sandbox.undertaker TAG [LIFELINE]``: `bury` once."""
    if not argv:
        print("usage: python -m lightcycle.sandbox.undertaker TAG [LIFELINE]", file=sys.stderr)
        return 2
    bury(argv[0], Path(argv[1]) if len(argv) > 1 else None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

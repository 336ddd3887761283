"""The strays of dead referees, ended: their processes, cgroups and folders.

Above everything it cleans up after: `lightcycle.sandbox.reaper` finds the strays (the
marked processes of referees that are gone, `reaper.strays`) and sits below the process
machinery, the cgroups, the builds and the uid level's folders, which all name their
referee through it; this module ends the strays and asks each of those modules to remove
what dead referees left (``remove_stale``). The command line calls `reap_strays` when a
match, duel, grading or tournament starts (`lightcycle.cli.runs.start_run`).
"""

from __future__ import annotations

import contextlib
import os
import signal

from lightcycle.sandbox import build, cgroups, lifeline, reaper, shared


def reap_strays() -> list[int]:
    """Kill (SIGKILL) every stray bot process (`lightcycle.sandbox.reaper.strays`);
    returns their pids.

    Also removes the cgroups of dead referees (`lightcycle.sandbox.cgroups.remove_stale`),
    killing what is left in them, their builds' work folders
    (`lightcycle.sandbox.build.remove_stale`) and their uid-level bots' private folders
    (`lightcycle.sandbox.shared.remove_stale`) and their lifelines
    (`lightcycle.sandbox.lifeline.remove_stale`). Their parent (the host's init, or this
    process where it is their subreaper) reaps them; a stray in a PID namespace takes the
    rest of its namespace with it.
    """
    found = reaper.strays()
    for pid in found:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    killed = cgroups.remove_stale()
    build.remove_stale()
    shared.remove_stale()
    lifeline.remove_stale()
    return sorted({*found, *killed})

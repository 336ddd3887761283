"""Starting bot programs with limits, and making sure none of their processes outlive a game.

The sandbox knows processes, not games: `BotProcess` starts a command in its own session
(and, where the system allows, its own PID namespace), feeds its stdin without ever
blocking, drains its stderr into a bounded tail, measures the CPU time of its whole
process tree, and kills that whole tree. `SparePool` starts a command's next process
while the current one plays and ends finished ones in the background, so a series of short
games does not wait for process start-up.

With ``Limits(sandbox="full")`` (or ``"auto"``) a bot runs under bubblewrap
(`lightcycle.sandbox.bwrap`): its own user id (`lightcycle.sandbox.uids`), a read-only view
of the system, a private scratch ``/tmp``, no network, a private ``/proc``, a clean
environment, the seccomp filter and rlimits. Where no bubblewrap works, a root referee's
``auto`` is the uid level (`lightcycle.sandbox.uidlevel`): a user id of its own and no
capabilities, never root. `lightcycle.sandbox.check` says what this host
can enforce (``lightcycle sandbox check``); ``docs/sandbox.md`` gives the threat model.
`lightcycle.sandbox.build.run_build` runs a build of submitted code with the same
protections, in a fresh work folder, and copies out the files asked for.
"""

from lightcycle.sandbox.pool import MAX_SPARES, SparePool
from lightcycle.sandbox.process import BotProcess, Limits, SandboxError

__all__ = ["MAX_SPARES", "BotProcess", "Limits", "SandboxError", "SparePool"]

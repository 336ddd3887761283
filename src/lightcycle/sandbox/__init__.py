"""Starting bot programs with limits, and making sure none of their processes outlive a game.

The sandbox knows processes, not games: `BotProcess` starts a command in its own session
(and, where the system allows, its own PID namespace), feeds its stdin without ever
blocking, drains its stderr into a bounded tail, measures the CPU time of its whole
process tree, and kills that whole tree.
"""

from lightcycle.sandbox.process import BotProcess, Limits, SandboxError

__all__ = ["BotProcess", "Limits", "SandboxError"]

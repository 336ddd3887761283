"""bubblewrap's inner process: its pid, read from ``--info-fd``, and its reaping.

bubblewrap starts the bot inside a PID namespace under a first process of its own, and
writes that process's host pid as JSON (``{"child-pid": N}``) on the ``--info-fd`` pipe
just after. When the outer bubblewrap dies first, that process is re-parented to the
referee if it is a subreaper, where no process tree or mark finds it (its environment is
empty): `BotProcess.kill` and `close` find and reap it by this pid.
"""

from __future__ import annotations

import contextlib
import json
import os
import time

from lightcycle.sandbox.spawn import MAINS, SPAWN_LOCK


class InnerPid:
    """The read end of one bubblewrap's ``--info-fd`` and the pid it gives."""

    def __init__(self) -> None:
        self.fd: int | None = None
        self._info = b""
        self._pid: int | None = None

    def get(self) -> int | None:
        """The inner process's host pid, once bubblewrap has written it (never blocks)."""
        if self._pid is not None or self.fd is None:
            return self._pid
        os.set_blocking(self.fd, False)
        with contextlib.suppress(OSError):
            self._info += os.read(self.fd, 4096)
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            pid = json.loads(self._info.decode()).get("child-pid")
            if isinstance(pid, int) and pid > 0:
                self._pid = pid
                self.close()
        return self._pid

    def close(self) -> None:
        """Close the pipe (the pid, if read, is kept)."""
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None

    def reap(self, timeout: float) -> None:
        """Reap the inner process if it became the referee's child; waits up to
        ``timeout`` seconds for it to end."""
        pid = self.get()
        if pid is None:
            return
        end = time.monotonic() + timeout
        while True:
            with SPAWN_LOCK:  # never a live bot's main process (a reused pid)
                if pid in MAINS:
                    return
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:  # not ours (PID 1 reaps it), or reaped
                    return
            if done or time.monotonic() > end:
                return
            time.sleep(0.005)

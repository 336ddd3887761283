"""A bot's stderr: drained on a thread of its own, counted, its last bytes kept.

A bot may write any amount to stderr; a full pipe would block it mid-move and make it
time out for a reason that is not its own, so a thread reads the pipe to its end from
the start. Only the last ``keep`` bytes are kept (for error messages and the log file);
the rest is counted, so a log says how much was dropped.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path


class StderrTail:
    """Reads one pipe to its end on a daemon thread, keeping the last ``keep`` bytes.

    Args:
        fd: the pipe's read end (the bot's stderr).
        keep: how many of the last bytes to keep.
        name: the thread's name (for debugging hangs).
    """

    def __init__(self, fd: int, keep: int, name: str) -> None:
        self.bytes = 0
        self._fd = fd
        self._keep = keep
        self._tail = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, name=name, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            with self._lock:
                self.bytes += len(chunk)
                self._tail += chunk
                if len(self._tail) > self._keep:
                    del self._tail[: len(self._tail) - self._keep]

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the end of the pipe; whether it came."""
        self._thread.join(timeout=timeout)
        return not self._thread.is_alive()

    def tail(self, limit: int | None = None) -> bytes:
        """The kept bytes (all, or the last ``limit``)."""
        with self._lock:
            data = bytes(self._tail)
        return data if limit is None else data[-limit:]

    def write_log(self, path: Path, argv: Sequence[str]) -> None:
        """Write the command, the byte count and the kept tail to ``path`` (atomically)."""
        tail = self.tail()
        dropped = self.bytes - len(tail)
        head = f"# {' '.join(argv)}\n# stderr: {self.bytes} bytes"
        if dropped > 0:
            head += f", the first {dropped} dropped; the last {len(tail)} follow"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(head.encode() + b"\n" + tail)
        os.replace(tmp, path)

"""Limits that keep one client from costing anyone else anything.

Every read from a client is bounded in size (`read_line`: an endless line is cut off, not
buffered) and in time (join and idle timeouts); every write to a client is fire and forget
with a bound on what may wait unsent (`send_nowait`): a client that does not read is
dropped, and the game loop never waits on a socket. Connections are counted per address
and in total (`ConnectionCounter`), and lines are paced per connection by a token bucket
(`TokenBucket`): a flooding client is slowed down by TCP back-pressure, never served
faster than the rate.

`tcp_rtt_ms` reads the kernel's smoothed round-trip time of a connection (Linux
``TCP_INFO``), which the server reports per player next to its think time.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import sys
import time
from collections import Counter

SEND_BUFFER = 1 << 20
"""Bytes that may wait unsent to one client before it is dropped as not reading."""


class LineTooLong(Exception):
    """A client line longer than the limit (the client is dropped)."""


class ClientGone(Exception):
    """The client closed the connection, or it was closed for a limit."""


async def read_line(reader: asyncio.StreamReader, max_line: int, timeout: float | None) -> bytes:
    """One line (without its end) of at most ``max_line`` bytes, within ``timeout`` s.

    The reader's own buffer limit (set by `asyncio.start_server`'s ``limit``) bounds what
    is held while the line is incomplete.

    Raises:
        LineTooLong: the line goes on past ``max_line`` bytes.
        ClientGone: the connection ended before a full line.
        TimeoutError: no full line within ``timeout``.
    """
    try:
        async with asyncio.timeout(timeout):
            line = await reader.readuntil(b"\n")
    except TimeoutError:
        raise
    except asyncio.LimitOverrunError:
        raise LineTooLong(f"a line longer than {max_line} bytes") from None
    except asyncio.IncompleteReadError as exc:
        raise ClientGone("the connection closed mid-line" if exc.partial else "closed") from None
    except (ConnectionError, OSError) as exc:
        raise ClientGone(str(exc) or type(exc).__name__) from None
    if len(line) > max_line + 1:
        raise LineTooLong(f"a line longer than {max_line} bytes")
    return line[:-1].rstrip(b"\r")


def send_nowait(writer: asyncio.StreamWriter, data: bytes, limit: int = SEND_BUFFER) -> bool:
    """Write ``data`` without waiting; close the connection if too much waits unsent.

    Returns:
        whether the connection is still open.
    """
    if writer.is_closing():
        return False
    try:
        writer.write(data)
    except (ConnectionError, OSError, RuntimeError):
        writer.close()
        return False
    if writer.transport.get_write_buffer_size() > limit:
        writer.transport.abort()  # it does not read: what waits for it is thrown away
        return False
    return True


async def send_line(writer: asyncio.StreamWriter, data: bytes, timeout: float = 5.0) -> bool:
    """Write ``data`` and wait (at most ``timeout`` s) until it is handed to the kernel.

    For the few lines a connection handler sends outside a game (welcome, errors): the
    handler's own task waits, nobody else. A client that does not read is dropped.
    """
    if not send_nowait(writer, data):
        return False
    try:
        async with asyncio.timeout(timeout):
            await writer.drain()
    except (TimeoutError, ConnectionError, OSError):
        writer.transport.abort()
        return False
    return True


async def close_writer(writer: asyncio.StreamWriter, timeout: float = 1.0) -> None:
    """Close a connection, waiting a little for it to go (never for a stalled peer)."""
    writer.close()
    with contextlib.suppress(Exception):
        async with asyncio.timeout(timeout):
            await writer.wait_closed()
    if not writer.transport.is_closing():  # pragma: no cover - close() always marks it
        writer.transport.abort()


async def linger_close(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, linger: float
) -> None:
    """Close after the last words without a reset: half-close, wait, then close.

    A socket that is closed while its client is still writing answers the client's
    bytes with a reset, and the client may then never read what it was sent last: a
    course client thinking about its move when its game is aborted writes the move,
    and Guile dies of ``SIGPIPE`` on the reset before it reads the result. So the
    server only ends its own direction (``write_eof``: the client reads the last words,
    then the end), reads and throws away what the client still sends until the client
    closes or ``linger`` seconds pass, and closes then. The caller must be the only
    reader of ``reader`` (a seat's pump is stopped first).
    """
    with contextlib.suppress(OSError, RuntimeError):
        if not writer.is_closing() and writer.can_write_eof():
            writer.write_eof()
    with contextlib.suppress(Exception):
        async with asyncio.timeout(linger):
            while await reader.read(4096):
                pass
    await close_writer(writer)


class TokenBucket:
    """A rate limit: ``rate`` lines a second sustained, bursts of ``burst``.

    Attributes:
        rate: tokens added per second.
        burst: most tokens held.
    """

    def __init__(self, rate: float, burst: float | None = None) -> None:
        self.rate = rate
        self.burst = burst if burst is not None else max(1.0, rate)
        self._tokens = self.burst
        self._at = time.monotonic()

    def delay(self, cost: float = 1.0) -> float:
        """Take ``cost`` tokens; return how many seconds the caller should wait first."""
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        self._tokens -= cost
        if self._tokens >= 0 or self.rate <= 0:
            return 0.0
        return -self._tokens / self.rate


class ConnectionCounter:
    """Open connections per address and in total, against their caps."""

    def __init__(self, per_address: int, total: int) -> None:
        self.per_address = per_address
        self.total = total
        self._by_address: Counter[str] = Counter()
        self._open = 0

    def acquire(self, address: str) -> str | None:
        """Count a new connection; return why it is refused (``None``: accepted)."""
        if self._open >= self.total:
            return f"the server is full ({self.total} connections); try again later"
        if self._by_address[address] >= self.per_address:
            return f"too many connections from {address} (at most {self.per_address})"
        self._by_address[address] += 1
        self._open += 1
        return None

    def release(self, address: str) -> None:
        """Forget a connection counted by `acquire`."""
        self._open -= 1
        self._by_address[address] -= 1
        if self._by_address[address] <= 0:
            del self._by_address[address]

    @property
    def open(self) -> int:
        """Connections counted now."""
        return self._open


_TCP_INFO = getattr(socket, "TCP_INFO", None)
_RTT = struct.Struct("8B16I")  # tcp_info up to tcpi_rtt (microseconds, the 16th u32)


def tcp_rtt_ms(writer: asyncio.StreamWriter | None) -> float | None:
    """The kernel's smoothed round-trip time of a TCP connection, in milliseconds.

    ``None`` off Linux, for a closed connection, or for anything that is not TCP.
    """
    if writer is None or _TCP_INFO is None or not sys.platform.startswith("linux"):
        return None
    sock = writer.get_extra_info("socket")
    if sock is None:
        return None
    try:
        raw = sock.getsockopt(socket.IPPROTO_TCP, _TCP_INFO, _RTT.size)
    except OSError:
        return None
    if len(raw) < _RTT.size:
        return None
    return float(_RTT.unpack(raw)[8 + 15]) / 1000.0

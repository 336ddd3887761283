"""Limits: bounded lines, rate pacing, connection caps, never-waiting writes, TCP RTT."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from lightcycle.server.limits import (
    ClientGone,
    ConnectionCounter,
    LineTooLong,
    TokenBucket,
    read_line,
    send_nowait,
    tcp_rtt_ms,
)
from tests.server.clients import Pair


def test_read_line_cuts_off_long_lines_and_times_out() -> None:
    async def main() -> None:
        async with Pair() as pair:
            sr, _sw, _cr, cw = await pair.connect()
            cw.write(b"short\r\n")
            assert await read_line(sr, 100, 1.0) == b"short"
            cw.write(b"y" * 70000)  # longer than the reader's buffer limit (65538)
            with pytest.raises(LineTooLong):
                await read_line(sr, 65536, 1.0)
        async with Pair() as pair:
            sr, _sw, _cr, cw = await pair.connect()
            with pytest.raises(TimeoutError):
                await read_line(sr, 100, 0.05)
            cw.write(b"half")
            cw.close()
            with pytest.raises(ClientGone, match="mid-line"):
                await read_line(sr, 100, 1.0)

    asyncio.run(main())


def test_token_bucket_paces_after_the_burst() -> None:
    bucket = TokenBucket(rate=100.0, burst=5)
    assert [bucket.delay() for _ in range(5)] == [0.0] * 5
    assert 0.005 <= bucket.delay() <= 0.011
    time.sleep(0.05)
    assert bucket.delay() == 0.0


def test_connection_counter_caps_per_address_and_in_total() -> None:
    c = ConnectionCounter(per_address=2, total=3)
    assert c.acquire("a") is None and c.acquire("a") is None
    assert "too many connections from a" in str(c.acquire("a"))
    assert c.acquire("b") is None
    assert "the server is full" in str(c.acquire("c"))
    c.release("a")
    assert c.acquire("c") is None and c.open == 3


def test_a_client_that_does_not_read_is_dropped_never_waited_for() -> None:
    async def main() -> None:
        async with Pair() as pair:
            _sr, sw, _cr, _cw = await pair.connect()
            chunk = b"x" * 65536
            t0 = time.monotonic()
            sent = 0
            while send_nowait(sw, chunk, limit=1 << 18):
                sent += 1
                assert sent < 10000
            assert time.monotonic() - t0 < 1.0 and sw.is_closing()

    asyncio.run(main())


def test_tcp_rtt_is_read_on_linux() -> None:
    async def main() -> float | None:
        async with Pair() as pair:
            _sr, sw, _cr, _cw = await pair.connect()
            return tcp_rtt_ms(sw)

    rtt = asyncio.run(main())
    if not sys.platform.startswith("linux"):
        assert rtt is None
    else:
        assert rtt is not None and 0 <= rtt < 1000

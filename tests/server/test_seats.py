"""Seats: a remote seat's buffer, reply deadlines, drops and reattachment."""

from __future__ import annotations

import asyncio

import pytest

from lightcycle.bots.api import BotError
from lightcycle.server.seats import BuiltinSeat, RemoteSeat, SeatGone, SeatTimeout
from tests.server.clients import Pair, readline


def _line(buf: bytearray) -> bytes | None:
    i = buf.find(b"\n")
    if i < 0:
        return None
    out = bytes(buf[:i])
    del buf[: i + 1]
    return out


def test_reply_timeout_drop_and_resend_on_attach() -> None:
    async def main() -> None:
        async with Pair() as pair:
            sr, sw, cr, cw = await pair.connect()
            seat = RemoteSeat("c", None, protocol="jsonl", framed=True)
            seat.attach(sr, sw)
            seat.in_game = True
            seat.send(b"ask\n", 5, request=True)
            assert b'"turn":5' in await readline(cr)
            with pytest.raises(SeatTimeout):
                await seat.reply(_line, 0.05, 1.0)
            cw.write(b'{"type":"data","data":"yes\\n"}\n')
            value, sent, got = await seat.reply(_line, 1.0, 1.0)
            assert value == b"yes" and got >= sent
            cw.close()
            await seat.wait_gone()
            seat.send(b"again\n", 6, request=True)  # asked while dropped
            sr2, sw2, cr2, cw2 = await pair.connect()
            seat.attach(sr2, sw2)
            assert b'"turn":6' in await readline(cr2)  # resent on attach
            cw2.close()
            with pytest.raises(SeatGone, match=r"not back within 0\.1 s"):
                await seat.reply(_line, 5.0, 0.1)
            await seat.finish()

    asyncio.run(asyncio.wait_for(main(), 10))


def test_builtin_seat_checks_its_bot() -> None:
    assert BuiltinSeat("builtin:chaser").name == "Chaser"
    assert BuiltinSeat("builtin:chaser", name="fill").name == "fill"
    with pytest.raises(BotError):
        BuiltinSeat("builtin:nonesuch")

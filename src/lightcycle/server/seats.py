"""Who sits in a server game: a remote client on a socket, or a built-in bot.

A `RemoteSeat` owns the byte stream between one client and the game. A small reader task
(one per connection) moves what the client sends into the seat's buffer, line-capped,
rate-limited and bounded, so the game never reads a socket itself: it parses the buffer
with the seat's protocol codec exactly as the referee parses a bot's stdout, and waits
on an event with a deadline. Writes never wait (`limits.send_nowait`): a client that
does not read is dropped, never waited for.

A seat outlives its connection: when the socket drops, the seat keeps its place for the
game's reconnect grace, and `RemoteSeat.attach` (by resume token, or by the account
logging in again) gives it a new connection; the request in flight is sent again with
the same turn number and the clock restarts from that moment.

A `BuiltinSeat` is an in-process bot (a queue's fill bot) that the game asks on a worker
thread, so its thinking never blocks the event loop.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from lightcycle.bots.api import Bot
from lightcycle.bots.registry import make_bot
from lightcycle.protocols.base import Codec, ProtocolError, get_protocol
from lightcycle.server.limits import (
    ClientGone,
    LineTooLong,
    TokenBucket,
    close_writer,
    linger_close,
    send_nowait,
    tcp_rtt_ms,
)
from lightcycle.server.wire import (
    WireError,
    data_message,
    error_line,
    parse_data,
    scheme_aborted_lines,
    scheme_error_line,
)

log = logging.getLogger(__name__)
T = TypeVar("T")
_now = time.monotonic

RTT_EVERY = 8
"""The TCP round trip is read at every ``RTT_EVERY``-th request (the first included): a
``getsockopt`` per request costs the loop more than a median needs."""

ABORT_LINGER = (0.5, 5.0)
"""Least and most seconds an aborted game's Scheme connection stays half-open after its
``draw`` (`RemoteSeat.abort`): until the deadline of the move last asked for, so a client
still thinking can write its move and then read the result, within these bounds (a
client that closes ends the wait at once; the most bounds a server's shutdown)."""


class Seat(Protocol):
    """What the lobby and the game know of every seat."""

    name: str
    account: str | None
    kind: str


class SeatTimeout(Exception):
    """No complete reply before the deadline."""


class SeatGone(Exception):
    """The client dropped and did not come back within the grace period."""


@dataclass(eq=False)
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    done: asyncio.Future[None]
    pump: asyncio.Task[None] | None = None


@dataclass(eq=False)
class RemoteSeat:
    """A client's seat: its protocol, its connection (or none while dropped), its buffer.

    Attributes:
        name: display name.
        account: the account it logged in as (``None``: anonymous).
        protocol: the codec name spoken after the hello (``sexp`` on the Scheme port).
        framed: whether game bytes travel in ``data`` messages (`wire.data_message`).
        hello_pending: whether the codec's own hello (a ``sexp`` bot's name line) is still
            to come: true on the jsonl port, false on the Scheme port where the name line
            was the server's hello.
        scheme: whether refusals are written as ``(error "...")`` rather than JSON.
        max_line: longest framed line accepted.
        lines_per_second: sustained lines a second accepted from the client.
        token: the resume token sent in the welcome.
    """

    name: str
    account: str | None
    protocol: str = "sexp"
    framed: bool = False
    hello_pending: bool = False
    scheme: bool = True
    max_line: int = 65536
    lines_per_second: float = 100.0
    kind: str = "remote"
    token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    codec_class: type[Codec] = field(init=False)
    buf: bytearray = field(default_factory=bytearray, init=False)
    in_game: bool = field(default=False, init=False)
    finished: bool = field(default=False, init=False)
    think_times: list[float] = field(default_factory=list, init=False)
    rtts: list[float] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.codec_class = get_protocol(self.protocol)
        self._conn: _Connection | None = None
        self._changed = asyncio.Event()
        self._room = asyncio.Event()
        self._attached = asyncio.Event()
        self._gone = asyncio.Event()
        self._bucket = TokenBucket(self.lines_per_second, max(8.0, self.lines_per_second))
        self._wire_error = ""
        self._request: tuple[int, bytes] | None = None
        self._start: tuple[int, bytes] | None = None
        self._sent_at = 0.0
        self._deadline = 0.0  # the last reply's deadline (`abort` lingers until it)
        self._expecting = False
        self._asked = 0
        self._dropped_at: float | None = _now()
        self.drop_detail = "never connected"

    # -- connections -------------------------------------------------------------------
    def attach(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        replay_start: bool = False,
    ) -> asyncio.Future[None]:
        """Give the seat a (new) connection; return a future done when it is released.

        The older connection, if any, is closed. If a request is in flight it is sent
        again (framed: with its turn number) and its clock restarts now; with
        ``replay_start`` the game's opening bytes are sent first (a Scheme client that
        logs in again is a new program that expects the board first).
        """
        old = self._conn
        if old is not None:
            self._release(old, "replaced by a new connection")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self.finished:
            done.set_result(None)
            return done
        conn = _Connection(reader, writer, done)
        self._conn = conn
        self.buf.clear()
        self._wire_error = ""
        self._dropped_at = None
        self._gone.clear()
        conn.pump = asyncio.get_running_loop().create_task(
            self._pump(conn), name=f"lightcycle-seat-{self.name}"
        )
        if self.in_game:
            if replay_start and self._start is not None:
                self._write(conn, *self._start)
            if self._request is not None:
                self._write(conn, *self._request)
                self._sent_at = _now()
            elif self._expecting:
                self._sent_at = _now()
        self._attached.set()
        self._changed.set()
        return done

    @property
    def connected(self) -> bool:
        """Whether the seat has a live connection now."""
        return self._conn is not None

    async def wait_gone(self) -> None:
        """Return once the current connection has dropped."""
        await self._gone.wait()

    def kick(self, message: str) -> None:
        """Drop the current connection with a one-line ``message`` (the seat stays)."""
        conn = self._conn
        if conn is not None:
            send_nowait(conn.writer, self._error(message))
            self._release(conn, message)

    def _error(self, message: str) -> bytes:
        return scheme_error_line(message) if self.scheme else error_line(message)

    def _release(self, conn: _Connection, why: str, *, close: bool = True) -> None:
        """Close ``conn``; if it was the seat's connection the seat is now dropped.

        ``close=False`` detaches it and stops its pump but leaves the socket open and its
        ``done`` unset: the caller closes it (`abort` lingers first).
        """
        if self._conn is conn:
            self._conn = None
            self._dropped_at = _now()
            self.drop_detail = why
            self._gone.set()
            self._attached.clear()
            self._changed.set()
        if conn.pump is not None and conn.pump is not asyncio.current_task():
            conn.pump.cancel()
        if not close:
            return
        conn.writer.close()
        if not conn.done.done():
            conn.done.set_result(None)

    async def _pump(self, conn: _Connection) -> None:
        """Move the client's bytes into the buffer until the connection ends."""
        why = "the client closed the connection"
        try:
            while True:
                if self.framed:
                    line = await _read_framed(conn.reader, self.max_line)
                    if line is None:
                        break
                    cost = 1.0
                    try:
                        data = parse_data(line)
                    except WireError as exc:
                        self._wire_error = str(exc)
                        self._changed.set()
                        break
                else:
                    data = await conn.reader.read(4096)
                    if not data:
                        break
                    cost = max(1.0, float(data.count(b"\n")))
                wait = self._bucket.delay(cost)
                if wait > 0:
                    await asyncio.sleep(wait)
                self.buf += data
                self._changed.set()
                # bounded: what nobody reads stays in the kernel, pacing the client
                cap = self.codec_class.max_reply + self.max_line
                while len(self.buf) > cap and self._conn is conn:
                    self._room.clear()
                    await self._room.wait()
            if self._wire_error:
                return  # the game judges it; the connection stays until then
        except LineTooLong as exc:
            why = str(exc)
            send_nowait(conn.writer, self._error(f"{exc}; the connection is closed"))
        except (ClientGone, ConnectionError, OSError) as exc:
            why = f"the connection failed: {exc}"
        except asyncio.CancelledError:
            return
        self._release(conn, why)

    # -- the game's side ---------------------------------------------------------------
    def send(self, data: bytes, turn: int, *, request: bool = False, start: bool = False) -> None:
        """Send game bytes for ``turn``; a ``request`` is kept to send again on attach."""
        if request:
            self._request = (turn, data)
        if start:
            self._start = (turn, data)
        conn = self._conn
        if conn is not None:
            self._write(conn, turn, data)
            if request:
                if self._asked % RTT_EVERY == 0:
                    rtt = tcp_rtt_ms(conn.writer)
                    if rtt is not None:
                        self.rtts.append(rtt)
                self._asked += 1
        if request:
            self._sent_at = _now()

    def _write(self, conn: _Connection, turn: int, data: bytes) -> None:
        if not data:
            return
        if not send_nowait(conn.writer, data_message(turn, data) if self.framed else data):
            self._release(conn, "the client does not read what the server sends")

    def expect(self) -> None:
        """Start the clock of a reply the game asks for without sending a request.

        The ``sexp`` codec's bot speaks first (its name line): the game asks for it by
        waiting, as the referee does, so its clock starts now, and again if the client
        comes back after a drop (`attach`), exactly as a request's clock would. Without
        this the deadline counted from no time at all, and a name line not already in
        the buffer when the game began was judged late at once.
        """
        self._expecting = True
        self._sent_at = _now()

    def done_asking(self) -> None:
        """The request in flight was answered (or judged): nothing to send again."""
        self._request = None
        self._expecting = False

    def write_raw(self, data: bytes) -> None:
        """Send bytes as they are (the framed ``end`` message)."""
        conn = self._conn
        if conn is not None and data:
            send_nowait(conn.writer, data)

    def stray(self, codec: Codec) -> bytes:
        """What the client wrote unasked (the referee's check before each request)."""
        if self._wire_error:
            return self._wire_error.encode()
        out = codec.stray(self.buf)
        self._room.set()
        return out

    async def reply(
        self,
        parse: Callable[[bytearray], T | None],
        allowance: float,
        grace: float,
    ) -> tuple[T, float, float]:
        """Wait for one reply; return it with when it was asked and when it came.

        ``allowance`` counts from the request (`send`); a seat that drops waits up to
        ``grace`` seconds from the drop for `attach`, whose resent request restarts the
        clock.

        Raises:
            ProtocolError: the bytes can never become a valid reply.
            SeatTimeout: no reply within the allowance.
            SeatGone: dropped and not back in time.
        """
        while True:
            if self._wire_error:
                raise ProtocolError(self.protocol, "framed data lines", self._wire_error.encode())
            value = parse(self.buf)
            self._room.set()
            if value is not None:
                return value, self._sent_at, _now()
            self._changed.clear()
            if self._conn is None:
                dropped = self._dropped_at if self._dropped_at is not None else _now()
                left = dropped + grace - _now()
                if left <= 0:
                    raise SeatGone(f"{self.drop_detail}; not back within {grace:g} s")
                try:
                    async with asyncio.timeout(left):
                        await self._attached.wait()
                except TimeoutError:
                    raise SeatGone(f"{self.drop_detail}; not back within {grace:g} s") from None
                continue
            self._deadline = self._sent_at + allowance
            left = self._deadline - _now()
            if left <= 0:
                raise SeatTimeout(f"no complete reply within {allowance:.3f} s")
            # the deadline wakes the wait like new bytes do, and the loop above judges:
            # a plain timer is much cheaper per turn than a timeout scope and a task
            timer = asyncio.get_running_loop().call_later(left, self._changed.set)
            try:
                await self._changed.wait()
            finally:
                timer.cancel()

    async def finish(self, message: bytes = b"") -> None:
        """The game is over: send ``message`` (if any) and close the connection."""
        self.finished = True
        self._request = None
        conn = self._conn
        if conn is None:
            return
        if message:
            send_nowait(conn.writer, message)
        self._release(conn, "the game is over")
        await close_writer(conn.writer)

    @property
    def started(self) -> bool:
        """Whether the game's opening bytes were sent (or wait to be sent again on attach).

        From then on a Scheme course client reads positions or a result, never a refusal.
        """
        return self._start is not None

    async def abort(self, why: str) -> None:
        """The game is cut short (the server stops, the game fails): tell the client, close.

        A Scheme-port client whose board was sent is in the middle of the course's
        exchange, which can only end in a result: it gets ``draw`` and ``why`` as a
        comment (`wire.scheme_aborted_lines`), and its connection stays half-open until
        the deadline of the move last asked for (`ABORT_LINGER`), so a client still
        thinking writes its move without meeting a reset and then reads the result
        (`limits.linger_close`). Any other client gets the one-line refusal and the close,
        as a kick.
        """
        self.finished = True
        self._request = None
        conn = self._conn
        if conn is None:
            return
        if not (self.scheme and self.started):
            self.kick(why)
            return
        send_nowait(conn.writer, scheme_aborted_lines(why))
        low, high = ABORT_LINGER
        linger = min(high, max(low, self._deadline - _now()))
        self._release(conn, "the game was aborted", close=False)
        pump = conn.pump
        if pump is not None and pump is not asyncio.current_task():
            await asyncio.wait([pump])  # cancelled by `_release`: the reader is ours now
        try:
            await linger_close(conn.reader, conn.writer, linger)
        finally:
            if not conn.done.done():
                conn.done.set_result(None)

    def median_rtt_ms(self) -> float | None:
        """Median TCP round-trip time seen at the requests (``None``: never measured)."""
        return statistics.median(self.rtts) if self.rtts else None


async def _read_framed(reader: asyncio.StreamReader, max_line: int) -> bytes | None:
    """One framed line; ``None`` at the end of the stream."""
    from lightcycle.server.limits import read_line

    try:
        return await read_line(reader, max_line, None)
    except ClientGone:
        return None


@dataclass(eq=False)
class BuiltinSeat:
    """A built-in bot in a server game (a queue's fill bot).

    Attributes:
        bot: the bot spec (``builtin:medium``); checked when the seat is made.
        name: display name (default: the bot's own).
    """

    bot: str = "builtin:medium"
    name: str = ""
    account: str | None = None
    kind: str = "builtin"
    think_times: list[float] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.instance: Bot = make_bot(self.bot)  # BotError: the lobby's configuration
        if not self.name:
            self.name = self.instance.display_name

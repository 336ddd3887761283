"""The TCP ports: the Scheme course's exchange, and the jsonl port's hello.

Each connection is one handler task. It counts the connection against the per-address
and total caps, reads the hello within the join timeout (one line of at most
``max_line`` bytes), logs in through the lobby, and either takes back a dropped seat (a
``resume`` token, or an account that logs in again while its game runs) or makes a new
`RemoteSeat` and waits in the lobby's queue until its game is over. Every refusal is one
line (``(error "...")`` on the Scheme port, ``{"type":"error",...}`` on the jsonl port)
and a close, except that a Scheme client whose game has begun is never refused: a game
cut short ends for it in a ``draw`` with the reason as a comment (`RemoteSeat.abort`).
Any exception in a handler is logged and closes that connection only.

See docs/server.md, 'The wire', for every message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lightcycle.server.limits import (
    ClientGone,
    ConnectionCounter,
    LineTooLong,
    close_writer,
    read_line,
    send_line,
)
from lightcycle.server.seats import RemoteSeat
from lightcycle.server.wire import (
    Hello,
    WireError,
    error_line,
    parse_hello,
    parse_scheme_hello,
    scheme_error_line,
    welcome_line,
)

if TYPE_CHECKING:
    from lightcycle.server.config import ServerConfig
    from lightcycle.server.lobby import Lobby, Login

log = logging.getLogger(__name__)


class _Refusal(Exception):
    """A one-line refusal to send before closing."""


class Ports:
    """The server's two TCP listeners and what their handlers share.

    Attributes:
        lobby: where logins and games go.
        config: the server configuration.
        counter: open connections per address and in total.
        servers: the listening servers once `start` returned.
        web: the web page's address (``http://HOST:PORT``) once it listens, sent in every
            welcome (``None``: no web page).
    """

    def __init__(self, lobby: Lobby, config: ServerConfig) -> None:
        self.lobby = lobby
        self.config = config
        limits = config.limits
        self.counter = ConnectionCounter(limits.per_address, limits.max_connections)
        self.servers: list[asyncio.Server] = []
        self.web: str | None = None
        self._by_token: dict[str, RemoteSeat] = {}
        self._handlers: set[asyncio.Task[Any]] = set()

    async def start(
        self, host: str | None = None, scheme_port: int | None = None, jsonl_port: int | None = None
    ) -> tuple[int, int]:
        """Listen on both ports (0: any free port); return the ports bound."""
        host = host if host is not None else self.config.host
        limit = self.config.limits.max_line + 2  # the reader's buffer bound for one line
        scheme = await asyncio.start_server(
            self._scheme,
            host,
            self.config.scheme_port if scheme_port is None else scheme_port,
            limit=limit,
        )
        jsonl = await asyncio.start_server(
            self._jsonl,
            host,
            self.config.jsonl_port if jsonl_port is None else jsonl_port,
            limit=limit,
        )
        self.servers = [scheme, jsonl]
        return _port(scheme), _port(jsonl)

    async def close(self) -> None:
        """Stop listening and end every connection handler."""
        for server in self.servers:
            server.close()
        for task in list(self._handlers):
            task.cancel()
        if self._handlers:
            await asyncio.gather(*self._handlers, return_exceptions=True)
        for server in self.servers:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2.0):
                    await server.wait_closed()

    # -- handlers ----------------------------------------------------------------------
    async def _scheme(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._guard(reader, writer, scheme=True)

    async def _jsonl(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._guard(reader, writer, scheme=False)

    async def _guard(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, scheme: bool
    ) -> None:
        """Count, run and always close one connection; nothing escapes but a log line."""
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        peer = writer.get_extra_info("peername")
        address = str(peer[0]) if peer else "?"
        error = scheme_error_line if scheme else error_line
        refused = self.counter.acquire(address)
        try:
            if refused is not None:
                await send_line(writer, error(refused), timeout=1.0)
                return
            try:
                await self._session(reader, writer, address, scheme)
            except _Refusal as exc:
                await send_line(writer, error(str(exc)), timeout=1.0)
            except (ClientGone, ConnectionError, OSError):
                pass
            except asyncio.CancelledError:
                # `close` ends the handlers; returning (not raising) keeps Python 3.11's
                # stream callback from logging the cancellation as an error
                return
            except Exception:
                log.exception("connection from %s failed", address)
                await send_line(writer, error("internal server error"), timeout=1.0)
        finally:
            if refused is None:
                self.counter.release(address)
            await close_writer(writer)
            self._handlers.discard(task)

    async def _session(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, address: str, scheme: bool
    ) -> None:
        limits = self.config.limits
        try:
            line = await read_line(reader, limits.max_line, limits.join_timeout)
        except TimeoutError:
            raise _Refusal(
                f"no hello within {limits.join_timeout:g} s; the connection is closed"
            ) from None
        except LineTooLong as exc:
            raise _Refusal(f"{exc}; the connection is closed") from None
        try:
            if scheme:
                name, secret = parse_scheme_hello(line)
                hello = Hello(
                    name=name, secret=secret, queue=self.config.scheme_queue, protocol="sexp"
                )
            else:
                hello = parse_hello(line)
        except WireError as exc:
            raise _Refusal(str(exc)) from None
        if hello.resume is not None:
            await self._resume(hello.resume, reader, writer)
            return
        self._check_protocol(hello, scheme)
        login = await self._login(hello, address)
        try:
            login.kick = _kicker(writer, scheme)
            seat = self.lobby.seat_of(login.account) if login.account else None
            if isinstance(seat, RemoteSeat) and not seat.finished:
                if not scheme:
                    await send_line(writer, self._welcome(hello, seat))
                done = seat.attach(reader, writer, replay_start=scheme)
                await done
                return
            seat = RemoteSeat(
                name=login.name,
                account=login.account,
                protocol=hello.protocol,
                framed=hello.framed,
                hello_pending=not scheme,
                scheme=scheme,
                max_line=limits.max_line,
                lines_per_second=limits.lines_per_second,
            )
            if not scheme and not await send_line(writer, self._welcome(hello, seat)):
                return
            seat.attach(reader, writer)
            self._by_token[seat.token] = seat
            try:
                await self._play(login, seat, hello)
            except _Refusal as exc:
                if not (scheme and seat.started):
                    raise
                # the game was cut short after its board was sent: a course client
                # expects a result there, not a refusal (`RemoteSeat.abort`, which the
                # game has usually done already; then this sends nothing)
                if not seat.finished:
                    await seat.abort(str(exc).removeprefix("the game was aborted: "))
            finally:
                self._by_token.pop(seat.token, None)
                # the name is free once the game is over, before the close's round trip:
                # a client that reads its result and joins again at once is not refused
                self.lobby.logout(login)
                await seat.finish()
        finally:
            self.lobby.logout(login)

    def _check_protocol(self, hello: Hello, scheme: bool) -> None:
        from lightcycle.protocols.base import get_protocol

        try:
            get_protocol(hello.protocol)
        except ValueError as exc:
            raise _Refusal(f"hello field 'protocol': {exc}") from None
        queue = self.config.queues.get(hello.queue)
        if queue is None or scheme:
            return  # the lobby refuses an unknown queue, naming the known ones
        allowed = queue.allowed_protocols()
        if hello.protocol not in allowed:
            raise _Refusal(
                f"queue {hello.queue!r} does not take protocol {hello.protocol!r}; "
                f"it takes {', '.join(allowed) or 'none'}"
            )

    async def _login(self, hello: Hello, address: str) -> Login:
        from lightcycle.server.lobby import Refused

        try:
            return await self.lobby.login(hello.name, hello.secret, hello.queue, address)
        except Refused as exc:
            raise _Refusal(str(exc)) from None

    def _welcome(self, hello: Hello, seat: RemoteSeat) -> bytes:
        queue = self.config.queues.get(hello.queue)
        return welcome_line(
            seat.name,
            hello.queue,
            seat.token,
            self.config.limits.latency_allowance,
            queue.move_time if queue is not None else None,
            self.web,
        )

    async def _resume(
        self, token: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        seat = self._by_token.get(token)
        if seat is None or seat.finished:
            raise _Refusal("no game waits for that resume token; log in again")
        await send_line(
            writer,
            welcome_line(
                seat.name,
                "",
                seat.token,
                self.config.limits.latency_allowance,
                None,
                self.web,
            ),
        )
        await seat.attach(reader, writer)

    async def _play(self, login: Login, seat: RemoteSeat, hello: Hello) -> None:
        """Wait in the queue and play; a drop before the game starts leaves the queue."""
        from lightcycle.server.lobby import Refused

        limits = self.config.limits
        play = asyncio.ensure_future(
            self.lobby.play(
                login, seat, hello.queue, challenge=hello.challenge, accept=hello.accept
            )
        )
        gone = asyncio.ensure_future(seat.wait_gone())
        try:
            while True:
                waits = {play} if seat.in_game else {play, gone}
                done, _ = await asyncio.wait(
                    waits, timeout=None if seat.in_game else limits.idle_timeout
                )
                if play in done:
                    play.result()
                    return
                if seat.in_game:
                    continue
                if gone in done:
                    return  # left while waiting: `finally` takes it out of the queue
                seat.kick(
                    f"no game began within {limits.idle_timeout:g} s; the connection is closed"
                )
                return
        except Refused as exc:
            raise _Refusal(str(exc)) from None
        finally:
            gone.cancel()
            if not play.done():
                play.cancel()
                with contextlib.suppress(BaseException):
                    await play
            elif not play.cancelled():
                play.exception()  # retrieved: a refusal after we stopped waiting is no news


def _kicker(writer: asyncio.StreamWriter, scheme: bool) -> Callable[[str], None]:
    """`Login.kick` for one connection: a refusal line, then the close."""

    def kick(message: str) -> None:
        if not writer.is_closing():
            with contextlib.suppress(Exception):
                writer.write((scheme_error_line if scheme else error_line)(message))
            writer.close()

    return kick


def _port(server: asyncio.Server) -> int:
    return int(server.sockets[0].getsockname()[1])

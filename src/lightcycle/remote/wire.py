"""The client's side of the server's ``jsonl`` port in framed mode (docs/server.md).

One JSON object a line both ways. The client says ``hello`` (name, secret, queue,
protocol, ``framed: true``, a challenge and a resume token where given); the server
answers ``welcome`` or ``error`` and closes. Then the server sends ``data`` messages
(the protocol's bytes as text, with the turn they belong to) and, at the end, ``end``
(result, verdict, game id); the client sends ``data`` messages (the bot's replies).

Errors are `RemoteError` subclasses whose text is the one line a user sees and whose
``exit_code`` the command exits with.
"""

from __future__ import annotations

import contextlib
import json
import socket
from dataclasses import dataclass, field
from typing import Any

MAX_LINE = 64 << 20
"""The longest line the client reads from a server (a start message of a huge board)."""

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True).encode


class RemoteError(Exception):
    """A remote game that cannot go on; ``str`` is the one line for the user."""

    exit_code = 1


class NoServer(RemoteError):
    """No server answers at the address (refused, unreachable, timed out)."""

    exit_code = 3


class Refused(RemoteError):
    """The server refused the hello: a wrong secret, an unknown queue, a bad name..."""

    exit_code = 4


class Lost(RemoteError):
    """The connection dropped mid-game and could not be resumed."""

    exit_code = 5


class Dropped(Exception):
    """The connection ended or failed (internal: the client tries to resume)."""


@dataclass
class Hello:
    """What the client says first (see the module docstring)."""

    name: str
    queue: str
    protocol: str
    secret: str | None = None
    challenge: str | None = None
    accept: str | None = None
    resume: str | None = None

    def message(self) -> dict[str, Any]:
        """The ``hello`` object, with the optional keys only where set."""
        out: dict[str, Any] = {
            "type": "hello",
            "name": self.name,
            "queue": self.queue,
            "protocol": self.protocol,
            "framed": True,
        }
        for key in ("secret", "challenge", "accept", "resume"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


@dataclass
class Welcome:
    """The server's ``welcome``; ``raw`` keeps keys a newer server adds (a web address)."""

    name: str
    queue: str
    token: str | None
    move_time: float | None
    latency_allowance: float | None
    raw: dict[str, Any] = field(default_factory=dict)


class Connection:
    """A connected, welcomed client socket that reads and writes JSON lines.

    Use `open_connection` to make one.
    """

    def __init__(self, sock: socket.socket, where: str) -> None:
        self.sock = sock
        self.where = where
        self._buf = bytearray()
        self._closed = False

    def fileno(self) -> int:
        """The socket's descriptor (for `selectors`)."""
        return self.sock.fileno()

    def send(self, message: dict[str, Any]) -> None:
        """Write one message.

        Raises:
            Dropped: the connection is gone.
        """
        try:
            self.sock.sendall(_dumps(message).encode() + b"\n")
        except OSError as exc:
            raise Dropped(str(exc)) from None

    def buffered(self) -> bool:
        """Whether a whole line is already read and waits to be taken."""
        return b"\n" in self._buf

    def receive(self) -> list[dict[str, Any]]:
        """Read what the socket has (call when it is readable); return whole messages.

        Raises:
            Dropped: end of stream, a socket error, or a line that is not a JSON object.
        """
        try:
            chunk = self.sock.recv(1 << 16)
        except (BlockingIOError, InterruptedError):
            return self.take()
        except OSError as exc:
            raise Dropped(str(exc)) from None
        if not chunk:
            raise Dropped("the server closed the connection")
        self._buf += chunk
        return self.take()

    def take(self) -> list[dict[str, Any]]:
        """The whole messages already buffered."""
        out: list[dict[str, Any]] = []
        while True:
            i = self._buf.find(b"\n")
            if i < 0:
                if len(self._buf) > MAX_LINE:
                    raise Dropped(f"the server sent a line longer than {MAX_LINE} bytes")
                return out
            line = bytes(self._buf[:i])
            del self._buf[: i + 1]
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                raise Dropped(f"the server sent a line that is not JSON: {line[:80]!r}") from None
            if not isinstance(message, dict):
                raise Dropped(f"the server sent {line[:80]!r}, not a JSON object")
            out.append(message)

    def read_one(self, timeout: float) -> dict[str, Any]:
        """Block up to ``timeout`` seconds for the next message.

        Raises:
            Dropped: the connection ended or nothing came in time.
        """
        self.sock.settimeout(timeout)
        try:
            while True:
                ready = self.take()
                if ready:
                    first, rest = ready[0], ready[1:]
                    if rest:  # put the others back, in order
                        self._buf[0:0] = b"".join(_dumps(m).encode() + b"\n" for m in rest)
                    return first
                try:
                    chunk = self.sock.recv(1 << 16)
                except TimeoutError:
                    raise Dropped(f"no answer from {self.where} in {timeout:g} s") from None
                except OSError as exc:
                    raise Dropped(str(exc)) from None
                if not chunk:
                    raise Dropped("the server closed the connection")
                self._buf += chunk
        finally:
            with contextlib.suppress(OSError):
                self.sock.settimeout(None)

    def close(self) -> None:
        """Close the socket (the server sees the client leave). Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.sock.close()


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:7701`` for IPv6) as a pair.

    Raises:
        ValueError: naming the expected form.
    """
    host, sep, port = text.strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{text!r}: give the server as HOST:PORT, e.g. localhost:7701")
    return host, int(port)


def open_connection(
    host: str, port: int, hello: Hello, timeout: float = 10.0
) -> tuple[Connection, Welcome]:
    """Connect, say hello and read the welcome.

    Raises:
        NoServer: nothing listens there (or no answer in ``timeout`` seconds).
        Refused: the server answered with an error.
        Dropped: the server closed or broke the connection during the hello.
    """
    where = f"{host}:{port}"
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except ConnectionRefusedError:
        raise NoServer(
            f"cannot connect to {where}: connection refused; is lightcycle serve running?"
        ) from None
    except TimeoutError:
        raise NoServer(f"cannot connect to {where}: no answer in {timeout:g} s") from None
    except OSError as exc:
        raise NoServer(f"cannot connect to {where}: {exc.strerror or exc}") from None
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    conn = Connection(sock, where)
    try:
        conn.send(hello.message())
        answer = conn.read_one(timeout)
    except Dropped:
        conn.close()
        raise
    if answer.get("type") == "error":
        conn.close()
        raise Refused(f"{where} refused: {answer.get('error', 'no reason given')}")
    if answer.get("type") != "welcome":
        conn.close()
        raise Dropped(f"expected a welcome from {where}, got {str(answer)[:80]}")
    token = answer.get("token")
    move_time = answer.get("move_time")
    allowance = answer.get("latency_allowance")
    welcome = Welcome(
        name=str(answer.get("name", hello.name)),
        queue=str(answer.get("queue", hello.queue)),
        token=token if isinstance(token, str) else None,
        move_time=float(move_time) if isinstance(move_time, int | float) else None,
        latency_allowance=float(allowance) if isinstance(allowance, int | float) else None,
        raw=answer,
    )
    return conn, welcome

"""HTTP bots: a Battlesnake web server plays as a seat (``--bot http://HOST:PORT``).

The snake is played as an in-process player whose ``move`` makes the HTTP call, so the
referee times it exactly like any in-process bot (a round trip is the snake's move
time) and nothing in the game loop knows about sockets. What goes over the wire is
`lightcycle.protocols.battlesnake`'s business; this module only carries it:

- one keep-alive connection per player (standard-library `http.client`), reopened when
  the server drops it; a request on a reused connection that the server had closed
  meanwhile is sent once more on a new one;
- the first move of each game does ``GET /`` (once per player: the snake's looks),
  ``POST /start`` (its answer is ignored, as Battlesnake's engine does) and then
  ``POST /move``: set-up counts in the first move's time, as with every bot;
- every request is bounded by the time the move has left: a watchdog shuts the socket
  down at the deadline, so a server that answers a byte at a time cannot stall a game;
- ``POST /end`` after the game (`BattlesnakeBot.end`), its errors ignored.

What fails becomes the seat's verdict, with a detail naming it: a refused connection,
an unknown host, a connection closed mid-request or a TLS failure ``crashed``; no
complete answer in time ``timeout``; a status other than 200, or a body that is not a
move, ``bad_output``. The referee's network access is its own: the snake may run on the
loopback interface or anywhere the user points.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
import threading
import time
import uuid
from urllib.parse import urlsplit

from lightcycle.bots.api import Bot
from lightcycle.protocols.base import Answers, Params, ProtocolError
from lightcycle.protocols.battlesnake import DEFAULT_TIMEOUT_MS, Battlesnake
from lightcycle.referee.player_base import InProcessPlayer, Player
from lightcycle.referee.specs import BotSpec, check_url
from lightcycle.referee.verdicts import Verdict
from lightcycle.rules.observe import View

_now = time.perf_counter

END_TIMEOUT = 1.0
"""The most seconds ``POST /end`` may take: a courtesy, it must not hold up the match."""

_DROPPED = (
    http.client.RemoteDisconnected,
    ConnectionResetError,
    ConnectionAbortedError,
    BrokenPipeError,
)
"""What a request on a connection the server has closed raises."""


class HttpBotError(Exception):
    """A request that failed; ``verdict`` is what the referee records for the seat.

    The referee turns an exception with a ``verdict`` raised by a bot's ``move`` into that
    verdict (any other exception is ``crashed``)."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.detail)
        self.verdict = verdict


class HttpClient:
    """One keep-alive HTTP connection to one snake server.

    Args:
        url: the snake's URL; its path, if any, is the prefix of every endpoint.
    """

    def __init__(self, url: str) -> None:
        parts = urlsplit(check_url(url))
        self.url = url.rstrip("/")
        self.tls = parts.scheme == "https"
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if self.tls else 80)
        self.prefix = parts.path.rstrip("/")
        self.requests = 0
        self._conn: http.client.HTTPConnection | None = None
        self._expired = False
        self._allowed = 0.0

    def close(self) -> None:
        """Close the connection (the next request opens a new one)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if self._conn is None:
            if self.tls:
                self._conn = http.client.HTTPSConnection(self.host, self.port, timeout=timeout)
            else:
                self._conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        return self._conn

    def request(
        self, method: str, path: str, body: bytes | None, timeout: float, limit: int = 65536
    ) -> tuple[int, str, bytes]:
        """Send one request and read its answer within ``timeout`` seconds.

        Returns:
            The status, its reason phrase and at most ``limit + 1`` bytes of the body
            (more than ``limit``: the body was longer).

        Raises:
            HttpBotError: with the verdict the failure deserves.
        """
        deadline = _now() + timeout
        self._allowed = timeout
        what = f"{method} {path}"
        for attempt in (1, 2):
            reused = self._conn is not None and self._conn.sock is not None
            try:
                return self._once(method, path, body, deadline, limit)
            except _DROPPED:
                self.close()
                if reused and attempt == 1 and not self._expired and _now() < deadline:
                    continue  # the server had closed the kept connection: once more, anew
                if self._expired:
                    raise self._late(what) from None
                raise HttpBotError(
                    Verdict("crashed", f"{self.url} closed the connection during {what}")
                ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _late(self, what: str) -> HttpBotError:
        return HttpBotError(
            Verdict(
                "timeout",
                f"no complete answer to {what} from {self.url} within {self._allowed:.3f} s",
            )
        )

    def _expire(self, conn: http.client.HTTPConnection) -> None:
        """The watchdog: the deadline passed; wake the request blocked on the socket."""
        self._expired = True
        sock = conn.sock
        if sock is not None:
            # at the socket level: an SSL socket's own shutdown is not thread-safe
            with contextlib.suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def _once(
        self, method: str, path: str, body: bytes | None, deadline: float, limit: int
    ) -> tuple[int, str, bytes]:
        what = f"{method} {path}"
        left = deadline - _now()
        if left <= 0:
            raise self._late(what)
        conn = self._connection(left)
        conn.timeout = left  # bounds the connect, if the connection must be opened
        if conn.sock is not None:
            conn.sock.settimeout(left)
        self._expired = False
        watchdog = threading.Timer(left, self._expire, args=(conn,))
        watchdog.name = "lightcycle-http-watchdog"
        watchdog.daemon = True
        watchdog.start()
        headers = {"Content-Type": "application/json", "User-Agent": "lightcycle"}
        try:
            conn.request(method, self.prefix + path, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read(limit + 1)
            if not response.isclosed():  # longer than the limit: the rest is never read
                self.close()
            self.requests += 1
            return response.status, response.reason, data
        except _DROPPED:
            raise
        except TimeoutError:
            self.close()
            raise self._late(what) from None
        except ConnectionRefusedError:
            self.close()
            raise HttpBotError(
                Verdict(
                    "crashed",
                    f"cannot connect to {self.url}: connection refused "
                    "(is the snake's server running?)",
                )
            ) from None
        except socket.gaierror as exc:
            self.close()
            raise HttpBotError(
                Verdict("crashed", f"cannot find host {self.host!r} of {self.url}: {exc.strerror}")
            ) from None
        except ssl.SSLError as exc:
            self.close()
            raise HttpBotError(Verdict("crashed", f"TLS with {self.url} failed: {exc}")) from None
        except http.client.HTTPException as exc:
            self.close()
            if self._expired:
                raise self._late(what) from None
            raise HttpBotError(
                Verdict("bad_output", f"{what}: not an HTTP answer ({type(exc).__name__}: {exc})")
            ) from None
        except OSError as exc:
            self.close()
            if self._expired:
                raise self._late(what) from None
            raise HttpBotError(
                Verdict("crashed", f"{what} to {self.url} failed: {exc.strerror or exc}")
            ) from None
        finally:
            watchdog.cancel()
            watchdog.join()
            if self._expired:  # fired as the answer came: the socket is shut down
                self.close()


class BattlesnakeBot(Bot):
    """One game of an HTTP snake: each ``move`` is a ``POST /move`` (see the module
    docstring); a fresh instance per game, the connection belongs to the player."""

    name = "Battlesnake"

    def __init__(self, player: HttpPlayer) -> None:
        self.player = player
        self.codec: Battlesnake | None = None
        self.started = False
        self.unreachable = False
        self.move_time = DEFAULT_TIMEOUT_MS / 1000
        self.round_trips: list[float] = []

    @property
    def display_name(self) -> str:
        """The URL (or the name the spec gives)."""
        return self.player.spec.name or self.player.spec.text

    def start(self, game: View) -> None:
        """Check that the API can carry the game and make this game's codec; no I/O."""
        Battlesnake.check(game.state)
        codec = Battlesnake(game.seat)
        codec.game_id = str(uuid.uuid4())
        self.codec = codec

    def move(self, view: View) -> Answers:
        """Ask the snake (after ``GET /`` and ``POST /start`` on the first move)."""
        if self.codec is None:
            self.start(view)
        codec = self.codec
        assert codec is not None
        t0 = _now()
        allowed = view.time_limit if view.time_limit is not None else self.move_time
        deadline = t0 + allowed
        self.move_time = allowed
        client = self.player.client
        try:
            if not self.started:
                self.started = True
                self._hello(view, codec, deadline)
            codec.timeout_ms = round(allowed * 1000)
            body = codec.turn(view.state)
            sent = _now()
            status, reason, data = client.request(
                "POST", "/move", body, deadline - sent, codec.max_reply
            )
        except HttpBotError as exc:
            self.unreachable = exc.verdict.kind != "bad_output"
            raise
        rtt = _now() - sent
        self.round_trips.append(rtt)
        codec.latency_ms = round(rtt * 1000)
        if status != 200:
            raise HttpBotError(
                Verdict("bad_output", f"POST /move answered HTTP {status} {reason}: {data[:200]!r}")
            )
        try:
            answers = codec.read_move(bytearray(data), view.state)
        except ProtocolError as exc:
            raise HttpBotError(Verdict("bad_output", f"POST /move: {exc}")) from None
        assert answers is not None
        return answers

    def _hello(self, view: View, codec: Battlesnake, deadline: float) -> None:
        """``GET /`` (once per player) and ``POST /start``; only an unreachable server or
        a late answer counts against the snake, as Battlesnake ignores these answers."""
        client = self.player.client
        if self.player.looks is None:
            self.player.looks = {}
            status, _, data = client.request("GET", "/", None, deadline - _now())
            if status == 200:
                self.player.looks = _looks(data)
        codec.looks.update(self.player.looks)
        left = deadline - _now()
        body = codec.start(view.state, Params(move_time=left))
        client.request("POST", "/start", body, left)

    def end(self, view: View) -> None:
        """``POST /end`` with the final board; any failure is ignored (the game is over)."""
        if self.codec is None or not self.started or self.unreachable:
            return
        with contextlib.suppress(Exception):  # /end is a courtesy: nothing depends on it
            body = self.codec.end(view.state)
            self.player.client.request("POST", "/end", body, min(self.move_time, END_TIMEOUT))

    def report(self) -> dict[str, float]:
        """The mean round trip of ``POST /move`` in milliseconds (``latency_ms``)."""
        trips = self.round_trips
        return {"latency_ms": 1000 * sum(trips) / len(trips)} if trips else {}


def _looks(data: bytes) -> dict[str, str]:
    """The ``color``, ``head`` and ``tail`` of a ``GET /`` answer (nothing if unreadable)."""
    try:
        info = json.loads(data)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(info, dict):
        return {}
    return {k: v for k in ("color", "head", "tail") if isinstance(v := info.get(k), str)}


class HttpPlayer(InProcessPlayer):
    """A Battlesnake server across the games of a match: one connection, a bot per game.

    An in-process player for the referee (it is timed like one); it starts nothing and
    opens the connection on the first request.

    Attributes:
        client: the keep-alive connection.
        looks: the snake's ``customizations`` from ``GET /`` (``None``: not asked yet).
    """

    def __init__(self, spec: BotSpec) -> None:
        Player.__init__(self, spec)
        self.client = HttpClient(spec.text)
        self.looks: dict[str, str] | None = None
        self.bot: Bot = BattlesnakeBot(self)
        self.name = spec.name or spec.text

    def new_game(self) -> Bot:
        """A fresh bot for the next game, on the same connection."""
        self.bot = BattlesnakeBot(self)
        return self.bot

    def shutdown(self) -> None:
        """Close the connection."""
        self.client.close()

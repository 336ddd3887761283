"""A small stand-in for ``lightcycle serve``'s jsonl port in framed mode, for client tests.

It speaks the documented wire (docs/server.md) on 127.0.0.1, port 0: ``hello`` ->
``welcome`` (or ``error``), then one game between the connected client (seat 0, in the
protocol its hello names, judged by the real codec) and an in-process built-in bot
(seat 1), the protocol's bytes as ``data`` messages, and ``end``. It can drop the
connection once after a given turn and take the client back with its ``resume`` token,
sending the last turn's data again as a real server does. Whatever the client does wrong
(a reply written ahead, a malformed message) is recorded in ``problems``.
"""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
from dataclasses import dataclass, field
from typing import Any

from lightcycle.bots.registry import make_bot
from lightcycle.core.moves import Forfeit
from lightcycle.maps.registry import get_map
from lightcycle.protocols import get_protocol
from lightcycle.protocols.base import Codec, Params, ProtocolError
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.legal import answers_by_cycle, moves_this_turn, read_answer
from lightcycle.rules.observe import View

WAIT = 10.0  # seconds the stand-in waits for anything before it gives up


class _Gone(Exception):
    """The client's connection ended."""


@dataclass
class StandIn:
    """One stand-in server (use as a context manager; see the module docstring)."""

    ruleset: str = "classic"
    map_name: str = "arena-10"
    queue_name: str = "duel"
    opponent: str = "builtin:chaser"
    refuse: str | None = None  # answer every hello with this error
    drop_after: int | None = None  # close the connection once after this turn's reply
    refuse_resume: str | None = None  # answer a resume with this error
    close_after_drop: bool = False  # stop listening when the connection drops
    wait: float = WAIT  # seconds to wait for a reply or a resume
    play: bool = True  # False: welcome, then wait for the client to leave
    seed: int = 1
    port: int = 0
    hellos: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    finals: list[Any] = field(default_factory=list)  # each game's last GameState
    left: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> StandIn:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self.port = self._listener.getsockname()[1]
        self._stop = threading.Event()
        self._resumes: queue.Queue[socket.socket] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._accepting.join(5)
        for t in self._threads:
            t.join(self.wait + 5)
        self._listener.close()
        while not self._resumes.empty():
            self._resumes.get().close()

    # -- connections ---------------------------------------------------------------------
    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            t = threading.Thread(target=self._serve, args=(sock,), daemon=True)
            self._threads.append(t)
            t.start()

    def _serve(self, sock: socket.socket) -> None:
        sock.settimeout(self.wait)
        reader = sock.makefile("rb")
        try:
            hello = json.loads(reader.readline())
            self.hellos.append(hello)
            if self.refuse is not None:
                _send(sock, {"type": "error", "error": self.refuse})
                return
            if hello.get("queue") != self.queue_name:
                _send(sock, {"type": "error", "error": f"unknown queue {hello.get('queue')!r}"})
                return
            if "resume" in hello and self.refuse_resume is not None:
                _send(sock, {"type": "error", "error": self.refuse_resume})
                return
            _send(
                sock,
                {
                    "type": "welcome",
                    "name": hello["name"],
                    "queue": self.queue_name,
                    "token": "tok-1",
                    "latency_allowance": 0.2,
                    "move_time": 5.0,
                    "web": "http://127.0.0.1:9/",
                },
            )
            if "resume" in hello:
                self._resumes.put(sock)
                sock = None  # type: ignore[assignment]  # the game's thread owns it now
                return
            if not self.play:
                with contextlib.suppress(OSError):
                    while reader.readline():
                        pass
                self.left.set()
                return
            self._game(sock, reader, hello)
        except Exception as exc:  # recorded: the test fails on it
            self.problems.append(f"{type(exc).__name__}: {exc}")
        finally:
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.close()

    # -- the game ------------------------------------------------------------------------
    def _game(self, sock: socket.socket, reader: Any, hello: dict[str, Any]) -> None:
        codec: Codec = get_protocol(hello.get("protocol", "jsonl"))(0)
        opponent = make_bot(self.opponent)
        state = new_game(
            self.ruleset, get_map(self.map_name), seed=self.seed, names=[hello["name"], "Opp"]
        )
        opponent.start(View(state, 1))
        link = _Link(sock, reader, self)
        buf = bytearray()
        if codec.hello:
            link.wait(lambda: codec.read_hello(buf), buf)
        link.data(0, codec.start(state, Params(5.0, 5.0, (hello["name"], "Opp"))))
        if codec.wants_ready:
            link.wait(lambda: codec.read_ready(buf) or None, buf)
        dropped = False
        while state.outcome is None:
            if codec.stray(buf):
                self.problems.append(f"wrote ahead of turn {state.turn + 1}: {bytes(buf)!r}")
                buf.clear()
            now = state
            answers: dict[int, Any] = {}
            if any(moves_this_turn(state, c.index) for c in state.cycles_of(0)):
                # as the referee does, a seat none of whose cycles moves is not asked
                link.data(state.turn + 1, codec.turn(state))
                answers = link.wait(lambda: codec.read_move(buf, now), buf)  # noqa: B023
            moves: dict[int, Any] = {}
            theirs = [c for c in state.cycles_of(1) if moves_this_turn(state, c.index)]
            if theirs:
                answer = opponent.move(View(state, 1))
                for cycle, a in answers_by_cycle(state, theirs, answer):
                    moves[cycle] = read_answer(state, cycle, a)
            for cycle, answer in answers.items():
                try:
                    moves[cycle] = read_answer(state, cycle, answer)
                except ValueError as exc:
                    moves[cycle] = Forfeit(cycle, str(exc))
            state = step(state, moves)
            if self.drop_after is not None and state.turn == self.drop_after and not dropped:
                dropped = True
                link.drop_and_wait_resume()
        end = codec.end(state)
        if end:
            link.data(state.turn, end)
        result = codec.result_word(state)
        self.results.append(result)
        self.finals.append(state)
        assert state.outcome is not None
        link.send(
            {
                "type": "end",
                "result": result,
                "verdict": "ok",
                "detail": "",
                "game": f"g{len(self.results)}",
                "ranks": list(state.outcome.ranks),
            }
        )
        with contextlib.suppress(OSError):  # the client closes after end
            link.reader.readline()


class _Link:
    """The game's side of the connection: framed data out, replies into a buffer."""

    def __init__(self, sock: socket.socket, reader: Any, server: StandIn) -> None:
        self.sock, self.reader, self.server = sock, reader, server
        self.last: list[dict[str, Any]] = []  # the current turn's data, for a resume

    def send(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):
            _send(self.sock, message)

    def data(self, turn: int, payload: bytes) -> None:
        message = {"type": "data", "turn": turn, "data": payload.decode()}
        if not self.last or self.last[0]["turn"] != turn:
            self.last = []
        self.last.append(message)
        self.send(message)

    def wait(self, read: Any, buf: bytearray) -> Any:
        """Feed the client's data into ``buf`` until ``read()`` gives something."""
        while True:
            try:
                got = read()
            except ProtocolError as exc:
                self.server.problems.append(str(exc))
                raise
            if got is not None:
                return got
            try:
                line = self.reader.readline()
            except OSError:
                line = b""
            if not line:
                self.resume()
                continue
            message = json.loads(line)
            if message.get("type") != "data" or not isinstance(message.get("data"), str):
                self.server.problems.append(f"unexpected message {message!r}")
                continue
            buf += message["data"].encode()

    def drop_and_wait_resume(self) -> None:
        if self.server.close_after_drop:
            self.server._listener.close()
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self.resume()

    def resume(self) -> None:
        """Wait for the client's resume; send it the current turn's data again."""
        try:
            self.sock = self.server._resumes.get(timeout=self.server.wait)
        except queue.Empty:
            raise _Gone("the client never resumed") from None
        self.sock.settimeout(self.server.wait)
        self.reader = self.sock.makefile("rb")
        for message in self.last:
            self.send(message)


def _send(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(json.dumps(message).encode() + b"\n")

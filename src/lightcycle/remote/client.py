"""Playing games on a server through its ``jsonl`` port: the relay loop, resume, results.

One game is one connection: hello, welcome, the game's ``data`` both ways, ``end``. The
loop waits on the socket and the bot's stdout together (`selectors`), so a program's
reply goes out the moment it is written, and the server's next message reaches the bot
as soon as it arrives; nothing is timed here (the server's clock is the one that counts).

When the connection drops before ``end``, the client says hello again with the welcome's
``resume`` token, a few times with growing pauses that fit within the server's grace
(10 s by default), while the local bot keeps running. The server then sends the current
turn's data again; the client drops what it has already relayed, so the bot never reads a
turn twice. A reply sent just before the drop that never reached the server is not sent
again (the server could have it already, and a second copy would be judged as output
written ahead): that move is timed out by the server.
"""

from __future__ import annotations

import selectors
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lightcycle.remote.decode import DecodeError
from lightcycle.remote.local import LocalBot
from lightcycle.remote.wire import (
    Connection,
    Dropped,
    Hello,
    Lost,
    NoServer,
    Refused,
    RemoteError,
    Welcome,
    open_connection,
)

RESUME_PAUSES = (0.2, 0.5, 1.0, 1.5, 2.0, 2.5, 2.0)
"""Seconds before each resume try: 9.7 s in all, within the server's default grace."""


class BotFailed(RemoteError):
    """The local bot cannot play this game (an in-process bot on a ruleset it cannot
    decode); the client leaves the game."""

    exit_code = 2


@dataclass(frozen=True)
class GameEnd:
    """A finished remote game, from the server's ``end`` message.

    Attributes:
        result: ``win``, ``loss`` or ``draw``.
        verdict: how this seat played (``ok``, ``timeout``, ``disconnected``...).
        detail: why, one line (``""`` when ok).
        game: the server's game id (``None`` if not given).
        url: where the server shows the game (``None`` if not known).
        ranks: every seat's rank, in seat order.
    """

    result: str
    verdict: str
    detail: str
    game: str | None
    url: str | None
    ranks: tuple[int, ...] = ()

    def line(self) -> str:
        """The result line: ``win (ok), game 3fa2..., http://.../games/3fa2...``."""
        verdict = self.verdict + (f": {self.detail}" if self.detail else "")
        out = f"{self.result} ({verdict})"
        if self.game:
            out += f", game {self.game}"
        if self.url:
            out += f", {self.url}"
        return out

    @classmethod
    def from_message(cls, message: dict[str, Any], welcome: Welcome) -> GameEnd:
        """Read an ``end`` message (keys a server leaves out get neutral values)."""
        result = str(message.get("result", "draw"))
        game = message.get("game")
        game_id = str(game) if game is not None else None
        url = message.get("url")
        web = welcome.raw.get("web")
        if not isinstance(url, str) and isinstance(web, str) and game_id:
            url = f"{web.rstrip('/')}/games/{game_id}"
        ranks = message.get("ranks")
        return cls(
            result=result if result in ("win", "loss", "draw") else "draw",
            verdict=str(message.get("verdict", "ok")),
            detail=str(message.get("detail", "") or ""),
            game=game_id,
            url=url if isinstance(url, str) else None,
            ranks=tuple(r for r in ranks if isinstance(r, int)) if isinstance(ranks, list) else (),
        )


class _Seen:
    """The data already relayed, to drop what a resumed connection sends again.

    After a resume the server repeats the current turn's data; until a newer turn
    arrives, a message of an older turn, or of the last turn with a text already
    relayed, is dropped.
    """

    def __init__(self) -> None:
        self.turn: int | None = None
        self.texts: set[str] = set()
        self.resumed = False

    def again(self, message: dict[str, Any]) -> bool:
        """Whether ``message`` was relayed before (else it is noted as relayed now)."""
        turn, text = message.get("turn"), message.get("data")
        if not isinstance(turn, int) or isinstance(turn, bool) or not isinstance(text, str):
            return False
        if self.resumed and self.turn is not None:
            if turn < self.turn or (turn == self.turn and text in self.texts):
                return True
            self.resumed = False
        if turn != self.turn:
            self.turn, self.texts = turn, set()
        self.texts.add(text)
        return False


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class RemoteClient:
    """Plays games for one local bot on one server (see the module docstring).

    Args:
        host: the server's host.
        port: its ``jsonl`` port.
        local: the bot.
        hello: what to say (name, queue, secret, challenge...); the protocol is the bot's.
        pauses: seconds before each resume try.
        note: where progress lines go (default: stderr).
    """

    def __init__(
        self,
        host: str,
        port: int,
        local: LocalBot,
        hello: Hello,
        pauses: Sequence[float] = RESUME_PAUSES,
        note: Callable[[str], None] = _say,
    ) -> None:
        self.host = host
        self.port = port
        self.where = f"{host}:{port}"
        self.local = local
        self.hello = replace(hello, protocol=local.protocol)
        self.pauses = tuple(pauses)
        self.note = note

    def play_game(self) -> GameEnd:
        """Join the queue, play one game to its end and return how it ended.

        Raises:
            NoServer, Refused, Lost, BotFailed: see `lightcycle.remote.wire`; the bot is
                left running for the caller to close (or reuse).
            SandboxError: the bot program cannot start (before connecting).
        """
        self.local.start_game()  # a bot that cannot start takes no seat
        try:
            conn, welcome = open_connection(self.host, self.port, self.hello)
        except Dropped as exc:
            raise Lost(f"{self.where} closed the connection during the hello: {exc}") from None
        self.note(
            f"connected to {self.where} as {welcome.name} in queue {welcome.queue}; "
            "waiting for a game"
        )
        try:
            return self._relay(conn, welcome)
        finally:
            self.local.end_game()

    def _relay(self, conn: Connection, welcome: Welcome) -> GameEnd:
        local = self.local
        seen = _Seen()
        outbox: list[bytes] = []
        sel = selectors.DefaultSelector()
        watched: int | None = None
        try:
            sel.register(conn.fileno(), selectors.EVENT_READ, "server")
            while True:
                try:
                    while outbox:
                        conn.send({"type": "data", "data": outbox[0].decode("utf-8", "replace")})
                        del outbox[0]
                    fd = local.fileno()
                    if fd != watched:
                        if watched is not None:
                            sel.unregister(watched)
                        if fd is not None:
                            sel.register(fd, selectors.EVENT_READ, "bot")
                        watched = fd
                    # messages read along with the welcome wait in the buffer: take them
                    # first, as the socket may never be readable again before a reply
                    messages = conn.take()
                    wait = 0.0 if messages else 0.01 if local.pending_input() else 0.5
                    for key, _ in sel.select(wait):
                        if key.data == "bot":
                            outbox += local.replies()
                        else:
                            messages += conn.receive()
                    for message in messages:
                        kind = message.get("type")
                        if kind == "end":
                            return GameEnd.from_message(message, welcome)
                        if kind == "error":
                            raise Lost(f"{self.where}: {message.get('error', 'error')}")
                        text = message.get("data")
                        if kind != "data" or not isinstance(text, str) or seen.again(message):
                            continue
                        try:
                            outbox += local.deliver(text)
                        except DecodeError as exc:
                            raise BotFailed(str(exc)) from None
                    if watched is None:
                        outbox += local.replies()  # what a bot wrote before its output ended
                    note = local.exit_note()
                    if note:
                        self.note(f"warning: {note}; waiting for the server's result")
                except Dropped as exc:
                    sel.unregister(conn.fileno())
                    conn.close()
                    conn, welcome = self._resume(str(exc), welcome)
                    sel.register(conn.fileno(), selectors.EVENT_READ, "server")
                    seen.resumed = True
        finally:
            sel.close()
            conn.close()

    def _resume(self, why: str, welcome: Welcome) -> tuple[Connection, Welcome]:
        """Say hello again with the resume token (see the module docstring).

        Raises:
            Lost: no token, a refusal, or no server within the pauses.
        """
        token = welcome.token
        if token is None:
            raise Lost(
                f"lost the connection to {self.where} ({why}); the server gave no resume token"
            )
        self.note(f"lost the connection to {self.where} ({why}); resuming")
        hello = replace(self.hello, resume=token)
        for pause in self.pauses:
            time.sleep(pause)
            try:
                conn, again = open_connection(self.host, self.port, hello, timeout=5.0)
            except (NoServer, Dropped):
                continue
            except Refused as exc:
                raise Lost(f"lost the connection to {self.where}; resuming failed: {exc}") from None
            self.note(f"resumed the game on {self.where}")
            if again.token is None:
                again = replace(again, token=token)
            return conn, again
        total = sum(self.pauses)
        raise Lost(
            f"lost the connection to {self.where} ({why}) and could not resume it in {total:g} s"
        )

"""A game cut short: what each client hears, byte for byte and through the course's client.

Once its board has come, a Scheme course client reads positions or a result, nothing
else (the course's protocol has no refusal mid-game), so a game the server stops or
fails ends for it in ``draw`` with the reason as a Scheme comment, and the connection
stays half-open until the move's deadline so a client still thinking can write its move
and then read the result without meeting a reset. A client still waiting for its game
is refused in one line, as every refusal before the board is; the jsonl port keeps its
error line. The last test runs the kit's ``play-remote-tron`` under Guile and Chez with
a brain that is thinking when the server stops. Real sockets on 127.0.0.1, the real
lobby and store.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lightcycle.server import game as server_game
from lightcycle.server.config import LimitsConfig, QueueConfig, ServerConfig
from lightcycle.server.lobby import Lobby
from lightcycle.server.seats import ABORT_LINGER
from lightcycle.server.store import GameRow, ServerStore
from lightcycle.server.tcp import Ports
from tests.kits.scheme.runner import SCHEMES, loads, run_scheme
from tests.server.clients import readline

STOPPED = b"; the game was aborted: the server stopped; this game is aborted\n"


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 60))


@dataclass
class Server:
    """A lobby and both ports on free loopback ports; `stop` shuts down as `serve` does."""

    lobby: Lobby
    ports: Ports
    scheme: int
    jsonl: int
    store: ServerStore

    async def stop(self) -> float:
        """Stop as `lightcycle serve` does at SIGTERM; return the seconds it took."""
        t0 = time.monotonic()
        for listener in self.ports.servers:
            listener.close()
        await self.lobby.close()
        await self.ports.close()
        return time.monotonic() - t0

    async def in_game(self, count: int = 1) -> None:
        """Return once ``count`` games are being played."""
        for _ in range(400):
            if len(self.lobby.live_games()) >= count:
                return
            await asyncio.sleep(0.01)
        raise AssertionError("no game began")


@asynccontextmanager
async def server(tmp: Path, *, fill_after: float | None = 0.05) -> AsyncIterator[Server]:
    """A walled 10x10 duel on the Scheme port with slow moves (3 s first, 2 s after), so a
    client is still thinking when a test stops the server."""
    duel = QueueConfig(
        "duel", ruleset="classic", maps=("arena-10",), move_time=2.0, first_move_time=3.0,
        fill_after=fill_after, fill_bot="builtin:floodfill",
    )  # fmt: skip
    cfg = ServerConfig(
        host="127.0.0.1",
        scheme_queue="duel",
        queues={"duel": duel},
        database="",
        limits=LimitsConfig(latency_allowance=0.1, reconnect_grace=1.0, join_timeout=5.0),
    )
    store = ServerStore(f"sqlite:///{tmp / 'server.db'}")
    lobby = Lobby(cfg, store, seed=1)
    await lobby.start()
    ports = Ports(lobby, cfg)
    scheme, jsonl = await ports.start("127.0.0.1", 0, 0)
    try:
        yield Server(lobby, ports, scheme, jsonl, store)
    finally:
        await lobby.close()
        await ports.close()
        store.close()


async def board_and_positions(
    port: int, name: bytes
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Log in on the Scheme port and read the size, the walls and the first positions."""
    r, w = await asyncio.open_connection("127.0.0.1", port)
    w.write(name + b"\n")
    lines = [await readline(r) for _ in range(4)]
    assert lines[0] == b"(10 . 10)\n" and lines[1].startswith(b"((0 . 0)"), lines
    return r, w


def recorded(store: ServerStore) -> list[GameRow]:
    return [g for g in store.recent_games(10) if g.status != "running"]


def test_a_thinking_course_client_reads_a_draw_when_the_server_stops(tmp_path: Path) -> None:
    """The client is thinking when the server stops; it writes its move afterwards and only
    then reads: no reset (the server half-closed and still reads), then the draw, the
    reason as a comment, and the end."""

    async def main() -> tuple[list[bytes], float, list[GameRow]]:
        async with server(tmp_path) as srv:
            r, w = await board_and_positions(srv.scheme, b"Scheme Test Client")
            await srv.in_game()
            stopping = asyncio.ensure_future(srv.stop())
            await asyncio.sleep(0.3)  # the draw is sent: the client has not read it yet
            # its move, late for the game but not for the socket, in two writes as Guile's
            # client makes them: a closed socket would answer the first with a reset and
            # fail the second (Guile dies of SIGPIPE there), and the reading after it
            for part in (b"n", b"\n"):
                w.write(part)
                await w.drain()
                await asyncio.sleep(0.2)
            seen = [await readline(r) for _ in range(3)]
            w.close()
            took = await asyncio.wait_for(stopping, 10)
            return seen, took, recorded(srv.store)

    seen, took, games = run(main())
    assert seen == [b"draw\n", STOPPED, b""]
    assert took < ABORT_LINGER[1]  # the client closed after the end: the wait ended then
    assert [(g.status, g.reason) for g in games] == [
        ("aborted", "the server stopped during the game")
    ]


def test_a_game_that_fails_ends_in_a_draw_for_its_scheme_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in the game (the engine raising at the first step) is a draw with the reason
    for the course client, not the end of the stream in the middle of a turn."""

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(server_game, "step", broken)

    async def main() -> tuple[list[bytes], list[GameRow]]:
        async with server(tmp_path) as srv:
            r, w = await board_and_positions(srv.scheme, b"Scheme Test Client")
            w.write(b"n\n")
            seen = [await readline(r) for _ in range(3)]
            w.close()
            for _ in range(200):
                if recorded(srv.store):
                    break
                await asyncio.sleep(0.02)
            return seen, recorded(srv.store)

    seen, games = run(main())
    assert seen == [
        b"draw\n",
        b"; the game was aborted: server error (RuntimeError); this game is aborted\n",
        b"",
    ]
    assert [g.status for g in games] == ["aborted"]
    assert games[0].reason == "server error: RuntimeError: a bug"


def test_before_the_board_a_stop_is_a_refusal_and_the_jsonl_port_keeps_its_error(
    tmp_path: Path,
) -> None:
    """A Scheme client still waiting for an opponent has no game to end: it is refused in
    one line, as a full server refuses it. A framed jsonl client in a game gets the jsonl
    port's error message."""

    async def main() -> tuple[list[bytes], list[dict[str, Any]]]:
        async with server(tmp_path, fill_after=None) as srv:
            jr: list[asyncio.StreamReader] = []
            jw: list[asyncio.StreamWriter] = []  # kept: a writer collected closes its socket
            for name in ("a", "b"):
                r, w = await asyncio.open_connection("127.0.0.1", srv.jsonl)
                hello = {"type": "hello", "name": name, "queue": "duel", "framed": True}
                w.write(json.dumps(hello).encode() + b"\n")
                jr.append(r)
                jw.append(w)
            for r in jr:
                assert json.loads(await readline(r))["type"] == "welcome"
            await srv.in_game()
            waiting_r, waiting_w = await asyncio.open_connection("127.0.0.1", srv.scheme)
            waiting_w.write(b"Patient Client\n")
            while srv.lobby.waiting()["duel"] != ["Patient Client"]:
                await asyncio.sleep(0.01)
            await srv.stop()
            waited = [await readline(waiting_r), await readline(waiting_r)]
            last = []
            for r in jr:
                lines = []
                while line := await readline(r):
                    lines.append(json.loads(line))
                last.append(lines[-1])
            for w in (waiting_w, *jw):
                w.close()
            return waited, last

    waited, last = run(main())
    assert waited == [b'(error "the server is shutting down")\n', b""]
    assert [m["type"] for m in last] == ["error", "error"]
    assert all("the server stopped" in m["error"] for m in last)


SLOW_BRAIN = {
    "guile": "(usleep 1500000)",
    "chez": "(sleep (make-time 'time-duration 500000000 1))",
}
"""A pause of 1.5 s in each Scheme: the brain is still thinking when the server stops."""


@pytest.mark.parametrize("scheme", SCHEMES)
def test_play_remote_tron_reports_a_draw_when_the_server_stops_mid_move(
    scheme: str, tmp_path: Path
) -> None:
    """The kit's client, with a brain thinking 1.5 s a move, on a server stopped 0.5 s
    into the first move: it prints and returns the draw and exits cleanly. (With the old
    ``(error ...)`` line it raised "refused"; with a plain close, Guile died of SIGPIPE
    writing its move.)"""
    brain = tmp_path / "slow.scm"
    brain.write_text(
        '(define-tron-brain (slow ("Slow Thinker" size walls play ppos opos) (s #f))\n'
        f"  {SLOW_BRAIN[scheme]}\n"
        "  (play 'n s))\n",
        encoding="utf-8",
    )

    async def main() -> tuple[Any, float]:
        async with server(tmp_path) as srv:
            code = loads(brain) + (
                f'(write (play-remote-tron "127.0.0.1" {srv.scheme} slow))\n(newline)\n'
            )
            client = asyncio.ensure_future(asyncio.to_thread(run_scheme, scheme, code, tmp_path))
            for _ in range(3000):  # the Scheme starts (Guile reads tron.scm: a few seconds)
                if srv.lobby.live_games() or client.done():
                    break
                await asyncio.sleep(0.01)
            assert not client.done(), client.result()
            await asyncio.sleep(0.5)
            took = await srv.stop()
            return await client, took

    done, took = run(main())
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["The game was a draw after 1 move.", "draw"]
    assert took < ABORT_LINGER[1]

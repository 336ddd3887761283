"""The live view of local games: ``lightcycle play --browser`` and ``match --browser``.

A local referee pushes its states into a `LiveHub`; this serves that hub on 127.0.0.1
(a free port) with the viewer's live page and a websocket per game, in a thread beside
the referee, so the game never waits for the browser. The websocket handler `feed` is
the server's too (`lightcycle.server.web`): one feed, one page, local or remote.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations (WebSocket,
# imported inside create_live_app) at run time.
import asyncio
import contextlib
import importlib.util
import socket
import sys
import threading
import time
from html import escape
from typing import Any
from urllib.parse import quote

from lightcycle.viewer.html import live_page
from lightcycle.viewer.live import Dropped, LiveHub, TooMany
from lightcycle.viewer.server import INSTALL, WebUnavailable

SEND_TIMEOUT = 10.0
"""Seconds one frame may take to reach a spectator before it counts as stalled."""

CLOSE_UNKNOWN = 4404
"""Websocket close code: no such game (live, or finished and kept)."""


async def feed(
    websocket: Any, hub: LiveHub, game_id: str, send_timeout: float = SEND_TIMEOUT
) -> None:
    """Send a game's frames to one spectator's websocket until the game ends, the
    spectator leaves, or it falls behind (closed with code 1008, the game unharmed)."""
    await websocket.accept()
    if hub.status(game_id) is None:
        await websocket.close(code=CLOSE_UNKNOWN, reason="no such live game")
        return

    dropped = asyncio.Event()

    async def send() -> tuple[int, str]:
        try:
            async for frame in hub.subscribe(game_id, dropped):
                await asyncio.wait_for(websocket.send_text(frame.text), send_timeout)
        except KeyError:
            return CLOSE_UNKNOWN, "no such live game"
        except TooMany as exc:
            return 1013, str(exc)
        except Dropped:
            return 1008, "too slow: dropped"
        except TimeoutError:
            return 1008, "stalled: dropped"
        return 1000, "game over"

    async def listen() -> None:
        while True:
            message = await websocket.receive()
            if message.get("type") == "websocket.disconnect":
                return

    sender = asyncio.ensure_future(send())
    listener = asyncio.ensure_future(listen())
    dropping = asyncio.ensure_future(dropped.wait())
    try:
        await asyncio.wait({sender, listener, dropping}, return_when=asyncio.FIRST_COMPLETED)
        client_left = listener.done()
    finally:
        for task in (listener, dropping, sender):
            if not task.done():
                task.cancel()
        for task in (listener, dropping):
            with contextlib.suppress(BaseException):
                await task
    code, reason = 1008, "too slow: dropped"
    if sender.done() and not sender.cancelled() and sender.exception() is None:
        code, reason = sender.result()
    else:
        with contextlib.suppress(BaseException):
            await sender
    if not client_left:
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(websocket.close(code=code, reason=reason), 1.0)


def games_json(hub: LiveHub, status: str | None) -> list[dict[str, Any]]:
    """The hub's games for ``/api/games``: live ones (``status=live``), kept finished ones
    (``finished``) or both, each with its ``status``."""
    out: list[dict[str, Any]] = []
    if status in (None, "live"):
        out += [{**g, "status": "live"} for g in hub.games()]
    if status in (None, "finished"):
        out += [{**g, "status": "finished"} for g in hub.finished()]
    return out


_WAIT_PAGE = (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
    '<meta http-equiv="refresh" content="1"><title>lightcycle: waiting</title></head>'
    '<body style="background:#0f1117;color:#e5e7eb;font:15px system-ui,sans-serif;padding:18px">'
    "<p>Waiting for the game to start…</p></body></html>"
)


def create_live_app(hub: LiveHub) -> Any:
    """The FastAPI application of a local live view: ``/`` goes to the newest game,
    ``/games/{id}`` is its page, ``/ws/games/{id}`` its frames, ``/ws/next/{id}`` says
    which game follows it, ``/api/games`` lists them.

    Raises:
        WebUnavailable: without FastAPI.
    """
    try:
        from fastapi import FastAPI, WebSocket
        from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
    except ImportError:
        raise WebUnavailable(f"--browser needs FastAPI and uvicorn: {INSTALL}") from None

    app = FastAPI(title="lightcycle live", docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/")
    def index() -> Response:
        games = hub.games() or hub.finished()
        if not games:
            return HTMLResponse(_WAIT_PAGE)
        newest = games[-1] if hub.games() else games[0]
        return RedirectResponse(f"/games/{quote(newest['id'], safe='')}?follow=1", 307)

    @app.get("/games/{game_id}")
    def game(game_id: str, follow: bool = False) -> Response:
        if hub.status(game_id) is None:
            return HTMLResponse(
                f"<!DOCTYPE html><title>no such game</title><p>No game {escape(game_id)} here: "
                '<a href="/">the current game</a></p>',
                404,
            )
        title = game_id if game_id.startswith("game") else f"game {game_id}"  # no "game game"
        return HTMLResponse(live_page(game_id, title, follow=follow))

    @app.get("/api/games")
    def api_games(status: str | None = None) -> JSONResponse:
        return JSONResponse(games_json(hub, status))

    @app.websocket("/ws/games/{game_id}")
    async def ws(websocket: WebSocket, game_id: str) -> None:
        await feed(websocket, hub, game_id)

    @app.websocket("/ws/next/{after}")
    async def ws_next(websocket: WebSocket, after: str) -> None:
        await next_game(websocket, hub, after)

    return app


async def next_game(websocket: Any, hub: LiveHub, after: str) -> None:
    """Tell a page that followed game ``after`` to its end which live game comes next
    (``{"type": "next", "id": ID}``), as soon as one is open."""
    await websocket.accept()
    while True:
        newer = [g["id"] for g in hub.games() if g["id"] != after]
        if newer:
            with contextlib.suppress(Exception):
                await websocket.send_json({"type": "next", "id": newer[-1]})
                await websocket.close()
            return
        try:
            message = await asyncio.wait_for(websocket.receive(), 0.25)
        except TimeoutError:
            continue
        if message.get("type") == "websocket.disconnect":
            return


def _websocket_support() -> None:
    if not any(importlib.util.find_spec(m) for m in ("websockets", "wsproto")):
        raise WebUnavailable(f"the live view needs a websocket library: {INSTALL}")


class LiveServer:
    """A `create_live_app` (or any ASGI app) served in a thread on ``host``, a free port.

    Use as a context manager; ``url`` is where it listens.

    Raises:
        WebUnavailable: without FastAPI, uvicorn or a websocket library.
    """

    def __init__(self, app: Any, host: str = "127.0.0.1") -> None:
        try:
            import uvicorn
        except ImportError:
            raise WebUnavailable(f"--browser needs FastAPI and uvicorn: {INSTALL}") from None
        _websocket_support()
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._sock = socket.socket(family, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, 0))
        port = self._sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{port}/"
        config = uvicorn.Config(
            app, log_level="warning", lifespan="off", timeout_graceful_shutdown=2
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def __enter__(self) -> "LiveServer":
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.close()
                raise WebUnavailable(f"the live view server did not start on {self.url}")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving (open websockets are closed) and wait for the thread."""
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        self._sock.close()


class LocalView:
    """The live view of games played in this process (``--browser``): a hub, its server,
    the browser opened on it, and per game a callback for the referee's ``on_turn``.

    Args:
        open_browser: open the page with `webbrowser` (``--no-open``: only print it).
        speed: turns a second shown at most (the referee waits between turns;
            ``0``/``None``: as fast as the game goes).
        say: prints a line for the user.
        linger: after the games, keep serving until Enter is pressed (only on a terminal).
    """

    def __init__(
        self,
        open_browser: bool,
        speed: float | None,
        say: Any,
        linger: bool = True,
    ) -> None:
        self.hub = LiveHub(keep=1000)
        self.server = LiveServer(create_live_app(self.hub))
        self.open_browser = open_browser
        self.pause = 1.0 / speed if speed else 0.0
        self.say = say
        self.linger = linger
        self._games: dict[str, Any] = {}

    def start(self) -> None:
        """Serve, print the address and open the browser on it."""
        self.server.__enter__()
        self.say(f"live view: {self.server.url}")
        if self.open_browser:
            import webbrowser

            with contextlib.suppress(Exception):  # no browser here: the URL is printed
                webbrowser.open(self.server.url)

    def stop(self, linger: bool = False) -> None:
        """Stop serving; with ``linger`` (and ``self.linger``) on a terminal, first wait
        for Enter so the page can still load what it has not shown yet. Idempotent."""
        try:
            if linger and self.linger and sys.stdin is not None and sys.stdin.isatty():
                self.say(f"the live view stays at {self.server.url}: press Enter to stop")
                with contextlib.suppress(EOFError, KeyboardInterrupt):
                    input()
        finally:
            self.server.close()

    def __enter__(self) -> "LocalView":
        self.start()
        return self

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        self.stop(linger=kind is None)

    def game_turn(self, index: int, state: Any) -> None:
        """`run_match`'s ``on_turn``: game ``index`` is ``game-001``... as its replay."""
        name = f"game-{index + 1:03d}"
        callback = self._games.get(name)
        if callback is None:
            callback = self._games[name] = self.on_turn(name, {"title": name})
        callback(state)

    def on_turn(self, game_id: str, meta: dict[str, Any] | None = None) -> Any:
        """The ``on_turn`` callback of one game: opens it on its first state (its map,
        ruleset and names from ``meta`` and the state), pushes every state, and paces."""
        hub, pause = self.hub, self.pause
        self.expect(game_id, meta)

        def push(state: Any) -> None:
            if hub.status(game_id) is None:
                names = [t.name for t in state.teams]
                hub.open(game_id, {"ruleset": state.ruleset.id, "names": names, **(meta or {})})
            hub.push(game_id, state)
            if pause and state.outcome is None:
                time.sleep(pause)

        return push

    def expect(self, game_id: str, meta: dict[str, Any] | None = None) -> None:
        """Open a game before its first state, so a page that asks for it at once finds
        it (the state brings the board and the names)."""
        if self.hub.status(game_id) is None:
            self.hub.open(game_id, {"title": game_id, **(meta or {})})

    def end(self, game_id: str, replay: Any = None, **summary: Any) -> None:
        """The game is over: spectators get its result (and its replay's data)."""
        self.hub.close(game_id, {**summary, "replay": replay})


def local_view(
    browser: bool, no_open: bool, speed: float | None, say: Any, first: str
) -> "LocalView | None":
    """A started `LocalView` for ``--browser`` (``None`` without it), with game ``first``
    open before its address is printed."""
    if not browser:
        return None
    view = LocalView(open_browser=not no_open, speed=speed, say=say)
    view.expect(first)
    view.start()
    return view

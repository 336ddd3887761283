"""`serve`: the whole server in one asyncio loop, started and stopped cleanly.

The two TCP listeners (`tcp.Ports`) and the web page (uvicorn serving
`lightcycle.server.web.create_app`) share one event loop with every game, so a game's
frames reach the live view without a thread hop and one process owns the database. On
SIGINT or SIGTERM the listeners stop, `Lobby.close` records the games in flight as aborted
and kicks every client, and the process exits; finished games are already in the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lightcycle.server.config import ServerConfig
from lightcycle.server.tcp import Ports

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Listening:
    """Where a running server listens (ports as bound: 0 in the file means any free).

    Attributes:
        host: the address bound.
        scheme_port: the Scheme course's port.
        jsonl_port: the jsonl port.
        web_port: the web page's port (``None``: no web listener).
    """

    host: str
    scheme_port: int
    jsonl_port: int
    web_port: int | None

    def web_url(self) -> str | None:
        """The web page's address, ``http://HOST:PORT`` (``None``: no web page)."""
        if self.web_port is None:
            return None
        return f"http://{_url_host(self.host)}:{self.web_port}"

    def lines(self) -> list[str]:
        """What `lightcycle serve` prints."""
        out = [
            f"Scheme clients: {self.host} port {self.scheme_port}",
            f"jsonl clients:  {self.host} port {self.jsonl_port}",
        ]
        web = self.web_url()
        if web is not None:
            out.append(f"web page:       {web}/")
        return out


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


async def _web(lobby: Any, hub: Any, config: ServerConfig) -> tuple[Any, asyncio.Task[None]] | None:
    """Start uvicorn on the web port in this loop; ``None`` if the web app is missing."""
    try:
        import uvicorn

        from lightcycle.server.web import create_app
    except ImportError as exc:
        log.warning("no web page: %s", exc)
        return None
    app = create_app(lobby, hub)
    uv_config = uvicorn.Config(
        app, host=config.host, port=config.web_port, log_level="warning", lifespan="off"
    )
    server = uvicorn.Server(uv_config)
    # the signals are ours (`serve`): uvicorn must not take them over
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    task = asyncio.get_running_loop().create_task(server.serve(), name="lightcycle-web")
    for _ in range(500):
        if server.started or task.done():
            break
        await asyncio.sleep(0.01)
    if task.done():
        task.result()  # a port in use: its error says so
        raise OSError(f"the web page could not listen on {config.host}:{config.web_port}")
    return server, task


def _web_port(server: Any, default: int) -> int:
    with contextlib.suppress(Exception):
        return int(server.servers[0].sockets[0].getsockname()[1])
    return default


async def serve(
    config: ServerConfig,
    *,
    ready: Callable[[Listening], None] | None = None,
    stop: asyncio.Event | None = None,
    web: bool = True,
) -> None:
    """Run the server until SIGINT/SIGTERM (or ``stop`` is set).

    Args:
        config: the configuration (`load_config`).
        ready: called once everything listens, with where.
        stop: an event that stops the server when set (tests).
        web: whether to serve the web page.

    Raises:
        StorageError: a database that cannot be opened.
        OSError: a port that cannot be bound.
    """
    from lightcycle.server.lobby import Lobby
    from lightcycle.server.store import ServerStore
    from lightcycle.viewer.live import LiveHub

    stop = stop if stop is not None else asyncio.Event()
    loop = asyncio.get_running_loop()
    handled = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            handled.append(sig)
    store = ServerStore(config.database)
    hub = LiveHub(spectators=config.limits.spectators_per_game)
    lobby = Lobby(config, store, hub)
    ports = Ports(lobby, config)
    web_server: tuple[Any, asyncio.Task[None]] | None = None
    try:
        await lobby.start()
        scheme, jsonl = await ports.start()
        if web:
            web_server = await _web(lobby, hub, config)
        web_port = _web_port(web_server[0], config.web_port) if web_server else None
        listening = Listening(config.host, scheme, jsonl, web_port)
        ports.web = listening.web_url()
        if ready is not None:
            ready(listening)
        await stop.wait()
    finally:
        for server in ports.servers:
            server.close()
        await lobby.close()
        await ports.close()
        if web_server is not None:
            web_server[0].should_exit = True
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5.0):
                    await web_server[1]
        store.close()
        for sig in handled:
            loop.remove_signal_handler(sig)

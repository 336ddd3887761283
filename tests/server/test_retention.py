"""A server keeps nothing of a game once it is over: its memory levels off.

Finished games live in the database; the lobby, the ports and the live hub hold only the
games in flight and the clients connected. After many games played through real sockets
(course clients on the Scheme port, framed jsonl clients, fill bots), with the clients
gone, no seat, game, waiter, login, resume token, live view, replay or handler task is
left. docs/server.md ("Memory") has the measurements this guards.
"""

from __future__ import annotations

import asyncio
import gc
import json
from collections import Counter
from pathlib import Path
from typing import Any

from lightcycle.server.config import LimitsConfig, QueueConfig, ServerConfig
from lightcycle.server.lobby import Lobby
from lightcycle.server.store import ServerStore
from lightcycle.server.tcp import Ports
from lightcycle.viewer.live import LiveHub
from tests.server.clients import jsonl_bot, scheme_client

PER_GAME = (
    "lightcycle.server.seats.RemoteSeat",
    "lightcycle.server.seats.BuiltinSeat",
    "lightcycle.server.seats._Connection",
    "lightcycle.server.game._Game",
    "lightcycle.server.game._Run",
    "lightcycle.server.game.GameResult",
    "lightcycle.server.lobby._Live",
    "lightcycle.server.lobby._Waiter",
    "lightcycle.server.lobby.Login",
    "lightcycle.replay.model.Replay",
    "lightcycle.viewer.live._LiveGame",
)
"""The objects one game makes that must all go when it is over."""


def _alive() -> Counter[str]:
    gc.collect()
    out: Counter[str] = Counter()
    for o in gc.get_objects():
        t = type(o)
        name = f"{t.__module__}.{t.__qualname__}"
        if name in PER_GAME:
            out[name] += 1
    return out


async def _games(port: int, rounds: int, client: Any) -> None:
    for _ in range(rounds):
        await client(port)


async def _scheme(port: int, name: bytes) -> None:
    r, w = await asyncio.open_connection("127.0.0.1", port)
    try:
        assert await scheme_client(r, w, name=name) in ("win", "loss", "draw")
    finally:
        w.close()


async def _jsonl(port: int, name: str) -> None:
    r, w = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    try:
        hello = {"type": "hello", "name": name, "queue": "duel", "framed": True}
        w.write(json.dumps(hello).encode() + b"\n")
        assert json.loads(await r.readline())["type"] == "welcome"
        assert (await jsonl_bot(r, w, framed=True))["type"] == "end"
    finally:
        w.close()


def test_nothing_of_a_game_stays_once_it_is_over(tmp_path: Path) -> None:
    duel = QueueConfig(
        "duel", ruleset="classic", maps=("arena-10", "arena-15"), move_time=0.5,
        fill_after=0.0, fill_bot="builtin:random",
    )  # fmt: skip
    cfg = ServerConfig(
        host="127.0.0.1",
        scheme_queue="duel",
        queues={"duel": duel},
        database="",
        limits=LimitsConfig(latency_allowance=0.1, reconnect_grace=0.5, join_timeout=5.0),
    )

    async def main() -> tuple[Counter[str], Counter[str], dict[str, Any], int]:
        store = ServerStore(f"sqlite:///{tmp_path / 'server.db'}")
        hub = LiveHub()
        lobby = Lobby(cfg, store, hub, seed=3)
        await lobby.start()
        ports = Ports(lobby, cfg)
        scheme, jsonl = await ports.start("127.0.0.1", 0, 0)
        try:
            before = _alive()
            async with asyncio.timeout(90):
                await asyncio.gather(
                    *(
                        _games(scheme, 8, lambda p, i=i: _scheme(p, b"course %d" % i))
                        for i in range(3)
                    ),
                    *(_games(jsonl, 8, lambda p, i=i: _jsonl(p, f"relay {i}")) for i in range(2)),
                )
            for _ in range(200):  # the last handlers close their sockets
                if not ports._handlers and not lobby.live_games():
                    break
                await asyncio.sleep(0.02)
            held = {
                "games": len(lobby.live_games()),
                "waiting": sum(len(ws) for ws in lobby.waiting().values()),
                "logins": len(lobby._logins),
                "tokens": len(ports._by_token),
                "handlers": len(ports._handlers),
                "hub": len(hub.games()),
                "connections": ports.counter.open,
                "tasks": len(asyncio.all_tasks()) - 1,  # all but this one
            }
            played = len([g for g in store.recent_games(100) if g.status == "finished"])
            return before, _alive(), held, played
        finally:
            await lobby.close()
            await ports.close()
            store.close()

    before, after, held, played = asyncio.run(main())  # no wait_for: its task would count
    assert played >= 20  # 40 clients' games, fewer where two clients met each other
    assert held == {
        "games": 0, "waiting": 0, "logins": 0, "tokens": 0, "handlers": 0, "hub": 0,
        "connections": 0, "tasks": 0,
    }  # fmt: skip
    assert after == before, after - before

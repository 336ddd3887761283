"""Both TCP ports end to end: the real Lobby and store, real sockets on 127.0.0.1.

The Scheme exchange is checked byte for byte; the jsonl port raw and framed; refusals are
one line; and hostile clients connecting while a game runs never slow that game down.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from lightcycle.server.config import LimitsConfig, QueueConfig, ServerConfig
from lightcycle.server.lobby import Lobby
from lightcycle.server.store import ServerStore
from lightcycle.server.tcp import Ports
from tests.server.clients import jsonl_bot, readline, scheme_client


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 40))


def config(**limits: Any) -> ServerConfig:
    queue = QueueConfig(
        "duel", ruleset="classic", maps=("arena-10",), move_time=0.15, fill_after=0.2,
        fill_bot="builtin:floodfill",
    )  # fmt: skip
    torus = QueueConfig("torus", move_time=0.15, fill_after=None)
    base = {"latency_allowance": 0.1, "reconnect_grace": 1.0, "join_timeout": 1.0}
    return ServerConfig(
        host="127.0.0.1",
        scheme_queue="duel",
        queues={"duel": queue, "torus": torus},
        database="",
        limits=LimitsConfig(**{**base, **limits}),
    )


@asynccontextmanager
async def server(tmp: Path, **limits: Any) -> AsyncIterator[tuple[Ports, int, int]]:
    async with serving(config(**limits), tmp) as ports:
        yield ports


@asynccontextmanager
async def serving(cfg: ServerConfig, tmp: Path) -> AsyncIterator[tuple[Ports, int, int]]:
    """The lobby and both ports of ``cfg`` on free loopback ports, a database in ``tmp``."""
    store = ServerStore(f"sqlite:///{tmp / 'server.db'}")
    lobby = Lobby(cfg, store, seed=1)
    await lobby.start()
    ports = Ports(lobby, cfg)
    scheme, jsonl = await ports.start("127.0.0.1", 0, 0)
    try:
        yield ports, scheme, jsonl
    finally:
        await lobby.close()
        await ports.close()
        store.close()


async def connect(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port)


async def scheme_at(port: int, name: bytes, transcript: list[bytes] | None = None) -> str:
    r, w = await connect(port)
    try:
        return await scheme_client(r, w, name=name, transcript=transcript)
    finally:
        w.close()


PAIR = re.compile(rb"^\(\d+ \. \d+\)\n$")


def test_scheme_exchange_byte_for_byte(tmp_path: Path) -> None:
    async def main() -> tuple[list[list[bytes]], list[str], Any]:
        async with server(tmp_path) as (ports, scheme, _):
            transcripts: list[list[bytes]] = [[], []]
            words = await asyncio.gather(
                *(
                    scheme_at(scheme, n, t)
                    for n, t in zip((b"alice", b"bob"), transcripts, strict=True)
                )
            )
            return transcripts, list(words), ports.lobby.store.recent_games()

    transcripts, words, games = run(main())
    for t in transcripts:
        assert t[0] == b"(10 . 10)\n"  # (w . h)
        assert t[1].startswith(b"((0 . 0) (1 . 0) (2 . 0)") and t[1].endswith(b"))\n")
        body, end = t[2:-1], t[-1]
        assert body and len(body) % 2 == 0 and all(PAIR.match(line) for line in body)
        assert end in (b"win\n", b"loss\n", b"draw\n")
    assert sorted(words) in (["loss", "win"], ["draw", "draw"])
    assert len(games) == 1 and {s.name for s in games[0].seats} == {"alice", "bob"}


def test_jsonl_raw_client_against_the_fill_bot(tmp_path: Path) -> None:
    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with server(tmp_path) as (_, _, jsonl):
            r, w = await connect(jsonl)
            w.write(b'{"type":"hello","name":"raw","queue":"duel"}\n')
            welcome = json.loads(await readline(r))
            end = await jsonl_bot(r, w)
            assert await readline(r) == b""  # one game, then the server closes
            w.close()
            return welcome, end

    welcome, end = run(main())
    assert welcome["type"] == "welcome" and welcome["queue"] == "duel"
    assert welcome["move_time"] == 0.15 and welcome["latency_allowance"] == 0.1
    assert end["type"] == "end" and end["result"] in ("win", "loss", "draw")


def test_jsonl_framed_client_and_resume(tmp_path: Path) -> None:
    async def main() -> dict[str, Any]:
        async with server(tmp_path) as (_, _, jsonl):
            r, w = await connect(jsonl)
            w.write(b'{"type":"hello","name":"relay","queue":"duel","framed":true}\n')
            welcome = json.loads(await readline(r))
            start = json.loads(await readline(r))
            first = json.loads(await readline(r))
            assert (start["turn"], first["turn"]) == (0, 1)
            w.close()  # dropped mid-turn
            r2, w2 = await connect(jsonl)
            hello = {"type": "hello", "name": "relay", "queue": "duel", "resume": welcome["token"]}
            w2.write(json.dumps(hello).encode() + b"\n")
            assert json.loads(await readline(r2))["type"] == "welcome"
            seen: list[dict[str, Any]] = []
            end = await jsonl_bot(r2, w2, framed=True, seen=seen, start=json.loads(start["data"]))
            assert seen[0]["turn"] == 1  # the same turn again
            w2.close()
            return end

    end = run(main())
    assert end["type"] == "end" and end["verdict"] == "ok"


def test_refusals_are_one_line(tmp_path: Path) -> None:
    async def ask(port: int, line: bytes) -> bytes:
        r, w = await connect(port)
        w.write(line)
        got = await readline(r)
        assert await readline(r) == b""  # and the server closed
        w.close()
        return got

    async def main() -> list[bytes]:
        async with server(tmp_path, max_line=200) as (_, scheme, jsonl):
            return [
                await ask(jsonl, b'{"type":"hello","name":"x","queue":"duel","colour":1}\n'),
                await ask(jsonl, b'{"type":"hello","name":5,"queue":"duel"}\n'),
                await ask(jsonl, b'{"type":"hello","name":"x","queue":"nope"}\n'),
                await ask(jsonl, b"\x00\xff garbage\n"),
                await ask(scheme, b"one\x00two three\n"),
                await ask(scheme, b"x" * 1000),
                await ask(jsonl, b""),  # no hello: the join timeout
            ]

    got = run(main())
    assert b"unknown field 'colour'" in got[0]
    assert b"'name' must be a player name" in got[1]
    assert b"nope" in got[2] and got[2].startswith(b'{"type":"error"')
    assert b"UTF-8" in got[3]
    assert got[4].startswith(b"(error \"bad name 'one\\\\x00two three': it holds the unprintable")
    assert got[5].startswith(b'(error "a line longer than 200 bytes')
    assert b"no hello within 1 s" in got[6]


def test_hostile_clients_never_stall_a_game(tmp_path: Path) -> None:
    """A game plays on at full speed while every kind of hostile client connects."""

    async def endless(port: int) -> None:
        _r, w = await connect(port)
        try:
            for _ in range(200):
                w.write(b"z" * 4096)
                await w.drain()
        except ConnectionError:
            pass
        w.close()

    async def slow_reader(port: int) -> None:
        _r, w = await connect(port)  # joins, then never reads what it is sent
        w.write(b'{"type":"hello","name":"sloth","queue":"duel"}\n')
        await asyncio.sleep(1.0)
        w.close()

    async def mid_turn(port: int) -> None:
        r, w = await connect(port)
        w.write(b"quitter\n")
        await readline(r)
        w.close()

    async def flood(port: int) -> int:
        conns = [await connect(port) for _ in range(12)]
        refused = 0
        for r, _w in conns[8:]:
            refused += (await readline(r)).startswith(b"(error")
        for _r, w in conns:
            w.close()
        return refused

    async def silent(port: int) -> None:
        r, w = await connect(port)  # sends no hello at all
        await readline(r)
        w.close()

    async def main() -> tuple[list[str], list[Any], Any]:
        async with server(tmp_path, per_address=12, join_timeout=0.5) as (ports, scheme, jsonl):
            good = asyncio.gather(scheme_at(scheme, b"good1"), scheme_at(scheme, b"good2"))
            await asyncio.sleep(0.05)
            hostile = asyncio.gather(
                endless(scheme),
                endless(jsonl),
                slow_reader(jsonl),
                mid_turn(scheme),
                silent(jsonl),
                return_exceptions=True,
            )
            words = await good
            await hostile
            refused = await flood(scheme)
            games = ports.lobby.store.recent_games()
            return list(words), games, refused

    words, games, refused = run(main())
    assert sorted(words) in (["loss", "win"], ["draw", "draw"])
    duel = [g for g in games if {s.name for s in g.seats} == {"good1", "good2"}]
    assert duel and all(s.verdict == "ok" for s in duel[0].seats), duel
    assert refused >= 1  # per_address 12 counts the flood's own 12 plus the others


async def _play_until_end(port: int, name: str) -> str:
    """Join ``duel`` as ``name``, play until the ``end`` message, and return the reply to
    the hello *without* waiting for the server to close the connection."""
    from tests.server.clients import safe_heading

    r, w = await connect(port)
    try:
        w.write(json.dumps({"type": "hello", "name": name, "queue": "duel"}).encode() + b"\n")
        welcome = json.loads(await readline(r))
        if welcome["type"] != "welcome":
            return str(welcome.get("error"))
        blocked: set[tuple[int, int]] = set()
        size = seat = 0
        while line := await readline(r):
            msg = json.loads(line)
            if msg["type"] == "start":
                size, seat = msg["board"]["width"], msg["seat"]
                blocked = {tuple(c) for c in msg["board"]["walls"]}  # type: ignore[misc]
            elif msg["type"] == "turn":
                heads = {c["team"]: tuple(c["head"]) for c in msg["cycles"]}
                blocked |= set(heads.values())
                move = safe_heading(size, size, blocked, heads[seat])  # type: ignore[arg-type]
                w.write(json.dumps({"move": move}).encode() + b"\n")
            elif msg["type"] == "end":
                return "end"
        return "closed before the end"
    finally:
        w.close()


def test_a_name_is_free_again_as_soon_as_its_game_ends(tmp_path: Path) -> None:
    """A client that reads its result and joins again at once, under the same anonymous
    name, is let in (the old connection may still be closing)."""

    async def main() -> list[str]:
        async with server(tmp_path) as (_, _, jsonl):
            return [await _play_until_end(jsonl, "again") for _ in range(3)]

    assert run(main()) == ["end", "end", "end"]

"""Test clients and game specs for the server tests: real sockets on 127.0.0.1.

Each client is a small coroutine that speaks one side of the wire the way a real program
would (a Scheme-course client, a raw jsonl bot, a framed relay), so the tests read as
transcripts and check bytes, not internals.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from lightcycle.maps.registry import get_map
from lightcycle.referee.clock import TimeControl
from lightcycle.rules.variants import get_ruleset
from lightcycle.server.game import GameSpec

MOVE = 0.15


def spec(
    map_name: str = "arena-10",
    ruleset: str = "classic",
    move: float = MOVE,
    latency: float = 0.05,
    grace: float = 0.5,
    seed: int = 1,
) -> GameSpec:
    """A small, fast game."""
    return GameSpec(
        game_id=uuid.uuid4().hex,
        queue="test",
        ruleset=get_ruleset(ruleset),
        board=get_map(map_name),
        map_name=map_name,
        seed=seed,
        time=TimeControl(move=move, first_move=move),
        latency_allowance=latency,
        reconnect_grace=grace,
    )


class Pair:
    """A loopback listener handing out server-side streams for client connections."""

    def __init__(self) -> None:
        self.accepted: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = (
            asyncio.Queue()
        )
        self.server: asyncio.Server | None = None
        self.port = 0
        self.writers: list[asyncio.StreamWriter] = []

    async def __aenter__(self) -> Pair:
        async def on(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            self.writers.append(w)
            await self.accepted.put((r, w))

        self.server = await asyncio.start_server(on, "127.0.0.1", 0, limit=65538)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        for w in self.writers:
            w.close()
        await self.server.wait_closed()

    async def connect(
        self,
    ) -> tuple[
        asyncio.StreamReader, asyncio.StreamWriter, asyncio.StreamReader, asyncio.StreamWriter
    ]:
        """(server reader, server writer, client reader, client writer)."""
        cr, cw = await asyncio.open_connection("127.0.0.1", self.port)
        self.writers.append(cw)
        sr, sw = await self.accepted.get()
        return sr, sw, cr, cw


async def readline(reader: asyncio.StreamReader, timeout: float = 5.0) -> bytes:
    """One line with its end, or b'' at the end of the stream."""
    async with asyncio.timeout(timeout):
        return await reader.readline()


def safe_heading(w: int, h: int, blocked: set[tuple[int, int]], me: tuple[int, int]) -> str:
    """A heading to a free neighbour on a W x H torus-or-walled grid (``n`` if none)."""
    x, y = me
    for d, (dx, dy) in zip("nesw", ((0, -1), (1, 0), (0, 1), (-1, 0)), strict=True):
        cell = ((x + dx) % w, (y + dy) % h)
        if cell not in blocked:
            return d
    return "n"


def parse_pair(line: bytes) -> tuple[int, int]:
    """``(X . Y)`` -> (X, Y)."""
    a, _, b = line.decode().strip().strip("()").partition(" . ")
    return int(a), int(b)


async def scheme_client(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    name: bytes | None = b"tester",
    transcript: list[bytes] | None = None,
    answer: Callable[[int], Awaitable[bytes | None]] | None = None,
) -> str:
    """Play the course's exchange to the end; return ``win``, ``loss`` or ``draw``.

    ``answer(turn)`` may replace the move bytes (``None``: send nothing).
    """
    out = transcript if transcript is not None else []
    if name is not None:
        writer.write(name + b"\n")
    size = await readline(reader)
    out.append(size)
    if size.startswith(b"(error"):
        return size.decode().strip()
    w, h = parse_pair(size)
    walls_line = await readline(reader)
    out.append(walls_line)
    blocked = {
        parse_pair(b"(" + p.strip(b"() ") + b")")
        for p in walls_line.strip()[1:-1].split(b")")
        if p.strip(b"() ")
    }
    turn = 0
    while True:
        line = await readline(reader)
        out.append(line)
        word = line.strip().decode()
        if word in ("win", "loss", "draw") or not line:
            return word or "closed"
        other = await readline(reader)
        out.append(other)
        me, them = parse_pair(line), parse_pair(other)
        blocked |= {me, them}
        turn += 1
        move = safe_heading(w, h, blocked, me).encode() + b"\n"
        if answer is not None:
            custom = await answer(turn)
            if custom is None:
                continue
            move = custom
        writer.write(move)


async def jsonl_bot(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    framed: bool = False,
    seen: list[dict[str, Any]] | None = None,
    start: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A jsonl bot (raw, or inside framed ``data`` messages); return the last message.

    ``start``: the start message of a game already begun (a bot that reconnected).
    """
    out = seen if seen is not None else []
    blocked: set[tuple[int, int]] = set()
    w = h = 0
    seat = 0
    if start is not None:
        w, h, seat = start["board"]["width"], start["board"]["height"], start["seat"]
        blocked = {tuple(c) for c in start["board"]["walls"]}  # type: ignore[misc]
    while True:
        line = await readline(reader)
        if not line:
            return out[-1] if out else {}
        msg = json.loads(line)
        out.append(msg)
        if framed:
            if msg["type"] == "end":
                return dict(msg)
            assert msg["type"] == "data", msg
            inner = json.loads(msg["data"])
        else:
            inner = msg
        kind = inner["type"]
        if kind == "start":
            w, h, seat = inner["board"]["width"], inner["board"]["height"], inner["seat"]
            blocked = {tuple(c) for c in inner["board"]["walls"]}  # type: ignore[misc]
        elif kind == "turn":
            heads = {c["team"]: tuple(c["head"]) for c in inner["cycles"]}
            blocked |= set(heads.values())
            move = safe_heading(w, h, blocked, heads[seat])  # type: ignore[arg-type]
            reply = json.dumps({"move": move})
            if framed:
                reply = json.dumps({"type": "data", "data": reply + "\n"})
            writer.write(reply.encode() + b"\n")
        elif kind == "end" and not framed:
            return dict(inner)

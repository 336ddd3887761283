"""The Scheme port speaks the course's exchange exactly: any name, late name lines, drops.

The course's client sends its name as the whole first line (``Scheme Test Client``); an
account adds its secret after a TAB. A name line that comes late is waited for with the
clock of the first move, on the Scheme port and on the jsonl port's raw ``sexp`` seats.
A client that drops mid-game and logs in again with its name and secret within the grace
keeps its seat; one that comes back after it has lost that game. Real sockets on
127.0.0.1, the real lobby and store.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from lightcycle.server.config import LimitsConfig, QueueConfig, ServerConfig
from lightcycle.server.store import GameRow, ServerStore
from lightcycle.server.tcp import Ports
from tests.server.clients import parse_pair, readline, scheme_client
from tests.server.test_tcp import connect, scheme_at, serving

COURSE = b"Scheme Test Client"
OTHER = b"Random Move Bot"
TAB = b"\t"


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 40))


@asynccontextmanager
async def server(
    tmp: Path, *, fill_after: float | None = 0.2, second_login: str = "replace", **limits: Any
) -> AsyncIterator[tuple[Ports, int, int]]:
    """A server whose Scheme port plays a walled 10x10 duel, 0.15 s a move."""
    duel = QueueConfig(
        "duel", ruleset="classic", maps=("arena-10",), move_time=0.15, first_move_time=3.0,
        fill_after=fill_after, fill_bot="builtin:floodfill",
    )  # fmt: skip
    base = {"latency_allowance": 0.1, "reconnect_grace": 1.0, "join_timeout": 2.0}
    cfg = ServerConfig(
        host="127.0.0.1",
        scheme_queue="duel",
        queues={"duel": duel},
        database="",
        second_login=second_login,
        limits=LimitsConfig(**{**base, **limits}),
    )
    async with serving(cfg, tmp) as ports:
        yield ports


course_client = scheme_at
"""The course's client: its name line, then the game to its last word."""


async def refusal(port: int, line: bytes) -> bytes:
    """The one line a refused name line gets (and the server closes)."""
    r, w = await connect(port)
    try:
        w.write(line + b"\n")
        got = await readline(r)
        assert await readline(r) == b""
        return got
    finally:
        w.close()


async def finished(store: ServerStore, count: int = 1) -> list[GameRow]:
    """The first ``count`` games once all are recorded, oldest first."""
    for _ in range(200):
        games = [g for g in store.recent_games(20) if g.status != "running"]
        if len(games) >= count:
            return sorted(games, key=lambda g: g.started_at)
        await asyncio.sleep(0.05)
    raise AssertionError("the games were not recorded in time")


def _seat(game: GameRow, name: str) -> Any:
    return next(s for s in game.seats if s.name == name)


# -- names -----------------------------------------------------------------------------


def test_course_clients_with_names_of_several_words_play_each_other(tmp_path: Path) -> None:
    async def main() -> tuple[list[list[bytes]], list[str], list[GameRow]]:
        async with server(tmp_path, fill_after=None) as (ports, scheme, _):
            transcripts: list[list[bytes]] = [[], []]
            words = await asyncio.gather(
                course_client(scheme, b"  " + COURSE + b" \r", transcripts[0]),
                course_client(scheme, OTHER, transcripts[1]),
            )
            return transcripts, list(words), await finished(ports.lobby.store)

    transcripts, words, games = run(main())
    assert sorted(words) in (["loss", "win"], ["draw", "draw"])
    for t in transcripts:
        assert t[0] == b"(10 . 10)\n" and t[1].startswith(b"((0 . 0) (1 . 0)")
        assert t[-1] in (b"win\n", b"loss\n", b"draw\n")
    (game,) = games
    assert {s.name for s in game.seats} == {"Scheme Test Client", "Random Move Bot"}
    assert all(s.verdict == "ok" for s in game.seats)


def test_a_name_and_its_secret_after_a_tab_make_an_account(tmp_path: Path) -> None:
    async def main() -> tuple[str, Any, list[bytes], list[GameRow]]:
        async with server(tmp_path) as (ports, scheme, _):
            word = await course_client(scheme, COURSE + TAB + b"open sesame")
            account = ports.lobby.store.account("scheme test client")
            refused = [
                await refusal(scheme, COURSE + TAB + b"wrong one"),
                await refusal(scheme, COURSE),  # a registered name without its secret
                await refusal(scheme, COURSE + TAB),  # trimmed: no secret at all
            ]
            again = await course_client(scheme, COURSE + TAB + b" open sesame ")
            assert again in ("win", "loss", "draw")
            return word, account, refused, await finished(ports.lobby.store, 2)

    word, account, refused, games = run(main())
    assert word in ("win", "loss", "draw")
    assert account is not None and account.name == "Scheme Test Client"
    assert refused[0] == b'(error "wrong secret for Scheme Test Client")\n'
    assert refused[1].startswith(b'(error "Scheme Test Client is a registered account')
    assert refused[2] == refused[1]
    assert [_seat(g, "Scheme Test Client").account for g in games] == ["Scheme Test Client"] * 2


def test_control_characters_in_a_name_are_refused_in_one_line(tmp_path: Path) -> None:
    async def main() -> list[bytes]:
        async with server(tmp_path) as (_, scheme, _):
            return [
                await refusal(scheme, b"bell\x07name"),
                await refusal(scheme, b"   "),
                await refusal(scheme, b"builtin:floodfill"),
            ]

    bell, empty, bot = run(main())
    assert bell.startswith(b"(error \"bad name 'bell\\\\x07name': it holds the unprintable")
    assert b"U+0007" in bell
    assert empty.startswith(b'(error "send your name on the first line')
    assert b"names the built-in bots" in bot


# -- the late name line ----------------------------------------------------------------


def test_a_name_line_that_comes_late_and_in_pieces_on_the_scheme_port(tmp_path: Path) -> None:
    async def main() -> tuple[str, list[GameRow]]:
        async with server(tmp_path) as (ports, scheme, _):
            r, w = await connect(scheme)
            w.write(b"Scheme Te")
            await asyncio.sleep(0.5)
            w.write(b"st Client\n")
            word = await scheme_client(r, w, name=None)
            w.close()
            return word, await finished(ports.lobby.store)

    word, (game,) = run(main())
    assert word in ("win", "loss", "draw")
    assert _seat(game, "Scheme Test Client").verdict == "ok"


def test_a_late_sexp_name_line_on_the_jsonl_port_is_waited_for(tmp_path: Path) -> None:
    """A raw ``sexp`` seat speaks first: its name, here 0.5 s after the welcome, when the
    game (filled after 0.2 s) is already waiting for it. Its clock starts then."""

    async def main() -> tuple[dict[str, Any], str, list[GameRow]]:
        async with server(tmp_path) as (ports, _, jsonl):
            r, w = await connect(jsonl)
            hello = {"type": "hello", "name": "Late Name", "queue": "duel", "protocol": "sexp"}
            w.write(json.dumps(hello).encode() + b"\n")
            welcome = json.loads(await readline(r))
            await asyncio.sleep(0.5)
            word = await scheme_client(r, w, name=b"Late Name")
            w.close()
            return welcome, word, await finished(ports.lobby.store)

    welcome, word, (game,) = run(main())
    assert welcome["type"] == "welcome"
    assert word in ("win", "loss", "draw")
    assert _seat(game, "Late Name").verdict == "ok"
    assert game.turns > 1


# -- drops and the reconnect grace -------------------------------------------------------


async def _drop_after(port: int, line: bytes, turns: int) -> tuple[int, int]:
    """Log in, answer ``turns - 1`` requests, read the next one and drop; its position."""
    r, w = await connect(port)
    w.write(line + b"\n")
    size = await readline(r)
    assert size == b"(10 . 10)\n", size
    await readline(r)
    for turn in range(1, turns + 1):
        me, _them = parse_pair(await readline(r)), await readline(r)
        if turn < turns:
            w.write(b"n\n" if turn % 2 else b"e\n")  # safe for a few turns from any start
    await w.drain()
    w.close()
    return me


@pytest.mark.parametrize("second_login", ["replace", "refuse"])
def test_a_drop_and_a_return_within_the_grace_keep_the_seat(
    tmp_path: Path, second_login: str
) -> None:
    """Back after the move's deadline (0.25 s) but within the grace (2 s): the client gets
    the board again and the current turn's positions, and plays on to the end."""

    async def main() -> tuple[tuple[int, int], list[bytes], str, float, list[GameRow]]:
        async with server(tmp_path, second_login=second_login, reconnect_grace=2.0) as (
            ports,
            scheme,
            _,
        ):
            line = COURSE + TAB + b"s3cret"
            where = await _drop_after(scheme, line, 3)
            dropped = time.monotonic()
            await asyncio.sleep(0.6)
            transcript: list[bytes] = []
            word = await course_client(scheme, line, transcript)
            return where, transcript, word, dropped, await finished(ports.lobby.store)

    where, transcript, word, _, games = run(main())
    assert len(games) == 1  # the same game, not a new one
    assert transcript[0] == b"(10 . 10)\n" and transcript[1].startswith(b"((0 . 0)")
    assert parse_pair(transcript[2]) == where  # the turn it dropped in, sent again
    assert word in ("win", "loss", "draw")
    seat = _seat(games[0], "Scheme Test Client")
    assert seat.verdict == "ok", seat
    assert games[0].turns > 3


def test_a_return_after_the_grace_finds_the_game_lost(tmp_path: Path) -> None:
    async def main() -> tuple[str, list[bytes], list[GameRow]]:
        async with server(tmp_path, reconnect_grace=0.4) as (ports, scheme, _):
            line = COURSE + TAB + b"s3cret"
            await _drop_after(scheme, line, 3)
            lost = await finished(ports.lobby.store)
            transcript: list[bytes] = []
            word = await course_client(scheme, line, transcript)  # a new game
            return word, transcript, lost

    word, transcript, (lost,) = run(main())
    seat = _seat(lost, "Scheme Test Client")
    assert (seat.verdict, seat.result) == ("disconnected", "loss")
    assert "not back within 0.4 s" in seat.detail
    assert word in ("win", "loss", "draw") and transcript[0] == b"(10 . 10)\n"

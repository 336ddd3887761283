"""`serve` and `lightcycle serve`: everything in one loop, stopped cleanly.

In process: a game in flight when the server stops is recorded ``aborted`` and its
Scheme client told in a result it can read (a draw, and why as a comment). As a real
process: the command prints where it listens, plays, and exits at SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from lightcycle.server.app import Listening, serve
from lightcycle.server.config import LimitsConfig, QueueConfig, ServerConfig
from lightcycle.server.store import ServerStore
from tests.server.clients import readline


def _config(db: Path) -> ServerConfig:
    queue = QueueConfig(
        "duel", ruleset="classic", maps=("arena-10",), move_time=2.0, fill_after=0.05,
        fill_bot="builtin:floodfill",
    )  # fmt: skip
    return ServerConfig(
        host="127.0.0.1",
        scheme_port=0,
        jsonl_port=0,
        web_port=0,
        scheme_queue="duel",
        queues={"duel": queue},
        database=f"sqlite:///{db}",
        limits=LimitsConfig(join_timeout=2.0),
    )


def test_stop_records_the_game_in_flight_as_aborted(tmp_path: Path) -> None:
    db = tmp_path / "server.db"

    async def main() -> list[bytes]:
        stop = asyncio.Event()
        where: list[Listening] = []
        task = asyncio.ensure_future(serve(_config(db), ready=where.append, stop=stop, web=False))
        while not where and not task.done():
            await asyncio.sleep(0.01)
        r, w = await asyncio.open_connection("127.0.0.1", where[0].scheme_port)
        w.write(b"stayer\n")
        seen = [await readline(r) for _ in range(4)]  # size, walls, the two positions
        stop.set()  # mid-turn: the client is thinking (2 s moves)
        seen.extend([await readline(r) for _ in range(3)])
        w.close()  # a course client closes after its result: the server's wait ends
        await asyncio.wait_for(task, 10)
        return seen

    seen = asyncio.run(asyncio.wait_for(main(), 30))
    assert seen[0] == b"(10 . 10)\n"
    # a result the course's client can read, the reason as a Scheme comment, the end
    assert seen[4:] == [
        b"draw\n",
        b"; the game was aborted: the server stopped; this game is aborted\n",
        b"",
    ]
    with ServerStore(f"sqlite:///{db}") as store:
        games = store.recent_games()
    assert [g.status for g in games] == ["aborted"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_lightcycle_serve_prints_plays_and_stops_at_sigterm(tmp_path: Path) -> None:
    ports = [_free_port() for _ in range(3)]
    cfg = tmp_path / "server.toml"
    cfg.write_text(
        f"[server]\nscheme_port = {ports[0]}\njsonl_port = {ports[1]}\nweb_port = {ports[2]}\n"
        f'scheme_queue = "duel"\ndatabase = "sqlite:///{tmp_path / "s.db"}"\n'
        '[queues.duel]\nruleset = "classic@1"\nmaps = ["arena-10"]\nmove_time = 0.2\n'
        'fill_after = 0.05\nfill_bot = "builtin:floodfill"\n'
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "lightcycle", "serve", str(cfg)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(3)]
        assert lines[0].strip() == f"Scheme clients: 127.0.0.1 port {ports[0]}", lines
        assert re.search(rf"jsonl clients: +127.0.0.1 port {ports[1]}", lines[1])
        with socket.create_connection(("127.0.0.1", ports[0]), timeout=10) as s:
            s.sendall(b"visitor\n")
            f = s.makefile("rb")
            assert f.readline() == b"(10 . 10)\n"
        time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()
        if proc.stderr:
            proc.stderr.close()


def test_the_welcome_carries_the_web_address_when_the_page_runs(tmp_path: Path) -> None:
    """``"web": "http://HOST:PORT"`` in the welcome when the web page runs, else absent."""
    try:
        import uvicorn  # noqa: F401
    except ImportError:
        import pytest

        pytest.skip("uvicorn is not installed (the web extra): no web page to announce")

    async def welcome(web: bool) -> tuple[dict[str, object], Listening]:
        stop = asyncio.Event()
        where: list[Listening] = []
        config = _config(tmp_path / f"server-{web}.db")
        task = asyncio.ensure_future(serve(config, ready=where.append, stop=stop, web=web))
        while not where and not task.done():
            await asyncio.sleep(0.01)
        r, w = await asyncio.open_connection("127.0.0.1", where[0].jsonl_port)
        w.write(b'{"type":"hello","name":"wendy","queue":"duel"}\n')
        line = json.loads(await readline(r))
        w.close()
        stop.set()
        await asyncio.wait_for(task, 10)
        return line, where[0]

    with_page, where = asyncio.run(asyncio.wait_for(welcome(True), 30))
    assert with_page["type"] == "welcome"
    assert with_page["web"] == f"http://127.0.0.1:{where.web_port}" and where.web_port
    without, _ = asyncio.run(asyncio.wait_for(welcome(False), 30))
    assert without["type"] == "welcome" and "web" not in without


def test_a_bad_configuration_is_one_line_that_keeps_its_table_name(tmp_path: Path) -> None:
    """The table in brackets is text, not console markup, and nothing is started."""
    bad = tmp_path / "bad.toml"
    bad.write_text('[server]\nsecond_login = "kick"\n')
    done = subprocess.run(
        [sys.executable, "-m", "lightcycle", "serve", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert '[server] second_login = "kick"' in done.stderr, done.stderr
    assert "Traceback" not in done.stderr

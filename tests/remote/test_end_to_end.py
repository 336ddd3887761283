"""End to end: a real server (the lobby, the store, both TCP ports, in a thread of this
process), two ``lightcycle connect`` processes playing one game to its end (a tron2010
program relayed, and a built-in bot), and `play_remote` against a filled queue."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from lightcycle.remote import play_remote

ROOT = Path(__file__).resolve().parents[2]
RESULT = r"(win|loss|draw) \((ok|\w+)[^)]*\), game [0-9a-f]+"


@contextmanager
def real_server(tmp: Path) -> Iterator[int]:
    """A real server on 127.0.0.1 (port 0) run on an event loop in a thread; its jsonl port."""
    config = pytest.importorskip("lightcycle.server.config", reason="the server is not built")
    lobby_mod = pytest.importorskip("lightcycle.server.lobby", reason="the server is not built")
    store_mod = pytest.importorskip("lightcycle.server.store", reason="the server is not built")
    tcp = pytest.importorskip("lightcycle.server.tcp", reason="the server is not built")
    duel = config.QueueConfig(
        "duel", ruleset="classic", maps=("arena-10",), move_time=1.0, first_move_time=5.0,
        fill_after=None,
    )  # fmt: skip
    solo = config.QueueConfig(
        "solo", ruleset="torus", maps=("torus-20",), move_time=1.0, fill_after=0.1,
        fill_bot="builtin:random",
    )  # fmt: skip
    late = config.QueueConfig(
        "late", ruleset="classic", maps=("arena-10",), move_time=1.0, first_move_time=5.0,
        fill_after=0.1, fill_bot="builtin:floodfill",
    )  # fmt: skip
    cfg = config.ServerConfig(
        host="127.0.0.1",
        scheme_queue="duel",
        queues={"duel": duel, "solo": solo, "late": late},
        database="",
        limits=config.LimitsConfig(reconnect_grace=2.0),
    )
    loop = asyncio.new_event_loop()
    started: dict[str, Any] = {}
    ready = threading.Event()
    stop = asyncio.Event()

    async def main() -> None:
        store = store_mod.ServerStore(f"sqlite:///{tmp / 'server.db'}")
        lobby = lobby_mod.Lobby(cfg, store, seed=1)
        await lobby.start()
        ports = tcp.Ports(lobby, cfg)
        try:
            started["ports"] = await ports.start("127.0.0.1", 0, 0)
            ready.set()
            await stop.wait()
        finally:
            await lobby.close()
            await ports.close()
            store.close()

    thread = threading.Thread(target=lambda: loop.run_until_complete(main()), daemon=True)
    thread.start()
    try:
        assert ready.wait(30), "the server did not start"
        yield started["ports"][1]
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(30)
        loop.close()


def _connect(port: int, name: str, *bot: str, queue: str = "duel") -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "lightcycle", "connect", f"127.0.0.1:{port}", "--queue", queue,
         "--name", name, "--sandbox", "none", *bot],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip


def test_two_connect_clients_play_a_game_on_a_real_server(tmp_path: Path) -> None:
    with real_server(tmp_path) as port:
        program = _connect(
            port, "prog", "--bot", "cmd:python3 examples/tron2010/bot.py", "--protocol", "tron2010"
        )
        builtin = _connect(port, "chaser", "--bot", "builtin:chaser")
        outs = []
        for proc in (program, builtin):
            out, err = _finish(proc)
            assert proc.returncode == 0, err
            outs.append(out.strip())
    assert all(re.fullmatch(RESULT, o) for o in outs), outs
    words = sorted(o.split()[0] for o in outs)
    assert words in (["loss", "win"], ["draw", "draw"]), outs
    assert outs[0].split("game ")[1] == outs[1].split("game ")[1]  # one game, both seats


def _finish(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """A client's output once it ends (killed if it has not within 120 s)."""
    try:
        return proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_play_remote_on_a_real_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with real_server(tmp_path) as port:
        result = play_remote("127.0.0.1", port, "builtin:floodfill", queue="solo")
    assert result in ("win", "loss", "draw")
    assert capsys.readouterr().out == result + "\n"


def test_a_relayed_sexp_bot_whose_name_line_comes_late(tmp_path: Path) -> None:
    """The bot writes its name 0.5 s after it starts, when its game (filled after 0.1 s)
    already waits for it: the name line's clock starts as the game asks for it, so the
    seat plays (it used to lose on turn 1 with a 'timeout' after a few milliseconds)."""
    late = tmp_path / "late_name.py"
    late.write_text(
        "import runpy, sys, time\n"
        "time.sleep(0.5)\n"
        "runpy.run_path(sys.argv[1], run_name='__main__')\n"
    )
    bot = f"cmd:{sys.executable} {late} examples/sexp/bot.py"
    with real_server(tmp_path) as port:
        proc = _connect(port, "Late Sexp", "--bot", bot, "--protocol", "sexp", queue="late")
        out, err = _finish(proc)
    assert proc.returncode == 0, err
    assert re.fullmatch(r"(win|loss|draw) \(ok\), game [0-9a-f]+", out.strip()), (out, err)

"""``play-remote-tron``: the course's example brain plays one game on a real
``lightcycle serve`` Scheme port, from Guile (its sockets) and from Chez Scheme (the C
library's sockets through Chez's FFI), and prints the result.

One server for the module, on free ports of 127.0.0.1, whose queue gives a waiting
client a built-in bot after 0.2 s.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kits.scheme.runner import EXAMPLE, SCHEMES, loads, run_scheme

RESULT = re.compile(
    r"^(Random Move Bot has (won|lost)|The game was a draw) after \d+ moves?\.\n(win|loss|draw)$"
)


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@pytest.fixture(scope="module")
def scheme_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    folder = tmp_path_factory.mktemp("server")
    scheme, jsonl, web = _free_ports(3)
    config = folder / "server.toml"
    config.write_text(
        f"[server]\nscheme_port = {scheme}\njsonl_port = {jsonl}\nweb_port = {web}\n\n"
        '[queues.torus]\nfill_after = 0.2\nfill_bot = "builtin:random"\n',
        encoding="utf-8",
    )
    log = (folder / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "lightcycle", "serve", str(config), "--db",
         f"sqlite:///{folder / 'server.db'}"],
        stdout=log, stderr=subprocess.STDOUT, cwd=folder,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", scheme), timeout=1):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    log_text = (folder / "server.log").read_text()
                    pytest.fail(f"lightcycle serve did not start: {log_text}")
                time.sleep(0.1)
        yield scheme
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_example_brain_plays_a_game_on_the_server(
    scheme: str, scheme_port: int, tmp_path: Path
) -> None:
    code = loads(EXAMPLE) + (
        f'(write (play-remote-tron "127.0.0.1" {scheme_port} random-move-bot))\n'
    )
    done = run_scheme(scheme, code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert RESULT.match(done.stdout.strip()), done.stdout


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_server_that_is_not_there_is_named(scheme: str, tmp_path: Path) -> None:
    port = _free_ports(1)[0]
    code = loads(EXAMPLE) + f'(play-remote-tron "127.0.0.1" {port} random-move-bot)\n'
    done = run_scheme(scheme, code, tmp_path)
    assert done.returncode != 0
    assert f"cannot connect to 127.0.0.1:{port}: Connection refused" in done.stderr

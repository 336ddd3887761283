"""HTTP bots: real Battlesnake servers on 127.0.0.1 play lightcycle games.

Each test runs a server written here with `http.server` (a port the system picks), and
the referee plays it as ``--bot http://127.0.0.1:PORT``. The model snake behaves like the
official starter snake: it avoids its own neck and the board's edges and picks at random
among the other moves (``down`` when none is left). Other servers misbehave on purpose:
garbage, errors, slowness, a byte at a time, dropped connections.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lightcycle.bots.api import BotError
from lightcycle.cli.main import app
from lightcycle.core.topology import GridTopology
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapSpec
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import GameRecord, play_game
from lightcycle.referee.http_bot import HttpPlayer
from lightcycle.referee.players import BotSpec, make_player, parse_bot_spec
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import Limits
from tests.conftest import grid_map

Answer = tuple[int, bytes]
Behaviour = Callable[[str, str, Any], Answer]


def _json(obj: object, status: int = 200) -> Answer:
    return status, json.dumps(obj).encode()


def starter(seed: int = 0) -> Behaviour:
    """The starter snake's behaviour: not back into its neck, not off the board."""
    rng = random.Random(seed)

    def respond(method: str, path: str, body: Any) -> Answer:
        if method == "GET":
            return _json({"apiversion": "1", "author": "test", "color": "#ff8800"})
        if path != "/move":
            return _json({})
        head, neck = body["you"]["body"][0], body["you"]["body"][1]
        width, height = body["board"]["width"], body["board"]["height"]
        safe = {"up", "down", "left", "right"}
        if neck["x"] < head["x"]:
            safe.discard("left")
        elif neck["x"] > head["x"]:
            safe.discard("right")
        elif neck["y"] < head["y"]:
            safe.discard("down")
        elif neck["y"] > head["y"]:
            safe.discard("up")
        for word, off in (
            ("left", head["x"] == 0),
            ("right", head["x"] == width - 1),
            ("down", head["y"] == 0),
            ("up", head["y"] == height - 1),
        ):
            if off:
                safe.discard(word)
        return _json({"move": rng.choice(sorted(safe)) if safe else "down"})

    return respond


def always(word: str) -> Behaviour:
    def respond(method: str, path: str, body: Any) -> Answer:
        return _json({"move": word} if path == "/move" else {})

    return respond


class SnakeServer(ThreadingHTTPServer):
    """A Battlesnake server on 127.0.0.1 that logs every request it gets."""

    daemon_threads = False  # so that server_close waits for every connection's thread

    def __init__(self, respond: Behaviour) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.respond = respond
        self.log: list[tuple[str, str, Any]] = []
        self.connections = 0
        self.release = threading.Event()  # wakes handlers told to stall
        self.drop_after_answer = False
        self.trickle = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def paths(self) -> list[str]:
        return [p for _, p, _ in self.log]

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-answer is expected here: no traceback."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    wbufsize = 1 << 16  # headers and body in one write: no Nagle/delayed-ACK stall
    timeout = 10  # an idle connection ends its thread at the latest then
    server: SnakeServer

    def setup(self) -> None:
        super().setup()
        self.server.connections += 1

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        self._answer(None)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self._answer(json.loads(raw))

    def _answer(self, body: Any) -> None:
        self.server.log.append((self.command, self.path, body))
        status, data = self.server.respond(self.command, self.path, body)
        if status < 0:  # stall: answer only when released (or too late for anyone)
            self.server.release.wait(10)
            status = -status
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.server.trickle:
            self.wfile.flush()
            for i in range(len(data)):
                if self.server.release.wait(0.05):
                    return
                self.wfile.write(data[i : i + 1])
                self.wfile.flush()
        else:
            self.wfile.write(data)
        if self.server.drop_after_answer:  # keep-alive announced, then the server forgets it
            self.wfile.flush()
            self.close_connection = True


@contextmanager
def snake(respond: Behaviour) -> Iterator[SnakeServer]:
    """Serve ``respond`` on 127.0.0.1 for the block; nothing is left running after it."""
    server = SnakeServer(respond)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()
        thread.join()


ARENA = grid_map(["#######", "#.....#", "#.1...#", "#.....#", "#....2#", "#######"])
"""An asymmetric position: seat 1 at lightcycle (2, 2) is the snake's (1, 2) on a
5 x 4 board (the ring of wall is cut off); its top row is y 3."""


def play(
    url: str,
    spec: MapSpec = ARENA,
    opponents: tuple[str, ...] = ("builtin:runaway",),
    control: TimeControl | None = None,
    ruleset: str = "classic",
) -> tuple[GameRecord, HttpPlayer]:
    player = make_player(parse_bot_spec(url), Limits(), None)
    assert isinstance(player, HttpPlayer)
    others = [make_player(parse_bot_spec(o), Limits(), None) for o in opponents]
    try:
        control = control or TimeControl(move=1.0, first_move=2.0)
        rs = get_ruleset(ruleset)
        record = play_game([player, *others], spec, rs, seed=3, controls=control)
    finally:
        player.shutdown()
    return record, player


# -- the starter snake plays ------------------------------------------------------------


def test_a_starter_snake_plays_a_match_to_the_end(tmp_path: Path) -> None:
    with snake(starter(seed=1)) as server:
        args = ["match", "--bot", server.url, "--bot", "builtin:random", "--map", "arena-10"]
        args += ["--games", "2", "--swap-sides", "--out", str(tmp_path / "m")]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        paths = server.paths()
        connections = server.connections
    data = json.loads((tmp_path / "m" / "results.json").read_text())
    assert len(data["games"]) == 2
    seats = [g["bots"].index(server.url) for g in data["games"]]
    assert seats == [0, 1]
    assert all(g["verdicts"][s] == "ok" for g, s in zip(data["games"], seats, strict=True))
    # GET / once per player; per game a /start, a /move a turn it played, an /end
    assert paths[0] == "/" and paths.count("/") == 1
    assert paths.count("/start") == paths.count("/end") == 2
    assert 2 <= paths.count("/move") <= sum(g["turns"] for g in data["games"])
    assert connections == 1  # one keep-alive connection for the whole match


def test_every_request_carries_the_game_as_battlesnake_sends_it() -> None:
    with snake(starter(seed=2)) as server:
        four = ("builtin:chaser", "builtin:random", "builtin:runaway")
        record, _ = play(server.url, spec=get_map("ffa4"), opponents=four, ruleset="ffa")
        log = list(server.log)
    moves = [body for _, path, body in log if path == "/move"]
    start = next(body for _, path, body in log if path == "/start")
    end = next(body for _, path, body in log if path == "/end")
    assert start["turn"] == 0 and start["board"] == moves[0]["board"]
    assert [m["turn"] for m in moves] == list(range(len(moves)))
    game = moves[0]["game"]
    assert game["ruleset"]["name"] == "constrictor"
    # the time the request may take: the first move's on turn 0, then the move time
    assert [m["game"]["timeout"] for m in moves[:2]] == [2000, 1000]
    assert game["id"] == end["game"]["id"]  # one id for the game's requests
    assert moves[0]["you"]["customizations"]["color"] == "#ff8800"  # from its GET /
    assert moves[0]["you"]["latency"] == "0"
    assert all(int(m["you"]["latency"]) >= 0 for m in moves[1:])
    assert end["turn"] == record.final.turn
    for m in moves:
        assert m["you"]["health"] == 100 and m["board"]["food"] == []
        assert m["you"]["length"] == len(m["you"]["body"]) == max(3, m["turn"] + 2)


def test_up_moves_the_snake_north_where_the_docs_say() -> None:
    with snake(always("up")) as server:
        record, _ = play(server.url)
        moves = [body for _, path, body in server.log if path == "/move"]
    # (1, 2) on the snake's board is lightcycle (2, 2); up is y + 1 there, row - 1 here
    assert [m["you"]["head"] for m in moves] == [{"x": 1, "y": 2}, {"x": 1, "y": 3}]
    topo = record.final.board.topology
    assert isinstance(topo, GridTopology)
    me = record.final.cycles[0]
    assert me.head == topo.cell(2, 1) and not me.alive  # the next "up" hit the wall
    assert record.seats[0].verdict.kind == "ok"  # lost by the rules, not by a verdict


def test_a_torus_is_the_wrapped_constrictor_ruleset() -> None:
    with snake(starter(seed=3)) as server:
        record, _ = play(server.url, spec=get_map("torus-20"), ruleset="torus")
        names = {body["game"]["ruleset"]["name"] for _, p, body in server.log if p == "/move"}
    assert names == {"wrapped_constrictor"}
    assert record.seats[0].verdict.kind == "ok"


# -- servers that fail ------------------------------------------------------------------


def test_garbage_is_bad_output_with_the_bytes() -> None:
    def respond(method: str, path: str, body: Any) -> Answer:
        return (200, b"garbage") if path == "/move" else _json({})

    with snake(respond) as server:
        record, _ = play(server.url)
        paths = server.paths()
    verdict = record.seats[0].verdict
    assert verdict.kind == "bad_output"
    assert "POST /move" in verdict.detail and "b'garbage'" in verdict.detail
    assert paths[-1] == "/end"  # a snake that answered badly still hears the end


def test_an_error_status_is_bad_output_naming_it() -> None:
    def respond(method: str, path: str, body: Any) -> Answer:
        return (500, b"oops") if path == "/move" else _json({})

    with snake(respond) as server:
        record, _ = play(server.url)
    verdict = record.seats[0].verdict
    assert verdict.kind == "bad_output" and "HTTP 500" in verdict.detail


def test_an_endless_body_is_cut_at_the_limit_and_refused() -> None:
    def respond(method: str, path: str, body: Any) -> Answer:
        return (
            (200, b'{"move":"up","pad":"' + b"x" * 200_000 + b'"}')
            if path == "/move"
            else _json({})
        )

    with snake(respond) as server:
        record, _ = play(server.url)
    verdict = record.seats[0].verdict
    assert verdict.kind == "bad_output" and "at most 65536 bytes" in verdict.detail


def test_a_slow_snake_times_out_at_its_move_time() -> None:
    def respond(method: str, path: str, body: Any) -> Answer:
        return (-200, b'{"move":"up"}') if path == "/move" else _json({})

    with snake(respond) as server:
        t0 = time.perf_counter()
        record, _ = play(server.url, control=TimeControl(move=0.2, first_move=0.3))
        waited = time.perf_counter() - t0
        paths = server.paths()
    verdict = record.seats[0].verdict
    assert verdict.kind == "timeout" and "POST /move" in verdict.detail
    assert waited < 5  # the server stalls for 10 s: the referee did not wait for it
    assert "/end" not in paths  # a snake that did not answer is not asked again


def test_a_snake_answering_a_byte_at_a_time_is_cut_off_at_the_deadline() -> None:
    def respond(method: str, path: str, body: Any) -> Answer:
        return (200, b'{"move":"up"}' + b" " * 66) if path == "/move" else _json({})

    with snake(respond) as server:
        server.trickle = True  # 20 bytes a second: the 80-byte answer takes 4 s
        t0 = time.perf_counter()
        record, _ = play(server.url, control=TimeControl(move=0.2, first_move=0.2))
        waited = time.perf_counter() - t0
    assert record.seats[0].verdict.kind == "timeout"
    assert waited < 2  # stopped by the watchdog at 0.2 s, not by the end of the trickle


def test_a_closed_port_is_a_crash_saying_the_connection_was_refused() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    record, _ = play(f"http://127.0.0.1:{port}")
    verdict = record.seats[0].verdict
    assert verdict.kind == "crashed"
    assert f"cannot connect to http://127.0.0.1:{port}: connection refused" in verdict.detail
    assert record.outcome.winner == 1


def test_failures_outside_the_moves_do_not_count() -> None:
    def respond(method: str, path: str, body: Any) -> Answer:
        if path == "/move":
            return _json({"move": "right"})
        return (404, b"<html>no such page</html>") if method == "GET" else (500, b"")

    with snake(respond) as server:
        record, _ = play(server.url)
        paths = server.paths()
    assert record.seats[0].verdict.kind == "ok"
    assert paths[:3] == ["/", "/start", "/move"] and paths[-1] == "/end"


def test_a_server_that_drops_kept_connections_is_asked_again_on_a_new_one() -> None:
    with snake(starter(seed=4)) as server:
        server.drop_after_answer = True
        record, _ = play(server.url)
        moves = server.paths().count("/move")
        connections = server.connections
    assert record.seats[0].verdict.kind == "ok"
    assert connections >= moves  # every request went on a new connection, none failed


# -- specs ------------------------------------------------------------------------------


def test_http_specs() -> None:
    spec = parse_bot_spec("https://snake.example.org/v1")
    assert spec == BotSpec(text="https://snake.example.org/v1", kind="http")
    assert make_player(parse_bot_spec("http://127.0.0.1:9"), Limits(), None).name == (
        "http://127.0.0.1:9"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("http://", "no host"),
        ("http://127.0.0.1:99999", "not a URL"),
        ("http://127.0.0.1:0", "port 0"),
        ("http://127.0.0.1:8000/?x=1", "no query"),
    ],
)
def test_bad_urls_say_the_form(text: str, message: str) -> None:
    with pytest.raises(BotError, match=message) as info:
        parse_bot_spec(text)
    assert "http://HOST:PORT" in str(info.value)


def test_a_pool_a_snake_cannot_play_is_refused_before_any_game() -> None:
    """A graph board is refused when the pool is checked, naming why, not at game start."""
    from lightcycle.maps.registry import get_map
    from lightcycle.referee.match import unplayable
    from lightcycle.referee.players import parse_bot_spec
    from lightcycle.rules.variants import get_ruleset

    snake = parse_bot_spec("http://127.0.0.1:9")  # nothing is contacted by a check
    other = parse_bot_spec("builtin:random")
    assert unplayable(get_map("arena-15"), get_ruleset("classic"), [snake, other]) is None
    why = unplayable(get_map("donut"), get_ruleset("tron3d"), [snake, other])
    assert why is not None and "battlesnake" in why.lower(), why

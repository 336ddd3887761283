"""The server's web side on the real Lobby and ServerStore (SQLite in tmp_path): every
page and API route, bad ids, and the live websocket, including a stalled spectator that
is dropped over a real socket while the game goes on."""

from __future__ import annotations

import json
import socket
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the web side needs FastAPI: pip install 'lightcycle[web]'")
pytest.importorskip("jinja2", reason="the web pages need Jinja2: pip install 'lightcycle[web]'")

from starlette.testclient import TestClient

from lightcycle.core.state import GameState
from lightcycle.referee.local import play
from lightcycle.server.config import default_config
from lightcycle.server.ladder import rated_seats, rater
from lightcycle.server.lobby import Lobby
from lightcycle.server.store import SeatRow, ServerStore
from lightcycle.server.web import create_app
from lightcycle.viewer.live import LiveHub
from lightcycle.viewer.live_server import LiveServer


@dataclass
class Seat:
    name: str
    account: str | None
    kind: str
    rank: int


@dataclass
class Site:
    client: TestClient
    hub: LiveHub
    store: ServerStore
    app: Any
    finished: str
    states: list[GameState]


def record_game(
    store: ServerStore, queue: str = "torus", names: tuple[str, str] = ("alice", "bob")
) -> tuple[str, list[GameState]]:
    """A real game (a local one) stored as the lobby stores a finished, rated game."""
    states: list[GameState] = []
    result = play("torus-20", ["chaser", "runaway"], seed=5, on_turn=states.append)
    gid = uuid.uuid4().hex
    store.start_game(
        gid,
        queue=queue,
        ruleset=result.replay.ruleset,
        map="torus-20",
        seed=5,
        seats=[SeatRow(i, n, n, "remote") for i, n in enumerate(names)],
    )
    ranks = list(result.outcome.ranks)
    seats = [Seat(n, n, "remote", r) for n, r in zip(names, ranks, strict=True)]
    words = {1: "win", 2: "loss"}
    rows = [
        SeatRow(i, n, n, "remote", rank=r, result=words.get(r, "draw"), verdict="ok")
        for i, (n, r) in enumerate(zip(names, ranks, strict=True))
    ]
    rated = rated_seats(seats)
    store.finish_game(
        gid,
        status="finished",
        reason=result.outcome.reason,
        turns=result.final.turn,
        replay=result.replay.to_json(),
        seats=rows,
        rated=rated,
        rate=rater(seats, rated),
    )
    return gid, states


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    store = ServerStore(f"sqlite:///{tmp_path / 'server.db'}")
    hub = LiveHub(queue=8)
    lobby = Lobby(default_config(), store, hub)
    gid, states = record_game(store)
    app = create_app(lobby, hub)
    try:
        with TestClient(app) as client:
            yield Site(client, hub, store, app, gid, states)
    finally:
        store.close()


def test_front_page_lists_queues_live_and_finished_games(site: Site) -> None:
    site.hub.open("live1", {"queue": "torus", "names": ["carol", "dave"], "map": "torus-20"})
    site.hub.push("live1", site.states[0])
    page = site.client.get("/")
    assert page.status_code == 200
    text = page.text
    assert "torus" in text and 'href="/ladder/torus"' in text
    assert 'href="/games/live1"' in text and "carol vs dave" in text
    assert f'href="/games/{site.finished}"' in text and "alice" in text
    assert "https://" not in text  # nothing fetched from another site (no CDN)
    assert 'hx-get="/fragments/live"' in text
    for part in ("queues", "live", "finished"):
        frag = site.client.get(f"/fragments/{part}")
        assert frag.status_code == 200 and "<html" not in frag.text
    assert "carol" in site.client.get("/fragments/live").text


def test_game_pages_live_then_replay_and_404(site: Site) -> None:
    replay_page = site.client.get(f"/games/{site.finished}")
    assert replay_page.status_code == 200 and '"replay":' in replay_page.text
    site.hub.open("live1", {"queue": "torus"})
    live = site.client.get("/games/live1")
    assert live.status_code == 200 and '"ws":"/ws/games/live1"' in live.text
    assert "connect-src 'self' ws: wss:" in live.text
    for bad in ("/games/nope", "/games/%3Cscript%3E", "/ladder/nope", "/players/nobody", "/x/y"):
        r = site.client.get(bad)
        assert r.status_code == 404, bad
        assert "Traceback" not in r.text and "<script>" not in r.text.split("<script>\n")[0]
        assert "back to the server" in r.text


def test_ladder_and_player_pages(site: Site) -> None:
    ladder = site.client.get("/ladder/torus")
    assert ladder.status_code == 200
    assert 'href="/players/alice"' in ladder.text and 'href="/players/bob"' in ladder.text
    player = site.client.get("/players/alice")
    assert player.status_code == 200 and site.finished in player.text
    assert 'href="/ladder/torus"' in player.text


def test_pages_of_players_whose_names_are_any_printable_text(site: Site) -> None:
    """A course name has spaces, and may hold ``/`` or ``<``: links quote it, pages escape
    it, and the player's page is found by the whole name."""
    gid, _ = record_game(site.store, names=("Scheme Test Client", "a/b <i>x</i>"))
    ladder = site.client.get("/ladder/torus")
    assert 'href="/players/Scheme%20Test%20Client"' in ladder.text
    assert "<i>x</i>" not in ladder.text and "a/b &lt;i&gt;x&lt;/i&gt;" in ladder.text
    for name in ("Scheme%20Test%20Client", "a/b%20%3Ci%3Ex%3C/i%3E"):
        page = site.client.get(f"/players/{name}")
        assert page.status_code == 200 and gid in page.text, name


def test_json_api(site: Site) -> None:
    queues = site.client.get("/api/queues").json()
    assert queues["queues"][0]["name"] == "torus" and queues["queues"][0]["waiting"] == []
    assert queues["challenges"] == []
    site.hub.open("live1", {"queue": "torus", "names": ["carol", "dave"]})
    site.hub.push("live1", site.states[0])
    live = site.client.get("/api/games?status=live").json()
    assert [(g["id"], g["status"], g["turn"]) for g in live] == [("live1", "live", 0)]
    finished = site.client.get("/api/games?status=finished").json()
    assert [g["id"] for g in finished] == [site.finished]
    assert {g["id"] for g in site.client.get("/api/games").json()} == {"live1", site.finished}
    assert site.client.get("/api/games?status=bogus").status_code == 400
    one = site.client.get(f"/api/games/{site.finished}").json()
    assert one["status"] == "finished" and one["replay"]["map"]["id"] == "torus-20@1"
    assert [s["name"] for s in one["seats"]] == ["alice", "bob"]
    assert site.client.get("/api/games/live1").json()["status"] == "live"
    assert site.client.get("/api/games/nope").status_code == 404
    ladder = site.client.get("/api/ladder/torus").json()
    assert {r["name"] for r in ladder} == {"alice", "bob"}
    assert all(r["games"] == 1 for r in ladder)
    assert site.client.get("/api/ladder/nope").status_code == 404
    assert site.client.get("/api/nothing").json() == {"error": "no such resource"}


def test_websocket_sends_the_game_so_far_each_turn_and_the_result(site: Site) -> None:
    states = site.states
    site.hub.open("g", {"queue": "torus", "names": ["alice", "bob"]})
    for s in states[:3]:
        site.hub.push("g", s)
    with site.client.websocket_connect("/ws/games/g") as ws:
        start = ws.receive_json()
        assert start["type"] == "start" and start["data"]["last"] == 2
        turns = []
        for s in states[3:]:  # a spectator that keeps up (the hub's queue here is 8)
            site.hub.push("g", s)
            turns.append(ws.receive_json())
        site.hub.close("g", {"result": "alice has won"})
        assert [t["turn"] for t in turns] == list(range(3, len(states)))
        end = ws.receive_json()
        assert end["type"] == "end" and end["result"] == "alice has won"
    with site.client.websocket_connect("/ws/games/nope") as ws:
        with pytest.raises(Exception) as closed:
            ws.receive_json()
        assert getattr(closed.value, "code", None) == 4404


def _stalled_client(port: int, path: str) -> socket.socket:
    """A websocket client that does the handshake and then never reads (a small receive
    buffer, set before connecting, so the server's sends soon block)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    s.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    reply = s.recv(1024)
    assert b" 101 " in reply.split(b"\r\n")[0], reply
    return s


def test_a_stalled_spectator_is_dropped_over_a_real_socket(site: Site) -> None:
    pytest.importorskip("websockets", reason="uvicorn's websockets need: pip install websockets")
    from websockets.sync.client import connect

    hub = site.hub  # queue=8: a spectator 8 frames behind is dropped
    # long bot names make every turn's frame big (its rows name the bots), so the
    # stalled client's socket buffers fill after a few hundred turns, not thousands
    bots = [{"name": n, "bot": n * 2000} for n in ("alice", "bob")]
    hub.open("g", {"queue": "torus", "seats": bots})
    hub.push("g", site.states[0])
    with LiveServer(site.app) as server:
        port = int(server.url.rstrip("/").rsplit(":", 1)[1])
        stalled = _stalled_client(port, "/ws/games/g")
        try:
            with connect(f"ws://127.0.0.1:{port}/ws/games/g") as good:
                assert json.loads(good.recv(timeout=10))["type"] == "start"
                deadline = time.monotonic() + 20
                while hub.spectators_of("g") < 2 and time.monotonic() < deadline:
                    time.sleep(0.01)
                assert hub.spectators_of("g") == 2
                # the game goes on turn after turn (the same states again: frames are
                # frames) until the stalled spectator's buffers and queue are full
                pushed = 0
                while hub.spectators_of("g") == 2 and time.monotonic() < deadline:
                    hub.push("g", site.states[1 + pushed % (len(site.states) - 1)])
                    pushed += 1
                    frame = json.loads(good.recv(timeout=10))
                    assert frame == {**frame, "type": "turn", "turn": pushed}
                assert hub.spectators_of("g") == 1, "the stalled spectator was not dropped"
                for _ in range(5):  # and the game still goes on for the good one
                    hub.push("g", site.states[1])
                    pushed += 1
                    assert json.loads(good.recv(timeout=10))["turn"] == pushed
                hub.close("g", {"result": "over"})
                assert json.loads(good.recv(timeout=10))["result"] == "over"
        finally:
            stalled.close()

"""The viewer's live mode in chromium: a real local game pushed into a LiveHub, served by
the live view server on 127.0.0.1; the page follows it turn by turn, then the result."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from lightcycle.core.state import GameState
from lightcycle.referee.local import play
from tests.viewer.browser.conftest import Tab

pytest.importorskip("fastapi", reason="the live view needs FastAPI: pip install 'lightcycle[web]'")
pytest.importorskip("websockets", reason="the live view needs websockets: pip install websockets")

from lightcycle.viewer.live import LiveHub
from lightcycle.viewer.live_server import LiveServer, create_live_app

pytestmark = pytest.mark.browser


@pytest.fixture
def served() -> Iterator[tuple[LiveHub, LiveServer]]:
    hub = LiveHub(keep=10)
    with LiveServer(create_live_app(hub)) as server:
        yield hub, server


def run_game(hub: LiveHub, game_id: str, pause: float, go: threading.Event) -> threading.Thread:
    """A real game (a local referee in a thread), paced, pushed into ``hub``."""

    def referee() -> None:
        go.wait(10)

        def on_turn(state: GameState) -> None:
            if hub.status(game_id) is None:
                hub.open(game_id, {"names": [t.name for t in state.teams], "map": "ring"})
            hub.push(game_id, state)
            time.sleep(pause)

        result = play("ring", ["chaser", "runaway"], seed=3, on_turn=on_turn)
        hub.close(game_id, {"replay": result.replay})

    thread = threading.Thread(target=referee, daemon=True)
    thread.start()
    return thread


def test_a_live_game_moves_on_the_page_then_shows_its_result(
    tab: Tab, served: tuple[LiveHub, LiveServer]
) -> None:
    hub, server = served
    go = threading.Event()
    hub.open("g1", {"map": "ring"})
    thread = run_game(hub, "g1", 0.08, go)
    tab.page.goto(f"{server.url}games/g1")
    go.set()
    tab.wait("window.lightcycle && window.lightcycle.ready && window.lightcycle.last >= 1")
    assert tab.js("window.lightcycle.live") in ("live", "connecting")
    first_last = tab.js("window.lightcycle.last")
    first_head = tab.js("window.lightcycle.data.heads[window.lightcycle.turn][0]")
    # the page follows the newest turn as frames come in: the counter and the board move
    tab.wait(f"window.lightcycle.last >= {first_last + 5}")
    turn, last = tab.js("[window.lightcycle.turn, window.lightcycle.last]")  # one look
    assert turn == last
    assert tab.js("window.lightcycle.data.heads[window.lightcycle.turn][0]") != first_head
    assert "turn" in tab.page.inner_text("#turninfo")
    assert tab.js("document.getElementById('live').textContent") == "● live"
    # the heading names the game once its first frame came, and says it is live
    heading = tab.page.inner_text("#title")
    assert heading.startswith("ring") and heading.endswith(" · live"), heading
    # stepping back is the usual control, and the page stays there while the game goes on
    tab.page.click("#prev")
    held = tab.js("window.lightcycle.turn")
    tab.wait(f"window.lightcycle.last >= {held + 3}")
    assert tab.js("window.lightcycle.turn") == held
    tab.page.keyboard.press("End")  # back to following
    # the end: the result, and the replay's full data (moves with their times)
    tab.wait("window.lightcycle.live === 'ended'", timeout=60)
    thread.join(10)
    result = tab.page.inner_text("#result")
    assert "has won" in result or "draw" in result
    assert tab.js("window.lightcycle.turn") == tab.js("window.lightcycle.last")
    assert tab.js("window.lightcycle.data.replay !== null")
    heading = tab.page.inner_text("#title")  # no longer "live" once the game is over
    assert heading.endswith(" · ended") and "live" not in heading, heading
    assert tab.errors == []
    assert all(r.startswith(server.url) for r in tab.requests)  # nothing from elsewhere


def test_a_dropped_connection_says_so(tab: Tab, served: tuple[LiveHub, LiveServer]) -> None:
    hub, server = served
    go = threading.Event()
    hub.open("g2", {"map": "ring"})
    thread = run_game(hub, "g2", 0.05, go)
    go.set()
    tab.page.goto(f"{server.url}games/g2")
    tab.wait("window.lightcycle && window.lightcycle.ready")
    server.close()  # the server goes away mid-game
    tab.wait("window.lightcycle.live === 'lost'")
    assert "connection lost" in tab.page.inner_text("#live")
    thread.join(20)


def test_the_front_page_goes_to_the_newest_game(
    tab: Tab, served: tuple[LiveHub, LiveServer]
) -> None:
    hub, server = served
    tab.page.goto(server.url)
    assert "Waiting" in tab.page.inner_text("body")
    go = threading.Event()
    hub.open("g3", {"map": "ring"})
    thread = run_game(hub, "g3", 0.0, go)
    go.set()
    thread.join(20)
    # the front page sends the browser on at once: on a busy machine that navigation may
    # abort the goto itself (even one that waits only for the commit), so an aborted goto
    # is expected, and the test waits for the new address instead
    try:
        tab.page.goto(server.url, wait_until="commit")
    except Exception as exc:  # playwright's Error: net::ERR_ABORTED
        if "ERR_ABORTED" not in str(exc):
            raise
    tab.page.wait_for_url("**/games/g3?follow=1", timeout=20_000)
    tab.wait("window.lightcycle && window.lightcycle.live === 'ended'")
    found: Any = tab.js("window.lightcycle.last")
    assert found > 0
    # a followed page goes on to the next game of a match once it starts
    go4 = threading.Event()
    hub.open("g4", {"map": "ring"})
    thread = run_game(hub, "g4", 0.05, go4)
    go4.set()
    tab.page.wait_for_url("**/games/g4?follow=1", timeout=20_000)
    tab.wait("window.lightcycle && window.lightcycle.ready")
    thread.join(20)

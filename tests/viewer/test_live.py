"""LiveHub: a real local game pushed in, the frames rebuild the replay viewer's data."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from lightcycle.core.state import GameState
from lightcycle.referee.local import play
from lightcycle.viewer.data import viewer_data
from lightcycle.viewer.live import Dropped, Frame, LiveHub, TooMany, move_token


def played(map_id: str = "ring", bots: tuple[str, ...] = ("chaser", "runaway"), seed: int = 3):
    """A real game: its states (turn 0 first) and its result."""
    states: list[GameState] = []
    result = play(map_id, list(bots), seed=seed, on_turn=states.append)
    return states, result


def rebuild(frames: list[dict[str, Any]]) -> dict[str, Any]:
    """What the page does with the frames (viewer.js's appendTurn), in Python."""
    assert frames[0]["type"] == "start"
    d = frames[0]["data"]
    open_at = {(t[1], t[0]): i for i, t in enumerate(d["trails"]) if t[3] is None}
    for f in frames[1:]:
        if f["type"] != "turn":
            continue
        n = f["turn"]
        assert n == d["last"] + 1
        d["heads"].append(f["heads"])
        d["marks"].append(f["marks"])
        d["rows"].append(f["rows"])
        if d["items"] is not None or f["items"] is not None:
            d["items"] = (d["items"] or [[]] * n) + [f["items"] or []]
        for cell, cycle in f["open"]:
            open_at[(cycle, cell)] = len(d["trails"])
            d["trails"].append([cell, cycle, n, None])
        for cell, cycle in f["close"]:
            d["trails"][open_at.pop((cycle, cell))][3] = n
        d["last"] = n
    return d


async def collect(hub: LiveHub, game_id: str) -> list[dict[str, Any]]:
    return [dict(f) async for f in hub.subscribe(game_id)]


@pytest.mark.parametrize(
    ("map_id", "bots", "ruleset"),
    [("ring", ("chaser", "runaway"), None), ("cube", ("chaser", "runaway"), None)],
)
def test_frames_rebuild_the_replay_viewer_data(map_id: str, bots: Any, ruleset: Any) -> None:
    states, result = played(map_id, bots)
    full = viewer_data(result.replay, states)
    hub = LiveHub()

    async def main() -> list[dict[str, Any]]:
        hub.open("g1", {"map": map_id, "names": result.names, "queue": "q"})
        task = asyncio.ensure_future(collect(hub, "g1"))
        await asyncio.sleep(0)  # subscribed before the first state
        for s in states:
            hub.push("g1", s)
            await asyncio.sleep(0)
        hub.close("g1", {"replay": result.replay})
        return await asyncio.wait_for(task, 10)

    frames = asyncio.run(main())
    assert [f["type"] for f in frames] == ["start"] + ["turn"] * (len(states) - 1) + ["end"]
    data = rebuild(frames)
    for key in ("heads", "marks", "last", "board", "cycles"):
        assert data[key] == full[key], key
    assert sorted(map(tuple, data["trails"]), key=str) == sorted(
        map(tuple, full["trails"]), key=str
    )
    # the live rows tell what a state tells: names, scores, who is alive, and the moves
    # of the cycles that moved (a crash leaves the head where it was: no move to see; the
    # end frame brings the replay's full rows)
    for live_rows, rows in zip(data["rows"], full["rows"], strict=True):
        for a, b in zip(live_rows, rows, strict=True):
            assert (a["name"], a["alive"], a["fate"], a["score"]) == (
                b["name"],
                b["alive"],
                b["fate"],
                b["score"],
            )
            if a["alive"] and "forfeit" not in b["moves"]:  # a forfeit's reason is not seen
                assert a["moves"] == b["moves"]
    end = frames[-1]
    assert end["result"] == full["result"]
    assert end["data"]["rows"] == full["rows"]  # the replay's full data comes at the end
    assert hub.status("g1") is None and hub.games() == []


def test_a_late_spectator_gets_the_game_so_far_then_each_turn() -> None:
    states, result = played()
    hub = LiveHub()
    half = len(states) // 2

    async def main() -> list[dict[str, Any]]:
        hub.open("g", {"names": result.names})
        for s in states[:half]:
            hub.push("g", s)
        assert hub.games()[0]["turn"] == half - 1
        task = asyncio.ensure_future(collect(hub, "g"))
        await asyncio.sleep(0.01)
        for s in states[half:]:
            hub.push("g", s)
        hub.close("g", {})
        return await asyncio.wait_for(task, 10)

    frames = asyncio.run(main())
    assert frames[0]["type"] == "start" and frames[0]["data"]["last"] == half - 1
    assert [f["turn"] for f in frames[1:-1]] == list(range(half, len(states)))
    assert frames[-1]["type"] == "end"
    # no replay given: the result still comes from the last state, in the viewer's words
    assert frames[-1]["result"] == viewer_data(result.replay, states)["result"]
    assert "data" not in frames[-1]


def test_a_stalled_spectator_is_dropped_and_the_game_goes_on() -> None:
    states, _ = played()
    hub = LiveHub(queue=4)
    hub.open("g", {})
    hub.push("g", states[0])

    async def main() -> list[dict[str, Any]]:
        good = asyncio.ensure_future(collect(hub, "g"))
        stalled = hub.subscribe("g")
        assert (await stalled.__anext__())["type"] == "start"  # then it never reads again
        await asyncio.sleep(0)
        for s in states[1:]:
            hub.push("g", s)
            await asyncio.sleep(0)  # the good one keeps up
        assert hub.spectators_of("g") == 1  # the stalled one is gone already
        hub.close("g", {})
        frames = await asyncio.wait_for(good, 10)
        with pytest.raises(Dropped):
            await stalled.__anext__()
        return frames

    frames = asyncio.run(main())
    assert len(states) > 10
    assert [f["type"] for f in frames] == ["start"] + ["turn"] * (len(states) - 1) + ["end"]


def test_push_from_another_thread_reaches_the_loop() -> None:
    states, result = played()
    hub = LiveHub()

    async def main() -> list[dict[str, Any]]:
        hub.open("t", {})
        task = asyncio.ensure_future(collect(hub, "t"))
        await asyncio.sleep(0)

        def referee() -> None:
            for s in states:
                hub.push("t", s)
            hub.close("t", {"replay": result.replay.to_json(), "aborted": False})

        thread = threading.Thread(target=referee)
        thread.start()
        frames = await asyncio.wait_for(task, 10)
        await asyncio.to_thread(thread.join)
        return frames

    frames = asyncio.run(main())
    assert len(frames) == len(states) + 1 and "data" in frames[-1]


def test_unknown_games_too_many_spectators_and_kept_games() -> None:
    states, _ = played()
    hub = LiveHub(spectators=1, keep=1)

    async def main() -> None:
        with pytest.raises(KeyError):
            await hub.subscribe("nope").__anext__()
        hub.open("a", {"queue": "q"})
        hub.push("a", states[0])
        first = hub.subscribe("a")
        await first.__anext__()
        with pytest.raises(TooMany):
            await hub.subscribe("a").__anext__()
        hub.close("a", {"aborted": True})
        assert (await first.__anext__())["result"] == "aborted"
        # kept: a spectator after the end gets the game and its end
        assert hub.status("a") == "finished"
        assert [f["type"] async for f in hub.subscribe("a")] == ["start", "end"]
        hub.open("b", {})
        hub.close("b", {})
        assert [g["id"] for g in hub.finished()] == ["b"]  # keep=1: "a" is forgotten
        assert hub.status("a") is None
        hub.push("nope", states[0])  # unknown games are ignored
        hub.close("nope", {})

    asyncio.run(main())


def test_frames_are_encoded_once_and_moves_are_told() -> None:
    f = Frame(type="turn", n=1)
    assert f.text is f.text and f.text == '{"type":"turn","n":1}'
    states, _ = played()
    s = states[1]
    before, after = states[0].cycles[0].head, s.cycles[0].head
    assert move_token(s, before, after) in ("n", "e", "s", "w")
    assert move_token(s, before, before) is None


def test_frames_are_made_only_for_spectators(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game nobody watches costs no frames and no end data; a late spectator still
    gets the same start frame as one who watched from the first turn."""
    from lightcycle.viewer import live

    made = {"rows": 0, "data": 0}
    rows_at, data_of = live.rows_at, live.viewer_data

    def counted_rows(*args: Any) -> Any:
        made["rows"] += 1
        return rows_at(*args)

    def counted_data(*args: Any) -> Any:
        made["data"] += 1
        return data_of(*args)

    monkeypatch.setattr(live, "rows_at", counted_rows)
    monkeypatch.setattr(live, "viewer_data", counted_data)
    states, result = played()
    half = len(states) // 2

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        unwatched, watched = LiveHub(), LiveHub()
        for hub in (unwatched, watched):
            hub.open("g", {"names": result.names})
        early = watched.subscribe("g")
        for s in states[:half]:
            unwatched.push("g", s)
        assert made == {"rows": 0, "data": 0}  # nobody watches: nothing is made
        for s in states[:half]:
            watched.push("g", s)
        await early.__anext__()
        late = unwatched.subscribe("g")
        late_start = dict(await late.__anext__())
        await late.aclose()
        rows = made["rows"]
        for s in states[half:]:
            unwatched.push("g", s)
        unwatched.close("g", {"replay": result.replay})
        assert made == {"rows": rows, "data": 0}  # the end frame nobody asked for
        return late_start, dict(watched._live["g"].snapshot())

    late_start, early_start = asyncio.run(main())
    assert late_start == early_start and late_start["data"]["last"] == half - 1


def test_the_local_views_page_names_a_game_once() -> None:
    """``lightcycle play --browser`` serves game ``game``: its page is "game", not
    "game game"; a match's ``game-3`` likewise, and another id gets the word."""
    pytest.importorskip("fastapi")
    from starlette.testclient import TestClient

    from lightcycle.viewer.live import LiveHub
    from lightcycle.viewer.live_server import create_live_app

    hub = LiveHub(keep=2)
    for gid in ("game", "game-3", "x1"):
        hub.open(gid, {"map": "ring"})
    with TestClient(create_live_app(hub)) as client:
        titles = {gid: client.get(f"/games/{gid}").text for gid in ("game", "game-3", "x1")}
    assert "<title>game</title>" in titles["game"] and "game game" not in titles["game"]
    assert "<title>game-3</title>" in titles["game-3"]
    assert "<title>game x1</title>" in titles["x1"]

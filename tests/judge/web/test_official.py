"""The official pages, public and live: a round started from the admin page, followed
through its matches (recorded through the service, as a worker would) to its player out
and the hall of fame; the history; the ladder's table; and the event stream over a real
socket (uvicorn on 127.0.0.1, port 0): an event at once, one at every change, and the
stream ends when the server stops."""

from __future__ import annotations

import dataclasses
import http.client
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "fastapi", reason="the judge's site needs FastAPI: pip install 'lightcycle[web]'"
)
pytest.importorskip(
    "python_multipart", reason="forms need python-multipart: pip install 'lightcycle[web]'"
)

from starlette.testclient import TestClient

from lightcycle.judge.service import rounds
from lightcycle.judge.service.contest import Contest, OfficialSpec
from lightcycle.judge.web.app import create_app
from lightcycle.judge.web.official import POLL_S
from tests.judge.service.test_roundviews import counting, round_of_duels
from tests.judge.web.conftest import DrivenStore, serving
from tests.judge.web.pages import accepted, play, post, sign_up

JANE, BOB, TEACHER = "jane@example.edu", "bob@example.edu", "teacher@example.edu"


@pytest.fixture
def visitor(app: Any) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


@pytest.fixture
def admin(app: Any, store: DrivenStore) -> Iterator[TestClient]:
    with TestClient(app) as c:
        sign_up(c, store, TEACHER)
        assert store.set_admin(TEACHER)
        yield c


def two_players(app: Any, store: DrivenStore) -> dict[str, int]:
    """Jane and Bob, each with an accepted program: the submissions by player name."""
    out = {}
    for email, name in ((JANE, "jane_1"), (BOB, "bob_1")):
        with TestClient(app) as c:
            out[name] = accepted(store, sign_up(c, store, email), name)
    return out


def round_matches(store: DrivenStore, rid: int) -> list[Any]:
    with store.engine.connect() as conn:
        detail = rounds.round_detail(conn, rid)
    assert detail is not None
    return [m for stage in detail.stages for m in stage.matches]


def test_before_any_round_the_page_is_public_and_says_so(
    visitor: TestClient, app: Any, store: DrivenStore
) -> None:
    two_players(app, store)
    page = visitor.get("/official")
    assert page.status_code == 200 and "No round has been played yet" in page.text
    version = page_version(page.text)
    assert f'sse-connect="/official/events?v={version}" data-version="{version}"' in page.text
    assert 'hx-trigger="sse:official"' in page.text
    assert "jane_1" in page.text and "bob_1" in page.text  # the standings: both in
    assert "No round has been played yet" in visitor.get("/official/rounds").text
    assert visitor.get("/official/rounds/1").status_code == 404
    assert visitor.get("/fragments/official/nothing").status_code == 404


def test_a_round_from_the_admin_page_to_its_player_out(
    visitor: TestClient,
    admin: TestClient,
    app: Any,
    store: DrivenStore,
    contest: Contest,
    replay_json: str,
) -> None:
    two_players(app, store)
    assert 'action="/admin/rounds"' in admin.get("/admin").text
    r = post(admin, "/admin/rounds")
    assert r.status_code == 303 and r.headers["location"] == "/official"
    (match,) = round_matches(store, 1)
    fragment = visitor.get("/fragments/official/round").text
    assert 'Round 1</a>: <strong class="round-state">running</strong>, stage 1' in fragment
    assert f'href="/matches/{match.id}"' in fragment and ">queued<" in fragment
    assert "Round 1 is running" in admin.get("/admin").text
    refused = post(admin, "/admin/rounds")
    assert refused.status_code == 400 and "round 1 is running" in refused.text
    assert visitor.get(f"/matches/{match.id}").status_code == 200  # official: public

    winner, loser = match.seats[0].name, match.seats[1].name
    play(store, contest, match.id, replay_json, ranks=(1, 2))
    fragment = visitor.get("/fragments/official/round").text
    assert '<strong class="round-state">done</strong>' in fragment
    assert f"{loser} is out" in fragment and "#1" in fragment
    standings = visitor.get("/fragments/official/standings").text
    assert "champion" in standings and "out" in standings
    hall = visitor.get("/fragments/official/hall").text
    assert f'Champion: <strong class="good">{winner}</strong>' in hall and loser in hall
    history = visitor.get("/official/rounds").text
    assert 'href="/official/rounds/1"' in history and loser in history
    page = visitor.get("/official/rounds/1")
    assert page.status_code == 200 and 'hx-get="/fragments/official/rounds/1"' in page.text
    assert f"{loser} is out" in visitor.get("/fragments/official/rounds/1").text
    refused = post(admin, "/admin/rounds")  # one player left: the champion
    assert refused.status_code == 400 and "a round needs at least 2" in refused.text


def test_rounds_in_a_row_keep_the_last_player_out_on_the_page(
    visitor: TestClient, app: Any, store: DrivenStore, contest: Contest, replay_json: str
) -> None:
    two_players(app, store)
    with TestClient(app) as cy:
        accepted(store, sign_up(cy, store, "cy@example.edu"), "cy_1")
    rid = rounds.start_round(store.engine, contest, seed=3)
    while True:  # play round 1's stages: a Dummy always loses, else seat 0 wins
        queued = [m for m in round_matches(store, rid) if m.state == "queued"]
        if not queued:
            break
        for m in queued:
            ranks = tuple(
                2 if s.submission_id is None else 1 + (i > 0) for i, s in enumerate(m.seats)
            )
            play(store, contest, m.id, replay_json, ranks=ranks)
    with store.engine.connect() as conn:
        first, second = sorted(rounds.rounds_list(conn), key=lambda r: r.number)
    assert first.state == "done" and first.out_name and second.state == "running"
    fragment = visitor.get("/fragments/official/round").text
    assert "Round 2</a>" in fragment and "running" in fragment
    assert f'round 1</a>, <span class="bad">{first.out_name} out</span>' in fragment


def test_only_admins_start_rounds_and_only_with_the_token(
    visitor: TestClient, admin: TestClient, app: Any, store: DrivenStore
) -> None:
    two_players(app, store)
    assert visitor.post("/admin/rounds").status_code == 401
    sign_up(visitor, store, "eve@example.edu")
    assert post(visitor, "/admin/rounds").status_code == 403
    for sent in ({}, {"csrf": "forged"}):
        assert admin.post("/admin/rounds", data=sent).status_code == 403
    with store.engine.connect() as conn:
        assert rounds.rounds_list(conn) == []


def test_failed_matches_are_listed_for_the_admin(
    admin: TestClient, app: Any, store: DrivenStore, contest: Contest
) -> None:
    from lightcycle.judge.service.matches import fail_match
    from lightcycle.storage import begin_write

    two_players(app, store)
    post(admin, "/admin/rounds")
    (match,) = round_matches(store, 1)
    with begin_write(store.engine) as conn:
        fail_match(conn, match.id, "the worker went silent 3 times", contest)
    page = admin.get("/admin").text
    assert "the worker went silent 3 times" in page and f'href="/matches/{match.id}"' in page


def test_a_contest_without_official_play_says_so(store: DrivenStore, contest: Contest) -> None:
    quiet = dataclasses.replace(contest, official=OfficialSpec(mode="none"))
    with TestClient(create_app(store, quiet, b"k" * 32)) as visitor:
        assert 'href="/official"' not in visitor.get("/").text
        page = visitor.get("/official").text
        assert 'id="no-official"' in page and 'sse-connect="' not in page


# -- the ladder ---------------------------------------------------------------------------
@pytest.fixture
def ladder_app(store: DrivenStore, contest: Contest) -> Any:
    spec = OfficialSpec(mode="ladder", group_size=2, ladder_parallel=1)
    return create_app(store, dataclasses.replace(contest, official=spec), b"k" * 32)


def test_the_ladder_table_and_its_switch(
    ladder_app: Any, store: DrivenStore, contest: Contest, replay_json: str
) -> None:
    two_players(ladder_app, store)
    with TestClient(ladder_app) as admin, TestClient(ladder_app) as visitor:
        sign_up(admin, store, TEACHER)
        store.set_admin(TEACHER)
        page = visitor.get("/official").text
        assert "ordinal = mu − 3 sigma" in page and 'id="ladder-on">off<' in page
        assert 'action="/admin/rounds"' not in admin.get("/admin").text
        assert post(admin, "/admin/ladder", on="1").status_code == 303
        assert "The ladder is <strong>on</strong>" in admin.get("/admin").text
        page = visitor.get("/fragments/official/ladder").text
        assert 'id="ladder-on">on<' in page and ">queued<" in page
        (mid,) = [int(x.split('"')[0]) for x in page.split('href="/matches/')[1:]]
        ladder_contest = dataclasses.replace(
            contest, official=OfficialSpec(mode="ladder", group_size=2, ladder_parallel=1)
        )
        post(admin, "/admin/ladder", on="0")  # no new match after this one
        play(store, ladder_contest, mid, replay_json, ranks=(1, 2))
        table = visitor.get("/fragments/official/ladder").text
        assert table.count('class="games">1<') == 2  # both rated once
        assert 'id="ladder-on">off<' in table


def page_version(page: str) -> str:
    """The ``data-version`` a page was rendered with (the version its parts show)."""
    found = re.search(r'data-version="([0-9a-f]{16})"', page)
    assert found is not None, "the page has no data-version"
    return found[1]


@pytest.mark.parametrize("path", ["/official", "/official/rounds/1", "/fragments/official/round"])
def test_a_round_page_asks_as_much_for_40_matches_as_for_8(
    path: str, contest: Contest, tmp_path: Path
) -> None:
    counts = []
    for n in (8, 40):
        store, rid = round_of_duels(tmp_path / f"judge{n}.db", n)
        try:
            with (
                TestClient(create_app(store, contest, b"k" * 32)) as c,
                counting(store.engine) as seen,
            ):
                page = c.get(path)
                assert page.status_code == 200 and f"Round {rid}" in page.text
            counts.append(len(seen))
        finally:
            store.close()
    assert counts[0] == counts[1]


def test_the_pages_of_one_version_share_one_read(
    visitor: TestClient, app: Any, store: DrivenStore, contest: Contest
) -> None:
    two_players(app, store)
    first = visitor.get("/official").text
    with counting(store.engine) as seen:
        again = visitor.get("/official").text
        for part in ("round", "standings", "hall"):
            assert visitor.get(f"/fragments/official/{part}").status_code == 200
    assert page_version(again) == page_version(first)
    asked = [q for q in seen if q.strip() != "BEGIN"]  # SQLite's transactions aside
    assert len(asked) == 4 * 4  # the version's 4 statements for each request, nothing else
    rounds.start_round(store.engine, contest)
    page = visitor.get("/official").text  # a new version: read again, at once
    assert page_version(page) != page_version(first) and "running" in page


def test_the_version_is_read_once_per_period_for_every_page() -> None:
    from lightcycle.judge.web.official import VersionClock

    reads: list[str] = []

    def read() -> str:
        reads.append("r")
        return f"v{len(reads)}"

    clock = VersionClock(read, every=0.2)
    first = {clock.get() for _ in range(50)}
    assert len(reads) == 1 and len(first) == 1
    assert "v1" not in first  # a digest, not the database's counts
    time.sleep(0.25)
    assert clock.get() not in first and len(reads) == 2


def test_every_open_stream_shares_one_poller() -> None:
    import asyncio

    from lightcycle.judge.web.official import VersionClock

    reads: list[float] = []
    value = ["v1"]

    def read() -> str:
        reads.append(time.monotonic())
        return value[0]

    clock = VersionClock(read, every=0.1)

    async def stream(seen: list[str | None]) -> None:
        async with clock.listening():
            for _ in range(2):
                seen.append(await clock.changed(seen[-1], timeout=5))

    async def main() -> list[list[str | None]]:
        seen: list[list[str | None]] = [[None] for _ in range(50)]
        tasks = [asyncio.create_task(stream(s)) for s in seen]
        await asyncio.sleep(0.35)  # every stream has its first version; about 4 reads
        value[0] = "v2"
        await asyncio.gather(*tasks)
        assert len(reads) <= 10, f"{len(reads)} reads for 50 streams in about 0.5 s"
        await asyncio.sleep(0.25)  # no stream open: the poller stops
        stopped = len(reads)
        await asyncio.sleep(0.3)
        assert len(reads) == stopped  # nothing is read while no stream is open
        return seen

    seen = asyncio.run(main())
    first, second = {s[1] for s in seen}, {s[2] for s in seen}
    assert len(first) == 1 and len(second) == 1 and first != second  # all told, once each


# -- live: the event stream over a real socket --------------------------------------------
@pytest.fixture
def served(contest: Contest, tmp_path: Path) -> Iterator[Any]:
    with serving(contest, tmp_path) as judge:
        yield judge


def read_event(response: http.client.HTTPResponse, deadline: float) -> dict[str, str]:
    """The next event of the stream (its fields), skipping comments and retry lines."""
    fields: dict[str, str] = {}
    while time.monotonic() < deadline:
        line = response.readline().decode().rstrip("\n")
        if not line:
            if "event" in fields:
                return fields
            continue
        if not line.startswith(":"):
            key, _, value = line.partition(": ")
            fields[key] = value
    raise AssertionError("no event in time")


def test_the_event_stream_follows_official_changes_and_ends_with_the_server(
    served: Any, contest: Contest, replay_json: str
) -> None:
    with DrivenStore(served.contest.judge.database) as store:
        two_players(create_app(store, contest, b"k" * 32), store)
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        conn.request("GET", "/official/events")
        response = conn.getresponse()
        assert response.status == 200
        assert response.getheader("content-type", "").startswith("text/event-stream")
        first = read_event(response, time.monotonic() + 10)
        assert first["event"] == "official" and first["data"]
        rid = rounds.start_round(store.engine, served.contest)
        second = read_event(response, time.monotonic() + 10)
        assert second["event"] == "official" and second["data"] != first["data"]
        (match,) = round_matches(store, rid)
        play(store, served.contest, match.id, replay_json)
        third = read_event(response, time.monotonic() + 10)
        assert third["data"] not in (first["data"], second["data"])
        served.stop()  # with the stream still open: the fixture checks the server ends
        deadline = time.monotonic() + 15
        while response.readline() and time.monotonic() < deadline:
            pass  # the stream ends (the server closes it)
        assert time.monotonic() < deadline, "the stream outlived the server"
        conn.close()


def open_stream(port: int, path: str, **headers: str) -> http.client.HTTPResponse:
    """An event stream opened as a page's ``EventSource`` does."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path, headers={"Accept": "text/event-stream", **headers})
    response = conn.getresponse()
    assert response.status == 200
    return response


def test_the_stream_sends_nothing_for_the_version_the_page_shows(
    served: Any, contest: Contest
) -> None:
    with DrivenStore(served.contest.judge.database) as store:
        two_players(create_app(store, contest, b"k" * 32), store)
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        conn.request("GET", "/official")
        page = conn.getresponse().read().decode()
        conn.close()
        shown = page_version(page)
        found = re.search(r'sse-connect="([^"]+)"', page)
        assert found is not None and found[1] == f"/official/events?v={shown}"
        plain = open_stream(served.port, "/official/events")  # no version: told at once
        assert read_event(plain, time.monotonic() + 10)["data"] == shown  # the same digest
        pages = [
            open_stream(served.port, found[1]),  # the page's own stream
            open_stream(served.port, "/official/events", **{"Last-Event-ID": shown}),  # again
        ]
        time.sleep(4 * POLL_S)  # the poller reads the version again meanwhile: unchanged
        rounds.start_round(store.engine, served.contest)
        for response in pages:  # the first event they get is the change, not the page's
            event = read_event(response, time.monotonic() + 10)
            assert event["data"] != shown and event["id"] == event["data"]
        served.stop()
        for response in (plain, *pages):
            response.close()

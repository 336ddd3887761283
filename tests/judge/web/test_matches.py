"""Friendly matches through the website on the real store: who may put which program in
a match (own, public, a friend's private one, the Dummy; never a stranger's private one),
what a refusal says, who may see a match (its programs' owners and admins; anyone else
gets 404), and a played match's page: ranks, scores, verdicts, the CPU share, the game in
the viewer, each seat's stderr to its owner only."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

pytest.importorskip(
    "fastapi", reason="the judge's site needs FastAPI: pip install 'lightcycle[web]'"
)
pytest.importorskip(
    "python_multipart", reason="forms need python-multipart: pip install 'lightcycle[web]'"
)

from starlette.testclient import TestClient

from lightcycle.judge.service.contest import Contest
from tests.judge.web.conftest import DrivenStore
from tests.judge.web.pages import accepted, play, post, sign_up, token

JANE, BOB, EVE = "jane@example.edu", "bob@example.edu", "eve@example.edu"


@pytest.fixture
def eve(app: Any) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def start(c: TestClient, *seats: str) -> Any:
    return c.post(
        "/matches",
        data={"csrf": token(c, "/matches"), "seat": list(seats)},
        follow_redirects=False,
    )


def match_id(response: Any) -> int:
    assert response.status_code == 303, response.text
    return int(response.headers["location"].rsplit("/", 1)[1])


def test_the_form_offers_own_public_and_friends_programs_only(
    jane: TestClient, bob: TestClient, eve: TestClient, store: DrivenStore
) -> None:
    jane_id = sign_up(jane, store, JANE)
    bob_id = sign_up(bob, store, BOB)
    eve_id = sign_up(eve, store, EVE)
    mine = accepted(store, jane_id, "jane_1")
    friends = accepted(store, bob_id, "bob_1")
    public = accepted(store, eve_id, "eve_pub")
    secret = accepted(store, eve_id, "eve_secret")
    post(eve, f"/programs/{public}/public")
    post(jane, f"/programs/{mine}/public")  # private, it could not meet eve's (not friends)
    post(jane, "/friends/add", email=BOB)
    post(bob, "/friends/add", email=JANE)
    page = jane.get("/matches").text
    for sid in (mine, friends, public):
        assert f'<option value="{sid}"' in page, sid
    assert f'<option value="{secret}"' not in page and "eve_secret" not in page
    assert '<option value="dummy"' in page
    assert page.count('name="seat"') == 2  # the contest's friendly matches are duels


@pytest.mark.parametrize(
    ("filler", "option", "prose"),
    [
        ("builtin:dummy", ">Dummy</option>", "and the Dummy."),
        (
            "builtin:random",
            ">builtin:random (the reference bot)</option>",
            "the reference bot builtin:random.",
        ),
    ],
)
def test_the_empty_seat_is_named_as_the_contest_makes_it(
    store: DrivenStore, contest: Contest, filler: str, option: str, prose: str
) -> None:
    """A contest whose friendly matches are filled by builtin:random says so, not
    "Dummy" (the 3D course's name for its reference bot)."""
    from starlette.testclient import TestClient

    from lightcycle.judge.web.app import create_app

    mine = replace(contest, official=replace(contest.official, filler=filler))
    with TestClient(create_app(store, mine, b"k" * 32)) as browser:
        accepted(store, sign_up(browser, store, JANE), "jane_1")
        page = browser.get("/matches").text
    assert option in page and prose in page
    if filler != "builtin:dummy":
        assert "Dummy" not in page


def test_start_a_match_against_the_dummy_and_watch_it(
    jane: TestClient, store: DrivenStore, contest: Contest, replay_json: str
) -> None:
    jane_id = sign_up(jane, store, JANE)
    sid = accepted(store, jane_id, "jane_1")
    mid = match_id(start(jane, str(sid), "dummy"))
    page = jane.get(f"/matches/{mid}")
    assert page.status_code == 200 and ">queued<" in page.text
    assert f'hx-get="/fragments/matches/{mid}"' in page.text
    assert "jane_1" in page.text and "dummy 1" in page.text
    assert "data-final" not in jane.get(f"/fragments/matches/{mid}").text
    assert f'href="/matches/{mid}"' in jane.get("/matches").text  # in my matches
    play(store, contest, mid, replay_json, ranks=(1, 2), stderr="debug")
    fragment = jane.get(f"/fragments/matches/{mid}").text
    assert "data-final" in fragment and ">done<" in fragment
    assert "exit status 1 on turn 3" in fragment and "crashed at turn 3" in fragment
    assert "<th>turn</th>" not in fragment  # no column left empty for the seats that ran
    assert "25.0 %" in fragment and "50.0 %" in fragment  # 0.5 s and 1.0 s of 2 s
    assert f'src="/matches/{mid}/game?embed=1"' in fragment
    assert "debug seat 0" in fragment  # her own program's stderr
    assert "debug seat 1" not in fragment  # the Dummy's is nobody's to read
    viewer = jane.get(f"/matches/{mid}/game")
    assert viewer.status_code == 200 and "lightcycle" in viewer.text
    assert f'href="/matches/{mid}"' in viewer.text  # opened alone: a way back
    assert f'href="/matches/{mid}"' not in jane.get(f"/matches/{mid}/game?embed=1").text


def test_a_friend_sees_the_match_and_a_stranger_gets_404(
    jane: TestClient,
    bob: TestClient,
    eve: TestClient,
    store: DrivenStore,
    contest: Contest,
    replay_json: str,
) -> None:
    jane_id, bob_id = sign_up(jane, store, JANE), sign_up(bob, store, BOB)
    sign_up(eve, store, EVE)
    mine, theirs = accepted(store, jane_id, "jane_1"), accepted(store, bob_id, "bob_1")
    post(jane, "/friends/add", email=BOB)
    post(bob, "/friends/add", email=JANE)
    mid = match_id(start(jane, str(mine), str(theirs)))
    play(store, contest, mid, replay_json, stderr="secret plan")
    theirs_page = bob.get(f"/fragments/matches/{mid}").text
    assert "secret plan seat 1" in theirs_page and "secret plan seat 0" not in theirs_page
    paths = (f"/matches/{mid}", f"/fragments/matches/{mid}", f"/matches/{mid}/game")
    for path in paths:
        assert bob.get(path).status_code == 200, path
        r = eve.get(path)
        assert r.status_code == 404 and "no match" in r.text and "jane_1" not in r.text, path
        with TestClient(jane.app) as anonymous:
            assert anonymous.get(path).status_code == 404, path
    assert f'href="/matches/{mid}"' not in eve.get("/matches").text
    store.set_admin(EVE)
    assert eve.get(f"/matches/{mid}").status_code == 200


@pytest.mark.parametrize(
    ("seats", "problem"),
    [
        (("STRANGER", "dummy"), "not a program you can use"),
        (("MINE",), "a friendly match has 2 players here, not 1"),
        (("MINE", "MINE", "dummy"), "not 3"),
        (("dummy", "dummy"), "at least one of your own programs"),
        (("MINE", "x"), "choose a program or the reference bot for every seat"),
        (("FRIENDS_PRIVATE_NOT_FRIEND", "MINE"), "not a program you can use"),
    ],
)
def test_refused_matches_are_one_line_and_create_nothing(
    jane: TestClient,
    eve: TestClient,
    store: DrivenStore,
    seats: tuple[str, ...],
    problem: str,
) -> None:
    jane_id, eve_id = sign_up(jane, store, JANE), sign_up(eve, store, EVE)
    ids = {
        "MINE": str(accepted(store, jane_id, "jane_1")),
        "STRANGER": str(accepted(store, eve_id, "eve_1")),
    }
    post(jane, "/friends/add", email=EVE)  # one way: not friends
    ids["FRIENDS_PRIVATE_NOT_FRIEND"] = ids["STRANGER"]
    r = start(jane, *(ids.get(s, s) for s in seats))
    assert r.status_code == 400 and problem in r.text, r.text
    assert "Traceback" not in r.text
    assert "No match yet" in jane.get("/matches").text


def test_match_forms_need_a_login_and_the_token(jane: TestClient, store: DrivenStore) -> None:
    with TestClient(jane.app) as anonymous:
        assert anonymous.get("/matches").status_code == 401
        assert anonymous.post("/matches", data={"seat": ["dummy"]}).status_code == 401
    jane_id = sign_up(jane, store, JANE)
    sid = accepted(store, jane_id, "jane_1")
    for sent in ({}, {"csrf": "forged"}):
        r = jane.post("/matches", data={"seat": [str(sid), "dummy"], **sent})
        assert r.status_code == 403
    assert "No match yet" in jane.get("/matches").text
    assert jane.get("/matches/999").status_code == 404
    assert jane.get("/matches/x").status_code == 400

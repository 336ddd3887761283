"""The friends and programs pages through Starlette's TestClient on the real store: a
friendship both ways, requests withdrawn and declined, the one-way public switch, the
official program's choice, and every form refused without its CSRF token or a login."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "fastapi", reason="the judge's site needs FastAPI: pip install 'lightcycle[web]'"
)
pytest.importorskip(
    "python_multipart", reason="forms need python-multipart: pip install 'lightcycle[web]'"
)

from starlette.testclient import TestClient

from lightcycle.judge.service import social
from tests.judge.web.conftest import DrivenStore
from tests.judge.web.pages import accepted, post, sign_up

JANE, BOB = "jane@example.edu", "bob@example.edu"


def section(page: str, table_id: str) -> str:
    """The text of the list ``table_id`` on the friends page (up to the next heading)."""
    start = page.index(f'id="{table_id}"')
    end = page.find("<h2>", start)
    return page[start : end if end >= 0 else None]


# -- friends ------------------------------------------------------------------------------
def test_a_friendship_needs_both_and_either_can_end_it(
    jane: TestClient, bob: TestClient, store: DrivenStore
) -> None:
    jane_id, bob_id = sign_up(jane, store, JANE), sign_up(bob, store, BOB)
    assert post(jane, "/friends/add", email=" Bob@Example.edu ").status_code == 303
    page = jane.get("/friends").text
    assert BOB in section(page, "sent") and BOB not in section(page, "mutual")
    theirs = bob.get("/friends").text
    assert JANE in section(theirs, "received") and "add back" in theirs
    assert post(bob, "/friends/add", email=JANE).status_code == 303
    assert BOB in section(jane.get("/friends").text, "mutual")
    assert JANE in section(bob.get("/friends").text, "mutual")
    with store.engine.connect() as conn:
        assert social.are_friends(conn, jane_id, bob_id)
    assert post(jane, "/friends/remove", friend_id=str(bob_id)).status_code == 303
    for client, other in ((jane, BOB), (bob, JANE)):
        assert other not in client.get("/friends").text
    with store.engine.connect() as conn:
        assert not social.are_friends(conn, jane_id, bob_id)


def test_a_request_can_be_declined(jane: TestClient, bob: TestClient, store: DrivenStore) -> None:
    jane_id = sign_up(jane, store, JANE)
    sign_up(bob, store, BOB)
    post(jane, "/friends/add", email=BOB)
    assert post(bob, "/friends/remove", friend_id=str(jane_id)).status_code == 303
    assert BOB not in jane.get("/friends").text and JANE not in bob.get("/friends").text


@pytest.mark.parametrize(
    ("email", "problem"),
    [
        ("nobody@example.edu", "nobody has signed up with nobody@example.edu"),
        (JANE, "is your own email"),
        ("", "type your friend"),
    ],
)
def test_refused_friend_requests_are_one_line(
    jane: TestClient, store: DrivenStore, email: str, problem: str
) -> None:
    sign_up(jane, store, JANE)
    r = post(jane, "/friends/add", email=email)
    assert r.status_code == 400 and problem in r.text and "Traceback" not in r.text


def test_friend_forms_need_a_login_and_the_token(
    jane: TestClient, bob: TestClient, store: DrivenStore
) -> None:
    sign_up(bob, store, BOB)
    assert jane.get("/friends").status_code == 401
    assert jane.post("/friends/add", data={"email": BOB}).status_code == 401
    sign_up(jane, store, JANE)
    for sent in ({}, {"csrf": "forged"}):
        r = jane.post("/friends/add", data={"email": BOB, **sent})
        assert r.status_code == 403 and "reload the page" in r.text
        assert jane.post("/friends/remove", data={"friend_id": "1", **sent}).status_code == 403
    assert BOB not in jane.get("/friends").text
    assert post(jane, "/friends/remove", friend_id="x").status_code == 400


# -- programs -----------------------------------------------------------------------------
def test_making_a_program_public_is_one_way(
    jane: TestClient, bob: TestClient, store: DrivenStore
) -> None:
    jane_id = sign_up(jane, store, JANE)
    sid = accepted(store, jane_id, "jane_1")
    page = jane.get("/programs").text
    assert "cannot be undone" in page.lower() or "can never be made private" in page
    assert f'action="/programs/{sid}/public"' in page
    assert post(jane, f"/programs/{sid}/public").status_code == 303
    row = store.submission(sid)
    assert row is not None and row.public
    page = jane.get("/programs").text
    assert 'class="public">public<' in page and f'action="/programs/{sid}/public"' not in page
    assert post(jane, f"/programs/{sid}/public").status_code == 303  # twice: still public
    for path in (f"/programs/{sid}/private", f"/programs/{sid}/public?undo=1"):
        post(jane, path)
    row = store.submission(sid)
    assert row is not None and row.public  # there is no way back
    sign_up(bob, store, BOB)
    r = post(bob, f"/programs/{sid}/public")
    assert r.status_code == 400 and "not one of yours" in r.text


def test_a_private_program_of_another_cannot_be_made_public(
    jane: TestClient, bob: TestClient, store: DrivenStore
) -> None:
    jane_id = sign_up(jane, store, JANE)
    sid = accepted(store, jane_id, "jane_1")
    sign_up(bob, store, BOB)
    r = post(bob, f"/programs/{sid}/public")
    assert r.status_code == 400 and "not one of yours" in r.text
    row = store.submission(sid)
    assert row is not None and not row.public
    assert "jane_1" not in bob.get("/programs").text


def test_choosing_the_official_program(jane: TestClient, store: DrivenStore) -> None:
    jane_id = sign_up(jane, store, JANE)
    old = accepted(store, jane_id, "jane_1")
    new = accepted(store, jane_id, "jane_2")
    failed = store.submit(jane_id, "jane_3", "python", "bot.py", b"x")
    store.record(failed, "build_failed", "syntax error", step=("build", False, ""))
    page = jane.get("/programs").text
    assert "takes effect when the next round starts" in page
    assert "(newest accepted)" in page
    assert f'action="/programs/{old}/official"' in page
    assert f'action="/programs/{new}/official"' not in page  # it plays already
    assert f'action="/programs/{failed}/official"' not in page
    assert f'action="/programs/{failed}/public"' not in page  # a rejected one never plays
    assert post(jane, f"/programs/{old}/official").status_code == 303
    user = store.user(jane_id)
    assert user is not None and user.official_submission_id == old
    page = jane.get("/programs").text
    assert f'action="/programs/{new}/official"' in page and "(newest accepted)" not in page
    r = post(jane, f"/programs/{failed}/official")
    assert r.status_code == 400 and "not accepted" in r.text


def test_program_forms_need_a_login_and_the_token(jane: TestClient, store: DrivenStore) -> None:
    jane_id = sign_up(jane, store, JANE)
    sid = accepted(store, jane_id, "jane_1")
    for sent in ({}, {"csrf": "forged"}):
        assert jane.post(f"/programs/{sid}/public", data=sent).status_code == 403
        assert jane.post(f"/programs/{sid}/official", data=sent).status_code == 403
    row, user = store.submission(sid), store.user(jane_id)
    assert row is not None and not row.public
    assert user is not None and user.official_submission_id is None
    with TestClient(jane.app) as anonymous:
        assert anonymous.get("/programs").status_code == 401
        assert anonymous.post(f"/programs/{sid}/public").status_code == 401

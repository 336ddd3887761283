"""Every route of the judge's website through Starlette's TestClient: accounts, CSRF
refusals, upload checks, submissions with steps, games and replays, the admin page, and
errors as pages."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip(
    "fastapi", reason="the judge's site needs FastAPI: pip install 'lightcycle[web]'"
)
pytest.importorskip(
    "python_multipart", reason="uploads need python-multipart: pip install 'lightcycle[web]'"
)
pytest.importorskip(
    "itsdangerous", reason="sessions need itsdangerous: pip install 'lightcycle[web]'"
)

from starlette.testclient import TestClient

from lightcycle.judge.service.contest import Contest
from lightcycle.judge.web.accounts import safe_filename
from lightcycle.judge.web.app import create_app
from lightcycle.storage.passwords import verify_secret
from tests.judge.web.conftest import SOURCE_SIZE, DrivenStore, crash_seats
from tests.judge.web.pages import PASSWORD, token

BOT = b'import sys\nfor line in sys.stdin:\n    print(\'{"move": "N"}\', flush=True)\n'


def sign_up(client: TestClient, email: str = "jane@example.edu", password: str = PASSWORD) -> Any:
    return client.post(
        "/signup",
        data={"csrf": token(client, "/signup"), "email": email, "password": password},
        follow_redirects=False,
    )


def upload(
    client: TestClient,
    name: str = "jane_2",
    language: str = "python",
    filename: str = "bot.py",
    content: bytes = BOT,
    csrf: str | None = None,
) -> Any:
    return client.post(
        "/submit",
        data={"csrf": token(client) if csrf is None else csrf, "name": name, "language": language},
        files={"source": (filename, content, "text/plain")},
        follow_redirects=False,
    )


# -- accounts -----------------------------------------------------------------------------
def test_anonymous_front_page_offers_log_in_and_sign_up(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert "Test contest" in page.text and 'href="/signup"' in page.text
    assert 'action="/submit"' not in page.text


def test_sign_up_logs_in_and_stores_only_a_hash(client: TestClient, store: DrivenStore) -> None:
    r = sign_up(client, "Jane@Example.edu")
    assert r.status_code == 303 and r.headers["location"] == "/"
    row = store.user_by_email("jane@example.edu")
    assert row is not None and PASSWORD not in row.password_hash
    assert verify_secret(PASSWORD, row.password_hash)
    page = client.get("/")
    assert "jane@example.edu" in page.text and 'action="/submit"' in page.text


@pytest.mark.parametrize(
    ("email", "password", "problem"),
    [
        ("not-an-email", PASSWORD, "give an email address"),
        ("jane@example.edu", "short", "at least 8 characters"),
    ],
)
def test_sign_up_refuses_bad_fields(
    client: TestClient, store: DrivenStore, email: str, password: str, problem: str
) -> None:
    r = sign_up(client, email, password)
    assert r.status_code == 400 and problem in r.text
    assert store.count_users() == 0


def test_sign_up_refuses_a_taken_email(client: TestClient) -> None:
    assert sign_up(client).status_code == 303
    with TestClient(client.app) as other:
        r = sign_up(other, "JANE@example.edu")
    assert r.status_code == 400 and "already has an account" in r.text


def test_log_out_then_log_in(client: TestClient) -> None:
    sign_up(client)
    r = client.post("/logout", data={"csrf": token(client)}, follow_redirects=False)
    assert r.status_code == 303
    assert 'action="/submit"' not in client.get("/").text
    wrong = client.post(
        "/login",
        data={
            "csrf": token(client, "/login"),
            "email": "jane@example.edu",
            "password": "nope nope",
        },
    )
    assert wrong.status_code == 400 and "wrong email or password" in wrong.text
    unknown = client.post(
        "/login",
        data={"csrf": token(client, "/login"), "email": "bob@example.edu", "password": PASSWORD},
    )
    assert unknown.status_code == 400 and "wrong email or password" in unknown.text
    good = client.post(
        "/login",
        data={"csrf": token(client, "/login"), "email": "JANE@example.edu", "password": PASSWORD},
        follow_redirects=False,
    )
    assert good.status_code == 303
    assert 'action="/submit"' in client.get("/").text


# -- CSRF ---------------------------------------------------------------------------------
def test_every_form_refuses_a_post_without_the_session_token(
    client: TestClient, store: DrivenStore
) -> None:
    fields = {"email": "jane@example.edu", "password": PASSWORD}
    for sent in ({}, {"csrf": ""}, {"csrf": "forged"}):
        r = client.post("/signup", data={**fields, **sent})
        assert r.status_code == 403 and "reload the page" in r.text
        assert "Traceback" not in r.text
    assert store.count_users() == 0
    sign_up(client)
    assert client.post("/login", data={**fields, "csrf": "forged"}).status_code == 403
    assert upload(client, csrf="forged").status_code == 403
    assert store.count_submissions() == 0
    assert client.post("/logout", data={}).status_code == 403
    assert 'action="/submit"' in client.get("/").text  # still logged in


def test_a_token_of_another_session_is_refused(client: TestClient) -> None:
    with TestClient(client.app) as other:
        theirs = token(other, "/signup")
    token(client, "/signup")
    r = client.post(
        "/signup", data={"csrf": theirs, "email": "jane@example.edu", "password": PASSWORD}
    )
    assert r.status_code == 403


def test_log_in_makes_a_new_token(client: TestClient) -> None:
    before = token(client, "/signup")
    sign_up(client)
    assert token(client) != before


# -- uploads ------------------------------------------------------------------------------
def test_an_upload_is_stored_and_shown(client: TestClient, store: DrivenStore) -> None:
    sign_up(client)
    r = upload(client)
    assert r.status_code == 303
    sid = int(r.headers["location"].rsplit("/", 1)[1])
    row = store.submission(sid)
    assert row is not None and (row.name, row.language, row.filename) == (
        "jane_2",
        "python",
        "bot.py",
    )
    assert store.blob(row.source_sha256) == BOT
    page = client.get(f"/submissions/{sid}")
    assert page.status_code == 200 and ">uploaded<" in page.text
    assert f'hx-get="/fragments/submissions/{sid}"' in page.text
    mine = client.get("/fragments/submissions")
    assert "jane_2" in mine.text and "uploaded" in mine.text


@pytest.mark.parametrize(
    ("fields", "status", "problem"),
    [
        ({"content": b"x" * (SOURCE_SIZE + 1)}, 400, f"at most {SOURCE_SIZE} bytes"),
        ({"content": b"x" * (SOURCE_SIZE + 20_000)}, 413, f"at most {SOURCE_SIZE} bytes"),
        ({"content": b""}, 400, "is empty"),
        ({"language": "rust", "filename": "bot.rs"}, 400, "rust is not allowed here"),
        ({"language": ""}, 400, "no language is not allowed"),
        ({"language": "c"}, 400, "must end with .c"),
        ({"name": "thirteen_char"}, 400, "1 to 12 letters"),
        ({"name": ""}, 400, "1 to 12 letters"),
        ({"name": "a b"}, 400, "1 to 12 letters"),
        ({"name": "<script>"}, 400, "1 to 12 letters"),
    ],
)
def test_upload_checks(
    client: TestClient, store: DrivenStore, fields: dict[str, Any], status: int, problem: str
) -> None:
    sign_up(client)
    r = upload(client, **fields)
    assert r.status_code == status and problem in r.text, r.text
    assert store.count_submissions() == 0


def test_upload_without_a_file(client: TestClient, store: DrivenStore) -> None:
    sign_up(client)
    r = client.post("/submit", data={"csrf": token(client), "name": "jane", "language": "python"})
    assert r.status_code == 400 and "choose the source file" in r.text


def test_a_name_reserved_by_another_student_is_refused(
    client: TestClient, store: DrivenStore
) -> None:
    sign_up(client)
    sid = int(upload(client).headers["location"].rsplit("/", 1)[1])
    store.record(sid, "accepted")
    with TestClient(client.app) as bob:
        sign_up(bob, "bob@example.edu")
        r = upload(bob, name="JANE_2")
    assert r.status_code == 400 and "belongs to someone else" in r.text
    assert upload(client).status_code == 303  # its owner may submit under it again


def test_upload_needs_a_login(client: TestClient) -> None:
    r = upload(client, csrf=token(client, "/signup"))
    assert r.status_code == 401 and "log in" in r.text.lower()
    assert client.get("/fragments/submissions").status_code == 401


def test_file_names_lose_folders_and_odd_characters() -> None:
    assert safe_filename("../../etc/passwd") == "passwd"
    assert safe_filename("C:\\Users\\jane\\my bot.c") == "my_bot.c"
    assert safe_filename("bot.py") == "bot.py"


# -- states, steps, games, replays ------------------------------------------------------
def test_a_failed_self_play_shows_each_copy_and_its_replay(
    client: TestClient, store: DrivenStore, replay_json: str
) -> None:
    sign_up(client)
    sid = int(upload(client).headers["location"].rsplit("/", 1)[1])
    store.record(
        sid, "testing", step=("build", True, "python3 -m py_compile bot.py\n"), next_kind="test"
    )
    assert ">testing<" in client.get("/fragments/submissions").text
    fragment = client.get(f"/fragments/submissions/{sid}").text
    assert "data-final" not in fragment and "py_compile" in fragment
    (gid,) = store.record(
        sid,
        "test_failed",
        "copy 2 crashed on turn 1: exit status 139",
        step=("test", False, "copy 2: Segmentation fault\n"),
        games=[(crash_seats(), "loss", replay_json)],
    )
    page = client.get(f"/submissions/{sid}").text
    assert "test_failed" in page and "copy 2 crashed on turn 1" in page
    assert "crashed" in page and "exit status 139 on turn 1" in page
    assert "0.004 s / 2.0 s" in page and "Segmentation fault &lt;core dumped&gt;" in page
    assert f'href="/games/{gid}"' in page
    assert "data-final" in client.get(f"/fragments/submissions/{sid}").text
    viewer = client.get(f"/games/{gid}")
    assert viewer.status_code == 200 and "lightcycle" in viewer.text
    assert f'href="/submissions/{sid}"' in viewer.text


def test_others_submissions_and_games_are_hidden(
    client: TestClient, store: DrivenStore, replay_json: str
) -> None:
    sign_up(client)
    sid = int(upload(client).headers["location"].rsplit("/", 1)[1])
    (gid,) = store.record(
        sid, "test_failed", "lost", step=("test", False, ""), games=[([], "loss", replay_json)]
    )
    with TestClient(client.app) as bob:
        sign_up(bob, "bob@example.edu")
        for path in (f"/submissions/{sid}", f"/fragments/submissions/{sid}", f"/games/{gid}"):
            r = bob.get(path)
            assert r.status_code == 404 and "You have no" in r.text, path
        assert "jane_2" not in bob.get("/fragments/submissions").text
    with TestClient(client.app) as anonymous:
        assert anonymous.get(f"/submissions/{sid}").status_code == 401
        assert anonymous.get(f"/games/{gid}").status_code == 401


def test_a_game_without_a_readable_replay_is_a_page(client: TestClient, store: DrivenStore) -> None:
    sign_up(client)
    sid = int(upload(client).headers["location"].rsplit("/", 1)[1])
    none, bad = store.record(
        sid,
        "test_failed",
        "x",
        step=("test", False, ""),
        games=[([], "loss", None), ([], "loss", "{not json")],
    )
    assert client.get(f"/games/{none}").status_code == 404
    r = client.get(f"/games/{bad}")
    assert r.status_code == 500 and "cannot be shown" in r.text and "Traceback" not in r.text


# -- admin ----------------------------------------------------------------------------------
def test_admin_page_lists_internal_errors_to_admins_only(
    client: TestClient, store: DrivenStore
) -> None:
    sign_up(client)
    sid = int(upload(client).headers["location"].rsplit("/", 1)[1])
    store.fail_internally(sid, "the worker went silent 3 times")
    r = client.get("/admin")
    assert r.status_code == 403 and "admins" in r.text
    assert store.set_admin("jane@example.edu")
    page = client.get("/admin").text
    assert "the worker went silent 3 times" in page and f'href="/submissions/{sid}"' in page
    assert 'href="/admin"' in client.get("/").text
    with TestClient(client.app) as anonymous:
        assert anonymous.get("/admin").status_code == 401


def test_admin_sees_every_submission(client: TestClient, store: DrivenStore) -> None:
    sign_up(client)
    sid = int(upload(client).headers["location"].rsplit("/", 1)[1])
    with TestClient(client.app) as admin:
        sign_up(admin, "teacher@example.edu")
        store.set_admin("teacher@example.edu")
        assert admin.get(f"/submissions/{sid}").status_code == 200


# -- errors are pages -----------------------------------------------------------------------
def test_errors_are_pages(client: TestClient) -> None:
    for path, status in (("/nowhere", 404), ("/submissions/abc", 400), ("/games/x", 400)):
        r = client.get(path)
        assert r.status_code == status and r.headers["content-type"].startswith("text/html")
        assert "back to the judge" in r.text and "Traceback" not in r.text
    r = client.get("/submit")
    assert r.status_code == 405 and "<html" in r.text
    assert client.get("/favicon.ico").status_code == 204  # no 404 in the browser's console


def test_an_exception_in_the_store_is_a_page(store: DrivenStore, contest: Contest) -> None:
    def broken(sid: int) -> None:
        raise RuntimeError("database is gone")

    store.submission = broken  # type: ignore[method-assign]
    app = create_app(store, contest, b"k" * 32)
    with TestClient(app, raise_server_exceptions=False) as client:
        sign_up(client)
        r = client.get("/submissions/1")
    assert r.status_code == 500 and "Internal error" in r.text
    assert "database is gone" not in r.text and "Traceback" not in r.text

"""What the judge's page tests share: a form's CSRF token, signing up, accepted programs
put in the real store as a worker would leave them, and a match played by recording its
result through the service (`lightcycle.judge.service.matches.record_match`)."""

from __future__ import annotations

import re
from typing import Any

from starlette.testclient import TestClient

from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.matches import MatchResult, SeatResult, record_match
from lightcycle.judge.service.store import JudgeStore
from lightcycle.storage import begin_write
from tests.judge.web.conftest import DrivenStore

PASSWORD = "correct horse"


def token(client: TestClient, path: str = "/") -> str:
    """The CSRF token of the forms on ``path``."""
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert found, f"no CSRF field on {path}"
    return found.group(1)


def sign_up(client: TestClient, store: JudgeStore, email: str) -> int:
    """Sign ``client`` up as ``email`` (logged in after); the new user's id."""
    r = client.post(
        "/signup",
        data={"csrf": token(client, "/signup"), "email": email, "password": PASSWORD},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    user = store.user_by_email(email)
    assert user is not None
    return int(user.id)


def post(client: TestClient, path: str, **fields: Any) -> Any:
    """POST a form of ``path`` with the session's token (from the front page)."""
    return client.post(path, data={"csrf": token(client), **fields}, follow_redirects=False)


def accepted(store: DrivenStore, user_id: int, name: str) -> int:
    """A program of ``user_id`` accepted as a worker would leave it (its build, test and
    qualifying steps recorded in one go); its submission id."""
    sid = store.submit(user_id, name, "python", "bot.py", b"print()\n")
    store.record(sid, "accepted")
    return sid


def play(
    store: JudgeStore,
    contest: Contest,
    match_id: int,
    replay_json: str,
    ranks: tuple[int, ...] = (1, 2),
    stderr: str = "",
) -> None:
    """Record match ``match_id`` as played: each seat's rank, a score, its CPU time."""
    seats = tuple(
        SeatResult(
            rank=rank,
            score=float(10 * (len(ranks) - rank)),
            verdict="ok" if rank == 1 else "crashed",
            detail="" if rank == 1 else "exit status 1 on turn 3",
            turn=None if rank == 1 else 3,
            cpu_used=0.5 * (i + 1),
            cpu_limit=2.0,
            stderr_tail=f"{stderr} seat {i}" if stderr else "",
        )
        for i, rank in enumerate(ranks)
    )
    result = MatchResult("one cycle left", replay_json, "ring@1", seats)
    with begin_write(store.engine) as conn:
        record_match(conn, match_id, result, contest)

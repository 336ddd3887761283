"""`judge serve`: the website and a real worker thread in one `Judge`, over a real socket
on 127.0.0.1 (port 0), stopped cleanly; a port in use and a bad contest file are one line."""

from __future__ import annotations

import dataclasses
import datetime as dt
import http.cookiejar
import re
import socket
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="judge serve needs uvicorn: pip install 'lightcycle[web]'")
pytest.importorskip(
    "python_multipart", reason="uploads need python-multipart: pip install 'lightcycle[web]'"
)

from typer.testing import CliRunner

from lightcycle.cli.main import app as cli
from lightcycle.judge.service import rounds
from lightcycle.judge.service.contest import Contest, JudgeSpec, OfficialSpec
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.web.serve import Judge, ServeError
from tests.judge.service.fakes import fake_step
from tests.judge.web.conftest import DrivenStore


def judge_contest(contest: Contest, tmp_path: Path) -> Contest:
    spec = JudgeSpec(
        database=f"sqlite:///{tmp_path / 'judge.db'}",
        secret_key_file=str(tmp_path / "judge.secret"),
        workers=1,
        port=0,
    )
    return dataclasses.replace(contest, judge=spec)


def test_serve_runs_the_site_and_a_worker_then_stops(contest: Contest, tmp_path: Path) -> None:
    contest = judge_contest(contest, tmp_path)
    urls: list[str] = []
    judge = Judge(contest, step=fake_step, announce=urls.append)
    thread = threading.Thread(target=judge.run)
    thread.start()
    try:
        assert judge.ready.wait(30), "the site did not start"
        assert urls == [judge.url] and judge.port > 0
        assert (tmp_path / "judge.secret").stat().st_mode & 0o777 == 0o600
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        page = opener.open(judge.url + "signup", timeout=10).read().decode()
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)
        assert csrf
        form = {"csrf": csrf.group(1), "email": "jane@example.edu", "password": "correct horse"}
        home = opener.open(judge.url + "signup", urllib.parse.urlencode(form).encode(), timeout=10)
        assert "jane@example.edu" in home.read().decode()
        with JudgeStore(contest.judge.database) as store:
            user = store.user_by_email("jane@example.edu")
            assert user is not None
            sid = store.submit(user.id, "jane", "python", "bot.py", b"print()")
            deadline = time.monotonic() + 30
            while (row := store.submission(sid)) is not None and row.state != "accepted":
                assert time.monotonic() < deadline, f"the worker left it {row.state}"
                time.sleep(0.1)
        page = opener.open(f"{judge.url}fragments/submissions/{sid}", timeout=10).read().decode()
        assert "accepted" in page and "data-final" in page
    finally:
        judge.stop()
        thread.join(30)
    assert not thread.is_alive()
    assert not any(t.name.startswith("judge-worker") for t in threading.enumerate())
    with socket.socket() as probe:  # nothing listens there any more (TIME_WAIT aside)
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", judge.port))
        probe.listen()


def test_a_port_in_use_is_one_line(contest: Contest, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ServeError, match=f"cannot listen on 127.0.0.1:{port}.*--port"):
            Judge(judge_contest(contest, tmp_path), port=port)


def test_cli_refuses_a_bad_contest_file_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "contest.toml"
    bad.write_text('[contest]\nname = "x"\nruleset = "nope@1"\nmaps = ["ring"]\nplayers = 2\n')
    result = CliRunner().invoke(cli, ["judge", "serve", str(bad), "--port", "0"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output and str(bad) in result.output.replace("\n", "")


# -- the scheduler ----------------------------------------------------------------------------
NINE_O_FIVE = dt.datetime(2026, 3, 2, 9, 5, tzinfo=dt.UTC)
"""Five minutes after the test contest's scheduled time."""


def scheduled_contest(contest: Contest, tmp_path: Path) -> Contest:
    """The test contest with a round scheduled at 09:00 UTC, and two accepted players."""
    official = OfficialSpec(mode="elimination", finalists=1, group_size=2, schedule=("09:00",))
    contest = dataclasses.replace(judge_contest(contest, tmp_path), official=official)
    with DrivenStore(contest.judge.database) as store:
        for name in ("jane", "bob"):
            user = store.create_user(f"{name}@example.edu", "x")
            sid = store.submit(user, name, "python", "bot.py", b"print()\n")
            store.record(sid, "accepted")
    return contest


def rounds_started(contest: Contest) -> int:
    with JudgeStore(contest.judge.database) as store, store.engine.connect() as conn:
        return len(rounds.rounds_list(conn))


def test_a_scheduled_round_starts_once_with_two_judges(contest: Contest, tmp_path: Path) -> None:
    contest = scheduled_contest(contest, tmp_path)
    judges = [Judge(contest, workers=0, port=0, clock=lambda: NINE_O_FIVE) for _ in range(2)]
    try:
        start = threading.Barrier(2)
        started: list[int | None] = []

        def look(judge: Judge) -> None:
            start.wait()
            started.append(judge.tick())

        threads = [threading.Thread(target=look, args=(j,)) for j in judges]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(started, key=str) == [1, None], started  # one judge started round 1
        assert [j.tick() for j in judges] == [None, None]  # 09:00 is done for today
        assert rounds_started(contest) == 1
    finally:
        for j in judges:
            j.sock.close()
            j.store.close()


def test_serve_runs_the_scheduler_and_stops_it(contest: Contest, tmp_path: Path) -> None:
    contest = scheduled_contest(contest, tmp_path)
    judge = Judge(contest, workers=0, port=0, schedule_every=0.05, clock=lambda: NINE_O_FIVE)
    thread = threading.Thread(target=judge.run)
    thread.start()
    try:
        assert judge.ready.wait(30), "the site did not start"
        deadline = time.monotonic() + 20
        while rounds_started(contest) == 0:
            assert time.monotonic() < deadline, "the scheduler started no round"
            time.sleep(0.05)
    finally:
        judge.stop()
        thread.join(30)
    assert not thread.is_alive()
    assert not any(t.name == "judge-scheduler" for t in threading.enumerate())
    assert rounds_started(contest) == 1

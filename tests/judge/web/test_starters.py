"""The contest's front page lists a starting point per allowed language, and each link
serves the file's text, as the judge would be served for the course's contest file."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
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

from lightcycle.judge.service import contests
from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.contest_file import load_contest
from lightcycle.judge.starters import starters_for
from lightcycle.judge.web.app import create_app
from tests.judge.web.conftest import DrivenStore

COURSES = Path(contests.__file__).parent


def _site(store: DrivenStore, contest: Contest) -> Any:
    return TestClient(create_app(store, contest, b"k" * 32))


def _links(page: str) -> list[str]:
    return re.findall(r'href="(/starters/[^"]+)"', page)


@pytest.mark.parametrize("course", list(contests.COURSES))
def test_the_front_page_lists_and_serves_each_languages_starter(
    store: DrivenStore, course: str
) -> None:
    contest = load_contest(COURSES / f"{course}.toml")
    with _site(store, contest) as client:
        page = client.get("/")
        assert page.status_code == 200 and "Starting points" in page.text
        links = _links(page.text)
        offered = starters_for(contest.ruleset, contest.languages, contest.validation.protocol)
        assert links == [f"/starters/{s.language}/{s.filename}" for s in offered]
        assert {link.split("/")[2] for link in links} == set(contest.languages)
        for starter, link in zip(offered, links, strict=True):
            served = client.get(link)
            assert served.status_code == 200, link
            assert served.headers["content-type"].startswith("text/plain")
            assert f'filename="{starter.filename}"' in served.headers["content-disposition"]
            assert served.text == starter.text() and len(served.text) > 200
        first = client.get(f"/starters/{offered[0].language}")  # a language's first one
        assert first.status_code == 200 and first.text == offered[0].text()


def test_an_unknown_starter_is_a_page_that_says_what_there_is(store: DrivenStore) -> None:
    with _site(store, load_contest(COURSES / "torus.toml")) as client:
        for path in ("/starters/rust", "/starters/python/bot.c", "/starters/c"):
            missing = client.get(path)
            assert missing.status_code == 404, path
            assert "its languages with one: python, scheme" in missing.text


def test_a_contest_whose_protocol_no_starter_speaks_lists_none(store: DrivenStore) -> None:
    """An instructor's classic@1 contest played over jsonl: the classic starters speak
    tron2010, so none is offered rather than one that would fail."""
    contest = load_contest(COURSES / "classic.toml")
    contest = replace(contest, validation=replace(contest.validation, protocol="jsonl"))
    with _site(store, contest) as client:
        page = client.get("/")
        assert page.status_code == 200 and "Starting points" not in page.text
        assert client.get("/starters/python").status_code == 404

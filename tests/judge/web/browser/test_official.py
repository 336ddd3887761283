"""A visitor, not logged in, follows a live official round in chromium: the page is opened
once and never reloaded, while the round is started and its matches are recorded through
the service (as workers would record them); the server-sent events make the page show
the round, each match's result as it ends, the player out and the hall of fame."""

from __future__ import annotations

import dataclasses

import pytest

from lightcycle.judge.service import rounds
from lightcycle.judge.service.contest import Contest
from tests.judge.web.browser.conftest import Site
from tests.judge.web.pages import play
from tests.viewer.browser.conftest import Tab

pytestmark = pytest.mark.browser


@pytest.fixture
def contest(contest: Contest) -> Contest:
    """The test contest's rounds stop when 2 players remain: one round, then the final."""
    return dataclasses.replace(contest, official=dataclasses.replace(contest.official, finalists=2))


def text(tab: Tab, selector: str) -> str:
    return str(tab.js(f"(document.querySelector({selector!r}) || {{}}).textContent || ''"))


def test_the_official_page_follows_a_round_live(tab: Tab, site: Site, replay_json: str) -> None:
    store, contest = site.store, site.contest
    for name in ("ana", "bob", "cy"):
        user = store.create_user(f"{name}@example.edu", "x")
        sid = store.submit(user, name, "python", "bot.py", b"print()\n")
        store.record(sid, "accepted")

    page = tab.page
    page.goto(site.url + "/official")
    assert "No round has been played yet" in text(tab, "#round")
    tab.js("window.openedOnce = true")  # gone if the page were reloaded
    tab.wait("document.querySelector('#official').getAttribute('data-version') !== null")

    rid = rounds.start_round(store.engine, contest, seed=7)
    tab.wait("document.querySelectorAll('#round tr.group').length === 2", timeout=15)
    assert "running" in text(tab, "#round-head")
    with store.engine.connect() as conn:
        detail = rounds.round_detail(conn, rid)
    assert detail is not None
    matches = list(detail.stages[0].matches)
    duel = next(m for m in matches if all(s.submission_id for s in m.seats))
    lone = next(m for m in matches if m is not duel)  # a player against a Dummy

    # The player beats the Dummy: its group shows the result, the round goes on.
    ranks = tuple(2 if s.submission_id is None else 1 for s in lone.seats)
    play(store, contest, lone.id, replay_json, ranks=ranks)
    group = f"#group-1-{lone.grp}"
    tab.wait(f"document.querySelector('{group}').textContent.includes('#1')", timeout=15)
    assert "done" in text(tab, group) and "running" in text(tab, "#round-head")
    assert "out" not in text(tab, "#round-head")

    # The duel ends: its loser is out of the competition, and the hall of fame says so.
    winner, loser = duel.seats[0].name, duel.seats[1].name
    play(store, contest, duel.id, replay_json, ranks=(1, 2))
    tab.wait("document.querySelector('#round-out') !== null", timeout=15)
    assert text(tab, "#round-out") == f"{loser} is out"
    assert "done" in text(tab, "#round-head")
    tab.wait(f"document.querySelector('#hall').textContent.includes({loser!r})", timeout=15)
    standings = text(tab, "#standings")
    assert loser in standings and winner in standings and "out" in standings

    assert tab.js("window.openedOnce === true"), "the page was reloaded"
    assert all(u.startswith(site.url) for u in tab.requests), tab.requests
    assert not [e for e in tab.errors if "favicon" not in e], tab.errors

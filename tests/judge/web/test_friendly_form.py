"""The friendly-match form offers exactly the pairings the judge accepts (issue 38, item 8).

The form once listed, in every seat, every program the student may use, and the judge
then refused some of the pairings it offered: her private program against a stranger's
public one (they are not friends), two reference bots, a friend's program with none of
hers. Now each seat offers what the service (`social.friendly_form`) says fits the other
seats, and the page asks again after each change (``GET /matches?seat=...``, as its
script does). Here a student walks the form through the real site and store from its
first state, submits every pairing it offers (each must start a match), and submits
every pairing of the same programs: the ones accepted are exactly the ones offered.
"""

from __future__ import annotations

import itertools
from html.parser import HTMLParser
from typing import Any

import pytest

pytest.importorskip(
    "fastapi", reason="the judge's site needs FastAPI: pip install 'lightcycle[web]'"
)
pytest.importorskip(
    "python_multipart", reason="forms need python-multipart: pip install 'lightcycle[web]'"
)

from starlette.testclient import TestClient

from tests.judge.web.conftest import DrivenStore
from tests.judge.web.pages import accepted, post, sign_up, token

JANE, BOB, EVE, GUS = "jane@example.edu", "bob@example.edu", "eve@example.edu", "gus@example.edu"
DUMMY = "dummy"

Seats = tuple[str, ...]


class SeatForm(HTMLParser):
    """The new-match form of a page: each seat's options and which one is selected."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.options: list[list[str]] = []
        self.selected: list[str] = []
        self._in_form = False
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            self._in_form = a.get("id") == "new-match"
        elif self._in_form and tag == "select" and a.get("name") == "seat":
            self.options.append([])
            self.selected.append("")
        elif self._in_form and tag == "option":
            value = str(a.get("value"))
            self.options[-1].append(value)
            if "selected" in a:
                self.selected[-1] = value

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in_form = False


def shown(c: TestClient, seats: Seats = ()) -> SeatForm:
    """The form as the page shows it after the seats were changed to ``seats``."""
    query = "".join(f"&seat={s}" for s in seats)
    page = c.get(f"/matches?players=2{query}")
    assert page.status_code == 200
    return SeatForm(page.text)


def walk(c: TestClient) -> set[Seats]:
    """Every pairing the form offers, in any form the student reaches from the first by
    changing a seat to one of its options (the page's script asks again after each)."""
    first = shown(c)
    start = tuple(first.selected)
    seen, todo, out = {start}, [start], set()
    while todo:
        seats = todo.pop()
        form = shown(c, seats)
        assert tuple(form.selected) == seats  # the page keeps what she chose
        for i, options in enumerate(form.options):
            for choice in options:
                changed = (*seats[:i], choice, *seats[i + 1 :])
                out.add(changed)
                if changed not in seen:
                    seen.add(changed)
                    todo.append(changed)
    return out


def start(c: TestClient, csrf: str, seats: Seats) -> Any:
    return c.post("/matches", data={"csrf": csrf, "seat": list(seats)}, follow_redirects=False)


def test_the_form_offers_exactly_the_pairings_the_judge_accepts(
    jane: TestClient, bob: TestClient, app: Any, store: DrivenStore
) -> None:
    jane_id, bob_id = sign_up(jane, store, JANE), sign_up(bob, store, BOB)
    with TestClient(app) as eve:
        eve_id = sign_up(eve, store, EVE)
        strangers_public = accepted(store, eve_id, "eve_pub")
        strangers_private = accepted(store, eve_id, "eve_secret")
        post(eve, f"/programs/{strangers_public}/public")
    own_public = accepted(store, jane_id, "jane_pub")
    post(jane, f"/programs/{own_public}/public")
    own_private = accepted(store, jane_id, "jane_priv")  # her newest: the first choice
    friends_private = accepted(store, bob_id, "bob_priv")
    post(jane, "/friends/add", email=BOB)
    post(bob, "/friends/add", email=JANE)
    ids = {
        "own_public": str(own_public),
        "own_private": str(own_private),
        "friends_private": str(friends_private),
        "strangers_public": str(strangers_public),
        "strangers_private": str(strangers_private),
    }
    name = {v: k for k, v in ids.items()} | {DUMMY: "the reference bot"}

    first = shown(jane)
    assert first.selected == [ids["own_private"], DUMMY]
    assert set(first.options[0]) == {ids["own_private"], ids["own_public"]}  # one of hers
    # her private program may not meet the stranger's public one: they are not friends
    assert set(first.options[1]) == {
        ids["own_private"],
        ids["own_public"],
        ids["friends_private"],
        DUMMY,
    }
    with_public = shown(jane, (ids["own_public"], DUMMY))  # her public one meets anyone's
    assert set(with_public.options[1]) == set(first.options[1]) | {ids["strangers_public"]}

    offered = walk(jane)
    csrf = token(jane, "/matches")
    everything = set(itertools.product([*ids.values(), DUMMY], repeat=2))
    assert offered <= everything
    results = {seats: start(jane, csrf, seats) for seats in sorted(everything)}
    refused = {s for s, r in results.items() if r.status_code != 303}
    for seats in refused:  # a crafted request still gets the one-line reason
        r = results[seats]
        assert r.status_code == 400 and "No match started" in r.text, (seats, r.text)
        assert "Traceback" not in r.text
    named = sorted(tuple(name[s] for s in seats) for seats in offered & refused)
    assert named == [], "offered, then refused"
    missing = sorted(tuple(name[s] for s in seats) for seats in everything - refused - offered)
    assert missing == [], "accepted, never offered"


def test_a_student_with_no_program_of_his_own_gets_no_form(
    jane: TestClient, client: TestClient, store: DrivenStore
) -> None:
    """Others' public programs make no match without one of his: no form to refuse."""
    jane_id = sign_up(jane, store, JANE)
    sign_up(client, store, GUS)
    post(jane, f"/programs/{accepted(store, jane_id, 'jane_pub')}/public")
    page = client.get("/matches").text
    assert 'id="new-match"' not in page
    assert "You need an accepted program of your own to play" in page

"""A student in chromium fills the friendly-match form (issue 38, item 8): each seat
offers only what fits the other seats, and the choices follow as she changes them (the
page's script asks the judge again), so the pairing she ends with is one it accepts."""

from __future__ import annotations

import pytest

from lightcycle.judge.service import social
from tests.judge.web.browser.conftest import Site
from tests.judge.web.pages import PASSWORD, accepted
from tests.viewer.browser.conftest import Tab

pytestmark = pytest.mark.browser


def options(tab: Tab, seat: int) -> list[str]:
    """The values seat ``seat`` (0: the first) offers now."""
    script = (
        "(i) => [...document.querySelectorAll('#new-match select[name=seat]')[i].options]"
        ".map((o) => o.value)"
    )
    return list(tab.js(script, seat))


def settled(tab: Tab, seat: int, offered: str, present: bool) -> None:
    """Wait until the form has answered: seat ``seat`` offers ``offered`` or not."""
    tab.wait(
        "!document.querySelector('#new-match[aria-busy]') && "
        f"!!document.querySelectorAll('#new-match select[name=seat]')[{seat}]"
        f".querySelector('option[value=\"{offered}\"]') === {str(present).lower()}",
        timeout=15,
    )


def test_the_choices_follow_the_seats_and_the_match_starts(tab: Tab, site: Site) -> None:
    store, page = site.store, tab.page
    page.goto(site.url + "/signup")
    page.fill("input[name=email]", "jane@example.edu")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(site.url + "/")
    jane = store.user_by_email("jane@example.edu")
    assert jane is not None
    eve = store.create_user("eve@example.edu", "h")
    strangers = accepted(store, eve, "eve_pub")
    social.make_public(store.engine, eve, strangers)
    public = accepted(store, jane.id, "jane_pub")
    social.make_public(store.engine, jane.id, public)
    private = accepted(store, jane.id, "jane_priv")  # her newest: the first choice

    page.goto(site.url + "/matches")
    assert options(tab, 0) == [str(private), str(public)]  # a match needs one of hers
    assert str(strangers) not in options(tab, 1)  # her private one may not meet Eve's

    page.locator("#new-match select[name=seat]").nth(0).select_option(str(public))
    settled(tab, 1, str(strangers), present=True)
    page.locator("#new-match select[name=seat]").nth(1).select_option(str(strangers))
    settled(tab, 0, str(private), present=False)
    assert options(tab, 0) == [str(public)]
    page.click("#new-match button[type=submit]")
    page.wait_for_url("**/matches/*")
    assert "eve_pub" in page.content() and "jane_pub" in page.content()
    assert "No match started" not in page.content()
    assert all(u.startswith(site.url) for u in tab.requests), tab.requests
    assert not [e for e in tab.errors if "favicon" not in e], tab.errors

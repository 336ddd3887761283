"""A student in chromium: signs up, uploads a bot, watches its state change live (the
test moves it through the store as a worker would), and opens the failing game's replay
in the viewer."""

from __future__ import annotations

import pytest

from tests.judge.web.browser.conftest import Site
from tests.judge.web.conftest import crash_seats
from tests.viewer.browser.conftest import Tab

pytestmark = pytest.mark.browser

BOT = b'import sys\nfor line in sys.stdin:\n    print(\'{"move": "N"}\', flush=True)\n'


def text(tab: Tab, selector: str) -> str:
    return str(tab.js(f"(document.querySelector({selector!r}) || {{}}).textContent || ''"))


def test_sign_up_upload_watch_and_open_the_replay(tab: Tab, site: Site, replay_json: str) -> None:
    page = tab.page
    page.goto(site.url + "/signup")
    page.fill("input[name=email]", "jane@example.edu")
    page.fill("input[name=password]", "correct horse")
    page.click("button[type=submit]")
    page.wait_for_url(site.url + "/")
    assert "jane@example.edu" in page.content()

    page.fill("input[name=name]", "jane_2")
    page.select_option("select[name=language]", "python")
    page.set_input_files(
        "input[name=source]", {"name": "bot.py", "mimeType": "text/plain", "buffer": BOT}
    )
    page.click("form[action='/submit'] button[type=submit]")
    page.wait_for_url("**/submissions/*")
    sid = int(page.url.rsplit("/", 1)[1])
    assert text(tab, "#state") == "uploaded"

    # The worker's steps, recorded through the store: the open page follows them.
    site.store.record(
        sid, "testing", step=("build", True, "python3 -m py_compile bot.py"), next_kind="test"
    )
    tab.wait("document.querySelector('#state').textContent === 'testing'", timeout=15)
    (gid,) = site.store.record(
        sid,
        "test_failed",
        "copy 2 crashed on turn 1: exit status 139",
        step=("test", False, "copy 2: Segmentation fault"),
        games=[(crash_seats(), "loss", replay_json)],
    )
    tab.wait("document.querySelector('#state').textContent === 'test_failed'", timeout=15)
    assert "copy 2 crashed on turn 1" in text(tab, "#reason")
    assert "Segmentation fault" in page.content()

    page.click(f"a.replay[href='/games/{gid}']")
    page.wait_for_url(f"**/games/{gid}")
    tab.wait("window.lightcycle && window.lightcycle.ready", timeout=30)
    assert all(u.startswith(site.url) for u in tab.requests), tab.requests
    assert not [e for e in tab.errors if "favicon" not in e], tab.errors

"""One headless chromium per test module for the judge's pages, as tests/viewer/browser
does (Debian's /usr/bin/chromium through Playwright, nothing that reaches the network),
and the judge served for real on 127.0.0.1 with no workers: the test drives the states."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lightcycle.judge.service.contest import Contest, JudgeSpec
from tests.judge.web.conftest import DrivenStore
from tests.viewer.browser.conftest import ARGS, CHROMIUM, Tab


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives a real browser (chromium)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A chromium per test module (a session-wide one keeps Playwright's event loop
    running in the main thread and breaks later tests that call ``asyncio.run``)."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: run scripts/install-browser (Debian's chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed: pip install 'lightcycle[browser]'")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def tab(browser: Any) -> Iterator[Tab]:
    context = browser.new_context(viewport={"width": 1100, "height": 760}, device_scale_factor=1)
    page = context.new_page()
    tab = Tab(page)
    page.on("request", lambda r: tab.requests.append(r.url))
    page.on("pageerror", lambda e: tab.errors.append(f"page error: {e}"))
    page.on(
        "console",
        lambda m: (
            tab.errors.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning")
            else None
        ),
    )
    try:
        yield tab
    finally:
        context.close()


@dataclass
class Site:
    url: str
    store: DrivenStore


@pytest.fixture
def site(contest: Contest, tmp_path: Path) -> Iterator[Site]:
    pytest.importorskip(
        "uvicorn", reason="judge serve needs uvicorn: pip install 'lightcycle[web]'"
    )
    from lightcycle.judge.web.serve import Judge

    spec = JudgeSpec(
        database=f"sqlite:///{tmp_path / 'judge.db'}",
        secret_key_file=str(tmp_path / "judge.secret"),
        workers=0,
        host="127.0.0.1",
        port=0,
    )
    judge = Judge(dataclasses.replace(contest, judge=spec))
    thread = threading.Thread(target=judge.run, name="judge-site")
    thread.start()
    try:
        assert judge.ready.wait(30), "the judge's site did not start"
        with DrivenStore(spec.database) as store:
            yield Site(judge.url.rstrip("/"), store)
    finally:
        judge.stop()
        thread.join(30)

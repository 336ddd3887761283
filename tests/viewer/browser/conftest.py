"""One headless chromium per test module, driven by Playwright; skipped without it.

The browser is Debian's ``/usr/bin/chromium`` (``scripts/install-browser`` installs it),
not Playwright's own download, and it is started with everything that would reach for
the network switched off: the test machines have none, and the viewer must not need it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives a real browser (chromium)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A chromium per test module: Playwright's sync API keeps an event loop running in
    the main thread while it is open, so a session-wide one would make every later test
    of that worker that calls ``asyncio.run`` fail ("cannot be called from a running
    event loop"); per module it is closed before the next module runs."""
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


@dataclass
class Tab:
    """A page with what it asked the network for and what it complained about."""

    page: Any
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def open(self, path: Path) -> None:
        self.page.goto(path.as_uri())
        self.wait("window.lightcycle && window.lightcycle.ready")

    def js(self, expression: str, arg: Any = None) -> Any:
        return self.page.evaluate(expression, arg)

    def wait(self, expression: str, timeout: float = 30.0) -> None:
        """Poll ``expression`` until it is true. (Playwright's wait_for_function evaluates
        strings with eval, which the viewer's Content-Security-Policy rightly forbids.)"""
        deadline = time.monotonic() + timeout
        while not self.page.evaluate(expression):
            if time.monotonic() > deadline:
                raise AssertionError(f"still false after {timeout} s: {expression}")
            self.page.wait_for_timeout(50)


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

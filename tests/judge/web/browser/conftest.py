"""One headless chromium per test module for the judge's pages, as tests/viewer/browser
does (Debian's /usr/bin/chromium through Playwright, nothing that reaches the network),
and the judge served for real on 127.0.0.1 with no workers: the test drives the states."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from lightcycle.judge.service.contest import Contest
from tests.judge.web.conftest import DrivenStore, serving

# the viewer's browser fixtures, shared: one chromium per module, a tab that records
# requests and console errors
from tests.viewer.browser.conftest import browser, tab  # noqa: F401


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives a real browser (chromium)")


@dataclass
class Site:
    url: str
    store: DrivenStore
    contest: Contest


@pytest.fixture
def site(contest: Contest, tmp_path: Path) -> Iterator[Site]:
    with serving(contest, tmp_path) as judge, DrivenStore(judge.contest.judge.database) as store:
        yield Site(judge.url.rstrip("/"), store, judge.contest)

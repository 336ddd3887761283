"""One headless chromium per test module for the judge's pages, as tests/viewer/browser
does (Debian's /usr/bin/chromium through Playwright, nothing that reaches the network),
and the judge served for real on 127.0.0.1 with no workers: the test drives the states."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from lightcycle.judge.service.contest import Contest, JudgeSpec
from tests.judge.web.conftest import DrivenStore

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
    contest = dataclasses.replace(contest, judge=spec)
    judge = Judge(contest)
    thread = threading.Thread(target=judge.run, name="judge-site")
    thread.start()
    try:
        assert judge.ready.wait(30), "the judge's site did not start"
        with DrivenStore(spec.database) as store:
            yield Site(judge.url.rstrip("/"), store, contest)
    finally:
        judge.stop()
        thread.join(30)

"""The HTML export is one self-contained page: no URL to fetch, the data safely inside."""

from __future__ import annotations

import json
import re

from lightcycle.viewer.data import viewer_data
from lightcycle.viewer.html import CSP, html_for, json_for_script, page
from tests.replay.test_convert import random_replay


def test_the_page_inlines_everything_and_forbids_fetching() -> None:
    replay = random_replay("classic", seed=2)
    html = html_for(replay)
    assert CSP in html and "default-src 'none'" in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<link" not in html and "@import" not in html and "fetch(" not in html
    assert "{{" not in html  # every placeholder filled
    block = re.search(r'<script id="lc-data" type="application/json">(.*?)</script>', html, re.S)
    assert block is not None
    data = json.loads(block.group(1))
    assert data["replay"]["turns"] == replay.turns


def test_replay_text_cannot_end_the_data_block() -> None:
    replay = random_replay("classic", seed=2)
    replay.seats[0]["name"] = "</script><script>alert(1)</script><!--"
    states = list(replay.states())
    html = page(viewer_data(replay, states))
    assert html.count("</script>") == 2  # the data block's and the viewer's own
    block = re.search(r'<script id="lc-data" type="application/json">(.*?)</script>', html, re.S)
    assert block is not None
    assert json.loads(block.group(1))["replay"]["seats"][0]["name"] == replay.seats[0]["name"]
    assert json.loads(json_for_script({"a": "\u2028</"})) == {"a": "\u2028</"}


def test_the_start_turn_and_back_link() -> None:
    replay = random_replay("classic", seed=2)
    html = page(viewer_data(replay, list(replay.states())), turn=5, back_link="/")
    assert 'data-start="5"' in html and 'href="/"' in html

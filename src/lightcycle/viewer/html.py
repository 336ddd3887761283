"""One self-contained HTML file per game: the viewer's page, script and data inlined.

The page must open from a laptop's disk or a mail attachment, years later, with no
network and no build step, so everything is in the one file: the stylesheet and script
(``viewer/static/``, plain ES2017 and a 2D canvas) are inlined, the game data is a JSON
``<script>`` block, and a Content-Security-Policy forbids the page to fetch anything.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from lightcycle.core.state import GameState
from lightcycle.replay.model import Replay
from lightcycle.viewer.data import viewer_data

CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data: blob:; connect-src 'none'; form-action 'none'; base-uri 'none'"
)
"""Nothing but the page's own inline script and style; no requests of any kind."""


def _static(name: str) -> str:
    return resources.files("lightcycle.viewer").joinpath("static", name).read_text("utf-8")


def json_for_script(data: Any) -> str:
    """JSON that is safe inside ``<script type="application/json">``: ``</`` and HTML
    comment openers are escaped, so no replay text (a bot name, say) can end the block."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (
        text.replace("</", "<\\/")
        .replace("<!--", "\\u003c!--")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def page(data: dict[str, Any], turn: int = 0, back_link: str | None = None) -> str:
    """The viewer page for ``data`` (see `lightcycle.viewer.data`), opening at ``turn``.

    Args:
        data: the viewer data.
        turn: the turn shown first.
        back_link: a URL for a "back to the list" link (the view server's pages).
    """
    template = _static("viewer.html")
    back = f'<a class="back" href="{escape(back_link)}">← all games</a>' if back_link else ""
    return (
        template.replace("{{CSP}}", CSP)
        .replace("{{TITLE}}", escape(str(data.get("title", "lightcycle replay"))))
        .replace("{{BACK}}", back)
        .replace("{{STYLE}}", _static("viewer.css"))
        .replace("{{SCRIPT}}", _static("viewer.js"))
        .replace("{{START}}", str(int(turn)))
        .replace("{{DATA}}", json_for_script(data))
    )


def html_for(replay: Replay, states: Sequence[GameState] | None = None, turn: int = 0) -> str:
    """The self-contained viewer page for a verified replay."""
    if states is None:
        states = list(replay.states())
    return page(viewer_data(replay, states), turn=turn)


def write_html(
    replay: Replay, states: Sequence[GameState] | None, path: str | Path, turn: int = 0
) -> None:
    """Write the viewer page for ``replay`` to ``path`` (atomically)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(html_for(replay, states, turn), encoding="utf-8")
    tmp.replace(p)

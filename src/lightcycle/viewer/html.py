"""One self-contained HTML file per game: the viewer's page, script and data inlined.

The page must open from a laptop's disk or a mail attachment, years later, with no
network and no build step, so everything is in the one file: the stylesheet and script
(``viewer/static/``, plain ES2017 and a 2D canvas) are inlined, the game data is a JSON
``<script>`` block, and a Content-Security-Policy forbids the page to fetch anything.

A live game (`live_page`) is the same page with no game in its data block, only where
its server's websocket is: the script then builds the same data frame by frame.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lightcycle.core.state import GameState
from lightcycle.replay.model import Replay
from lightcycle.viewer.data import viewer_data

CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data: blob:; connect-src 'none'; form-action 'none'; base-uri 'none'"
)
"""Nothing but the page's own inline script and style; no requests of any kind."""

LIVE_CSP = CSP.replace("connect-src 'none'", "connect-src 'self' ws: wss:")
"""A live page's: also its own server's websocket and game list, nothing else."""


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


def page(data: dict[str, Any], turn: int = 0, back_link: str | None = None, csp: str = CSP) -> str:
    """The viewer page for ``data`` (see `lightcycle.viewer.data`), opening at ``turn``.

    Args:
        data: the viewer data.
        turn: the turn shown first.
        back_link: a URL for a "back to the list" link (the view server's pages).
        csp: the page's Content-Security-Policy.
    """
    template = _static("viewer.html")
    back = f'<a class="back" href="{escape(back_link)}">← all games</a>' if back_link else ""
    return (
        template.replace("{{CSP}}", csp)
        .replace("{{TITLE}}", escape(str(data.get("title", "lightcycle replay"))))
        .replace("{{BACK}}", back)
        .replace("{{STYLE}}", _static("viewer.css"))
        .replace("{{SCRIPT}}", _static("viewer.js"))
        .replace("{{START}}", str(int(turn)))
        .replace("{{DATA}}", json_for_script(data))
    )


def live_page(
    game_id: str,
    title: str,
    back_link: str | None = None,
    follow: bool = False,
    prefix: str = "",
) -> str:
    """The viewer page of a live game: the same page as a replay's, fed by the websocket
    ``{prefix}/ws/games/{game_id}`` (`lightcycle.viewer.live` frames).

    Args:
        game_id: the game.
        title: the page's title until the first frame says more.
        back_link: a URL for a "back to the list" link.
        follow: when the game ends, go on to the next live game (a local match: its
            server tells on the websocket ``{prefix}/ws/next/{game_id}``).
        prefix: where the server's routes start (``""``: at the root).
    """
    quoted = quote(game_id, safe="")
    boot = {
        "title": title,
        "live": {
            "game": game_id,
            "ws": f"{prefix}/ws/games/{quoted}",
            "follow": follow,
            "next": f"{prefix}/ws/next/{quoted}",
            "page": f"{prefix}/games/",
        },
    }
    return page(boot, back_link=back_link, csp=LIVE_CSP)


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

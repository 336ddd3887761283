"""A replay in a notebook: the viewer's self-contained page, inline.

Jupyter shows an object's ``_repr_html_`` inside the notebook's own page. The viewer's
page is a whole document, with its stylesheet, its script, its element ids and its
Content-Security-Policy, so it goes into an ``<iframe srcdoc>``: there its styles and
ids stay its own, its policy still forbids every request, and ``sandbox="allow-scripts"``
gives it no reach into the notebook. Nothing is served and nothing fetched: the page
lies in the cell's output, so a saved notebook replays offline, exported to HTML too.

A line of text under the frame says the game and its result, for viewers that show
no frames (a notebook opened untrusted, GitHub's preview).
"""

from __future__ import annotations

from html import escape

from lightcycle.replay.model import Replay
from lightcycle.viewer.facts import result_text
from lightcycle.viewer.html import html_for

HEIGHT = 560
"""The frame's height in pixels: a board and the seats' panel beside it, and the
controls, at a notebook's width."""


def srcdoc(page: str) -> str:
    """``page`` as the value of a single-quoted attribute: only ``&`` and ``'`` end or
    change such a value, so only they are escaped. (The viewer's data is JSON, full of
    double quotes: escaping those too would make a game's output half as large again.)"""
    return page.replace("&", "&amp;").replace("'", "&#39;")


def frame(page: str, height: int = HEIGHT, title: str = "lightcycle") -> str:
    """``page`` (a whole HTML document) as a sandboxed frame that fills the cell's width."""
    return (
        f"<iframe srcdoc='{srcdoc(page)}' sandbox=\"allow-scripts\" "
        f'title="{escape(title, quote=True)}" '
        f'style="width: 100%; height: {int(height)}px; border: 0; display: block"></iframe>'
    )


def replay_html(replay: Replay, height: int = HEIGHT) -> str:
    """The notebook's view of ``replay``: the viewer in a frame, the result below it.

    Raises:
        ReplayError: for a replay that does not re-simulate (`CorruptReplayError` when
            its moves do not give its stored outcome): a notebook must not show a game
            that did not happen.
    """
    replay.verify()
    title = f"{replay.map_id} · {replay.ruleset} · seed {replay.seed}"
    seats = ", ".join(s.get("name", f"Player {i + 1}") for i, s in enumerate(replay.seats))
    caption = f"{title}: {seats}; {result_text(replay)}"
    return (
        '<div class="lightcycle-replay">'
        + frame(html_for(replay), height, title)
        + f'<div style="font-size: 12px; opacity: 0.75">{escape(caption)}</div></div>'
    )

"""A notebook's view of a game in a real browser: the viewer runs inside its frame.

A notebook puts ``_repr_html_`` into its own page; here a bare page stands for the
notebook. The framed viewer must start (its script allowed by the frame's sandbox and by
its own Content-Security-Policy), show the game and answer its controls, without one
request; an episode's animated PNG must load in its ``<img>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import lightcycle
from lightcycle.envs import parallel_env
from lightcycle.envs.notebook import animate
from tests.viewer.browser.conftest import Tab

pytestmark = pytest.mark.browser


def notebook(tmp_path: Path, *outputs: str) -> Path:
    """A page holding the outputs as a notebook's cells hold them."""
    cells = "".join(f'<div class="output">{o}</div>' for o in outputs)
    path = tmp_path / "notebook.html"
    path.write_text(f"<!DOCTYPE html><html><body><h1>cells</h1>{cells}</body></html>", "utf-8")
    return path


def framed(tab: Tab, index: int = 1) -> Any:
    """The viewer in the page's ``index``-th frame, once its script has started."""
    frame = tab.page.frames[index]
    for _ in range(600):
        if frame.evaluate("!!(window.lightcycle && window.lightcycle.ready)"):
            return frame
        tab.page.wait_for_timeout(50)
    raise AssertionError("the framed viewer did not start")


def test_a_game_plays_in_its_frame_offline(tab: Tab, tmp_path: Path) -> None:
    result = lightcycle.play("ring", ["chaser", "runaway"], seed=2)
    other = lightcycle.play("cube", ["random", "random"], seed=1)
    odd = 'O\'Neil & "Co" </iframe>'  # the frame's attribute must hold it whole
    result.replay.seats[0]["name"] = odd
    shown = result._repr_html_()
    assert shown is not None
    path = notebook(tmp_path, shown, other.replay._repr_html_() or "")
    tab.page.goto(path.as_uri())
    first, second = framed(tab, 1), framed(tab, 2)
    assert tab.requests == [path.as_uri()]
    assert first.evaluate("lightcycle.board") == "grid"
    assert second.evaluate("lightcycle.board") == "graph"  # two games, two viewers
    assert first.evaluate("lightcycle.last") == result.final.turn
    assert first.evaluate("n => lightcycle.setTurn(n)", 5) == 5
    assert "has won" in first.inner_text("#result") or "draw" in first.inner_text("#result")
    assert odd in first.inner_text("#seats")
    box = tab.page.locator("iframe").first.bounding_box()
    assert box is not None and box["height"] >= 500 and box["width"] > 600
    assert tab.errors == []


def test_an_animated_episode_loads_in_its_image(tab: Tab, tmp_path: Path) -> None:
    env = parallel_env(map="arena-15", render_mode="rgb_array")
    env.reset(seed=1)
    frames = [env.render()]
    while env.agents:
        env.step({a: 1 for a in env.agents})  # east until the wall
        frames.append(env.render())
    assert len(frames) > 2 and not np.array_equal(frames[0], frames[-1])
    path = notebook(tmp_path, animate(frames)._repr_html_())
    tab.page.goto(path.as_uri())
    tab.wait("document.images[0].complete")
    assert tab.js("[document.images[0].naturalWidth, document.images[0].naturalHeight]") == [
        480,
        480,
    ]
    assert tab.requests == [path.as_uri()] and tab.errors == []

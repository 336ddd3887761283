"""Replays and games show themselves in a notebook: the viewer's page, inline and whole.

``_repr_html_`` of a `Replay` and of what ``lightcycle.play`` returns is the exported
page (the one ``lightcycle replay --html`` writes) in a sandboxed ``<iframe srcdoc>``: no
server, no URL, and the same Content-Security-Policy that forbids every request.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pytest

import lightcycle
from lightcycle.envs import parallel_env
from lightcycle.replay.model import CorruptReplayError, Replay
from lightcycle.viewer.html import CSP, html_for
from lightcycle.viewer.notebook import replay_html
from tests.replay.test_convert import random_replay


def inner_page(shown: str) -> str:
    """The page inside the frame, as the browser reads the ``srcdoc`` attribute."""
    found = re.search(r"<iframe srcdoc='([^']*)' sandbox=\"allow-scripts\"", shown)
    assert found is not None, shown[:200]
    return html.unescape(found.group(1))


def assert_self_contained(shown: str) -> None:
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", shown)
    page = inner_page(shown)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert CSP in page and "<link" not in page and "fetch(" not in page
    outside = re.sub(r"srcdoc='[^']*'", "", shown)
    assert "<script" not in outside  # the notebook's page runs nothing of ours


def test_a_replay_shows_the_exported_page_in_a_sandboxed_frame() -> None:
    replay = random_replay("classic", seed=2)
    shown = replay._repr_html_()
    assert shown is not None
    assert shown == replay_html(replay)
    assert inner_page(shown) == html_for(replay)
    assert_self_contained(shown)
    # the result in words under the frame, for viewers that show no frames
    assert f"seed {replay.seed}" in shown and ("won" in shown or "draw" in shown)


def test_names_cannot_end_the_frame_or_its_attribute() -> None:
    replay = random_replay("classic", seed=2)
    replay.seats[0]["name"] = 'O\'Neil & "Co" </iframe><script>alert(1)</script> &amp;'
    shown = replay._repr_html_()
    assert shown is not None
    assert inner_page(shown) == html_for(replay)
    assert shown.count("</iframe>") == 1
    assert "alert(1)</script>" not in shown.split("</iframe>")[1]  # the caption is escaped


def test_every_ruleset_shows() -> None:
    for ruleset in ("torus", "ffa", "teams", "tron3d"):
        shown = random_replay(ruleset, seed=1)._repr_html_()
        assert shown is not None
        assert_self_contained(shown)


def test_a_corrupt_replay_is_not_shown_as_if_it_happened() -> None:
    replay = random_replay("classic", seed=2)
    assert replay.outcome is not None
    replay.outcome = {**replay.outcome, "turn": replay.outcome["turn"] + 1}
    with pytest.raises(CorruptReplayError):
        replay._repr_html_()


def test_a_played_game_shows_its_replay() -> None:
    result = lightcycle.play("arena-10", ["random", "wallhugger"], seed=4)
    shown = result._repr_html_()
    assert shown == result.replay._repr_html_()
    assert shown is not None and "WallHugger" in shown


def test_an_environment_episode_shows_and_stays_a_few_dozen_kilobytes() -> None:
    env = parallel_env(map="arena-15")
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    while env.agents:
        obs, *_ = env.step(
            {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        )
    replay: Replay = env.replay()
    shown = replay._repr_html_()
    assert shown is not None and "player_0" in shown
    assert_self_contained(shown)
    # the viewer's script and style, escaped once, and the game's data
    assert len(shown) < 80_000

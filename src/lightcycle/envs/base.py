"""What the two one-game environments share: `lightcycle.envs.parallel`'s PettingZoo
environment and `lightcycle.envs.single`'s Gymnasium one.

Both resolve the same keywords into a `GameConfig` and a `Layout`, keep the game as a
value with an `EpisodeLog` beside it for ``replay()``, and draw it the same way in
``render()``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lightcycle.core.state import GameState
from lightcycle.envs import render as draw
from lightcycle.envs.episodes import EpisodeLog
from lightcycle.envs.game import GameConfig, configure
from lightcycle.envs.observe import Layout, layout_for
from lightcycle.envs.rewards import check_shaping
from lightcycle.maps.spec import MapSpec
from lightcycle.rules.ruleset import Ruleset


class OneGameEnv:
    """The state and methods one game's environments share (a base placed before the
    framework's own: ``class LightcycleEnv(OneGameEnv, gymnasium.Env)``).

    Attributes:
        config: the resolved map, ruleset, players and turn limit.
        layout: the observation and action layout every agent shares.
        shaping: the reward shaping (`lightcycle.envs.rewards`), or ``None``.
        render_mode: ``"ansi"``, ``"rgb_array"`` or ``None``.
        neighbours: on graph boards, the ``(V, D)`` neighbour table graph actions index
            (``-1`` padded); ``None`` on grids.
        game: the current `GameState` (``None`` before the first reset).
    """

    config: GameConfig
    layout: Layout
    shaping: str | None
    render_mode: str | None
    neighbours: np.ndarray | None
    game: GameState | None
    _log: EpisodeLog

    def _set_up(
        self,
        map: str | MapSpec,
        ruleset: str | Ruleset | None,
        players: int | None,
        max_turns: int | None,
        shaping: str | None,
        render_mode: str | None,
        settings: dict[str, Any] | None,
    ) -> None:
        """Check and resolve the keywords every one-game environment takes.

        Raises:
            ValueError: for an unknown ``render_mode`` or ``shaping``.
            RulesError, MapError: for a set-up that cannot be played (`configure`).
        """
        if render_mode is not None and render_mode not in draw.RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r} is not one of {draw.RENDER_MODES}")
        self.config = configure(map, ruleset, players, max_turns, settings)
        self.layout = layout_for(self.config)
        self.shaping = check_shaping(shaping)
        self.render_mode = render_mode
        self.neighbours = self.layout.neighbour_table() if self.layout.graph else None
        self.game = None
        self._log = EpisodeLog()

    def render(self) -> str | np.ndarray | None:
        """The current game as text (``ansi``) or an image (``rgb_array``)."""
        if self.render_mode is None or self.game is None:
            return None
        if self.render_mode == "ansi":
            return draw.ansi(self.game)
        return draw.rgb_array(self.game)

    def _played(self) -> GameState:
        """The current game, for ``replay()``.

        Raises:
            RuntimeError: before the first reset.
        """
        if self.game is None:
            raise RuntimeError("no game has been played yet: call reset() first")
        return self.game

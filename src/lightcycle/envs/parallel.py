"""The PettingZoo environment: every cycle an agent, every turn one simultaneous step.

`LightcycleParallelEnv` steps `lightcycle.rules.engine.step`, the function the referee
judges with, so an episode is a game the referee would have played the same way. Agent
``player_i`` is cycle ``i`` for the whole game (in team rulesets a team's cycles are
consecutive). Each agent's observation follows `lightcycle.envs.observe`; its action is
an index into its `Layout`'s actions (`lightcycle.envs.spaces.decode_action`).

- ``terminations[agent]`` is true on the step its cycle dies, and on the last step of a
  game the rules end for another reason than the turn limit; the agent then leaves
  `agents`. ``truncations[agent]`` is true for the cycles still alive when the rules'
  turn limit ends the game (``max_turns`` sets that limit).
- Rewards: each team's result (`lightcycle.envs.rewards.pairwise`: win +1, draw 0,
  loss -1 between two teams) goes to its cycles' agents on the step it becomes known
  and they leave; ``shaping="survival"`` adds ``1 / T`` per turn survived.
- A cycle that does not move this turn (``tron3d@1``: cycles without turbo sit out odd
  rounds) has an all-zero mask and its action is ignored; a live agent left out of the
  actions, or given ``None``, forfeits, as a bot that answers nothing does.
- `replay` is the game so far as a lightcycle replay (`lightcycle.envs.episodes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv  # type: ignore[import-untyped]

from lightcycle.core.moves import Forfeit, Move
from lightcycle.envs import render as draw
from lightcycle.envs.base import OneGameEnv
from lightcycle.envs.episodes import agent_seats
from lightcycle.envs.game import SEED_BOUND, game_over_by_limit, info_of
from lightcycle.envs.observe import observe
from lightcycle.envs.rewards import settled, shaping_reward
from lightcycle.envs.spaces import action_space, decode_action, observation_space
from lightcycle.maps.spec import MapSpec
from lightcycle.replay.model import Replay
from lightcycle.rules.engine import step
from lightcycle.rules.legal import moves_this_turn
from lightcycle.rules.ruleset import Ruleset


def agent_name(cycle: int) -> str:
    """The agent id of ``cycle``: ``player_0``, ``player_1``, ..."""
    return f"player_{cycle}"


class LightcycleParallelEnv(OneGameEnv, ParallelEnv):  # type: ignore[misc]  # untyped PettingZoo
    """A lightcycle game as a PettingZoo `ParallelEnv` (see the module docstring).

    Args:
        map: a map name, file path or `MapSpec` (``arena-15``, ``torus-20``,
            ``court-small``, ``icosahedron``; ``lightcycle maps list``).
        ruleset: ``classic``, ``torus``, ``ffa``, ``teams``, ``tron3d`` (any registered
            name or alias); default the one ``lightcycle play`` picks for the map.
        players: the number of teams (2-8 in ``ffa``).
        seed: seeds the game seeds of resets that name none (``reset(seed=s)`` plays
            game seed ``s``, the seed ``lightcycle play --seed`` takes).
        max_turns: end each game after this many turns, through the rules' own limit.
        shaping: ``None`` (default) or ``"survival"`` (`lightcycle.envs.rewards`).
        render_mode: ``"ansi"`` (text) or ``"rgb_array"`` (an ``H x W x 3`` uint8 image).
        settings: other ruleset settings, e.g. ``{"turn_limit": 300}``.

    Attributes:
        config: the resolved map, ruleset, players and turn limit.
        layout: the observation and action layout every agent shares.
        neighbours: on graph boards, the ``(V, D)`` neighbour table graph actions index
            (``-1`` padded); ``None`` on grids.
        game: the current `GameState` (``None`` before the first reset).
    """

    metadata = {  # noqa: RUF012  (PettingZoo reads a plain class dict)
        "render_modes": list(draw.RENDER_MODES),
        "name": "lightcycle_v1",
        "is_parallelizable": True,
        "render_fps": 10,
    }

    def __init__(
        self,
        map: str | MapSpec = "arena-15",
        ruleset: str | Ruleset | None = None,
        players: int | None = None,
        seed: int | None = None,
        max_turns: int | None = None,
        shaping: str | None = None,
        render_mode: str | None = None,
        settings: dict[str, Any] | None = None,
    ) -> None:
        self._set_up(map, ruleset, players, max_turns, shaping, render_mode, settings)
        self.possible_agents = [agent_name(i) for i in range(self.config.cycles)]
        self.agents: list[str] = []
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self._observation_spaces = {a: observation_space(self.layout) for a in self.possible_agents}
        self._action_spaces = {a: action_space(self.layout) for a in self.possible_agents}
        self._rng = np.random.default_rng(seed)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same object every call)."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent`` (the same object every call)."""
        return self._action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """Start a game: game seed ``seed``, or the next one drawn when ``None``.

        A seeded reset also reseeds the draw, so the games after it repeat too.
        """
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            game_seed = int(seed)
        else:
            game_seed = int(self._rng.integers(SEED_BOUND))
        state = self.game = self.config.new_state(game_seed)
        self._log.start(state)
        self.agents = self.possible_agents[:]
        observations = {a: observe(state, i, self.layout) for i, a in enumerate(self.agents)}
        infos = {a: info_of(state, i) for i, a in enumerate(self.agents)}
        return observations, infos

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, dict[str, np.ndarray]],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Play one turn with every live agent's action (see the module docstring).

        Raises:
            RuntimeError: when no game is running (call `reset`).
            ValueError: for an action outside an agent's action space.
        """
        state = self.game
        if state is None or not self.agents:
            raise RuntimeError("no game is running: call reset() first")
        moves: dict[int, Move | Forfeit] = {}
        for agent in self.agents:
            i = self._index[agent]
            if not moves_this_turn(state, i):
                continue
            action = actions.get(agent)
            if action is None:
                moves[i] = Forfeit(i, "no action")
            else:
                moves[i] = decode_action(state, i, action, self.layout)
        self._log.add(state, moves)
        after = self.game = step(state, moves)
        over = after.outcome is not None
        by_limit = game_over_by_limit(after, self.config)
        observations, rewards, terminations, truncations, infos = {}, {}, {}, {}, {}
        for agent in self.agents:
            i = self._index[agent]
            c = after.cycles[i]
            leaves = over or not c.alive
            reward = shaping_reward(self.shaping, c.alive, self.layout.turn_limit)
            if leaves:
                reward += settled(after, c.team) or 0.0
            observations[agent] = observe(after, i, self.layout)
            rewards[agent] = reward
            truncations[agent] = bool(over and by_limit and c.alive)
            terminations[agent] = bool(leaves and not truncations[agent])
            infos[agent] = info_of(after, i)
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        return observations, rewards, terminations, truncations, infos

    def replay(self, names: Sequence[str] | None = None) -> Replay:
        """The current game, from turn 0 to now, as a lightcycle replay (with its outcome
        once over): ``.save(path)`` writes the file ``lightcycle replay`` plays, and a
        notebook shows it in the viewer.

        Args:
            names: the seats' names, one per team (default the agents': ``player_0``).

        Raises:
            RuntimeError: before the first `reset`.
        """
        game = self._played()
        return self._log.replay(self.config.spec, game, agent_seats(game, names))

    def close(self) -> None:
        """Nothing to release: the game is a value."""


parallel_env = LightcycleParallelEnv
"""PettingZoo's ``parallel_env`` entry point: the class itself, so it takes exactly its
keywords."""


def env(**kwargs: Any) -> Any:
    """The AEC version of `parallel_env` (same keywords), wrapped as PettingZoo wraps its
    own environments: PettingZoo's converter, an ``AssertOutOfBoundsWrapper`` that
    refuses actions outside the space, and the ``OrderEnforcingWrapper`` outermost."""
    from pettingzoo.utils import wrappers  # type: ignore[import-untyped]
    from pettingzoo.utils.conversions import parallel_to_aec_wrapper  # type: ignore[import-untyped]

    aec = parallel_to_aec_wrapper(parallel_env(**kwargs))
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(aec))

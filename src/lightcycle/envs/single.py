"""Gymnasium single-agent environments: one cycle against the built-in bots.

The agent steers one cycle (``cycle``, default 0); every other team is played by a bot
(``opponents``), and in team rulesets the agent's own teammates too (``teammates``), all
in-process through `lightcycle.envs.seats`. Observations, actions and masks are those of
the agent's cycle in `lightcycle.envs.parallel` (`lightcycle.envs.observe`), and
`action_masks` hands the mask to sb3-contrib's ``MaskablePPO``.

An episode is the agent's part of one game:

- turns on which the agent's cycle does not move (``tron3d@1``'s odd rounds without
  turbo) are played by the bots alone, so every step is a decision;
- it ends when the agent's cycle dies (``terminated``), when the game ends
  (``terminated``, or ``truncated`` when the rules' turn limit ends it with the cycle
  alive);
- the reward at the end is the team's result (`lightcycle.envs.rewards.pairwise`: +1
  win, 0 draw, -1 loss between two teams). Where the agent's cycle dies before its
  team's place is known (a teammate lives on; ``tron3d`` ranks by score at the end) the
  bots play the game out first, so the reward is always the team's final result.

`replay` is the game so far as a lightcycle replay (`lightcycle.envs.episodes`): the
agent's moves and the bots' alike, every turn of it, the turns played after the agent's
cycle died included.

Teams (``teams@1``, ``tron3d@1``): the agent is one cycle of its team, its teammates a
bot, which keeps the observation and action of one cycle, the unit the parallel
environment and the batched engine share; steering a whole team of ten is the parallel
environment's job.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from lightcycle.bots.api import Bot
from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.state import GameState
from lightcycle.envs import render as draw
from lightcycle.envs.base import OneGameEnv
from lightcycle.envs.episodes import AGENT, spec_text, with_names
from lightcycle.envs.game import SEED_BOUND, game_over_by_limit, info_of
from lightcycle.envs.observe import action_mask, observe
from lightcycle.envs.rewards import pairwise, settled, shaping_reward
from lightcycle.envs.seats import BotLike, ask, seat_bot, start
from lightcycle.envs.spaces import action_space, decode_action, observation_space
from lightcycle.maps.spec import MapSpec
from lightcycle.replay.model import Replay, unique_names
from lightcycle.rules.engine import step
from lightcycle.rules.legal import moves_this_turn
from lightcycle.rules.ruleset import Ruleset


def default_bot(config_cycles_per_team: int, graph: bool) -> str:
    """The bot that fills a seat nobody named: ``dummy`` on graph boards (the 3D course's
    reference bot), ``randombot`` for teams of several cycles on grids (the team
    course's), ``random`` otherwise: the floor of each ladder."""
    if graph:
        return "dummy"
    return "randombot" if config_cycles_per_team > 1 else "random"


class LightcycleEnv(OneGameEnv, gymnasium.Env[dict[str, Any], np.int64]):
    """One cycle of a lightcycle game against bots (see the module docstring).

    Args:
        map, ruleset, players, max_turns, shaping, render_mode, settings: as for
            `lightcycle.envs.parallel.LightcycleParallelEnv`.
        opponents: the bot of every other team, or one per other team in seat order: a
            bot name (``random``, ``wallhugger``, ``chaser``, ``strong:nodes=2000``), a
            `Bot` class or instance, a function of a `View`, or a
            `lightcycle.envs.seats.PolicyBot`. Default the floor of the ruleset's
            ladder (`default_bot`).
        teammates: the bot steering the other cycles of the agent's team (team
            rulesets); default as ``opponents``.
        cycle: the agent's cycle (its team is that cycle's).

    Attributes:
        config, layout, neighbours, game: as for the parallel environment.
        cycle, team: the agent's cycle and team.
    """

    metadata = {"render_modes": list(draw.RENDER_MODES), "render_fps": 10}  # noqa: RUF012

    def __init__(
        self,
        map: str | MapSpec = "arena-15",
        ruleset: str | Ruleset | None = None,
        players: int | None = None,
        opponents: BotLike | Sequence[BotLike] | None = None,
        teammates: BotLike | None = None,
        cycle: int = 0,
        max_turns: int | None = None,
        shaping: str | None = None,
        render_mode: str | None = None,
        settings: dict[str, Any] | None = None,
    ) -> None:
        self._set_up(map, ruleset, players, max_turns, shaping, render_mode, settings)
        if not 0 <= cycle < self.config.cycles:
            raise ValueError(f"cycle {cycle} is not one of 0..{self.config.cycles - 1}")
        self.cycle = cycle
        first = self.config.new_state(0)
        self.team = first.cycles[cycle].team
        per_team = self.config.ruleset.settings.cycles_per_team
        fallback = default_bot(per_team, self.layout.graph)
        others = [t.index for t in first.teams if t.index != self.team]
        if opponents is None:
            specs: list[BotLike] = [fallback] * len(others)
        elif isinstance(opponents, Sequence) and not isinstance(opponents, str):
            specs = list(opponents)
            if len(specs) != len(others):
                raise ValueError(
                    f"{len(specs)} opponents given for {len(others)} other teams; give one "
                    "bot for all or one per other team"
                )
        else:
            specs = [opponents] * len(others)
        self._specs: dict[int, BotLike] = dict(zip(others, specs, strict=True))
        if len(first.cycles_of(self.team)) > 1:
            self._specs[self.team] = teammates if teammates is not None else fallback
        self._bots: dict[int, Bot] = {}
        self.observation_space = observation_space(self.layout)
        self.action_space = action_space(self.layout)

    # -- the episode -----------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start a game: game seed ``seed`` (as ``lightcycle play --seed``), or one drawn
        from the environment's generator; fresh bots for every seat."""
        super().reset(seed=seed)
        game_seed = int(seed) if seed is not None else int(self.np_random.integers(SEED_BOUND))
        state = self.config.new_state(game_seed)
        self._log.start(state)
        self._bots = {}
        for team, spec in self._specs.items():
            bot = self._bots[team] = seat_bot(spec)
            try:
                start(bot, state, team)
            except Exception:  # a bot's start error costs it nothing here
                continue
        self.game = self._until_agent_moves(state)
        return observe(self.game, self.cycle, self.layout), info_of(self.game, self.cycle)

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Play the agent's move and the bots' in one turn, then on to its next move.

        Raises:
            RuntimeError: when no game is running (call `reset`).
            ValueError: for an action outside the action space.
        """
        state = self.game
        if state is None or state.outcome is not None or not state.cycles[self.cycle].alive:
            raise RuntimeError("the episode is over: call reset()")
        moves = self._bot_moves(state)
        # a teammate bot lists the agent's cycle too: replacing its entry keeps the place
        # the bot gave it, the order in which the sequential rulesets move a team
        moves[self.cycle] = decode_action(state, self.cycle, action, self.layout)
        after = self._play(state, moves)
        alive = after.cycles[self.cycle].alive
        reward = shaping_reward(self.shaping, alive, self.layout.turn_limit)
        after = self._until_agent_moves(after)
        terminated = truncated = False
        if after.outcome is not None or not after.cycles[self.cycle].alive:
            result = settled(after, self.team)
            if result is None:
                after = self._play_out(after)
                result = pairwise(after.outcome.ranks, self.team)  # type: ignore[union-attr]
            reward += result
            truncated = after.cycles[self.cycle].alive and game_over_by_limit(after, self.config)
            terminated = not truncated
        self.game = after
        return (
            observe(after, self.cycle, self.layout),
            reward,
            terminated,
            truncated,
            info_of(after, self.cycle),
        )

    def action_masks(self) -> np.ndarray:
        """The legal actions of the agent's cycle now, as booleans (``MaskablePPO``)."""
        if self.game is None:
            return np.zeros(self.layout.actions, dtype=bool)
        return action_mask(self.game, self.cycle, self.layout).astype(bool)

    def replay(self, names: Sequence[str] | None = None) -> Replay:
        """The current game, from turn 0 to now, as a lightcycle replay (with its outcome
        once over): ``.save(path)`` writes the file ``lightcycle replay`` plays, and a
        notebook shows it in the viewer. Through Gymnasium's wrappers:
        ``env.unwrapped.replay()``.

        A free-for-all episode that ends with the agent's crash ends before the game
        does: its replay stops there, with no outcome.

        Args:
            names: the seats' names, one per team (default ``agent`` for the agent's
                team and each bot's name for the others).

        Raises:
            RuntimeError: before the first `reset`.
            ValueError: for a number of names other than the number of teams.
        """
        game = self._played()
        seats: list[dict[str, str]] = []
        for team in game.teams:
            t = team.index
            if t == self.team:
                mate = f" with {spec_text(self._specs[t])}" if t in self._specs else ""
                seats.append({"name": AGENT, "bot": AGENT + mate})
            else:
                bot = self._bots.get(t)
                name = bot.display_name if bot is not None else f"Player {t + 1}"
                seats.append({"name": name, "bot": spec_text(self._specs[t])})
        shown = unique_names([s["name"] for s in seats]) if names is None else names
        return self._log.replay(self.config.spec, game, with_names(seats, shown))

    # -- the bots' turns -------------------------------------------------------------
    def _play(self, state: GameState, moves: dict[int, Move | Forfeit]) -> GameState:
        """One turn of the rules, kept for `replay`."""
        self._log.add(state, moves)
        return step(state, moves)

    def _bot_moves(self, state: GameState) -> dict[int, Move | Forfeit]:
        moves: dict[int, Move | Forfeit] = {}
        for team, bot in self._bots.items():
            moves.update(ask(bot, state, team))
        return moves

    def _until_agent_moves(self, state: GameState) -> GameState:
        """Play the bots' turns while the agent's cycle lives but sits the turn out."""
        while (
            state.outcome is None
            and state.cycles[self.cycle].alive
            and not moves_this_turn(state, self.cycle)
        ):
            state = self._play(state, self._bot_moves(state))
        return state

    def _play_out(self, state: GameState) -> GameState:
        """Play the game to its end with the bots alone (the agent's cycle is dead)."""
        while state.outcome is None:
            state = self._play(state, self._bot_moves(state))
        return state

"""Gymnasium 1.x vector environments over `lightcycle.envs.batched.BatchedGames`.

Two shapes of the same N batched games:

- `SelfPlayVectorEnv`: a sub-environment is a whole game. Its action is every seat's move
  (``MultiDiscrete([A] * P)``), its observation carries every seat's view (the arrays of
  the observation contract with a leading seat axis), and its reward is seat 0's; all
  seats' rewards are in ``infos["seat_rewards"]``. One policy playing every seat is
  self-play.
- `OpponentVectorEnv`: a sub-environment is one seat's game against opponents computed in
  numpy by a batched policy (by default `random_safe_policy`): ``Discrete(A)`` actions,
  the seat's own observation and reward. With one cycle per team its episode ends when
  its cycle dies: its reward is then already decided (see `BatchedGames`).

Both declare ``metadata["autoreset_mode"]`` (`gymnasium.vector.AutoresetMode`) and honour
the mode they are built with: ``NEXT_STEP`` (Gymnasium's default; the step after a game's
end restarts it, ignores its action and returns reward 0), ``SAME_STEP`` (the ending step
returns the new game's first observation, the last one in ``infos["final_obs"]``), or
``DISABLED`` (call ``reset(options={"reset_mask": ...})``).

The observation arrays returned are the engine's buffers, updated in place by the next
``step`` (vector environments may do this, as ``SyncVectorEnv(copy=False)`` does): copy
what you keep, or build the environment with ``copy=True``. Rewards, terminations and
truncations are fresh arrays each step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from lightcycle.envs.batched import (
    AutoReset,
    BatchedGames,
    StepResult,
    random_safe_policy,
)
from lightcycle.maps.spec import MapSpec
from lightcycle.rules.ruleset import Ruleset

BatchedPolicy = Callable[[BatchedGames, npt.NDArray[np.intp], np.random.Generator], Any]
"""A batched opponent: ``(games, cycles, rng) -> (N, len(cycles))`` actions for those
cycles in every game, computed from the games' arrays (see `random_safe_policy`)."""

_MODES = {
    AutoresetMode.NEXT_STEP: AutoReset.NEXT_STEP,
    AutoresetMode.SAME_STEP: AutoReset.SAME_STEP,
    AutoresetMode.DISABLED: AutoReset.DISABLED,
}

Obs = dict[str, npt.NDArray[Any]]
Infos = dict[str, Any]
VectorStep = tuple[
    Obs, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], Infos
]
"""What ``step`` returns: observations, rewards, terminations, truncations, infos."""


def _mode(mode: AutoresetMode | str) -> AutoresetMode:
    return mode if isinstance(mode, AutoresetMode) else AutoresetMode(mode)


class _BatchedVectorEnv(VectorEnv):
    """What both environments share: the engine, reset, infos, copies."""

    # the class's default; each instance sets its own (Gymnasium declares an instance field)
    metadata: dict[str, Any] = {  # noqa: RUF012
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int,
        ruleset: str | Ruleset,
        map: str | MapSpec,
        players: int | None,
        max_turns: int | None,
        autoreset_mode: AutoresetMode | str,
        copy: bool,
        seed_pool: int | None,
        stop_on_death_of: int | None = None,
    ) -> None:
        mode = _mode(autoreset_mode)
        self.games = BatchedGames(
            ruleset,
            map,
            num_envs,
            players=players,
            autoreset=_MODES[mode],
            max_turns=max_turns,
            observe=True,
            stop_on_death_of=stop_on_death_of,
            seed_pool=seed_pool,
        )
        self.num_envs = num_envs
        self.copy = copy
        self.autoreset_mode = mode
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        planes = self.games.planes
        assert planes is not None
        self._planes = planes

    def _spaces(self, seats: int | None) -> spaces.Dict:
        """The observation space of one sub-environment (``seats``: leading seat axis)."""
        g, pl = self.games, self._planes
        lead = () if seats is None else (seats,)
        high = np.ones(pl.scalars.shape[2], dtype=np.float32)
        if g.has_jumps:
            high[1] = max(1, g.ruleset.settings.jumps)
        return spaces.Dict(
            {
                "observation": spaces.Box(
                    0, 1, (*lead, pl.channels, g.height, g.width), dtype=np.uint8
                ),
                "scalars": spaces.Box(
                    np.zeros((*lead, len(high)), np.float32),
                    np.broadcast_to(high, (*lead, len(high))).copy(),
                    dtype=np.float32,
                ),
                "action_mask": spaces.Box(0, 1, (*lead, g.num_actions), dtype=np.int8),
            }
        )

    def _bind(self, seat: int | None, single_action_space: spaces.Space[Any]) -> None:
        """Set the spaces and the observation arrays of a sub-environment: every seat's
        (``seat`` ``None``: a leading seat axis) or one seat's."""
        self._seat = seat
        self.single_observation_space = self._spaces(
            self.games.num_cycles if seat is None else None
        )
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.single_action_space = single_action_space
        self.action_space = batch_space(single_action_space, self.num_envs)
        pl = self._planes
        self._obs: Obs = {
            "observation": pl.obs if seat is None else pl.obs[:, seat],
            "scalars": pl.scalars if seat is None else pl.scalars[:, seat],
            "action_mask": pl.action_mask if seat is None else pl.action_mask[:, seat],
        }

    def _out(self, obs: Obs) -> Obs:
        return {k: v.copy() for k, v in obs.items()} if self.copy else obs

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """Start every game (or those in ``options["reset_mask"]``) anew.

        Args:
            seed: an int seeds game ``i`` with ``seed + i``, the later games' seeds and
                the environment's own generator (opponents); a list gives each game's.
            options: ``reset_mask``, an ``(N,)`` boolean array: restart only those games.
        """
        if isinstance(seed, int | np.integer):
            super().reset(seed=int(seed))
        mask = None if options is None else options.get("reset_mask")
        if mask is not None:
            mask = np.asarray(mask)
            if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                raise ValueError(f"reset_mask must be a boolean array of shape ({self.num_envs},)")
            seeds = None
            if isinstance(seed, list):
                seeds = np.asarray(seed, dtype=np.uint64)[mask]
            self.games.reset_games(mask, seeds)
        else:
            self.games.reset(seed)
        return self._out(self._obs), {}

    def _infos(self, res: StepResult, ended: npt.NDArray[np.bool_]) -> dict[str, Any]:
        """Per Gymnasium's convention: each key with a ``_key`` mask of the games it fills."""
        infos: dict[str, Any] = {}
        if not ended.any():
            return infos
        ranks, turns = res.ranks.copy(), res.final_turn.copy()
        if self.autoreset_mode is AutoresetMode.SAME_STEP:
            final_obs = np.full(self.num_envs, None, dtype=object)
            for row, g in enumerate(self._planes.final_games):
                final_obs[g] = self._final_row(row)
            infos["final_obs"], infos["_final_obs"] = final_obs, ended.copy()
            infos["final_info"] = {
                "ranks": ranks,
                "_ranks": ended.copy(),
                "turn": turns,
                "_turn": ended.copy(),
            }
            infos["_final_info"] = ended.copy()
        else:
            infos.update(ranks=ranks, _ranks=ended.copy(), turn=turns, _turn=ended.copy())
        return infos

    def _final_row(self, row: int) -> Obs:
        """The last observation of the game whose end `final_obs` keeps at ``row``."""
        pl = self._planes
        at = row if self._seat is None else (row, self._seat)
        return {
            "observation": pl.final_obs[at],
            "scalars": pl.final_scalars[at],
            "action_mask": pl.final_mask[at],
        }

    def _step(self, actions: npt.ArrayLike) -> tuple[StepResult, npt.NDArray[np.bool_], Infos]:
        """One step of every game: the engine's result, the games that ended, the infos."""
        res = self.games.step(actions)
        ended = res.terminated | res.truncated
        return res, ended, self._infos(res, ended)

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release: the games are arrays."""


class SelfPlayVectorEnv(_BatchedVectorEnv):
    """N games where one policy moves every seat: a sub-environment is a whole game.

    Args:
        num_envs: N.
        ruleset: ``classic``, ``torus``, ``ffa`` or ``teams`` (or a `Ruleset`).
        map: a map name or `MapSpec`.
        players: teams per game (default: the map's starts).
        max_turns: truncate games longer than this (default: none; every game ends).
        autoreset_mode: see the module doc.
        copy: return copies of the observation buffers instead of the buffers.
        seed_pool: see `BatchedGames` (maps whose starts depend on the seed).

    The observation of a sub-environment is the contract's dict with a seat axis first:
    ``observation`` ``(P, C, H, W)``, ``scalars`` ``(P, K)``, ``action_mask`` ``(P, A)``,
    row ``i`` from seat ``i``'s point of view (agent ``player_i``). The reward is seat 0's
    (a duel is zero-sum); ``infos["seat_rewards"]`` holds every seat's, ``(N, P)``.
    """

    def __init__(
        self,
        num_envs: int = 8,
        ruleset: str | Ruleset = "classic",
        map: str | MapSpec = "arena-15",
        *,
        players: int | None = None,
        max_turns: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        copy: bool = False,
        seed_pool: int | None = None,
    ) -> None:
        super().__init__(
            num_envs, ruleset, map, players, max_turns, autoreset_mode, copy, seed_pool
        )
        p, a = self.games.num_cycles, self.games.num_actions
        self._bind(None, spaces.MultiDiscrete(np.full(p, a)))

    def step(self, actions: npt.ArrayLike) -> VectorStep:
        """Move every seat of every game: ``actions`` is ``(N, P)``."""
        res, _, infos = self._step(actions)
        infos["seat_rewards"] = res.rewards.copy()
        return (
            self._out(self._obs),
            res.rewards[:, 0].astype(np.float64),
            res.terminated.copy(),
            res.truncated.copy(),
            infos,
        )


class OpponentVectorEnv(_BatchedVectorEnv):
    """N games of one learning seat against opponents computed in numpy.

    Args:
        num_envs: N.
        ruleset, map, players, max_turns, autoreset_mode, copy, seed_pool: as for
            `SelfPlayVectorEnv`.
        opponent: a `BatchedPolicy` moving every other cycle (default
            `random_safe_policy`: a uniformly random legal move onto a free cell).
        seat: the learner's cycle (default 0).

    With one cycle per team the learner's episode ends when its cycle dies (its reward,
    from its place, is decided then: the same episode as the single-game
    ``lightcycle/Duel-v1`` family). With teams it ends with the game: a learner whose cycle
    died waits out its team's game with an all-zero mask (its actions ignored), where the
    single-game environment plays the rest out inside the dying step. ``truncated`` when
    the rules' turn limit (``max_turns``) ends the game with the learner's cycle alive.
    The opponent draws its random numbers from the environment's ``np_random`` (seeded
    by ``reset(seed=)``).
    """

    def __init__(
        self,
        num_envs: int = 8,
        ruleset: str | Ruleset = "classic",
        map: str | MapSpec = "arena-15",
        *,
        opponent: BatchedPolicy | None = None,
        seat: int = 0,
        players: int | None = None,
        max_turns: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        copy: bool = False,
        seed_pool: int | None = None,
    ) -> None:
        probe = BatchedGames(ruleset, map, 1, players=players, observe=False)
        if not 0 <= seat < probe.num_cycles:
            raise ValueError(f"seat must name a cycle 0..{probe.num_cycles - 1}, got {seat}")
        super().__init__(
            num_envs,
            ruleset,
            map,
            players,
            max_turns,
            autoreset_mode,
            copy,
            seed_pool,
            stop_on_death_of=seat if probe.cycles_per_team == 1 else None,
        )
        self.seat = seat
        self.opponent: BatchedPolicy = opponent or random_safe_policy
        g = self.games
        self._others = np.array([c for c in range(g.num_cycles) if c != seat], dtype=np.intp)
        self._actions = np.zeros((num_envs, g.num_cycles), dtype=np.intp)
        self._bind(seat, spaces.Discrete(g.num_actions))

    def step(self, actions: npt.ArrayLike) -> VectorStep:
        """Move the learner's cycle by ``actions`` ``(N,)`` and the others by the opponent."""
        act = self._actions
        act[:, self.seat] = np.asarray(actions).reshape(self.num_envs)
        if len(self._others):
            act[:, self._others] = self.opponent(self.games, self._others, self.np_random)
        res, ended, infos = self._step(act)
        truncated = res.truncated & res.final_alive[:, self.seat]  # cut short while alive
        return (
            self._out(self._obs),
            res.rewards[:, self.seat].astype(np.float64),
            ended & ~truncated,
            truncated,
            infos,
        )

"""N games of one grid ruleset stepped together in numpy arrays, with automatic reset.

`BatchedGames` holds the state of N independent games (cell codes, heads, alive flags,
turns, seeds, jumps) as arrays and plays one turn of all of them with a handful of
vectorised operations: no Python loop over games on the hot path. Its games are move for
move those of `lightcycle.rules.engine.step` on the same map, seed and moves: a game starts
from `lightcycle.rules.engine.new_game` (the referee's own set-up, starts placed by the
seed where the map leaves them open), and each turn applies the same stages:

- ``classic``, ``torus`` and ``ffa`` (``movement.standard``, ``collision.simultaneous``,
  ``trails.persist``, ``game_over.last_standing``, ``game_over.turn_limit``): every move
  is decided on the positions before the turn, which vectorises directly;
- ``teams`` (``movement.jump``, ``collision.priority``, ``trails.remove_on_death`` and the
  same game-over stages): cycles move one by one, the team order and every head contest
  decided by coin tosses drawn from the game seed (`lightcycle.core.rng`'s splitmix64,
  ported to numpy arrays), exploding trails vanish at once. The loop runs over the P
  cycle slots of the turn order, each slot vectorised over all games. The referee would
  order teams by measured CPU time first; an environment measures none (as
  ``step(state, moves)`` without ``cpu``), so every team has used zero CPU time and the
  coin tosses decide.

Actions are integers per cycle: ``k`` in ``0..3`` is heading ``k`` in
`lightcycle.core.topology.Heading` order (N, E, S, W), the move
``Move(i, topology.move(head, k))``; with jumps ``4 + k`` is the jump in heading ``k``,
``Move(i, topology.jump(head, k), jump=True)``. A heading that `legal_moves` does not list
(it duplicates another's destination) is the same move as the one it duplicates. Dead
cycles' actions are ignored.

Rewards come at a game's end only, per cycle from its team's place: the average over the
other teams of +1 for each placed below it, -1 for each placed above, 0 for a shared
place. In a duel that is win +1, draw 0, loss -1; in a free-for-all the single winner gets
+1, a player out alone first -1, and the rewards sum to zero, like the pairwise sum of
the tournaments' multi-player Elo. A team's place depends only on the turn its last cycle
died, so a cycle's reward is already decided on the turn it dies (which is what
``stop_on_death_of`` relies on). A game that the rules' turn limit ends with two or more
teams alive is ``truncated`` rather than ``terminated``; its rewards still follow the
ranks the rules declare (a draw among the survivors of a duel).

How it is fast: the board of every game is one row of a ``uint8`` array (0 free, 1 wall,
``2 + i`` cycle ``i``'s trail) with one extra cell, a wall, that every move off a walled
grid lands on, so a whole turn is table look-ups (``step_table`` flattened, the sentinel
for ``OFF``) and fancy indexing into the flattened rows: one gather decides every crash,
one comparison every same-cell collision, one scatter writes every survivor's new cell
(the others write a wall onto their game's sentinel, which changes nothing), with no
boolean selection and no Python loop over games. Finished games are restarted by copying
a prepared row; the observation planes are updated in place (`Planes`).

Automatic reset: ``next_step`` (Gymnasium's default) keeps a finished game on view for
one step and restarts it on the next, ignoring that step's actions; ``same_step``
restarts it at once (the final observation is copied aside first); ``disabled`` freezes
finished games until `BatchedGames.reset_games`. The arrays returned by `step` are the
engine's own buffers, overwritten by the next call.

Everything here is numpy: the Gymnasium adapters live in `lightcycle.envs.vector`.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from lightcycle.core.rng import _hash_text
from lightcycle.core.state import GameState
from lightcycle.core.topology import OFF, GridTopology
from lightcycle.envs._observe_np import TRAIL0, WALL, Planes
from lightcycle.envs.game import SEED_BOUND, observed_limit, with_max_turns
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapSpec
from lightcycle.rules.engine import new_game
from lightcycle.rules.ruleset import RulesError, Ruleset
from lightcycle.rules.variants import get_ruleset

IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]

SIMULTANEOUS_STAGES = (
    "movement.standard",
    "collision.simultaneous",
    "trails.persist",
    "game_over.last_standing",
    "game_over.turn_limit",
)
"""The stage list of ``classic``, ``torus`` and ``ffa``: one vectorised step."""

PRIORITY_STAGES = (
    ("movement.jump", "movement.standard"),
    ("collision.priority",),
    ("trails.remove_on_death",),
    ("game_over.last_standing",),
    ("game_over.turn_limit",),
)
"""The stage lists of ``teams``: cycles one by one in the coin-tossed team order."""


class AutoReset(StrEnum):
    """When a finished game starts again (Gymnasium's autoreset modes)."""

    NEXT_STEP = "next_step"
    SAME_STEP = "same_step"
    DISABLED = "disabled"


class StepResult(NamedTuple):
    """What one call of `BatchedGames.step` did (the engine's buffers, not copies).

    Attributes:
        rewards: float32 ``(N, P)``, per cycle; nonzero only in games that ended.
        terminated: ``(N,)`` games the rules ended this step (or whose watched cycle died).
        truncated: ``(N,)`` games the rules' turn limit ended with two or more teams
            alive (``terminated`` is false for them; rewards follow the rules' ranks,
            so in a duel a draw, 0).
        ranks: int8 ``(N, T)``, per team its place (1 best) in games that ended.
        final_turn: int32 ``(N,)``, the turn a game ended on (valid where it ended).
        final_alive: ``(N, P)``, the cycles alive at the end (valid where it ended).
        restarted: ``(N,)`` games that started a new game during this call.
    """

    rewards: npt.NDArray[np.float32]
    terminated: BoolArray
    truncated: BoolArray
    ranks: npt.NDArray[np.int8]
    final_turn: npt.NDArray[np.int32]
    final_alive: BoolArray
    restarted: BoolArray


# --------------------------------------------------------------------------- rng

_U64 = np.uint64
_GOLDEN = _U64(0x9E3779B97F4A7C15)
_ORDER = _U64(_hash_text("order"))
_PRIORITY = _U64(_hash_text("priority"))


def _mix(z: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """splitmix64's finaliser on arrays (wrapping uint64 arithmetic, as in `core.rng`)."""
    z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    return z ^ (z >> _U64(31))


def rng_states(
    seeds: npt.NDArray[np.uint64], turns: npt.NDArray[np.integer], stream: np.uint64
) -> npt.NDArray[np.uint64]:
    """The start state of ``Rng(seed, turn, stream)`` per game (``stream`` pre-hashed)."""
    return _mix(seeds ^ _mix(turns.astype(np.uint64) + _U64(1)) ^ stream)


def rng_draw(state: npt.NDArray[np.uint64], k: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """The ``k``-th (from 0) ``next_u64`` of generators in ``state``, without mutating."""
    return _mix(state + (k + _U64(1)) * _GOLDEN)


_SEED_STREAM = 0x6C63
"""Mixed into the seed of the generator of game seeds, so that an environment seeded with
the same number draws its own random numbers (an opponent's) from a different stream."""


# --------------------------------------------------------------------------- tables


def _tables(
    topo: GridTopology, jumps: bool
) -> tuple[IntArray, IntArray, BoolArray, npt.NDArray[np.int8]]:
    """Flat move tables with ``OFF`` mapped to the sentinel cell ``size`` (a wall).

    Returns:
        ``(step, jump, jump_forfeit, legal)``: destination per ``cell * 4 + heading`` for
        a step and a jump; whether the engine refuses that jump as illegal (it looks up
        the heading of an ``OFF`` landing as the first heading whose jump leaves the
        grid, and refuses the jump when that heading's single step leaves it too); and
        per cell the legal-move mask of `lightcycle.rules.legal.legal_moves`.
    """
    size = topo.size
    step = np.array(topo.step_table, dtype=np.intp)
    jump = np.array(topo.jump_table, dtype=np.intp)
    forfeit = np.zeros(size * 4, dtype=bool)
    legal = np.zeros((size, 8 if jumps else 4), dtype=np.int8)
    for cell in range(size):
        base = cell * 4
        seen: set[int] = set()
        for h in range(4):
            d = topo.step_table[base + h]
            if d not in seen:
                seen.add(d)
                legal[cell, h] = 1
            to = topo.jump_table[base + h]
            if jumps and to != OFF:
                legal[cell, 4 + h] = 1
            first = next(k for k in range(4) if topo.jump_table[base + k] == to)
            forfeit[base + h] = to == OFF and topo.step_table[base + first] == OFF
    step[step == OFF] = size
    jump[jump == OFF] = size
    return step, jump, forfeit, legal


def _stage_kind(rs: Ruleset) -> str:
    """``simultaneous`` or ``priority``, from the ruleset's stage ids (never its name)."""
    if tuple(rs.stages) == SIMULTANEOUS_STAGES:
        return "simultaneous"
    if len(rs.stages) == len(PRIORITY_STAGES) and all(
        s in allowed for s, allowed in zip(rs.stages, PRIORITY_STAGES, strict=True)
    ):
        return "priority"
    raise RulesError(
        f"the batched engine plays the grid rulesets classic, torus, ffa and teams; "
        f"{rs.id} has stages {', '.join(rs.stages)}"
    )


class BatchedGames:
    """N games of one ruleset on one map, stepped together.

    Args:
        ruleset: a `Ruleset` or registry name (``classic``, ``torus``, ``ffa``, ``teams``;
            settings changed with `Ruleset.with_settings` are honoured).
        map: a `MapSpec` or a map name for `lightcycle.maps.registry.get_map`.
        num_games: N.
        players: teams per game (default as `new_game`: the map's starts, else the
            ruleset's minimum).
        seed: seeds the first games (game ``i`` gets ``seed + i``, as Gymnasium seeds
            sub-environments) and the generator of later games' seeds.
        autoreset: ``next_step``, ``same_step`` or ``disabled`` (see the module doc).
        max_turns: end games after this many turns through the ruleset's own turn
            limit (`lightcycle.envs.game.with_max_turns`, as the single-game
            environments do): the rules rank the survivors (a draw among them in the
            duel) and the game counts as ``truncated``. ``None``: the ruleset's limit,
            if any (every grid game ends anyway).
        observe: keep the per-agent observation planes (`Planes`) up to date.
        stop_on_death_of: end a game (``terminated``) as soon as this cycle dies, with
            rulesets of one cycle per team: its reward is already decided then, and a
            learner need not watch the others finish. The other cycles' rewards in such
            a game are provisional (the live ones share the top place).
        seed_pool: draw later games' seeds from ``0..seed_pool-1`` and remember each
            seed's set-up. Only maps that leave starts to the seed need it: there a
            restart costs one `new_game` call (milliseconds) unless its seed was seen.

    Attributes:
        num_games, num_cycles, num_teams, cycles_per_team, num_actions: N, P, T, P / T, A.
        width, height, size: the grid (``size`` cells; the cell codes have one more,
            the off-board sentinel, always a wall).
        team_of: per cycle its team.
        cells: uint8 ``(N, size + 1)``: 0 free, 1 wall, ``2 + i`` cycle ``i``'s trail.
        heads, alive, death_turn, jumps_left: ``(N, P)`` per cycle.
        turn: int32 ``(N,)`` turns played in each game.
        seeds: uint64 ``(N,)`` each game's seed (replays and `new_game` take it).
        over: ``(N,)`` games finished and not yet restarted.
        decided: ``(N,)`` games the rules have ended (their state has an outcome: no
            move is legal any more, so the action masks are zeros).
        horizon: the ``T`` the ``turn`` scalar is divided by
            (`lightcycle.envs.game.observed_limit`): the rules' turn limit, else the
            number of free cells (no grid game lasts that long).
        planes: the observation buffers, or ``None`` without ``observe``.
    """

    def __init__(
        self,
        ruleset: str | Ruleset = "classic",
        map: str | MapSpec = "arena-30",
        num_games: int = 1,
        *,
        players: int | None = None,
        seed: int | None = None,
        autoreset: str | AutoReset = AutoReset.NEXT_STEP,
        max_turns: int | None = None,
        observe: bool = True,
        stop_on_death_of: int | None = None,
        seed_pool: int | None = None,
    ) -> None:
        if num_games < 1:
            raise ValueError(f"num_games must be at least 1, got {num_games}")
        rs = get_ruleset(ruleset)
        if max_turns is not None:
            rs = with_max_turns(rs, max_turns)
        spec = get_map(map) if isinstance(map, str) else map
        topo = spec.board.topology
        if not isinstance(topo, GridTopology):
            raise RulesError(f"the batched engine plays grid boards; {spec.name!r} is a graph")
        self.kind = _stage_kind(rs)
        first = new_game(rs, spec, seed=0, players=players)  # validates ruleset, map, count
        self.ruleset, self.spec = rs, spec
        self.players = len(first.teams)
        self.autoreset = AutoReset(autoreset)
        self.max_turns = max_turns
        self.seed_pool = seed_pool
        n, p = num_games, len(first.cycles)
        self.num_games, self.num_cycles, self.num_teams = n, p, len(first.teams)
        self.cycles_per_team = p // self.num_teams
        self.team_of = np.array([c.team for c in first.cycles], dtype=np.intp)
        if not np.array_equal(self.team_of, np.arange(p) // self.cycles_per_team):
            raise RulesError("the batched engine expects each team's cycles listed together")
        if stop_on_death_of is not None and (
            self.cycles_per_team != 1 or not 0 <= stop_on_death_of < p
        ):
            raise ValueError("stop_on_death_of names a cycle of a one-cycle-per-team ruleset")
        self.stop_on_death_of = stop_on_death_of
        self.width, self.height, self.size = topo.width, topo.height, topo.size
        self.has_jumps = "movement.jump" in rs.stages
        self.num_actions = 8 if self.has_jumps else 4
        settings = rs.settings
        self.turn_limit = settings.turn_limit
        self.cycles_left = settings.turn_limit_outcome == "cycles_left"
        self._start_jumps = settings.jumps
        self._step_tab, self._jump_tab, self._jump_forfeit, legal = _tables(topo, self.has_jumps)
        dest = [self._step_tab.reshape(-1, 4)]
        if self.has_jumps:
            dest.append(self._jump_tab.reshape(-1, 4))
        self._dest_tab = np.concatenate(dest, axis=1)  # (size, A): where each action lands
        s = self.size + 1
        self._codes = (TRAIL0 + np.arange(p)).astype(np.uint8)
        walls = np.array([spec.board.is_wall(c) for c in range(self.size)], dtype=bool)
        self._wall_row = np.zeros(s, dtype=np.uint8)
        self._wall_row[: self.size][walls] = WALL
        self._wall_row[self.size] = WALL
        self.horizon = observed_limit(rs, spec.board)
        self._fixed_starts = spec.starts_of(self.players) is not None
        self._setups: dict[int, npt.NDArray[np.intp]] = {}
        self._first_heads = np.array([c.head for c in first.cycles], dtype=np.intp)
        self._start_row = self._wall_row.copy()
        self._start_row[self._first_heads] = self._codes

        self.cells = np.zeros((n, s), dtype=np.uint8)
        self._cells_flat = self.cells.reshape(-1)
        self.heads = np.zeros((n, p), dtype=np.intp)
        self.alive = np.zeros((n, p), dtype=bool)
        self.death_turn = np.zeros((n, p), dtype=np.int32)
        self.jumps_left = np.zeros((n, p), dtype=np.int16)
        self.turn = np.zeros(n, dtype=np.int32)
        self.seeds = np.zeros(n, dtype=np.uint64)
        self.over = np.zeros(n, dtype=bool)
        self.decided = np.zeros(n, dtype=bool)
        self._base = (np.arange(n, dtype=np.intp) * s)[:, None]
        self._sentinel = self._base + self.size
        self._games = np.arange(n, dtype=np.intp)
        self._offdiag = ~np.eye(p, dtype=bool)
        self._rewards = np.zeros((n, p), dtype=np.float32)
        self._rewarded = np.zeros(0, dtype=np.intp)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self._ranks = np.zeros((n, self.num_teams), dtype=np.int8)
        self._final_turn = np.zeros(n, dtype=np.int32)
        self._final_alive = np.zeros((n, p), dtype=bool)
        self._restarted = np.zeros(n, dtype=bool)

        self._legal = legal
        self.planes: Planes | None = None
        self._initial_planes: npt.NDArray[np.uint8] | None = None
        if observe:
            self.planes = Planes(
                n,
                self.width,
                self.height,
                self.team_of,
                self.cycles_per_team > 1,
                walls,
                legal,
                self.horizon,
                self.has_jumps,
            )
            if self._fixed_starts:  # every game starts from the same planes: build once
                self._initial_planes = self._planes_of_start(self._first_heads)
        self._rng = np.random.default_rng(None if seed is None else (seed, _SEED_STREAM))
        self.reset(seed)

    # ------------------------------------------------------------------ set-up

    def _planes_of_start(self, heads: IntArray) -> npt.NDArray[np.uint8]:
        """The ``(P, C, H * W)`` planes of a game at turn 0 with these heads."""
        assert self.planes is not None
        scratch = Planes(
            1,
            self.width,
            self.height,
            self.team_of,
            self.cycles_per_team > 1,
            self._wall_row[: self.size] == WALL,
            self._legal,
            self.horizon,
            self.has_jumps,
        )
        row = self._wall_row[None, : self.size].copy()
        row[0, heads] = self._codes
        scratch.rebuild(
            np.zeros(1, dtype=np.intp), row, heads[None], np.ones((1, len(heads)), bool)
        )
        planes: npt.NDArray[np.uint8] = scratch.obs.reshape(
            1, self.num_cycles, scratch.channels, -1
        )[0].copy()
        return planes

    def _starts_of(self, seed: int) -> IntArray:
        """The start heads of the game of ``seed``: `new_game`'s, memoised per seed."""
        if self._fixed_starts:
            return self._first_heads
        heads = self._setups.get(seed)
        if heads is None:
            state = new_game(self.ruleset, self.spec, seed=seed, players=self.players)
            heads = np.array([c.head for c in state.cycles], dtype=np.intp)
            if self.seed_pool is not None or len(self._setups) < 4096:
                self._setups[seed] = heads
        return heads

    def _new_seeds(self, k: int) -> npt.NDArray[np.uint64]:
        """Seeds for ``k`` new games, from the engine's generator, below ``SEED_BOUND``
        as the single-game environments draw them (short enough to type into ``play``)."""
        high = self.seed_pool if self.seed_pool is not None else SEED_BOUND
        return self._rng.integers(0, high, size=k, dtype=np.int64).astype(np.uint64)

    def reset(self, seed: int | Sequence[int] | None = None) -> None:
        """Start every game anew.

        Args:
            seed: an int gives game ``i`` the seed ``seed + i`` and seeds the generator of
                later games' seeds; a sequence gives each game its seed; ``None`` draws
                the seeds from the generator as it stands.
        """
        n = self.num_games
        if seed is None:
            seeds = self._new_seeds(n)
        elif isinstance(seed, int | np.integer):
            self._rng = np.random.default_rng((int(seed), _SEED_STREAM))
            seeds = (np.arange(n, dtype=np.int64) + int(seed)).astype(np.uint64)
        else:
            if len(seed) != n:
                raise ValueError(f"{len(seed)} seeds given for {n} games")
            self._rng = np.random.default_rng([*(int(s) for s in seed), _SEED_STREAM])
            seeds = np.array([int(s) for s in seed], dtype=np.uint64)
        self.over[:] = False
        self._restart(self._games, seeds)

    def reset_games(self, games: npt.ArrayLike, seeds: npt.ArrayLike | None = None) -> None:
        """Start the games ``games`` (indices or an ``(N,)`` boolean mask) anew.

        Args:
            games: which games.
            seeds: their seeds; default drawn from the engine's generator.
        """
        idx = np.asarray(games)
        idx = np.flatnonzero(idx) if idx.dtype == bool else idx.astype(np.intp)
        new = self._new_seeds(len(idx)) if seeds is None else np.asarray(seeds, dtype=np.uint64)
        self.over[idx] = False
        self._restart(idx, new)

    def _restart(
        self, games: IntArray, seeds: npt.NDArray[np.uint64], refresh: bool = True
    ) -> None:
        """Put ``games`` at turn 0 of the games of ``seeds`` (``refresh``: the masks and
        scalars too; `step` refreshes them once at its end instead)."""
        if len(games) == 0:
            return
        self.seeds[games] = seeds
        if self._fixed_starts:  # one prepared row and head list for every game
            self.heads[games] = self._first_heads
            self.cells[games] = self._start_row
        else:
            heads = np.stack([self._starts_of(int(s)) for s in seeds])
            self.heads[games] = heads
            rows = np.broadcast_to(self._wall_row, (len(games), self.size + 1)).copy()
            rows[np.arange(len(games))[:, None], heads] = self._codes
            self.cells[games] = rows
        self.alive[games] = True
        self.death_turn[games] = 0
        if self.has_jumps:
            self.jumps_left[games] = self._start_jumps
        self.turn[games] = 0
        self.decided[games] = False
        if self.planes is not None:
            if self._initial_planes is not None:
                self.planes.fill(games, self._initial_planes)
            else:
                cells = self.cells[games, : self.size]
                self.planes.rebuild(games, cells, self.heads[games], self.alive[games])
            if refresh:
                self._refresh()

    def _refresh(self) -> None:
        """Scalars and masks of every game; no move is legal once the rules ended a game."""
        assert self.planes is not None
        playing = self.alive & ~self.decided[:, None]
        self.planes.refresh(
            self.turn, self.heads, playing, self.jumps_left if self.has_jumps else None
        )

    # ------------------------------------------------------------------ queries

    def legal_mask(self, cycles: npt.ArrayLike | None = None) -> npt.NDArray[np.int8]:
        """int8 ``(N, k, A)``: the moves `legal_moves` lists for ``cycles`` (default all)."""
        heads, alive = self.heads, self.alive
        if cycles is not None:
            idx = np.asarray(cycles, np.intp)
            heads, alive, jumps = heads[:, idx], alive[:, idx], self.jumps_left[:, idx]
        else:
            jumps = self.jumps_left
        mask = np.take(self._legal, heads, axis=0)
        mask *= (alive & ~self.decided[:, None])[:, :, None]
        if self.has_jumps:
            mask[:, :, 4:] *= (jumps > 0)[:, :, None]
        return mask

    def safe_mask(
        self, cycles: npt.ArrayLike | None = None, legal: npt.NDArray[np.int8] | None = None
    ) -> BoolArray:
        """``(N, k, A)``: legal moves of ``cycles`` onto a free cell (no wall, no trail).

        The cells `lightcycle.rules.legal.safe_moves` offers, plus jumps onto free cells.
        ``legal``: `legal_mask` of the same cycles, when the caller has it already.
        """
        heads = self.heads if cycles is None else self.heads[:, np.asarray(cycles, np.intp)]
        dest = np.take(self._dest_tab, heads, axis=0)
        dest += self._base[:, :, None]
        free: BoolArray = np.take(self._cells_flat, dest) == 0
        free &= (self.legal_mask(cycles) if legal is None else legal) != 0
        return free

    def occupied_cells(self, game: int) -> IntArray:
        """The occupied cells of ``game`` (walls and standing trails), sorted."""
        return np.flatnonzero(self.cells[game, : self.size])

    def trail_cells(self, game: int, cycle: int) -> IntArray:
        """The cells of ``cycle``'s standing trail in ``game``, sorted."""
        return np.flatnonzero(self.cells[game, : self.size] == TRAIL0 + cycle)

    def new_game_state(self, game: int) -> GameState:
        """The `GameState` `new_game` sets up for ``game``'s seed (its turn 0)."""
        return new_game(self.ruleset, self.spec, seed=int(self.seeds[game]), players=self.players)

    # ------------------------------------------------------------------ step

    def step(self, actions: npt.ArrayLike) -> StepResult:
        """Play one turn of every game.

        Args:
            actions: ``(N, P)`` integers in ``0..A-1`` (see the module doc). Actions of
                dead cycles and of games restarting in this call are ignored.

        Returns:
            The `StepResult`, whose arrays are this engine's buffers.

        Raises:
            ValueError: for a wrongly shaped action array or an action out of range.
        """
        act = np.asarray(actions)
        if act.shape != (self.num_games, self.num_cycles):
            raise ValueError(
                f"actions must have shape {(self.num_games, self.num_cycles)}, got {act.shape}"
            )
        if act.dtype != np.intp:
            act = act.astype(np.intp)
        if (act & ~np.intp(self.num_actions - 1)).any():  # A is 4 or 8: one mask finds
            raise ValueError(f"actions must lie in 0..{self.num_actions - 1}")  # both ends
        restarted = self._restarted
        restarted[:] = False
        if self.autoreset is AutoReset.NEXT_STEP and self.over.any():
            games = np.flatnonzero(self.over)
            restarted[games] = True
            self.over[games] = False
            self._restart(games, self._new_seeds(len(games)), refresh=False)
            stepping = ~restarted
        elif self.over.any():  # disabled: finished games wait for reset_games
            stepping = ~self.over
        else:
            stepping = None
        moving = self.alive if stepping is None else self.alive & stepping[:, None]
        if self.kind == "simultaneous":
            self._step_simultaneous(act, moving)
        else:
            self._step_priority(act, moving, stepping)
        if stepping is None:
            self.turn += 1
        else:
            self.turn += stepping
        self._judge(stepping)
        ended = self._terminated | self._truncated
        if ended.any():
            if self.autoreset is AutoReset.SAME_STEP:
                games = np.flatnonzero(ended)
                if self.planes is not None:
                    self._refresh()
                    self.planes.keep_final(games)
                restarted[games] = True
                self._restart(games, self._new_seeds(len(games)), refresh=False)
            else:
                self.over |= ended
        if self.planes is not None:
            self._refresh()
        return StepResult(
            self._rewards,
            self._terminated,
            self._truncated,
            self._ranks,
            self._final_turn,
            self._final_alive,
            restarted,
        )

    def _step_simultaneous(self, act: IntArray, moving: BoolArray) -> None:
        """``collision.simultaneous`` + ``trails.persist`` on every game at once."""
        heads = self.heads
        dest = self._step_tab[heads * 4 + act]
        flat = dest + self._base
        cells = self._cells_flat
        hit = cells[flat] != 0  # wall, off the board (sentinel) or any trail, heads included
        if self.num_cycles == 2:
            same = (dest[:, 0] == dest[:, 1]) & moving[:, 0] & moving[:, 1]
            die = moving & (hit | same[:, None])
        else:
            eq = dest[:, :, None] == dest[:, None, :]
            eq &= moving[:, None, :]
            eq &= self._offdiag
            die = moving & (hit | eq.any(axis=2))
        survive = moving & ~die
        # survivors' destinations are free and distinct; the rest write a wall code onto
        # their game's sentinel cell, which is a wall already
        cells[np.where(survive, flat, self._sentinel)] = np.where(survive, self._codes, WALL)
        if self.planes is not None:
            self.planes.advance(heads, dest, survive, die)
        np.copyto(heads, dest, where=survive)
        self._kill(die)

    def _kill(self, die: BoolArray) -> None:
        self.alive &= ~die
        np.copyto(self.death_turn, (self.turn + 1)[:, None], where=die)

    def _remove_trails(self, games: IntArray, cycles: IntArray) -> None:
        """``Turn.remove_trail`` for pairs (game, cycle); a game appears at most once."""
        rows = self.cells[games]
        rows[rows == (TRAIL0 + cycles)[:, None].astype(np.uint8)] = 0
        self.cells[games] = rows

    def _step_priority(self, act: IntArray, moving: BoolArray, stepping: BoolArray | None) -> None:
        """``movement.jump`` + ``collision.priority`` + ``trails.remove_on_death``."""
        n, p, per = self.num_games, self.num_cycles, self.cycles_per_team
        heads, cells = self.heads, self.cells
        old_heads = heads.copy()
        new_turn = self.turn + 1
        if self.has_jumps:
            jump = act >= 4
            idx = heads * 4 + (act & 3)
            dest = np.where(jump, self._jump_tab[idx], self._step_tab[idx])
            tried = moving & jump
            forfeit = tried & ((self.jumps_left <= 0) | self._jump_forfeit[idx])
            self.jumps_left -= tried & ~forfeit
        else:
            dest = self._step_tab[heads * 4 + act]
            forfeit = np.zeros_like(moving)
        dirty = np.asarray(forfeit.any(axis=1))
        if dirty.any():  # cycles that made an illegal move explode first, trails and all
            self._kill(forfeit)
            for k in range(p):
                out = np.flatnonzero(forfeit[:, k])
                if len(out):
                    self._remove_trails(out, np.full(len(out), k))
        active = moving & ~forfeit
        # the team order: (cpu = 0, toss.next_u64()) per team, ascending
        order_state = rng_states(self.seeds, self.turn + 1, _ORDER)
        keys = rng_draw(order_state[:, None], np.arange(self.num_teams, dtype=np.uint64))
        team_order = np.argsort(keys, axis=1, kind="stable")
        coin = rng_states(self.seeds, self.turn + 1, _PRIORITY)
        tosses = np.zeros(n, dtype=np.uint64)
        for slot in range(p):
            cyc = team_order[:, slot // per] * per + slot % per
            go = active[self._games, cyc] & self.alive[self._games, cyc]
            g = np.flatnonzero(go)
            if len(g) == 0:
                continue
            c = cyc[g]
            d = dest[g, c]
            code = cells[g, d]
            owner = code.astype(np.intp) - TRAIL0
            trail = code >= TRAIL0
            safe_owner = np.where(trail, owner, 0)
            holder = (
                trail & (safe_owner != c) & self.alive[g, safe_owner] & (heads[g, safe_owner] == d)
            )
            free = code == 0
            heads[g[free], c[free]] = d[free]
            cells[g[free], d[free]] = self._codes[c[free]]
            crash = ~free & ~holder
            if crash.any():
                self._explode(g[crash], c[crash], new_turn)
                dirty[g[crash]] = True
            if holder.any():
                gc, cc, dc, hc = g[holder], c[holder], d[holder], safe_owner[holder]
                lose_mine = (rng_draw(coin[gc], tosses[gc]) & _U64(1)) == 0
                tosses[gc] += _U64(1)
                dirty[gc] = True
                self._explode(gc[lose_mine], cc[lose_mine], new_turn)
                win = ~lose_mine
                gw, cw, dw = gc[win], cc[win], dc[win]
                self._explode(gw, hc[win], new_turn)
                still = cells[gw, dw] != 0
                self._explode(gw[still], cw[still], new_turn)
                ok = ~still
                heads[gw[ok], cw[ok]] = dw[ok]
                cells[gw[ok], dw[ok]] = self._codes[cw[ok]]
        if self.planes is not None:
            moved = (heads != old_heads) & self.alive
            died = moving & ~self.alive
            self.planes.advance(old_heads, heads, moved, died)
            games = np.flatnonzero(dirty)
            if len(games):
                self.planes.rebuild(
                    games, cells[games, : self.size], heads[games], self.alive[games]
                )

    def _explode(self, games: IntArray, cycles: IntArray, new_turn: npt.NDArray[np.int32]) -> None:
        """Kill ``cycles`` in ``games`` this turn and take their trails off at once."""
        if len(games) == 0:
            return
        self.alive[games, cycles] = False
        self.death_turn[games, cycles] = new_turn[games]
        self._remove_trails(games, cycles)

    def _judge(self, stepping: BoolArray | None) -> None:
        """``game_over.last_standing`` then ``game_over.turn_limit``; rewards and ranks."""
        t, per = self.num_teams, self.cycles_per_team
        alive = self.alive
        team_alive = alive if per == 1 else np.asarray(alive.reshape(-1, t, per).any(axis=2))
        if t == 2:
            over = ~(team_alive[:, 0] & team_alive[:, 1])
        else:  # column sums: faster than a reduction along a short axis
            count = team_alive[:, 0].astype(np.int8)
            for k in range(1, t):
                count += team_alive[:, k]
            over = count <= 1
        if stepping is not None:
            over &= stepping
        truncated = self._truncated
        if self.turn_limit is not None:
            np.greater_equal(self.turn, self.turn_limit, out=truncated)
            if stepping is not None:
                truncated &= stepping
            truncated &= ~over  # last standing on the limit's turn is a finish
            over |= truncated
        self.decided |= over
        if self.stop_on_death_of is not None:
            over |= ~alive[:, self.stop_on_death_of] & (True if stepping is None else stepping)
        np.not_equal(over, truncated, out=self._terminated)
        self._rewards[self._rewarded] = 0.0
        g = np.flatnonzero(over)
        self._rewarded = g
        if len(g) == 0:
            return
        died = self.death_turn[g].astype(np.int64)
        if per == 1:
            last = died
            count = alive[g].astype(np.int64)
        else:
            last = died.reshape(len(g), t, per).max(axis=2)
            count = alive[g].reshape(len(g), t, per).sum(axis=2)
        big = (self.turn[g].astype(np.int64) + 1)[:, None]
        keys = np.where(team_alive[g], big + (count if self.cycles_left else 0), last)
        above = (keys[:, None, :] > keys[:, :, None]).sum(axis=2)  # teams placed above each
        below = (keys[:, None, :] < keys[:, :, None]).sum(axis=2)
        self._ranks[g] = (1 + above).astype(np.int8)
        score = (below - above).astype(np.float32) / np.float32(max(1, t - 1))
        self._rewards[g] = score[:, self.team_of]
        self._final_turn[g] = self.turn[g]
        self._final_alive[g] = alive[g]


# --------------------------------------------------------------------------- policies


def random_safe_policy(
    games: BatchedGames, cycles: npt.ArrayLike, rng: np.random.Generator
) -> IntArray:
    """A uniformly random legal move onto a free cell for each of ``cycles`` in every game.

    The batched form of the benchmarks' and the tests' random player: among the moves
    `safe_mask` allows, one uniformly at random; with none, the first legal move (which
    crashes). It is the opponent an `OpponentVectorEnv` plays by default, and the shape
    every batched opponent takes: ``(games, cycles, rng) -> (N, len(cycles))`` actions.
    Dead cycles get 0 (ignored by the engine).
    """
    idx = np.asarray(cycles, dtype=np.intp)
    legal = games.legal_mask(idx)
    safe = games.safe_mask(idx, legal)
    ranks = np.cumsum(safe, axis=2, dtype=np.int8)
    count = ranks[:, :, -1]
    pick = (rng.random(count.shape, dtype=np.float32) * count).astype(np.int8)
    choice = (ranks > pick[:, :, None]).argmax(axis=2)
    actions: IntArray = np.where(count > 0, choice, legal.argmax(axis=2))
    return actions

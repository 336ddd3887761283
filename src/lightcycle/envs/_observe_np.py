"""Per-agent observation planes for N batched games, kept in persistent buffers.

The observation contract (shared with the single-game environments, so the two can be
compared array for array): agent ``i`` is cycle ``i`` (PettingZoo id ``player_i``) and sees

- ``observation``: uint8 0/1 planes ``(C, H, W)``, row ``y``, column ``x``
  (``cell = y * W + x`` as in `lightcycle.core.topology.GridTopology`), own first. With one
  cycle per team (``classic``, ``torus``, ``ffa``) ``C = 5``: walls, own trail (own head
  included), every other cycle's trail (heads included; whatever the occupancy still
  holds, so a dead cycle's trail stays where the rules keep it), own head (while alive),
  other live cycles' heads. With teams ``C = 7``: walls, own trail, team-mates' trails,
  opponents' trails, own head, team-mates' heads, opponents' heads (heads of live
  cycles only).
- ``scalars``: float32, ``[turn / horizon]``, plus ``own jumps left`` where the ruleset
  has jumps.
- ``action_mask``: int8 of length ``A`` (4, or 8 with jumps: ``4 + k`` jumps in heading
  ``k``): the moves `lightcycle.rules.legal.legal_moves` lists, all zeros for a dead cycle.

Why persistent buffers: rebuilding N x P x C x H x W bytes every turn costs far more
than the game step itself. Only a few cells change per turn (the old and new heads of the
cycles that moved), so `Planes.advance` writes just those, with precomputed flat offsets
and one fancy-indexed assignment for all games; games that restart or lose a trail are
rebuilt from the engine's cell codes. The arrays handed out are these buffers themselves,
not copies: they change on the next step (as Gymnasium allows vector environments to do),
so a caller that keeps an observation must copy it.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FREE = 0
"""Cell code of a free cell in the engine's ``cells`` array."""
WALL = 1
"""Cell code of a wall (and of the off-board sentinel cell)."""
TRAIL0 = 2
"""Cell code of cycle ``i``'s trail is ``TRAIL0 + i``."""

IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]


def plane_layout(team_of: npt.NDArray[np.intp], teams: bool) -> tuple[IntArray, IntArray, int]:
    """Which plane shows cycle ``c``'s trail and head in agent ``a``'s observation.

    Args:
        team_of: per cycle, its team.
        teams: use the team layout (7 planes) rather than the one-cycle-per-team one (5).

    Returns:
        ``(trail_plane, head_plane, channels)``: two ``(P, P)`` tables indexed
        ``[agent, cycle]`` and the number of planes.
    """
    p = len(team_of)
    own = np.eye(p, dtype=bool)
    if teams:
        mate = (team_of[:, None] == team_of[None, :]) & ~own
        trail = np.where(own, 1, np.where(mate, 2, 3))
        head = np.where(own, 4, np.where(mate, 5, 6))
        return trail.astype(np.intp), head.astype(np.intp), 7
    trail = np.where(own, 1, 2)
    head = np.where(own, 3, 4)
    return trail.astype(np.intp), head.astype(np.intp), 5


class Planes:
    """The observation buffers of N games, updated in place as the games move.

    Attributes:
        obs: uint8 ``(N, P, C, H, W)``, every agent's planes of every game.
        scalars: float32 ``(N, P, K)``.
        action_mask: int8 ``(N, P, A)``.
        final_obs, final_scalars, final_mask: copies of the rows of games that ended
            on the last step of an engine that resets in the same step (rows in the
            order of ``final_games``), since the buffers already show the new game.
        final_games: the game indices those copies belong to.
    """

    def __init__(
        self,
        num_games: int,
        width: int,
        height: int,
        team_of: npt.NDArray[np.intp],
        teams: bool,
        walls: BoolArray,
        legal: npt.NDArray[np.int8],
        horizon: int,
        jumps: bool,
    ) -> None:
        """Allocate the buffers.

        Args:
            num_games: N.
            width, height: the grid.
            team_of: per cycle, its team.
            teams: use the 7-plane team layout.
            walls: ``(H * W,)`` the map's walls.
            legal: ``(H * W, A)`` the legal-move mask of a live cycle on each cell, jumps
                included as if the cycle had jumps left.
            horizon: the turn count the first scalar divides by.
            jumps: the ruleset has jumps (one more scalar, and jump masks need jumps left).
        """
        n, p = num_games, len(team_of)
        self.num_games, self.num_agents = n, p
        self.width, self.height = width, height
        self.size = hw = width * height
        self.trail_plane, self.head_plane, self.channels = plane_layout(team_of, teams)
        c = self.channels
        self.horizon = horizon
        self.jumps = jumps
        self.legal = legal
        self.walls = walls.astype(np.uint8)
        self.game_stride = p * c * hw
        # one byte past the planes takes the writes of cycles that did not move, so a
        # single fancy assignment serves every game without a boolean selection first
        self._flat = np.zeros(n * self.game_stride + 1, dtype=np.uint8)
        self.junk = n * self.game_stride
        self.obs = self._flat[:-1].reshape(n, p, c, height, width)
        self._obs4 = self._flat[:-1].reshape(n, p, c, hw)
        self.scalars = np.zeros((n, p, 2 if jumps else 1), dtype=np.float32)
        self.action_mask = np.zeros((n, p, legal.shape[1]), dtype=np.int8)
        agents = np.arange(p)[:, None] * (c * hw)
        # per cycle c: offsets of the planes its trail and head show in, for every agent
        trail_off = agents + self.trail_plane * hw  # [a, c]
        head_off = agents + self.head_plane * hw
        self._set_off = np.concatenate([trail_off.T, head_off.T], axis=1)  # (P, 2P)
        self._clear_off = np.ascontiguousarray(head_off.T)  # (P, P)
        self._game_base = (np.arange(n) * self.game_stride)[:, None, None]
        self._relation = self._trail_lookup(p)
        self.final_obs = self.obs[:0].copy()
        self.final_scalars = self.scalars[:0].copy()
        self.final_mask = self.action_mask[:0].copy()
        self.final_games = np.zeros(0, dtype=np.intp)

    def _trail_lookup(self, p: int) -> npt.NDArray[np.uint8]:
        """``[agent, cell code]`` -> the plane that shows that cell's trail (0: none)."""
        table = np.zeros((p, TRAIL0 + p), dtype=np.uint8)
        table[:, TRAIL0:] = self.trail_plane
        return table

    def advance(
        self,
        old_heads: IntArray,
        new_heads: IntArray,
        moved: BoolArray,
        died: BoolArray,
    ) -> None:
        """Apply one turn's head moves to every game's planes.

        Args:
            old_heads: ``(N, P)`` heads before the turn.
            new_heads: ``(N, P)`` heads after it (valid cells where ``moved``).
            moved: cycles that advanced onto ``new_heads`` and are alive.
            died: cycles that died this turn without moving (their head leaves the
                head planes; their trail stays).
        """
        flat = self._flat
        gone = moved | died
        clear = self._game_base + self._clear_off[None] + old_heads[:, :, None]
        flat[np.where(gone[:, :, None], clear, self.junk)] = 0
        put = self._game_base + self._set_off[None] + new_heads[:, :, None]
        flat[np.where(moved[:, :, None], put, self.junk)] = 1

    def rebuild(
        self,
        games: IntArray,
        cells: npt.NDArray[np.uint8],
        heads: IntArray,
        alive: BoolArray,
    ) -> None:
        """Write the planes of ``games`` from scratch from the engine's state.

        Args:
            games: the game indices (distinct).
            cells: ``(len(games), H * W)`` cell codes of those games.
            heads: ``(len(games), P)`` their heads.
            alive: ``(len(games), P)`` which cycles are alive.
        """
        if len(games) == 0:
            return
        k, p = len(games), self.num_agents
        planes = np.zeros((k, p, self.channels, self.size), dtype=np.uint8)
        planes[:, :, 0, :] = self.walls
        rel = self._relation[:, cells]  # (P, k, HW): plane per agent, game, cell
        for plane in range(1, self.head_plane.min()):
            planes[:, :, plane, :] = (rel == plane).transpose(1, 0, 2)
        g, c = np.nonzero(alive)
        for a in range(p):  # heads: one assignment per agent over all live cycles
            planes[g, a, self.head_plane[a, c], heads[g, c]] = 1
        self._obs4[games] = planes

    def fill(self, games: IntArray, planes: npt.NDArray[np.uint8]) -> None:
        """Copy the same prepared ``(P, C, H * W)`` planes into every game of ``games``."""
        self._obs4[games] = planes

    def refresh(
        self,
        turn: npt.NDArray[np.int32],
        heads: IntArray,
        alive: BoolArray,
        jumps_left: npt.NDArray[np.int16] | None,
    ) -> None:
        """Recompute the scalars and the action masks of every game (cheap: N x P x A)."""
        np.divide(turn[:, None], self.horizon, out=self.scalars[:, :, 0])
        np.take(self.legal, heads, axis=0, out=self.action_mask)
        self.action_mask *= alive[:, :, None]
        if self.jumps and jumps_left is not None:
            self.scalars[:, :, 1] = jumps_left
            self.action_mask[:, :, 4:] *= (jumps_left > 0)[:, :, None]

    def keep_final(self, games: IntArray) -> None:
        """Copy the rows of ``games`` aside before they restart (same-step reset)."""
        self.final_games = games.copy()
        self.final_obs = self.obs[games]
        self.final_scalars = self.scalars[games]
        self.final_mask = self.action_mask[games]

"""Batched opponents for training: the built-in bots' rules computed for N games at once.

`lightcycle.envs.OpponentVectorEnv` and the training script take an opponent as a
*batched policy* ``(games, cycles, rng) -> (N, len(cycles))`` actions, computed from the
arrays of `lightcycle.envs.BatchedGames` (the shape of `lightcycle.envs.random_safe_policy`,
which already plays ``builtin:random``'s rule). A learner measured against
``builtin:wallhugger`` in ``lightcycle duel`` should have met it while training, and
asking the real bot for a move in every one of hundreds of games per step would cost more
than the rest of a training step together, so `wallhugger_policy` is the same rule over
whole arrays: one gather per question the bot asks of the board.

It chooses what `lightcycle.bots.builtin.WallHugger` chooses, move for move (the test in
``tests/examples/test_rl_opponents.py`` plays both side by side on several maps).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from lightcycle.core.topology import GridTopology
from lightcycle.envs import BatchedGames

FREE, WALL, TRAIL0 = 0, 1, 2
"""`BatchedGames.cells` codes (its documented contract): free, wall, cycle ``i``'s trail is
``TRAIL0 + i``. The extra last cell of each row (off the board) holds a wall."""

_TABLES: dict[int, tuple[BatchedGames, npt.NDArray[np.intp], npt.NDArray[np.intp]]] = {}


def _tables(games: BatchedGames) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The board's move and neighbour tables, with the off-board sentinel cell ``size``.

    Returns:
        ``(dest, nbrs)``: ``dest[cell, h]`` the cell a step in heading ``h`` reaches, or
        ``size`` where that heading repeats an earlier heading's cell or leaves the grid
        (the moves `lightcycle.rules.legal.safe_moves` lists, in its order);
        ``nbrs[cell]`` the cell's distinct neighbours padded with ``size`` (which
        ``size`` itself maps to as well), the cells ``View.free_neighbours`` looks at.
    """
    cached = _TABLES.get(id(games))
    if cached is not None and cached[0] is games:
        return cached[1], cached[2]
    topo = games.spec.board.topology
    assert isinstance(topo, GridTopology)  # BatchedGames plays grids only
    size = games.size
    dest = np.full((size + 1, 4), size, dtype=np.intp)
    nbrs = np.full((size + 1, 4), size, dtype=np.intp)
    for cell in range(size):
        for k, d in enumerate(topo.neighbours[cell]):
            nbrs[cell, k] = d
        seen: set[int] = set()
        for h in range(4):
            to = topo.step_table[cell * 4 + h]
            if to >= 0 and to not in seen:
                seen.add(to)
                dest[cell, h] = to
    if len(_TABLES) > 8:
        _TABLES.clear()
    _TABLES[id(games)] = (games, dest, nbrs)
    return dest, nbrs


def wallhugger_policy(
    games: BatchedGames, cycles: npt.ArrayLike, rng: np.random.Generator
) -> npt.NDArray[np.intp]:
    """``builtin:wallhugger``'s move for each of ``cycles`` in every game.

    The rule of `lightcycle.bots.builtin.WallHugger`: among the free cells next to the
    head, skip those with no free neighbour while another remains, and take the one that
    touches the most walls and cells of its own trail, the first in heading order (N, E,
    S, W) on a tie; with no free cell, north (a crash, not a forfeit). Dead cycles get 0,
    which the engine ignores. ``rng`` is unused (the bot is deterministic); it is taken
    because every batched opponent is called the same way.

    Returns:
        ``(N, len(cycles))`` actions (heading indices).
    """
    del rng
    idx = np.asarray(cycles, dtype=np.intp)
    dest_tab, nbr_tab = _tables(games)
    size = games.size
    cells = games.cells  # (N, size + 1)
    rows = np.arange(games.num_games)[:, None, None]
    dest = dest_tab[games.heads[:, idx]]  # (N, k, 4)
    free = cells[rows, dest] == FREE  # the sentinel holds a wall: never free
    around = nbr_tab[dest]  # (N, k, 4, 4): the neighbours of each destination
    codes = cells[rows[..., None], around]
    real = around != size
    open_ = ((codes == FREE) & real).any(axis=3)
    keep = free & open_
    keep = np.where(keep.any(axis=2, keepdims=True), keep, free)
    own = (TRAIL0 + idx)[None, :, None, None]
    hugged = (((codes == WALL) | (codes == own)) & real).sum(axis=3)
    score = np.where(keep, hugged, -1)
    choice = score.argmax(axis=2)  # the first of the best, in heading order
    actions: npt.NDArray[np.intp] = np.where(free.any(axis=2), choice, 0)
    return actions

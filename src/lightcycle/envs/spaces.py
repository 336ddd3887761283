"""Gymnasium spaces of the observation contract, and actions read back into moves.

`lightcycle.envs.observe` says what the arrays hold; this module says what values they
may take (a `gymnasium.spaces.Dict` per agent) and turns an action index back into the
`Move` the rules play. An action the space holds but the mask forbids is still played:
the rules judge it as the referee judges an illegal answer (the cycle forfeits), so an
agent that ignores its mask learns what a bot would.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from lightcycle.core.moves import Move
from lightcycle.core.state import GameState
from lightcycle.core.topology import OFF, GridTopology
from lightcycle.envs.observe import Layout


def scalar_bounds(layout: Layout) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest value of each scalar (all start at 0)."""
    high = np.ones(len(layout.scalars), dtype=np.float32)
    if layout.jumps:
        high[1] = float(layout.max_jumps)
    return np.zeros(len(layout.scalars), dtype=np.float32), high


def observation_space(layout: Layout) -> spaces.Dict:
    """One agent's observation space: ``observation``, ``scalars``, ``action_mask``."""
    low, high = scalar_bounds(layout)
    return spaces.Dict(
        {
            "observation": spaces.Box(0, 1, shape=layout.shape, dtype=np.uint8),
            "scalars": spaces.Box(low, high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(layout.actions,), dtype=np.int8),
        }
    )


def action_space(layout: Layout) -> spaces.Discrete:
    """One agent's action space: ``Discrete(A)``."""
    return spaces.Discrete(layout.actions)


def decode_action(state: GameState, cycle: int, action: object, layout: Layout) -> Move:
    """The move that action ``action`` of ``cycle`` stands for in ``state``.

    A graph action past the head's neighbours is a move to ``OFF``, no vertex: the rules
    forfeit the cycle for it, as they forfeit a bot's move to a vertex not next to its
    head.

    Raises:
        ValueError: for an action outside the action space (not an integer in
            ``0..A-1``): a bug of the caller, not a move of the game.
    """
    try:
        k = int(action)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        raise ValueError(f"action {action!r} is not an integer 0..{layout.actions - 1}") from None
    if not 0 <= k < layout.actions or k != action:
        raise ValueError(f"action {action!r} is outside 0..{layout.actions - 1}")
    head = state.cycles[cycle].head
    if layout.graph:
        use_item, k = divmod(k, layout.degree)
        around = layout.neighbours[head]
        return Move(cycle, around[k] if k < len(around) else OFF, use_item=bool(use_item))
    topo = state.board.topology
    assert isinstance(topo, GridTopology)
    if k >= 4:
        return Move(cycle, topo.jump_table[head * 4 + k - 4], jump=True)
    return Move(cycle, topo.step_table[head * 4 + k])

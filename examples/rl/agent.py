"""The trained duel agent of ``examples/rl``, as a bot: numpy only, no PyTorch.

``train_duel.py`` trains the policy with PyTorch and saves its weights as a numpy
``.npz`` file; this module runs the same network with numpy, so that playing the agent
needs only the ``rl`` extra, never the 870 MB of the training stack. The referee
takes it like any Python bot::

    lightcycle duel py:examples/rl/agent.py:DuelAgent builtin:wallhugger --maps arena-15

`DuelAgent` is a `lightcycle.envs.PolicyBot`: its cycle sees exactly the arrays the
environments give (the observation contract of docs/rl.md), so the policy plays in the
referee as it did in training. ``LIGHTCYCLE_AGENT_WEIGHTS`` names another weights file
(the training script writes one per run); ``LIGHTCYCLE_AGENT_GREEDY=1`` takes the most
likely move instead of sampling it.

The functions here (`features`, `safe_mask`, `NumpyPolicy`) are also what the training
script calls, so training and play compute the network's input the same way.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

from lightcycle.envs import PolicyBot
from lightcycle.rules.observe import View

WEIGHTS = Path(__file__).with_name("trained") / "weights.npz"
"""The weights trained by the command in docs/rl.md's Training section (``arena-15``)."""

Array = npt.NDArray[Any]

# heading k (N, E, S, W) moves by (dy, dx): the action order of the observation contract
_DY = np.array([-1, 0, 1, 0])
_DX = np.array([0, 1, 0, -1])


def features(planes: Array, scalars: Array, radius: int = 0) -> npt.NDArray[np.float32]:
    """The network's input: the board as seen from the own head, and the scalars.

    Two planes of ``(2r + 1) x (2r + 1)`` cells centred on the own head: what is taken
    (walls and every trail, planes 0-2; off the board counts as a wall) and where the
    other heads are (plane 4). Centred, a wall or a head next to the cycle is the same
    input wherever on the board it happens, so a small perceptron learns "that cell is
    contested" once rather than once per cell.

    Args:
        planes: uint8 ``(..., C, H, W)`` observation planes (contract layout, C = 5).
        scalars: float32 ``(..., K)``.
        radius: ``r``; 0 (the default) sees the whole board from anywhere on it,
            ``r = max(H, W) - 1``.

    Returns:
        float32 ``(..., 2 * (2r + 1) ** 2 + K)``.
    """
    lead = planes.shape[:-3]
    h, w = planes.shape[-2:]
    r = radius or max(h, w) - 1
    flat = planes.reshape(-1, *planes.shape[-3:])
    b = flat.shape[0]
    padded = np.zeros((b, 2, h + 2 * r, w + 2 * r), dtype=np.float32)
    padded[:, 0] = 1.0
    padded[:, 0, r : r + h, r : r + w] = flat[:, 0] | flat[:, 1] | flat[:, 2]
    padded[:, 1, r : r + h, r : r + w] = flat[:, 4]
    y, x = np.divmod(flat[:, 3].reshape(b, -1).argmax(axis=1), w)
    windows = sliding_window_view(padded, (2 * r + 1, 2 * r + 1), axis=(2, 3))
    window = windows[np.arange(b), :, y, x]  # (b, 2, 2r + 1, 2r + 1)
    out = np.concatenate([window.reshape(b, -1), scalars.reshape(b, -1)], axis=1)
    return out.astype(np.float32, copy=False).reshape(*lead, -1)


def safe_mask(planes: Array, action_mask: Array, contested: bool = True) -> npt.NDArray[np.bool_]:
    """The moves the policy chooses among: one-move safety, read from the observation alone.

    The rules' mask allows a move into a wall or a trail (it loses the game, but it is a
    move), and a move into a cell another head can enter this turn too (both die if it
    does: a draw). A policy that must first learn not to do either spends most of a short
    training run on it, and sampling one such move in a hundred costs games it had won.
    So the policy chooses among the legal moves onto cells that planes 0-2 (walls, own
    trail, the others' trails, heads included) show free and that no other live head
    (plane 4) is next to, as ``builtin:chaser`` does; then among the free ones; then,
    with none free, among all legal moves. Everything beyond the next move (where the
    room is, how to cut the other cycle off) is the network's to learn. A cell off the
    grid counts as a wall (the boards here are walled).

    Args:
        planes: uint8 ``(..., C, H, W)``, plane 3 the own head, plane 4 the other heads.
        action_mask: int8 ``(..., 4)``.
        contested: also avoid cells next to another head while a free one is not.

    Returns:
        bool ``(..., 4)``.
    """
    lead = planes.shape[:-3]
    h, w = planes.shape[-2:]
    flat = planes.reshape(-1, *planes.shape[-3:])
    b = flat.shape[0]
    padded = np.ones((b, h + 2, w + 2), dtype=bool)
    padded[:, 1:-1, 1:-1] = (flat[:, 0] | flat[:, 1] | flat[:, 2]) != 0
    y, x = np.divmod(flat[:, 3].reshape(b, -1).argmax(axis=1), w)
    rows = np.arange(b)[:, None]
    to_y, to_x = y[:, None] + 1 + _DY, x[:, None] + 1 + _DX  # (b, 4) in padded cells
    legal = (action_mask != 0).reshape(b, 4)
    free = legal & ~padded[rows, to_y, to_x]
    allowed = np.where(free.any(axis=1, keepdims=True), free, legal)
    if contested:
        heads = np.zeros((b, h + 4, w + 4), dtype=bool)
        heads[:, 2:-2, 2:-2] = flat[:, 4] != 0
        near = np.zeros((b, 4), dtype=bool)
        for dy, dx in zip(_DY, _DX, strict=True):  # a head one step from the destination
            near |= heads[rows, to_y + 1 + dy, to_x + 1 + dx]
        calm = free & ~near
        allowed = np.where(calm.any(axis=1, keepdims=True), calm, allowed)
    out: npt.NDArray[np.bool_] = allowed.reshape(*lead, 4)
    return out


def masked_logits(logits: Array, allowed: Array) -> Array:
    """``logits`` with the moves ``allowed`` forbids pushed to a probability of zero."""
    return np.where(allowed, logits, np.float32(-1e9))


class NumpyPolicy:
    """The trained actor-critic network, evaluated with numpy.

    The network is a multi-layer perceptron: hidden layers ``relu(x @ w.T + b)``, then a
    policy head (one logit per action) and a value head, as ``train_duel.ActorCritic``
    defines it. The file holds ``w0, b0, w1, b1, ...`` for the hidden layers, ``pi_w,
    pi_b, v_w, v_b`` for the heads, and ``meta`` (JSON: map, ruleset, observation shape,
    how it was trained).

    Args:
        path: the ``.npz`` file.
    """

    def __init__(self, path: str | Path) -> None:
        with np.load(path) as data:
            self.hidden = [
                (data[f"w{i}"].astype(np.float32), data[f"b{i}"].astype(np.float32))
                for i in range(sum(1 for k in data.files if k.startswith("w")))
            ]
            self.pi = (data["pi_w"].astype(np.float32), data["pi_b"].astype(np.float32))
            self.v = (data["v_w"].astype(np.float32), data["v_b"].astype(np.float32))
            self.meta: dict[str, Any] = json.loads(str(data["meta"]))
        self.radius = int(self.meta.get("view_radius", 0))
        self.contested = bool(self.meta.get("avoid_contested", False))

    def forward(self, x: Array) -> tuple[Array, Array]:
        """Logits ``(B, A)`` and values ``(B,)`` of feature rows ``x`` ``(B, F)``."""
        h = x
        for w, b in self.hidden:
            h = np.maximum(h @ w.T + b, 0.0)
        logits = h @ self.pi[0].T + self.pi[1]
        value = (h @ self.v[0].T + self.v[1])[:, 0]
        return logits, value

    def probabilities(self, observation: dict[str, Array]) -> npt.NDArray[np.float64]:
        """The policy's move probabilities for one observation dict (``(4,)``)."""
        planes, scalars = observation["observation"], observation["scalars"]
        expected = tuple(self.meta["observation_shape"])
        if planes.shape != expected:
            raise ValueError(
                f"these weights were trained on {self.meta['map']} (planes {expected}); "
                f"this board gives planes {planes.shape}"
            )
        logits, _ = self.forward(features(planes, scalars, self.radius)[None])
        allowed = safe_mask(planes[None], observation["action_mask"][None], self.contested)
        z = masked_logits(logits, allowed)[0].astype(np.float64)
        p = np.exp(z - z.max())
        return np.asarray(p / p.sum())


class DuelAgent(PolicyBot):
    """The trained policy seated as a bot (``py:examples/rl/agent.py:DuelAgent``).

    It samples its move from the policy, as the policy played while it learned, from a
    generator seeded by the game's seed and its seat: a game replays move for move, as a
    built-in bot's does. ``greedy`` takes the most likely move instead.

    Args:
        weights: the ``.npz`` file (default ``$LIGHTCYCLE_AGENT_WEIGHTS``, else `WEIGHTS`).
        greedy: play the most likely move (default ``$LIGHTCYCLE_AGENT_GREEDY == "1"``).
    """

    def __init__(self, weights: str | Path | None = None, greedy: bool | None = None) -> None:
        path = weights or os.environ.get("LIGHTCYCLE_AGENT_WEIGHTS") or WEIGHTS
        self.net = NumpyPolicy(path)
        self.greedy = os.environ.get("LIGHTCYCLE_AGENT_GREEDY") == "1" if greedy is None else greedy
        self._rng = np.random.default_rng(0)
        super().__init__(self.act, name="PPO" + ("-greedy" if self.greedy else ""))

    def start(self, game: View) -> None:
        """Seed the move sampler from the game's seed and this bot's seat."""
        self._rng = np.random.default_rng([game.state.seed, game.seat])

    def act(self, observation: dict[str, Array]) -> int:
        """The move for one observation: sampled from the policy, or its most likely."""
        p = self.net.probabilities(observation)
        if self.greedy:
            return int(p.argmax())
        return int(self._rng.choice(len(p), p=p))

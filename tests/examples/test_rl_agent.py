"""``examples/rl/agent.py``: the trained agent plays in the referee with numpy alone.

No PyTorch here: the agent's whole point is that playing it needs only the ``rl`` extra.
Its input functions are checked against the engine's own idea of the board (a move onto a
free cell is what `BatchedGames.safe_mask` says it is), and the shipped weights are
played through `run_duel`, the in-process ``lightcycle duel``, as docs/rl.md measures them.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="examples/rl needs the rl extra: pip install -e '.[rl]'")

from lightcycle import play
from lightcycle.envs import BatchedGames, random_safe_policy
from lightcycle.tournament.duel import run_duel
from tests.examples.test_rl_opponents import RL, load


def test_safe_mask_is_the_engines_free_legal_moves() -> None:
    agent = load("agent")
    games = BatchedGames("classic", "arena-15", 64, seed=5)
    topo = games.spec.board.topology
    rng = np.random.default_rng(5)
    seats = np.arange(2)
    checked = avoided = 0
    for _ in range(60):
        planes = games.planes
        assert planes is not None
        free = games.safe_mask(seats)
        legal = games.legal_mask(seats) != 0
        expected = np.where(free.any(axis=2, keepdims=True), free, legal)
        ours = agent.safe_mask(planes.obs, planes.action_mask, contested=False)
        calm = agent.safe_mask(planes.obs, planes.action_mask)
        live = games.alive & ~games.decided[:, None]
        assert np.array_equal(ours[live], expected[live])
        for g, seat in zip(*np.nonzero(live), strict=True):
            head, other = int(games.heads[g, seat]), int(games.heads[g, 1 - seat])
            near = [topo.move(head, k) in topo.neighbours[other] for k in range(4)]
            want = free[g, seat] & ~np.array(near)
            want = want if want.any() else expected[g, seat]
            assert np.array_equal(calm[g, seat], want), (g, seat)
            avoided += int((expected[g, seat] & ~want).any())
        checked += int(live.sum())
        games.step(random_safe_policy(games, seats, rng))
    assert checked > 1000 and avoided > 20


def test_features_centre_the_board_on_the_own_head() -> None:
    agent = load("agent")
    games = BatchedGames("classic", "arena-10", 1, seed=0)
    planes = games.planes
    assert planes is not None
    x = agent.features(planes.obs[0, 0], planes.scalars[0, 0])
    side = 2 * 10 - 1
    taken = x[: side * side].reshape(side, side)
    heads = x[side * side : 2 * side * side].reshape(side, side)
    assert x.shape == (2 * side * side + 1,)
    assert taken[9, 9] == 1  # the own head, in the middle
    (hy, hx), other = divmod(int(games.heads[0, 0]), 10), divmod(int(games.heads[0, 1]), 10)
    assert heads[9 + other[0] - hy, 9 + other[1] - hx] == 1 and heads.sum() == 1
    assert taken[0].all() and taken[:, 0].all()  # off the board reads as a wall
    small = agent.features(planes.obs[0, 0], planes.scalars[0, 0], radius=2)
    assert small.shape == (2 * 25 + 1,)
    assert np.array_equal(small[:25].reshape(5, 5), taken[7:12, 7:12])


@pytest.mark.skipif(
    not (RL / "trained" / "weights.npz").is_file(), reason="no trained weights shipped"
)
def test_shipped_agent_beats_random_in_the_referee() -> None:
    agent = load("agent")
    result = run_duel(
        f"py:{RL / 'agent.py'}:DuelAgent", "builtin:random", "arena-15", games=20, workers=1
    )
    assert result.games == 20
    assert result.trinomial.wins >= 14, result.trinomial
    game = play("arena-15", [agent.DuelAgent(greedy=True), "random"], seed=2)
    assert game.replay.verify().outcome == game.outcome  # re-simulated: the same game
    death = game.final.cycles[0].death
    assert death is None or death.cause.value != "forfeit", death  # every answer was a move

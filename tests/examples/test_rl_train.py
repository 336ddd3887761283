"""``examples/rl/train_duel.py`` runs from the command line and its weights play as a bot.

A few hundred turns of training only: what is checked is the pipeline (the script as a
user runs it, the weights file, numpy's forward pass equal to PyTorch's, the log and the
curve, the agent seated in the referee), not how strong the agent gets, which docs/rl.md
measures with ``lightcycle duel``. Skipped without PyTorch (the ``train`` extra).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="examples/rl needs the rl extra: pip install -e '.[rl]'")
torch = pytest.importorskip(
    "torch", reason="the training script needs PyTorch: pip install -e '.[train]'"
)

from lightcycle import play  # noqa: E402
from lightcycle.envs import SelfPlayVectorEnv  # noqa: E402
from tests.examples.test_rl_opponents import RL, load  # noqa: E402

TINY = [
    "--total-steps", "512", "--num-envs", "16", "--num-steps", "16", "--eval-every", "1",
    "--eval-games", "8", "--hidden", "32", "--seed", "3",
]  # fmt: skip


def test_training_script_writes_weights_that_play(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, str(RL / "train_duel.py"), *TINY, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "win vs random" in done.stdout
    log = json.loads((out / "log.json").read_text())
    assert log["steps"] == 512 and log["updates"] == 2
    assert [e["update"] for e in log["evaluations"]] == [0, 1, 2]
    for e in log["evaluations"]:
        for opp in ("random", "wallhugger"):
            rates = e[opp]
            assert rates["win"] + rates["draw"] + rates["loss"] == pytest.approx(1.0)
    assert sum(sum(kind.values()) for kind in log["episodes"].values()) > 0
    if _has_pillow():
        assert (out / "curve.png").read_bytes().startswith(b"\x89PNG")
    agent = load("agent")
    bot = agent.DuelAgent(weights=out / "weights.npz")
    assert bot.net.meta["map"] == "arena-15" and bot.net.meta["seed"] == 3
    game = play("arena-15", [bot, "random"], seed=1)
    death = game.final.cycles[0].death
    assert death is None or death.cause.value != "forfeit", death


def test_numpy_forward_pass_equals_pytorch(tmp_path: Path) -> None:
    train = load("train_duel")
    agent = load("agent")
    torch.manual_seed(0)
    envs = SelfPlayVectorEnv(8, "classic", "arena-10")
    obs, _ = envs.reset(seed=2)
    x = agent.features(obs["observation"], obs["scalars"]).reshape(16, -1)
    model = train.ActorCritic(x.shape[1], (64, 32), 4)
    model.export(tmp_path / "w.npz", {"map": "arena-10", "observation_shape": [5, 10, 10]})
    ours_logits, ours_value = agent.NumpyPolicy(tmp_path / "w.npz").forward(x)
    with torch.no_grad():
        logits, value = model(torch.from_numpy(x))
    assert np.allclose(ours_logits, logits.numpy(), atol=1e-5)
    assert np.allclose(ours_value, value.numpy(), atol=1e-5)


def test_same_seed_same_weights(tmp_path: Path) -> None:
    """docs/rl.md says a seed repeats its run: the weights come out equal, bit for bit."""
    train = load("train_duel")
    runs = []
    for name in ("a", "b"):
        settings = train.Settings(
            total_steps=512, num_envs=16, num_steps=16, hidden=(32,), eval_every=100,
            eval_games=4, seed=7, out=str(tmp_path / name), quiet=True,
        )  # fmt: skip
        train.train(settings)
        with np.load(tmp_path / name / "weights.npz") as data:
            runs.append({k: data[k] for k in data.files if k != "meta"})
    assert runs[0].keys() == runs[1].keys()
    assert all(np.array_equal(runs[0][k], runs[1][k]) for k in runs[0])


def test_weights_refuse_another_board(tmp_path: Path) -> None:
    train = load("train_duel")
    agent = load("agent")
    model = train.ActorCritic(2 * 19 * 19 + 1, (8,), 4)
    model.export(tmp_path / "w.npz", {"map": "arena-10", "observation_shape": [5, 10, 10]})
    bot = agent.DuelAgent(weights=tmp_path / "w.npz")
    with pytest.raises(ValueError, match="trained on arena-10"):
        bot.net.probabilities(
            {
                "observation": np.zeros((5, 15, 15), np.uint8),
                "scalars": np.zeros(1, np.float32),
                "action_mask": np.ones(4, np.int8),
            }
        )


def _has_pillow() -> bool:
    try:
        import PIL  # noqa: F401
    except ImportError:
        return False
    return True

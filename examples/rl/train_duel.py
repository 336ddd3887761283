"""Train a duel agent from scratch: PPO in PyTorch over lightcycle's batched numpy engine.

CleanRL's single-file PPO (``ppo.py``: clipped objective, GAE, advantage normalisation,
value clipping, a linearly annealed learning rate), written for two-seat games: N games
of `lightcycle.envs.SelfPlayVectorEnv` step together in numpy, and in each game the
learner drives one seat against ``builtin:random``'s rule, ``builtin:wallhugger``'s rule
(`opponents.wallhugger_policy`) or itself, drawn afresh for every game, on a seat drawn
afresh too, so it learns both starts that ``lightcycle duel``'s side swap gives it.
In self-play games both seats are the learner and both give training samples.

Why this and not sb3-contrib's MaskablePPO: the batched engine plays a turn of hundreds
of games in a few numpy operations, while MaskablePPO steps Gymnasium environments one
game at a time through Python (about 1,300 steps a second on ``Duel-v1`` where this
script makes 4,400 to 7,000 turns a second on the same machine: docs/rl.md, Training);
and the opponent mix (a seat drawn per game, self-play in the same batch) is a few lines
here but a wrapper of its own there. The network is small enough that PyTorch on one CPU
core keeps up with the engine.

Run from the repository root (needs the ``train`` extra: PyTorch, plus Pillow for the
curve)::

    python examples/rl/train_duel.py --seed 1 --out examples/rl/trained

It writes to ``--out``: ``weights.npz`` (the network, for ``agent.py``'s numpy
`agent.NumpyPolicy`), ``curve.png`` (win rates against random and wallhugger during
training, measured on ``--eval-games`` side-swapped games each) and ``log.json``
(every evaluation and the run's settings). The trained agent then plays in the
referee::

    lightcycle duel py:examples/rl/agent.py:DuelAgent builtin:wallhugger --maps arena-15
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from gymnasium.vector import AutoresetMode
from torch import nn
from torch.distributions import Categorical

sys.path.insert(0, str(Path(__file__).resolve().parent))  # agent.py and opponents.py beside us

from agent import NumpyPolicy, features, masked_logits, safe_mask
from opponents import wallhugger_policy

from lightcycle.envs import SelfPlayVectorEnv, random_safe_policy

OPPONENTS = ("random", "wallhugger", "self")
"""The kinds of game the learner plays, in the order of ``--mix``."""


@dataclass
class Settings:
    """Everything a run depends on (saved in ``log.json``; the defaults are docs/rl.md's run)."""

    map: str = "arena-15"
    ruleset: str = "classic"
    seed: int = 1
    total_steps: int = 4_000_000
    """Turns played in all training games together (CleanRL's ``global_step``)."""
    num_envs: int = 128
    num_steps: int = 32
    """Turns per game between two updates (the rollout length)."""
    epochs: int = 4
    minibatches: int = 4
    lr: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.005
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (256, 256)
    view: int = 0
    """`agent.features`' radius: 0 sees the whole board from anywhere."""
    avoid_contested: bool = True
    """`agent.safe_mask`'s ``contested``: skip cells another head can enter too."""
    mix: tuple[float, ...] = (0.6, 0.2, 0.2)
    """Chance of each kind of game in `OPPONENTS` order."""
    eval_every: int = 40
    """Updates between two evaluations."""
    eval_games: int = 200
    threads: int = 1
    max_minutes: float = 0.0
    """Stop (and save) after this long, whatever ``total_steps`` says; 0: no limit."""
    out: str = "runs/duel"
    quiet: bool = False


class ActorCritic(nn.Module):
    """A multi-layer perceptron with a policy head and a value head.

    A perceptron over `agent.features` (the board centred on the own head) rather than a
    convolutional network: the boards here are small and fixed, it costs half a million
    multiply-adds a move on ``arena-15`` (1,683 inputs), and `agent.NumpyPolicy` evaluates
    it with one matrix product per layer, so the trained agent plays without PyTorch.
    """

    def __init__(self, inputs: int, hidden: tuple[int, ...], actions: int) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = inputs
        for h in hidden:
            layers += [_orthogonal(nn.Linear(width, h), np.sqrt(2)), nn.ReLU()]
            width = h
        self.body = nn.Sequential(*layers)
        self.pi = _orthogonal(nn.Linear(width, actions), 0.01)
        self.v = _orthogonal(nn.Linear(width, 1), 1.0)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits ``(B, A)`` and values ``(B,)``."""
        h = self.body(x)
        return self.pi(h), self.v(h).squeeze(-1)

    def export(self, path: Path, meta: dict[str, Any]) -> None:
        """Save the weights in `agent.NumpyPolicy`'s ``.npz`` layout."""
        arrays: dict[str, Any] = {}
        linears = [m for m in self.body if isinstance(m, nn.Linear)]
        for i, lin in enumerate(linears):
            arrays[f"w{i}"] = lin.weight.detach().numpy().copy()
            arrays[f"b{i}"] = lin.bias.detach().numpy().copy()
        arrays["pi_w"], arrays["pi_b"] = (p.detach().numpy().copy() for p in self.pi.parameters())
        arrays["v_w"], arrays["v_b"] = (p.detach().numpy().copy() for p in self.v.parameters())
        arrays["meta"] = np.array(json.dumps(meta))
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, **arrays)


def _orthogonal(layer: nn.Linear, gain: float) -> nn.Linear:
    """CleanRL's initialisation: orthogonal weights, zero biases."""
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


def choose(
    model: ActorCritic, x: npt.NDArray[np.float32], allowed: npt.NDArray[np.bool_], greedy: bool
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Actions, their log-probabilities and the values for feature rows ``x``."""
    with torch.no_grad():
        logits, value = model(torch.from_numpy(x))
        logits = torch.from_numpy(masked_logits(logits.numpy(), allowed))
        dist = Categorical(logits=logits)
        action = logits.argmax(dim=1) if greedy else dist.sample()
        return action.numpy(), dist.log_prob(action).numpy(), value.numpy()


def opponent_actions(envs: SelfPlayVectorEnv, rng: np.random.Generator) -> npt.NDArray[np.intp]:
    """``(N, 2, k)``: what random and wallhugger would play for both seats of every game."""
    seats = np.arange(2)
    return np.stack(
        [random_safe_policy(envs.games, seats, rng), wallhugger_policy(envs.games, seats, rng)],
        axis=2,
    )


def evaluate(
    model: ActorCritic, s: Settings, opponent: str, greedy: bool, seed: int
) -> dict[str, float]:
    """Play ``eval_games`` games against ``opponent``, seats swapped in halves, as duel does.

    Returns:
        ``win``, ``draw`` and ``loss`` rates of the learner, and ``turns`` (mean length).
    """
    n = s.eval_games
    envs = SelfPlayVectorEnv(n, s.ruleset, s.map, autoreset_mode=AutoresetMode.DISABLED)
    obs, _ = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seat = (np.arange(n) >= n // 2).astype(np.intp)  # first half seat 0, second half seat 1
    rows = np.arange(n)
    kind = OPPONENTS.index(opponent)
    result = np.zeros(n)
    turns = np.zeros(n)
    done = np.zeros(n, dtype=bool)
    while not done.all():
        planes = obs["observation"][rows, seat]
        x = features(planes, obs["scalars"][rows, seat], s.view)
        allowed = safe_mask(planes, obs["action_mask"][rows, seat], s.avoid_contested)
        mine, _, _ = choose(model, x, allowed, greedy)
        actions = opponent_actions(envs, rng)[:, :, kind].copy()
        actions[rows, seat] = mine
        obs, _, term, trunc, infos = envs.step(actions)
        ended = (term | trunc) & ~done
        if ended.any():
            result[ended] = infos["seat_rewards"][ended, seat[ended]]
            turns[ended] = infos["turn"][ended]
            done |= ended
    envs.close()
    return {
        "win": float((result > 0).mean()),
        "draw": float((result == 0).mean()),
        "loss": float((result < 0).mean()),
        "turns": float(turns.mean()),
    }


def draw_games(
    n: int, mix: npt.NDArray[np.float64], rng: np.random.Generator
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """A kind of game (index into `OPPONENTS`) and a learner seat for ``n`` new games."""
    return rng.choice(len(OPPONENTS), size=n, p=mix), rng.integers(0, 2, size=n)


def train(s: Settings) -> dict[str, Any]:
    """Run PPO as ``s`` says; write the weights, the curve and the log into ``s.out``.

    Returns:
        The log: settings, every evaluation, the final figures and the time taken.
    """
    started = time.perf_counter()
    torch.manual_seed(s.seed)
    torch.set_num_threads(s.threads)
    rng = np.random.default_rng(s.seed)
    out = Path(s.out)
    n, t_len = s.num_envs, s.num_steps
    envs = SelfPlayVectorEnv(n, s.ruleset, s.map, autoreset_mode=AutoresetMode.SAME_STEP)
    obs, _ = envs.reset(seed=s.seed)
    planes_shape = obs["observation"].shape[2:]
    n_actions = obs["action_mask"].shape[-1]
    n_inputs = features(obs["observation"], obs["scalars"], s.view).shape[-1]
    model = ActorCritic(n_inputs, s.hidden, n_actions)
    optimizer = torch.optim.Adam(model.parameters(), lr=s.lr, eps=1e-5)
    mix = np.asarray(s.mix, dtype=np.float64) / sum(s.mix)
    kind, learner = draw_games(n, mix, rng)
    rows = np.arange(n)

    buf_x = np.zeros((t_len, n, 2, n_inputs), np.float32)
    buf_allowed = np.zeros((t_len, n, 2, n_actions), bool)
    buf_action = np.zeros((t_len, n, 2), np.intp)
    buf_logp = np.zeros((t_len, n, 2), np.float32)
    buf_value = np.zeros((t_len, n, 2), np.float32)
    buf_reward = np.zeros((t_len, n, 2), np.float32)
    buf_done = np.zeros((t_len, n), bool)
    buf_mine = np.zeros((t_len, n, 2), bool)

    updates = max(1, s.total_steps // (n * t_len))
    log: dict[str, Any] = {"settings": asdict(s), "evaluations": [], "episodes": {}}
    tally = {k: [0, 0, 0] for k in OPPONENTS}  # wins, draws, losses of training games
    step = 0

    def record(update: int) -> None:
        elapsed = time.perf_counter() - started
        entry: dict[str, Any] = {"update": update, "steps": step, "seconds": round(elapsed, 1)}
        for opp in ("random", "wallhugger"):
            entry[opp] = evaluate(model, s, opp, greedy=False, seed=10_000 + s.seed)
        log["evaluations"].append(entry)
        if not s.quiet:
            print(
                f"update {update:5d}  steps {step:>10,d}  {elapsed:7.1f} s  "
                f"{step / max(elapsed, 1e-9):8.0f} steps/s  "
                f"win vs random {entry['random']['win']:.0%}  "
                f"vs wallhugger {entry['wallhugger']['win']:.0%}",
                flush=True,
            )

    record(0)
    update = 0
    for update in range(1, updates + 1):
        if s.max_minutes and time.perf_counter() - started > 60 * s.max_minutes:
            update -= 1
            break
        for g in optimizer.param_groups:
            g["lr"] = s.lr * (1.0 - (update - 1) / updates)
        for t in range(t_len):
            planes = obs["observation"]
            x = features(planes, obs["scalars"], s.view)  # (N, 2, F)
            allowed = safe_mask(planes, obs["action_mask"], s.avoid_contested)
            mine = (kind == OPPONENTS.index("self"))[:, None] | (
                np.arange(2)[None, :] == learner[:, None]
            )
            action, logp, value = choose(
                model, x.reshape(2 * n, -1), allowed.reshape(2 * n, -1), greedy=False
            )
            action = action.reshape(n, 2)
            other = opponent_actions(envs, rng)  # (N, 2, 2): random, wallhugger
            scripted = other[rows[:, None], np.arange(2)[None, :], np.minimum(kind, 1)[:, None]]
            buf_x[t], buf_allowed[t], buf_mine[t] = x, allowed, mine
            buf_action[t] = np.where(mine, action, scripted)
            buf_logp[t], buf_value[t] = logp.reshape(n, 2), value.reshape(n, 2)
            obs, _, term, trunc, infos = envs.step(buf_action[t])
            done = term | trunc
            buf_reward[t] = infos["seat_rewards"]
            buf_done[t] = done
            step += n
            if done.any():
                for game in np.flatnonzero(done):
                    r = infos["seat_rewards"][game, learner[game]]
                    tally[OPPONENTS[kind[game]]][0 if r > 0 else 1 if r == 0 else 2] += 1
                new_kind, new_seat = draw_games(int(done.sum()), mix, rng)
                kind[done], learner[done] = new_kind, new_seat

        # GAE per seat of every game: a game's end cuts both seats' returns
        x_next = features(obs["observation"], obs["scalars"], s.view)
        with torch.no_grad():
            next_value = model(torch.from_numpy(x_next.reshape(2 * n, -1)))[1].numpy()
        next_value = next_value.reshape(n, 2)
        advantages = np.zeros_like(buf_reward)
        last = np.zeros((n, 2), np.float32)
        for t in reversed(range(t_len)):
            nv = next_value if t == t_len - 1 else buf_value[t + 1]
            live = (~buf_done[t]).astype(np.float32)[:, None]
            delta = buf_reward[t] + s.gamma * nv * live - buf_value[t]
            last = delta + s.gamma * s.gae_lambda * live * last
            advantages[t] = last
        returns = advantages + buf_value

        keep = buf_mine.reshape(-1)
        b_x = torch.from_numpy(buf_x.reshape(-1, n_inputs)[keep])
        b_allowed = torch.from_numpy(buf_allowed.reshape(-1, n_actions)[keep])
        b_action = torch.from_numpy(buf_action.reshape(-1)[keep])
        b_logp = torch.from_numpy(buf_logp.reshape(-1)[keep])
        b_value = torch.from_numpy(buf_value.reshape(-1)[keep])
        b_adv = torch.from_numpy(advantages.reshape(-1)[keep])
        b_ret = torch.from_numpy(returns.reshape(-1)[keep])
        size = len(b_x)
        for _ in range(s.epochs):
            for idx in torch.randperm(size).chunk(s.minibatches):
                logits, value = model(b_x[idx])
                logits = logits.masked_fill(~b_allowed[idx], -1e9)
                dist = Categorical(logits=logits)
                logp = dist.log_prob(b_action[idx])
                ratio = (logp - b_logp[idx]).exp()
                adv = b_adv[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - s.clip, 1 + s.clip)).mean()
                v_clipped = b_value[idx] + (value - b_value[idx]).clamp(-s.clip, s.clip)
                v_loss = (
                    0.5 * torch.max((value - b_ret[idx]) ** 2, (v_clipped - b_ret[idx]) ** 2).mean()
                )
                loss = pg - s.ent_coef * dist.entropy().mean() + s.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), s.max_grad_norm)
                optimizer.step()
        if update % s.eval_every == 0 and update != updates:
            record(update)
    record(update)
    envs.close()

    seconds = time.perf_counter() - started
    log["episodes"] = {
        k: dict(zip(("won", "drawn", "lost"), v, strict=True)) for k, v in tally.items()
    }
    log["seconds"] = round(seconds, 1)
    log["steps"] = step
    log["updates"] = update
    meta = {
        "map": s.map,
        "ruleset": s.ruleset,
        "observation_shape": list(planes_shape),
        "hidden": list(s.hidden),
        "view_radius": s.view,
        "avoid_contested": s.avoid_contested,
        "seed": s.seed,
        "steps": step,
        "seconds": round(seconds, 1),
        "trainer": "examples/rl/train_duel.py (PPO, PyTorch)",
    }
    weights = out / "weights.npz"
    model.export(weights, meta)
    log["final_greedy"] = {
        opp: evaluate(model, s, opp, greedy=True, seed=10_000 + s.seed)
        for opp in ("random", "wallhugger")
    }
    check_export(model, weights, obs)
    (out / "log.json").write_text(json.dumps(log, indent=1) + "\n")
    draw_curve(log, out / "curve.png")
    if not s.quiet:
        print(f"{step:,d} steps in {seconds:.0f} s; wrote {weights}, curve.png, log.json in {out}")
    return log


def check_export(model: ActorCritic, path: Path, obs: dict[str, Any]) -> None:
    """Fail loudly if numpy's forward pass of the saved file differs from PyTorch's."""
    policy = NumpyPolicy(path)
    x = features(obs["observation"], obs["scalars"], policy.radius)
    x = x.reshape(-1, x.shape[-1])
    ours, _ = policy.forward(x)
    with torch.no_grad():
        theirs = model(torch.from_numpy(x))[0].numpy()
    if not np.allclose(ours, theirs, atol=1e-4):
        raise RuntimeError(f"numpy and PyTorch disagree on {path}")


def draw_curve(log: dict[str, Any], path: Path) -> None:
    """The evaluations as a PNG: win rates (%) against training steps, one line per opponent.

    Drawn with Pillow (the ``images`` extra) in the tournament report's colours and tick
    rule (`lightcycle.tournament.plot`); without Pillow it says so and draws nothing,
    since the weights matter more than the picture.
    """
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        print(f"Pillow is not installed: no {path} (pip install 'lightcycle[images]')")
        return
    from lightcycle.tournament import plot

    evals = log["evaluations"]
    s = log["settings"]
    width, height = 900, 420
    left, top, right, bottom = 64.0, 36.0, float(width - 200), float(height - 40)
    span = max(evals[-1]["steps"], 1)

    def x_of(steps: float) -> float:
        return float(left + (right - left) * steps / span)

    def y_of(percent: float) -> float:
        return bottom - (bottom - top) * percent / 100

    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=13)
    title = (
        f"PPO on {s['map']} ({s['ruleset']}), seed {s['seed']}: games won while training "
        f"(each point {s['eval_games']} side-swapped games)"
    )
    draw.text((left, 10), title, fill="black", font=font)
    for percent in range(0, 101, 20):
        y = y_of(percent)
        draw.line([(left, y), (right, y)], fill="#e5e5e5")
        draw.text((left - 6, y), f"{percent}%", fill="black", font=font, anchor="rm")
    step = plot.nice_step(span / 1e6) * 1e6
    k = 0
    while k * step <= span * 1.0001:
        label = f"{k * step / 1e6:g}M"
        draw.text((x_of(k * step), bottom + 4), label, fill="black", font=font, anchor="mt")
        k += 1
    draw.rectangle([left, top, right, bottom], outline="#999")
    label = f"turns played in training games ({log.get('seconds', 0):.0f} s in all)"
    draw.text(((left + right) / 2, height - 4), label, fill="black", font=font, anchor="mb")
    for i, opp in enumerate(("random", "wallhugger")):
        colour = plot.PALETTE[i]
        points = [(x_of(e["steps"]), y_of(100 * e[opp]["win"])) for e in evals]
        if len(points) > 1:
            draw.line(points, fill=colour, width=2)
        ly = top + 8 + 18 * i
        draw.line([(right + 14, ly), (right + 34, ly)], fill=colour, width=3)
        draw.text((right + 40, ly), f"vs {opp}", fill="black", font=font, anchor="lm")
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path, format="PNG")


def parse(argv: list[str] | None = None) -> Settings:
    """`Settings` from the command line (every field has a flag; see ``--help``)."""
    d = Settings()
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--map", default=d.map)
    p.add_argument("--ruleset", default=d.ruleset)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--total-steps", type=int, default=d.total_steps)
    p.add_argument("--num-envs", type=int, default=d.num_envs)
    p.add_argument("--num-steps", type=int, default=d.num_steps)
    p.add_argument("--epochs", type=int, default=d.epochs)
    p.add_argument("--minibatches", type=int, default=d.minibatches)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--ent-coef", type=float, default=d.ent_coef)
    p.add_argument("--hidden", default=",".join(map(str, d.hidden)), help="e.g. 256,256")
    p.add_argument("--view", type=int, default=d.view, help="0: the whole board")
    p.add_argument(
        "--contested-ok", action="store_true", help="let the policy enter contested cells"
    )
    p.add_argument("--mix", default=",".join(map(str, d.mix)), help="random,wallhugger,self")
    p.add_argument("--eval-every", type=int, default=d.eval_every)
    p.add_argument("--eval-games", type=int, default=d.eval_games)
    p.add_argument("--threads", type=int, default=d.threads)
    p.add_argument("--max-minutes", type=float, default=d.max_minutes)
    p.add_argument("--out", default=d.out)
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    return Settings(
        map=a.map,
        ruleset=a.ruleset,
        seed=a.seed,
        total_steps=a.total_steps,
        num_envs=a.num_envs,
        num_steps=a.num_steps,
        epochs=a.epochs,
        minibatches=a.minibatches,
        lr=a.lr,
        ent_coef=a.ent_coef,
        hidden=tuple(int(h) for h in a.hidden.split(",") if h),
        view=a.view,
        avoid_contested=not a.contested_ok,
        mix=tuple(float(m) for m in a.mix.split(",")),
        eval_every=a.eval_every,
        eval_games=a.eval_games,
        threads=a.threads,
        max_minutes=a.max_minutes,
        out=a.out,
        quiet=a.quiet,
    )


if __name__ == "__main__":
    train(parse())

"""Batched environment speed: `lightcycle.envs.batched` against the C playout, same run.

Issue 39 sets two targets on one core, on the open 30x30 duel (``arena-30``, border walls,
28x28 free cells) with automatic reset:

(a) the batched step without observations: at least 1/8 of the game turns per second of
    the C playout of ``bench/c/playout.c`` (compiled and timed with the helpers of
    ``bench/step_speed.py``), measured in the same run;
(b) the batched step with every agent's observation planes, N = 1024: at least one
    million agent-steps per second (an agent-step is one cycle's turn: two per game turn).

Every column plays random games: each live cycle takes a uniformly random legal move onto
a free cell (`lightcycle.envs.batched.random_safe_policy`, computed in numpy for all games
at once), its first legal move when none is free, as the C playout does. The batched
columns time the ``step`` calls only ("step"), and the step plus the policy ("+policy").
The C arena starts its cycles at (7, 15) and (22, 14), ``arena-30`` at (6, 23) and (23, 6);
the turns per game are printed for both so the games can be compared.

Then throughput against N from 1 to 4096, with and without observations, with the memory
per game (the engine's arrays and the observation buffers, divided by N), and, when
``lightcycle.envs.parallel_env`` exists, the single-game PettingZoo env's turns per second
with random legal moves (reported against C, no target).

Slices are interleaved (C, batched, batched+obs, ...) ``--repeats`` times and the table
shows medians (min-max). The machine's load average is printed before and after: on a
shared machine compare the ratios, not the absolute figures.

Run from the repository root::

    python bench/envs_speed.py [--seconds 0.5] [--repeats 5] [--seed 1] [--json]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402

from lightcycle.envs.batched import BatchedGames, random_safe_policy  # noqa: E402
from step_speed import bench_main, compile_c, run_c  # noqa: E402

MAP = "arena-30"
N_STEP = 4096
N_OBS = 1024
SCALING = (1, 4, 16, 64, 256, 1024, 4096)
TARGET_C_RATIO = 8.0
TARGET_AGENT_STEPS = 1e6


def run_batched(n: int, observe: bool, seconds: float, seed: int) -> dict[str, float]:
    """Step ``n`` random duels for about ``seconds``; time the steps and the whole loop."""
    games = BatchedGames("classic", MAP, n, seed=seed, observe=observe)
    rng = np.random.default_rng(seed)
    cycles = np.arange(games.num_cycles)
    for _ in range(3):  # warm up: first-touch of the buffers, numpy's caches
        games.step(random_safe_policy(games, cycles, rng))
    clock = time.perf_counter
    steps = ended = 0
    in_step = 0.0
    start = clock()
    while True:
        actions = random_safe_policy(games, cycles, rng)
        t0 = clock()
        res = games.step(actions)
        in_step += clock() - t0
        ended += int(np.count_nonzero(res.terminated))
        steps += 1
        if clock() - start >= seconds:
            break
    total = clock() - start
    turns = n * steps
    return {
        "n": n,
        "steps": steps,
        "turns": turns,
        "games": ended,
        "step_rate": turns / in_step,
        "total_rate": turns / total,
        "agent_step_rate": turns * games.num_cycles / in_step,
        "bytes_per_game": memory_per_game(games),
    }


def memory_per_game(games: BatchedGames) -> float:
    """Bytes of every array the engine (and its observation buffers) owns, over N."""
    owners = [games.__dict__.values()]
    if games.planes is not None:
        owners.append(games.planes.__dict__.values())
    total = sum(
        v.nbytes
        for values in owners
        for v in values
        if isinstance(v, np.ndarray) and v.base is None and v.ndim and len(v) == games.num_games
    )
    if games.planes is not None:
        total += games.planes._flat.nbytes  # the planes' one buffer (N * P * C * H * W + 1)
    return total / games.num_games


def run_parallel_env(seconds: float, seed: int) -> dict[str, float] | str:
    """Turns per second of the single-game PettingZoo env, or why it was skipped."""
    try:
        from lightcycle.envs import parallel_env  # type: ignore[attr-defined]
    except ImportError as exc:
        return f"skipped: lightcycle.envs.parallel_env does not exist yet ({exc})"
    try:
        env = parallel_env(map=MAP)
        rng = np.random.default_rng(seed)
        clock = time.perf_counter
        turns = games = 0
        start = clock()
        while clock() - start < seconds:
            obs, _ = env.reset(seed=int(rng.integers(1 << 30)))
            games += 1
            while env.agents:
                actions = {}
                for agent in env.agents:
                    legal = np.flatnonzero(np.asarray(obs[agent]["action_mask"]))
                    actions[agent] = int(rng.choice(legal)) if len(legal) else 0
                obs, *_ = env.step(actions)
                turns += 1
        total = clock() - start
        return {"turns": turns, "games": games, "rate": turns / total}
    except Exception as exc:  # report, never fail the benchmark for a neighbour's module
        return f"skipped: parallel_env failed ({type(exc).__name__}: {exc})"


def _median(runs: list[dict[str, float]], key: str) -> tuple[float, float, float]:
    values = [r[key] for r in runs]
    return statistics.median(values), min(values), max(values)


def measure(seconds: float, repeats: int, seed: int, log: Callable[[str], None]) -> dict[str, Any]:
    """Run the whole benchmark and return its figures."""
    load_before = os.getloadavg()
    result: dict[str, Any] = {
        "benchmark": "envs_speed",
        "map": MAP,
        "seconds_per_slice": seconds,
        "repeats": repeats,
        "seed": seed,
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "load_before": load_before,
    }
    samples: dict[str, list[dict[str, float]]] = {"C": [], "step": [], "obs": [], "pz": []}
    notes: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="lightcycle-bench-") as tmp:
        exe, notes["C"] = compile_c(tmp)
        for r in range(repeats):
            if exe is not None:
                samples["C"].append(run_c(exe, seconds, seed + r))
            samples["step"].append(run_batched(N_STEP, False, seconds, seed + r))
            samples["obs"].append(run_batched(N_OBS, True, seconds, seed + r))
            pz = run_parallel_env(seconds, seed + r)
            if isinstance(pz, str):
                notes["pz"] = pz
            else:
                samples["pz"].append(pz)
            log(
                f"repeat {r + 1}/{repeats}: "
                + (f"C {samples['C'][-1]['rate']:,.0f} turns/s, " if samples["C"] else "")
                + f"batched {samples['step'][-1]['step_rate']:,.0f} turns/s, "
                f"obs {samples['obs'][-1]['agent_step_rate']:,.0f} agent-steps/s"
            )
    c_rate = statistics.median(s["rate"] for s in samples["C"]) if samples["C"] else None
    result["C"] = (
        {
            "turns_per_s": _median(samples["C"], "rate"),
            "turns_per_game": sum(s["turns"] for s in samples["C"])
            / sum(s["playouts"] for s in samples["C"]),
        }
        if samples["C"]
        else None
    )
    for key, n in (("step", N_STEP), ("obs", N_OBS)):
        runs = samples[key]
        result[key] = {
            "n": n,
            "turns_per_s": _median(runs, "step_rate"),
            "turns_per_s_with_policy": _median(runs, "total_rate"),
            "agent_steps_per_s": _median(runs, "agent_step_rate"),
            "turns_per_game": sum(x["turns"] for x in runs) / max(1, sum(x["games"] for x in runs)),
            "bytes_per_game": runs[0]["bytes_per_game"],
        }
    step_rate = result["step"]["turns_per_s"][0]
    result["targets"] = {
        "a": {
            "what": f"C / batched step, no observation, N={N_STEP}",
            "ratio": c_rate / step_rate if c_rate else None,
            "ratio_with_policy": c_rate / result["step"]["turns_per_s_with_policy"][0]
            if c_rate
            else None,
            "target": f"<= {TARGET_C_RATIO:g}x",
            "verdict": "n/a" if not c_rate else "PASS" if c_rate / step_rate <= 8 else "MISS",
        },
        "b": {
            "what": f"agent-steps/s with observation planes, N={N_OBS}",
            "value": result["obs"]["agent_steps_per_s"][0],
            "target": f">= {TARGET_AGENT_STEPS:,.0f}",
            "verdict": "PASS"
            if result["obs"]["agent_steps_per_s"][0] >= TARGET_AGENT_STEPS
            else "MISS",
        },
    }
    result["pettingzoo"] = (
        {
            "turns_per_s": _median(samples["pz"], "rate"),
            "c_ratio": c_rate / statistics.median(s["rate"] for s in samples["pz"])
            if c_rate
            else None,
        }
        if samples["pz"]
        else notes.get("pz", "not measured")
    )
    scaling = []
    scale_repeats = max(1, min(3, repeats))
    for n in SCALING:
        row: dict[str, Any] = {"n": n}
        for observe in (False, True):
            runs = [run_batched(n, observe, seconds / 2, seed + r) for r in range(scale_repeats)]
            tag = "obs" if observe else "step"
            row[f"{tag}_turns_per_s"] = statistics.median(x["step_rate"] for x in runs)
            row[f"{tag}_bytes_per_game"] = runs[0]["bytes_per_game"]
        scaling.append(row)
        log(f"scaling N={n}: {row['step_turns_per_s']:,.0f} / {row['obs_turns_per_s']:,.0f}")
    result["scaling"] = scaling
    result["notes"] = notes
    result["load_after"] = os.getloadavg()
    return result


def _spread(m: tuple[float, float, float]) -> str:
    return f"{m[0]:,.0f} ({m[1]:,.0f}-{m[2]:,.0f})"


def report(result: dict[str, Any]) -> str:
    """The human-readable table."""
    lb, la = result["load_before"], result["load_after"]
    lines = [
        f"envs speed: random duels on {result['map']}, auto-reset; "
        f"{result['repeats']} interleaved repeats of {result['seconds_per_slice']:g} s, "
        f"seed {result['seed']}, Python {result['python']}, numpy {result['numpy']}",
        f"load average before {lb[0]:.2f} {lb[1]:.2f} {lb[2]:.2f}, "
        f"after {la[0]:.2f} {la[1]:.2f} {la[2]:.2f} ({os.cpu_count()} CPUs); medians (min-max)",
        "",
        f"{'column':<34}{'turns/s':>34}{'turns/game':>12}",
    ]
    c = result["C"]
    if c:
        lines.append(
            f"{'C playout':<34}{_spread(c['turns_per_s']):>34}{c['turns_per_game']:>12.1f}"
        )
    else:
        lines.append(f"C playout: {result['notes'].get('C')}")
    for key, label in (("step", "batched step, no obs"), ("obs", "batched step + obs planes")):
        b = result[key]
        lines.append(
            f"{label + ', N=' + str(b['n']):<34}{_spread(b['turns_per_s']):>34}"
            f"{b['turns_per_game']:>12.1f}"
        )
        lines.append(
            f"{'  + numpy random-safe policy':<34}{_spread(b['turns_per_s_with_policy']):>34}"
        )
    obs = result["obs"]
    lines.append(f"{'  agent-steps/s with obs':<34}{_spread(obs['agent_steps_per_s']):>34}")
    pz = result["pettingzoo"]
    if isinstance(pz, dict):
        ratio = f"  (C is {pz['c_ratio']:,.0f}x)" if pz["c_ratio"] else ""
        lines.append(
            f"{'PettingZoo parallel_env, 1 game':<34}{_spread(pz['turns_per_s']):>34}{ratio}"
        )
    else:
        lines.append(f"PettingZoo parallel_env: {pz}")
    ta, tb = result["targets"]["a"], result["targets"]["b"]
    lines += [""]
    if ta["ratio"] is not None:
        lines.append(
            f"(a) {ta['what']}: {ta['ratio']:.1f}x "
            f"(with the policy {ta['ratio_with_policy']:.1f}x); "
            f"target {ta['target']}: {ta['verdict']}"
        )
    else:
        lines.append(f"(a) {ta['what']}: n/a (no C compiler)")
    lines.append(f"(b) {tb['what']}: {tb['value']:,.0f}; target {tb['target']}: {tb['verdict']}")
    lines += [
        "",
        "scaling (step calls only; memory = the engine's arrays [+ observation buffers] / N)",
        f"{'N':>6}{'turns/s no obs':>16}{'bytes/game':>12}{'turns/s obs':>14}"
        f"{'agent-steps/s':>15}{'bytes/game':>12}",
    ]
    for row in result["scaling"]:
        lines.append(
            f"{row['n']:>6}{row['step_turns_per_s']:>16,.0f}{row['step_bytes_per_game']:>12,.0f}"
            f"{row['obs_turns_per_s']:>14,.0f}{2 * row['obs_turns_per_s']:>15,.0f}"
            f"{row['obs_bytes_per_game']:>12,.0f}"
        )
    lines += ["", f"C build: {result['notes'].get('C', '-')}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return bench_main(argv, __doc__, 0.5, measure, report)


if __name__ == "__main__":
    sys.exit(main())

"""An episode saved as a replay: ``python examples/rl/save_episode.py episode.json``.

Both cycles of a PettingZoo duel are moved by the policy of ``first_safe.py``; the game
the episode was is then written as a lightcycle replay, the file ``lightcycle play
--replay`` writes, which ``lightcycle replay episode.json`` re-simulates and checks and
``lightcycle replay episode.json --html episode.html`` shows in the viewer.
"""

from __future__ import annotations

import sys

from first_safe import first_safe  # beside this file

from lightcycle.envs import parallel_env


def main(path: str) -> None:
    """Play one episode on ``arena-15`` (game seed 7) and save its replay at ``path``."""
    env = parallel_env(map="arena-15")
    observations, _ = env.reset(seed=7)
    while env.agents:
        actions = {agent: first_safe(observations[agent]) for agent in env.agents}
        observations, *_ = env.step(actions)
    replay = env.replay(names=["FirstSafe", "FirstSafe too"])
    replay.save(path)
    print(f"{path}: {len(replay.turns)} turns, {replay.outcome and replay.outcome['reason']}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "episode.json")

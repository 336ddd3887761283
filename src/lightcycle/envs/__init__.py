"""Reinforcement-learning environments over the referee's own rules (extra ``rl``).

PettingZoo's convention::

    from lightcycle.envs import parallel_env, env
    par = parallel_env(map="arena-15")            # the classic duel, every cycle an agent
    aec = env(map="court-small", ruleset="teams")  # the AEC version of the same

Gymnasium's: importing this package registers the single-agent environments (one cycle
against built-in bots), ``gymnasium.make("lightcycle/Duel-v1")`` and the others in
`ENV_IDS`. See docs/rl.md for the observation, action and reward contract.

This module imports only gymnasium (to register); PettingZoo and the environments load
when first asked for, so ``import lightcycle.envs`` stays quick.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

try:
    import gymnasium
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "lightcycle.envs needs Gymnasium and PettingZoo: pip install 'lightcycle[rl]'"
    ) from exc

if TYPE_CHECKING:
    from lightcycle.envs.batched import BatchedGames, random_safe_policy
    from lightcycle.envs.parallel import LightcycleParallelEnv
    from lightcycle.envs.seats import PolicyBot
    from lightcycle.envs.single import LightcycleEnv
    from lightcycle.envs.vector import OpponentVectorEnv, SelfPlayVectorEnv

__all__ = [
    "ENV_IDS",
    "BatchedGames",
    "LightcycleEnv",
    "LightcycleParallelEnv",
    "OpponentVectorEnv",
    "PolicyBot",
    "SelfPlayVectorEnv",
    "env",
    "parallel_env",
    "random_safe_policy",
]

_ENTRY = "lightcycle.envs.single:LightcycleEnv"

ENV_IDS: dict[str, dict[str, Any]] = {
    "lightcycle/Duel-v1": {"map": "arena-15", "ruleset": "classic@1", "opponents": "random"},
    "lightcycle/Torus-v1": {"map": "torus-20", "ruleset": "torus@1", "opponents": "random"},
    "lightcycle/FFA-v1": {
        "map": "arena-30",
        "ruleset": "ffa@1",
        "players": 4,
        "opponents": "random",
    },
    "lightcycle/Teams-v1": {
        "map": "court-small",
        "ruleset": "teams@1",
        "opponents": "randombot",
        "teammates": "randombot",
    },
    "lightcycle/Tron3D-v1": {
        "map": "icosahedron",
        "ruleset": "tron3d@1",
        "players": 2,
        "opponents": "dummy",
        "teammates": "dummy",
    },
}
"""The registered single-agent environments and their default keywords (any keyword of
`LightcycleEnv` overrides them in ``gymnasium.make``). A change of behaviour bumps the
version."""


def _require_pettingzoo() -> None:
    try:
        import pettingzoo  # type: ignore[import-untyped]  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "lightcycle.envs needs PettingZoo for its multi-agent environments: "
            "pip install 'lightcycle[rl]'"
        ) from exc


def parallel_env(**kwargs: Any) -> LightcycleParallelEnv:
    """A PettingZoo ``ParallelEnv`` (see `lightcycle.envs.parallel.parallel_env`)."""
    _require_pettingzoo()
    from lightcycle.envs.parallel import parallel_env as make

    return make(**kwargs)


def env(**kwargs: Any) -> Any:
    """The PettingZoo AEC environment (see `lightcycle.envs.parallel.env`)."""
    _require_pettingzoo()
    from lightcycle.envs.parallel import env as make

    return make(**kwargs)


def __getattr__(name: str) -> Any:
    """The environment classes, imported when first named."""
    if name == "LightcycleParallelEnv":
        _require_pettingzoo()
        from lightcycle.envs.parallel import LightcycleParallelEnv

        return LightcycleParallelEnv
    if name == "LightcycleEnv":
        from lightcycle.envs.single import LightcycleEnv

        return LightcycleEnv
    if name == "PolicyBot":
        from lightcycle.envs.seats import PolicyBot

        return PolicyBot
    if name in ("BatchedGames", "random_safe_policy"):
        from lightcycle.envs import batched

        return getattr(batched, name)
    if name in ("SelfPlayVectorEnv", "OpponentVectorEnv"):
        from lightcycle.envs import vector

        return getattr(vector, name)
    raise AttributeError(f"module 'lightcycle.envs' has no attribute {name!r}")


for _id, _kwargs in ENV_IDS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point=_ENTRY, kwargs=_kwargs)

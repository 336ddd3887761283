"""lightcycle: a Tron light-cycle AI platform.

The game is a pure function at the centre (`lightcycle.rules.step`); bots, the referee,
replays, renderers and the CLI are rings around it. The names most users need are
re-exported here lazily so that ``import lightcycle`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["__version__", "get_map", "get_ruleset", "new_game", "play", "play_remote", "step"]

# play_remote is left out of this block: the referee imports this package, and
# import-linter would read that as the referee importing lightcycle.remote, above it.
if TYPE_CHECKING:  # pragma: no cover
    from lightcycle.maps.registry import get_map
    from lightcycle.referee.local import play
    from lightcycle.rules.engine import new_game, step
    from lightcycle.rules.variants import get_ruleset

_LAZY = {
    "get_map": "lightcycle.maps.registry",
    "play": "lightcycle.referee.local",
    "play_remote": "lightcycle.remote.play",
    "new_game": "lightcycle.rules.engine",
    "step": "lightcycle.rules.engine",
    "get_ruleset": "lightcycle.rules.variants",
}


def __getattr__(name: str) -> Any:
    """Import the public helpers on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lightcycle' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)

"""The stage registry: small functions, one concern each, named ``phase.variant``.

A stage takes the `Turn` in progress and changes it in place. Rulesets list stage ids; the
engine looks them up here once per ruleset. Importing this package registers every stage.

The registry itself (`stage`, `get_stage`, `STAGES`, `QUIET`) is
`lightcycle.rules.stages.registry`, below the stage modules, which import it to register
themselves; this package imports the stage modules and re-exports the registry's names.
"""

from __future__ import annotations

from lightcycle.rules.stages import collision, game_over, items, movement, trails
from lightcycle.rules.stages.registry import (
    QUIET,
    STAGES,
    QuietBefore,
    QuietCheck,
    Stage,
    always_quiet,
    get_stage,
    stage,
)

__all__ = [
    "QUIET",
    "STAGES",
    "QuietBefore",
    "QuietCheck",
    "Stage",
    "always_quiet",
    "collision",
    "game_over",
    "get_stage",
    "items",
    "movement",
    "stage",
    "trails",
]

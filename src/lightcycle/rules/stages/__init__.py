"""The stage registry: small functions, one concern each, named ``phase.variant``.

A stage takes the `Turn` in progress and changes it in place. Rulesets list stage ids; the
engine looks them up here once per ruleset. Importing this package registers every stage.
"""

from __future__ import annotations

from collections.abc import Callable

from lightcycle.rules.turn import Turn

Stage = Callable[[Turn], None]

STAGES: dict[str, Stage] = {}


def stage(stage_id: str) -> Callable[[Stage], Stage]:
    """Register a stage function under ``stage_id`` (``phase.variant``)."""

    def register(fn: Stage) -> Stage:
        if stage_id in STAGES:
            raise ValueError(f"stage {stage_id!r} is registered twice")
        if "." not in stage_id:
            raise ValueError(f"stage id {stage_id!r} must read 'phase.variant'")
        STAGES[stage_id] = fn
        fn.stage_id = stage_id  # type: ignore[attr-defined]
        return fn

    return register


def get_stage(stage_id: str) -> Stage:
    """Return the stage registered as ``stage_id``.

    Raises:
        KeyError: naming the known stages.
    """
    try:
        return STAGES[stage_id]
    except KeyError:
        known = ", ".join(sorted(STAGES))
        raise KeyError(f"no stage {stage_id!r}; known stages: {known}") from None


from lightcycle.rules.stages import collision, game_over, movement, trails  # noqa: E402

__all__ = ["STAGES", "Stage", "collision", "game_over", "get_stage", "movement", "stage", "trails"]

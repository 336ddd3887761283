"""The stage registry: small functions, one concern each, named ``phase.variant``.

A stage takes the `Turn` in progress and changes it in place. Rulesets list stage ids; the
engine looks them up here once per ruleset. Importing this package registers every stage.
"""

from __future__ import annotations

from collections.abc import Callable

from lightcycle.core.state import GameState
from lightcycle.rules.turn import Turn

Stage = Callable[[Turn], None]
QuietCheck = Callable[[GameState], bool]

STAGES: dict[str, Stage] = {}
QUIET: dict[str, QuietCheck | None] = {}
"""Per stage: how it behaves on a *quiet turn* (see `stage`)."""


def always_quiet(state: GameState) -> bool:
    """The quiet check of stages that are always quiet."""
    return True


def stage(stage_id: str, quiet: bool | QuietCheck = False) -> Callable[[Stage], Stage]:
    """Register a stage function under ``stage_id`` (``phase.variant``).

    Args:
        stage_id: the name rulesets list.
        quiet: whether the stage is a no-op on a quiet turn beyond moving every cycle to
            its destination and extending its trail. A *quiet turn* is one where every
            live cycle makes a plain one-step move (no jump, no item) into a free cell and
            no two cycles share a destination: nothing collides. Most turns of most games
            are quiet, so when every stage of a ruleset says so, `step` applies that
            effect directly instead of running the pipeline. ``True`` states it always;
            a function of the state before the turn states it for that turn only (e.g.
            a turn limit is quiet except on its last turn). Tests check that the shortcut
            and the pipeline agree on every registered ruleset.
    """

    def register(fn: Stage) -> Stage:
        if stage_id in STAGES:
            raise ValueError(f"stage {stage_id!r} is registered twice")
        if "." not in stage_id:
            raise ValueError(f"stage id {stage_id!r} must read 'phase.variant'")
        STAGES[stage_id] = fn
        QUIET[stage_id] = always_quiet if quiet is True else (quiet or None)
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


from lightcycle.rules.stages import collision, game_over, items, movement, trails  # noqa: E402

__all__ = [
    "QUIET",
    "STAGES",
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

"""The stage registry: `stage` registers a function as ``phase.variant``, `get_stage`
finds it.

The stage modules (`collision`, `game_over`, `items`, `movement`, `trails`) import this
module to register themselves, and the package's ``__init__`` imports them, so importing
`lightcycle.rules.stages` registers every stage; this module imports none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from lightcycle.core.state import GameState
from lightcycle.rules.ruleset import Ruleset, Settings
from lightcycle.rules.turn import Turn

Stage = Callable[[Turn], None]
QuietCheck = Callable[[GameState], bool]

STAGES: dict[str, Stage] = {}
QUIET: dict[str, QuietCheck | None] = {}
"""Per stage: how it behaves on a *quiet turn* (see `stage`)."""


def always_quiet(state: GameState) -> bool:
    """The quiet check of stages that are always quiet."""
    return True


class QuietBefore:
    """A quiet check that only compares the turn number with a limit taken from the settings.

    The stage is quiet on every turn numbered below ``limit(settings)`` (on every turn when
    that is ``None``). Declaring it as data rather than as an arbitrary function of the
    state lets `step` fold it into one integer per ruleset, compared inline on the hot path
    instead of calling a function every turn. It is still a `QuietCheck`.
    """

    __slots__ = ("limit",)

    def __init__(self, limit: Callable[[Settings], int | None]) -> None:
        self.limit = limit

    def __call__(self, state: GameState) -> bool:
        """Whether the turn about to be played (``state.turn + 1``) is below the limit."""
        limit = self.limit(cast(Ruleset, state.ruleset).settings)
        return limit is None or state.turn + 1 < limit


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
            a turn limit is quiet except on its last turn; a `QuietBefore` says the same
            as data, which `step` checks without a call). Tests check that the shortcut
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

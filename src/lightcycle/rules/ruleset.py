"""`Ruleset`: a variant as data -- a name, a version, an ordered list of stage ids, settings.

Adding a variant means reusing or adding stages and registering one `Ruleset`; no code
outside the stages branches on the variant's name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

TurnLimitOutcome = Literal["draw", "cycles_left"]


class RulesError(ValueError):
    """A ruleset, setting or game set-up that cannot work, with what to do instead."""


@dataclass(frozen=True)
class Settings:
    """Typed settings every ruleset understands.

    Attributes:
        turn_limit: end the game after this many turns (``None``: play to the end).
        turn_limit_outcome: what the limit declares among the teams still alive: ``draw``
            (they share first place) or ``cycles_left`` (ranked by live cycles, equal
            counts share a place).
        jumps: jumps each cycle may make in a game (0: jumps are illegal).
        cycles_per_team: cycles each team steers.
    """

    turn_limit: int | None = None
    turn_limit_outcome: TurnLimitOutcome = "draw"
    jumps: int = 0
    cycles_per_team: int = 1

    def validate(self) -> None:
        """Raise `RulesError` for values no game can use."""
        if self.turn_limit is not None and self.turn_limit < 1:
            raise RulesError(
                f"turn_limit must be a positive number of turns, got {self.turn_limit}"
            )
        if self.turn_limit_outcome not in ("draw", "cycles_left"):
            raise RulesError(
                "turn_limit_outcome must be 'draw' or 'cycles_left', "
                f"got {self.turn_limit_outcome!r}"
            )
        if self.jumps < 0 or self.cycles_per_team < 1:
            raise RulesError("jumps must be >= 0 and cycles_per_team >= 1")

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain JSON-ready data."""
        return dataclasses.asdict(self)


BoardKind = Literal["grid", "torus", "any-grid", "graph", "any"]

VERDICTS = ("ok", "timeout", "crashed", "bad_output", "illegal_move", "disqualified")
"""What a referee can say of one seat's move: the verdict names, ``ok`` first."""

VerdictEffect = Literal["cycle", "team"]

DEFAULT_VERDICT_EFFECTS: dict[str, VerdictEffect] = {
    "timeout": "team",
    "crashed": "team",
    "bad_output": "team",
    "illegal_move": "cycle",
    "disqualified": "team",
}
"""Every non-``ok`` verdict forfeits the cycles it names: ``cycle`` only the cycle whose
move was wrong, ``team`` every live cycle of the seat."""


@dataclass(frozen=True)
class Ruleset:
    """A named, versioned variant.

    Attributes:
        name: registry name, e.g. ``classic``.
        version: bumped on any change of behaviour.
        stages: stage ids run in order each turn (see `lightcycle.rules.stages`).
        settings: typed settings.
        aliases: other names that find this ruleset.
        players: the smallest and largest number of teams.
        board: the boards it plays on: ``grid`` (walled), ``torus``, ``any-grid``, ``graph``,
            ``any``.
        description: one line for listings.
        verdicts: what each non-``ok`` verdict forfeits, ``cycle`` or ``team``.
    """

    name: str
    version: int
    stages: tuple[str, ...]
    settings: Settings = field(default_factory=Settings)
    aliases: tuple[str, ...] = ()
    players: tuple[int, int] = (2, 2)
    board: BoardKind = "grid"
    description: str = ""
    verdicts: Mapping[str, VerdictEffect] = field(
        default_factory=lambda: dict(DEFAULT_VERDICT_EFFECTS), hash=False
    )

    @property
    def id(self) -> str:
        """``name@version``, the form replays record."""
        return f"{self.name}@{self.version}"

    def with_settings(self, overrides: Mapping[str, Any] | None = None, **kw: Any) -> Ruleset:
        """Return this ruleset with some settings changed.

        Raises:
            RulesError: for an unknown setting name (the message lists the known ones) or
                an invalid value.
        """
        changes = {**(overrides or {}), **kw}
        known = {f.name for f in dataclasses.fields(self.settings)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise RulesError(
                f"{self.id} has no setting {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        settings = dataclasses.replace(self.settings, **changes)
        settings.validate()
        return dataclasses.replace(self, settings=settings)

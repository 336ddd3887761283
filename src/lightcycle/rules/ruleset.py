"""`Ruleset`: a variant as data -- a name, a version, an ordered list of stage ids, settings.

Adding a variant means reusing or adding stages and registering one `Ruleset`; no code
outside the stages branches on the variant's name.
"""

from __future__ import annotations

import dataclasses
import functools
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

    def cycle_name(self, team: int, k: int) -> str:
        """The label of ``team``'s ``k``-th cycle (from 0); none in the duel variants."""
        return ""

    def board_problem(self, width: int, height: int) -> str | None:
        """Why a ``width`` x ``height`` grid cannot be played, or ``None`` if it can."""
        return None


@dataclass(frozen=True)
class TeamSettings(Settings):
    """Settings of the team course (``teams@1``).

    Attributes:
        min_width, min_height, max_width, max_height: the court sizes allowed, the
            perimeter included. Tournaments play on the maximum.
        letters: per team, the labels of its cycles in order (north ``A``-``J``, south
            ``K``-``T``).
    """

    turn_limit: int | None = 2000
    turn_limit_outcome: TurnLimitOutcome = "cycles_left"
    jumps: int = 1
    cycles_per_team: int = 10
    min_width: int = 16
    min_height: int = 16
    max_width: int = 64
    max_height: int = 48
    letters: tuple[str, ...] = ("ABCDEFGHIJ", "KLMNOPQRST")

    def validate(self) -> None:
        """See `Settings.validate`; also the size bounds."""
        super().validate()
        if not (3 <= self.min_width <= self.max_width and 3 <= self.min_height <= self.max_height):
            raise RulesError(
                "court sizes need 3 <= min_width <= max_width and 3 <= min_height <= max_height"
            )

    def cycle_name(self, team: int, k: int) -> str:
        """``A``, ``B`` ... for north, ``K``, ``L`` ... for south (see ``letters``)."""
        if team < len(self.letters) and k < len(self.letters[team]):
            return self.letters[team][k]
        return f"{team + 1}.{k + 1}"

    def board_problem(self, width: int, height: int) -> str | None:
        """A court must lie within the size bounds."""
        if not (
            self.min_width <= width <= self.max_width
            and self.min_height <= height <= self.max_height
        ):
            return (
                f"courts are {self.min_width}x{self.min_height} to "
                f"{self.max_width}x{self.max_height} (perimeter included), not {width}x{height}"
            )
        return None


ITEM_KINDS = ("turbo", "ghost", "points")
"""The items of the 3D course."""


@dataclass(frozen=True)
class Tron3DSettings(Settings):
    """Settings of the 3D course (``tron3d@1``); bots see every one of them.

    Attributes:
        nb_rounds: rounds in a game. Cycles without turbo move on even rounds only
            (round = turn - 1), so 200 rounds are 100 normal moves.
        bonus_round: the round on which items appear on the free bonus vertices.
        turbo_duration: moves a cycle makes in turbo after using a turbo item.
        ghost_duration: moves a cycle makes as a ghost after using a ghost item.
        score_bonus: points of an extra-points item.
        move_points: points per move made.
    """

    cycles_per_team: int = 2
    nb_rounds: int = 200
    bonus_round: int = 50
    turbo_duration: int = 8
    ghost_duration: int = 3
    score_bonus: int = 50
    move_points: int = 10

    def validate(self) -> None:
        """See `Settings.validate`; also the round and item parameters."""
        super().validate()
        values = (self.bonus_round, self.turbo_duration, self.ghost_duration, self.score_bonus)
        if self.nb_rounds < 1 or min(values) < 0 or self.move_points < 0:
            raise RulesError(
                "nb_rounds must be >= 1 and bonus_round, turbo_duration, ghost_duration, "
                "score_bonus and move_points >= 0"
            )


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


PLAIN_STAGES = frozenset(
    {
        "movement.standard",
        "collision.simultaneous",
        "trails.persist",
        "game_over.last_standing",
        "game_over.turn_limit",
    }
)
"""The stages of the classic rules (classic, torus, ffa): what the older protocols
(tron2010, aichallenge, sexp) can express and what the duel search models. Jumps, items,
turbo rounds, trails that vanish or move orders they cannot."""


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
        clock: the time controls the variant's course used (`lightcycle.referee.clock`
            names: ``move``, ``first_move``, ``bank``, ``average``, ``cpu``); the referee
            starts from them, and the command line overrides them.
        measures: facts the referee must measure and hand to `step` (``cpu``).
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
    clock: Mapping[str, float | None] = field(default_factory=dict, hash=False)
    measures: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        """``name@version``, the form replays record."""
        return f"{self.name}@{self.version}"

    @functools.cached_property
    def has_rounds(self) -> bool:
        """Whether cycles without turbo sit out odd rounds (``movement.rounds``).

        Cached: `lightcycle.rules.legal.moves_this_turn` asks for every cycle every turn.
        """
        return "movement.rounds" in self.stages

    @functools.cached_property
    def plain(self) -> bool:
        """Whether every stage is one of `PLAIN_STAGES` (the classic rules)."""
        return all(s in PLAIN_STAGES for s in self.stages)

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
        for key, value in changes.items():  # JSON gives lists where settings keep tuples
            if isinstance(value, list) and isinstance(getattr(self.settings, key), tuple):
                changes[key] = tuple(value)
        settings = dataclasses.replace(self.settings, **changes)
        settings.validate()
        return dataclasses.replace(self, settings=settings)

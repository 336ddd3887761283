"""The contest file: what a judge plays, with which limits, languages and validation.

One TOML file (docs/judge.md; ``lightcycle judge init`` writes one per course) says
everything a judge needs. This module is what a contest *is* (the frozen specs every
worker and page reads); `lightcycle.judge.service.contest_file.load_contest` reads a
file into one, checking every value before anything starts, with the same checks
``lightcycle duel`` and ``lightcycle serve`` use for rulesets and map pools (the ruleset
exists, every map of the pool can be set up for the contest's players), so a judge that
starts can validate every submission, and a mistake is one line naming the file, the
line, the key and what was expected. The reader imports this module, never the reverse.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the checks import the game's modules only when a file is read, so a
    # worker process (which gets its Contest built) starts fast
    from lightcycle.maps.spec import MapSpec
    from lightcycle.referee.clock import TimeControl

BUILTIN_LANGUAGES = ("python", "c", "cpp")
"""Languages the judge knows how to build and run without being told
(`lightcycle.judge.service.languages`)."""

SANDBOX_LEVELS = ("auto", "full", "uid")
"""What ``[judge] sandbox`` may say: a judge never runs student code unconfined (``uid``:
a root judge's pool user ids where bubblewrap cannot run, docs/sandbox.md)."""

OFFICIAL_MODES = ("elimination", "ladder", "none")
"""What ``[official] mode`` may say: the course's elimination rounds, a continuous rated
ladder, or no official play at all."""


class ContestError(ValueError):
    """A contest file that cannot be judged; the message is one line."""


@dataclass(frozen=True)
class LimitsSpec:
    """The time controls (``lightcycle match``'s, by the same names) and sizes.

    Attributes:
        cpu_time: CPU seconds for a whole game (``None``: no budget).
        move_time: wall seconds a move (``None``: none; then ``average_time`` is needed).
        first_move_time: wall seconds for the first move, set-up included.
        time_bank: a reserve drawn on by moves slower than ``move_time``.
        average_time: a limit on the mean time of the moves after the first.
        memory: MiB of memory a bot (or a build) may use.
        source_size: bytes of one upload.
    """

    cpu_time: float | None = None
    move_time: float | None = 1.0
    first_move_time: float | None = 3.0
    time_bank: float = 0.0
    average_time: float | None = None
    memory: int = 256
    source_size: int = 65536

    def time_control(self) -> TimeControl:
        """The `TimeControl` every seat of a judged game plays under."""
        from lightcycle.referee.clock import TimeControl

        return TimeControl(
            move=self.move_time,
            first_move=self.first_move_time,
            bank=self.time_bank,
            average=self.average_time,
            cpu=self.cpu_time,
        )


@dataclass(frozen=True)
class LanguageSpec:
    """A language a submission may be written in.

    Attributes:
        name: as students pick it (``python``, ``c``, ``rust``).
        suffix: the source file's suffix (``.rs``).
        build: the build command (``{source}`` is the uploaded file's name); ``None``: a
            built-in language (its commands are `lightcycle.judge.service.languages`'s).
        run: the command that runs the built bot, in the build's folder.
        builtin: whether the judge knows it without the file declaring it.
    """

    name: str
    suffix: str
    build: tuple[str, ...] | None = None
    run: tuple[str, ...] | None = None
    builtin: bool = False


_BUILTIN_SPECS = {
    "python": LanguageSpec("python", ".py", builtin=True),
    "c": LanguageSpec("c", ".c", builtin=True),
    "cpp": LanguageSpec("cpp", ".cpp", builtin=True),
}


@dataclass(frozen=True)
class ValidationSpec:
    """The steps a submission must pass after its build.

    Attributes:
        protocol: what program bots speak (Python ``Bot`` classes need none).
        self_play_copies: a game of this many copies of the submission must be survived
            (default: the contest's ``players``).
        reference: the bot (a ``builtin:`` spec) the qualifying games are played against.
        qualify_games: how many qualifying games ...
        reference_seats: ... each with this many reference bots, all of which must be
            beaten (default: ``players - 1``).
    """

    protocol: str = "jsonl"
    self_play_copies: int = 4
    reference: str = "builtin:dummy"
    qualify_games: int = 4
    reference_seats: int = 3


@dataclass(frozen=True)
class JudgeSpec:
    """How the judge itself runs.

    Attributes:
        database: an SQLAlchemy URL; a relative SQLite path is read from the contest
            file's folder.
        secret_key_file: the cookie signing key (made on first start, mode 0600); relative
            to the contest file's folder.
        workers: workers ``judge serve`` starts (0: only separate ``judge worker``s).
        host: the website's address.
        port: the website's port.
        sandbox: ``full`` (every protection, else refuse to start), ``auto`` (the
            strongest this host gives) or ``uid`` (pool user ids without bubblewrap).
    """

    database: str = "sqlite:///judge.db"
    secret_key_file: str = "judge.secret"
    workers: int = 2
    host: str = "127.0.0.1"
    port: int = 8080
    sandbox: str = "full"


@dataclass(frozen=True)
class OfficialSpec:
    """How official play runs (`lightcycle.judge.service.rounds`, ``...ladder``).

    Attributes:
        mode: ``elimination`` (the course's rounds, each putting one player out),
            ``ladder`` (continuous rated games) or ``none``.
        finalists: rounds stop when this many players remain (1: until a champion).
        rounds_per_start: rounds played in a row each time rounds start (0: until
            ``finalists`` remain).
        schedule: times of day (``HH:MM``, UTC) when the judge starts rounds by itself.
        group_size: seats of an official game (0, the default: the contest's ``players``,
            filled in by `Contest`).
        filler: the bot (a ``builtin:`` spec) that fills a short group ("", the default:
            the ``[validation] reference``, the Dummy students already beat to qualify).
        ladder_parallel: ladder matches kept queued or running at once.
    """

    mode: str = "elimination"
    finalists: int = 16
    rounds_per_start: int = 0
    schedule: tuple[str, ...] = ()
    group_size: int = 0
    filler: str = ""
    ladder_parallel: int = 4


@dataclass(frozen=True)
class FriendlySpec:
    """What friendly matches may be.

    Attributes:
        players: the seat counts a friendly match may have (empty, the default: the
            contest's ``players`` only, filled in by `Contest`).
    """

    players: tuple[int, ...] = ()


@dataclass(frozen=True)
class Contest:
    """A checked contest file (see the module docstring and docs/judge.md)."""

    name: str
    title: str
    ruleset: str
    maps: tuple[str, ...]
    players: int
    limits: LimitsSpec = field(default_factory=LimitsSpec)
    languages: Mapping[str, LanguageSpec] = field(
        default_factory=lambda: MappingProxyType(dict(_BUILTIN_SPECS))
    )
    validation: ValidationSpec = field(default_factory=ValidationSpec)
    judge: JudgeSpec = field(default_factory=JudgeSpec)
    path: Path | None = None
    official: OfficialSpec = field(default_factory=OfficialSpec)
    friendly: FriendlySpec = field(default_factory=FriendlySpec)

    def __post_init__(self) -> None:
        """Fill the defaults that follow other tables (a contest built in code, as tests
        do, gets the same ones as a file)."""
        if not self.official.group_size or not self.official.filler:
            official = replace(
                self.official,
                group_size=self.official.group_size or self.players,
                filler=self.official.filler or self.validation.reference,
            )
            object.__setattr__(self, "official", official)
        if not self.friendly.players:
            object.__setattr__(self, "friendly", FriendlySpec(players=(self.players,)))

    def pool(self) -> list[MapSpec]:
        """The map pool as maps (checked at load, so this does not fail for a loaded one)."""
        from lightcycle.referee.match import unplayable
        from lightcycle.rules.variants import get_ruleset
        from lightcycle.tournament.mappool import parse_pool

        rs = get_ruleset(self.ruleset)
        return parse_pool(
            ",".join(self.maps),
            seed=0,
            playable=lambda spec: unplayable(spec, rs, [], 0, players=self.players),
            players=self.players,
            verb=f"play {rs.id} with {self.players} players on",
        )

"""What a tournament file means: the entrants, the maps, the rules, the clocks and the format.

`make_plan` turns a `TournamentConfig` into live objects and checks everything a game
could trip on (an unknown bot, a map the ruleset or a bot's protocol cannot play, a time
control no game can use) before the first game, so a tournament never fails at 3 a.m.
on its 400th match.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lightcycle.formats.errors import FormatError
from lightcycle.maps.spec import MapError, MapSpec
from lightcycle.protocols import get_protocol
from lightcycle.protocols.base import UnsupportedGame
from lightcycle.referee.clock import TimeControl, TimeControlError
from lightcycle.referee.local import default_ruleset
from lightcycle.referee.players import BotSpec, make_player, preflight, unique_names
from lightcycle.rules.engine import new_game
from lightcycle.rules.ruleset import RulesError, Ruleset
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import Limits, SandboxError
from lightcycle.sandbox.levels import require
from lightcycle.sandbox.process import pidns_prefix
from lightcycle.tournament.config import FORMATS, TournamentConfig, TournamentError
from lightcycle.tournament.elimination import Elimination
from lightcycle.tournament.mappool import parse_pool
from lightcycle.tournament.schedule import Format, Gauntlet, RoundRobin, Tables
from lightcycle.tournament.swiss import Swiss


@dataclass(frozen=True)
class Entrant:
    """One participant of the tournament.

    Attributes:
        index: its number in schedules (bots in file order, then fillers).
        name: the display name, unique in the tournament.
        spec_text: the spec as written in the file.
        spec: the parsed spec (paths resolved).
        filler: whether it only fills short groups (not ranked).
    """

    index: int
    name: str
    spec_text: str
    spec: BotSpec
    filler: bool = False


@dataclass(frozen=True)
class Plan:
    """A tournament ready to run.

    Attributes:
        config: the file it came from.
        entrants: bots then fillers, by index.
        maps: the maps, by index.
        rulesets: the rules of each map, settings applied.
        controls: each entrant's time control on each map, ``[entrant][map]``.
        format: the schedule generator.
        limits: process limits of bot programs.
    """

    config: TournamentConfig
    entrants: tuple[Entrant, ...]
    maps: tuple[MapSpec, ...]
    rulesets: tuple[Ruleset, ...]
    controls: tuple[tuple[TimeControl, ...], ...]
    format: Format
    limits: Limits

    @property
    def bots(self) -> tuple[Entrant, ...]:
        """The ranked entrants (fillers left out)."""
        return tuple(e for e in self.entrants if not e.filler)


def _names(
    config: TournamentConfig, specs: list[BotSpec], filler: BotSpec, fillers: int
) -> list[str]:
    names: list[str] = []
    for entry, spec in zip(config.bots, specs, strict=True):
        names.append(entry.name or make_player(spec, Limits(), None).name)  # starts nothing
    base = make_player(filler, Limits(), None).name
    names += [f"{base} {i + 1}" for i in range(fillers)]
    return unique_names(names)


DUEL_FORMATS = ("round-robin", "gauntlet", "swiss")
"""Formats whose matches are duels."""


def seats_for(format: str, players: int | None, bots: int) -> int:
    """Seats per match: 2 in duel formats; else ``players``, by default 4 (or fewer bots)."""
    if format in DUEL_FORMATS:
        return 2
    if players is not None:
        return players
    return 4 if format == "elimination" else min(bots, 4)


def _seats(config: TournamentConfig, bots: int) -> int:
    if config.format in DUEL_FORMATS and config.players not in (None, 2):
        raise TournamentError(
            f"{config.locate('players')}: players = {config.players}: "
            f"a {config.format} plays duels; "
            'for more seats per game use format = "ffa" or "elimination"'
        )
    return seats_for(config.format, config.players, bots)


def make_format(
    name: str,
    bots: int,
    maps: int,
    rounds: int | None = None,
    seed: int = 0,
    seats: int = 2,
    challenger: int = 0,
) -> Format:
    """The schedule generator of format ``name`` (one of `FORMATS`).

    Args:
        name: the format.
        bots: ranked entrants.
        maps: maps in the tournament.
        rounds: rounds (``None``: the format's default).
        seed: the tournament seed.
        seats: seats per match (``ffa`` and ``elimination``).
        challenger: the gauntlet's entrant.
    """
    if name == "round-robin":
        return RoundRobin(bots, maps, rounds or 1, seed)
    if name == "gauntlet":
        return Gauntlet(bots, maps, challenger, rounds or 1, seed)
    if name == "swiss":
        return Swiss(bots, maps, rounds, seed)
    if name == "elimination":
        return Elimination(bots, maps, seats, rounds, seed)
    if name == "ffa":
        return Tables(bots, maps, seats, rounds or 1, seed)
    raise TournamentError(f"unknown format {name!r}; formats: {', '.join(FORMATS)}")


def stored_format(fingerprint: dict[str, Any]) -> Format:
    """The format of a stored tournament, from its stored configuration alone.

    Reports use it to rank a tournament without its file (the elimination's order). Its
    map count is that of the file's ``maps`` items, not of the maps they expand to
    (``builtin``, ``random:N``): no format's ranking depends on which map a match used.
    """
    name = str(fingerprint["format"])
    bots = len(fingerprint["bots"])
    players = fingerprint.get("players")
    seats = seats_for(name, None if players is None else int(players), bots)
    return make_format(
        name,
        bots,
        len(fingerprint["maps"]),
        fingerprint.get("rounds"),
        int(fingerprint["seed"]),
        seats,
    )


def _challenger(config: TournamentConfig, names: list[str]) -> int:
    if config.challenger is None:
        return 0
    for i, (entry, name) in enumerate(zip(config.bots, names, strict=False)):
        if config.challenger in (name, entry.spec):
            return i
    raise TournamentError(
        f"{config.locate('challenger')}: challenger = {config.challenger!r} is none of the bots; "
        f"give one of: {', '.join(names[: len(config.bots)])}"
    )


def playable(spec: MapSpec, ruleset: Ruleset, seats: int, bots: list[BotSpec]) -> str | None:
    """Why ``seats`` of ``bots`` cannot play ``spec`` under ``ruleset`` (``None``: they can)."""
    try:
        state = new_game(ruleset, spec, seed=0, players=seats)
        for protocol in sorted({b.protocol for b in bots if b.protocol is not None}):
            get_protocol(protocol).check(state)
    except (RulesError, MapError, UnsupportedGame) as exc:
        return str(exc)
    return None


SCRIPTS = (".py", ".js", ".mjs", ".rb", ".pl", ".php", ".lua", ".sh", ".jar", ".R")
"""Suffixes of the script an interpreter runs (``python3 bot.py``): a missing one is a
bot that crashes on its first turn, so it is refused before the first game."""


def program_problem(spec: BotSpec) -> str | None:
    """Why the bot program ``spec`` cannot start (``None``: it can, as far as can be told
    without starting it).

    The sandbox refuses the same programs when a game starts one, but by then a
    tournament would have written its folder and database; checking here lets a
    mistyped command fail before anything is written. The script an interpreter is given
    (the first argument that is not an option and ends in a script suffix, e.g.
    ``python3 bots/alice.py``) must exist too.
    """
    if spec.kind != "program" or not spec.command:
        return None
    program, cwd = spec.command[0], spec.cwd or Path.cwd()
    if os.sep in program:
        path = cwd / program
        if not path.is_file():
            return f"command {program!r} not found: no such file ({path})"
        if not os.access(path, os.X_OK):
            return (
                f"command {program!r} is not executable: chmod +x {path}, or run it through "
                "its interpreter, e.g. cmd:python3 bot.py"
            )
    elif shutil.which(program) is None:
        return (
            f"command {program!r} not found: no such program on the PATH; install it or "
            "give its path"
        )
    args = spec.command[1:]
    for i, arg in enumerate(args):
        if arg.startswith("-"):
            continue
        if i > 0 and args[i - 1] in ("-c", "-m", "-e"):  # code or a module, not a file
            break
        if arg.endswith(SCRIPTS) and not (cwd / arg).is_file():
            return f"script {arg!r} of command {' '.join(spec.command)!r} not found ({cwd / arg})"
        break
    return None


def _check_programs(config: TournamentConfig, specs: list[BotSpec], filler: BotSpec) -> None:
    """Refuse a bot program that cannot start, naming the bot's line in the file."""
    for i, spec in enumerate(specs):
        why = program_problem(spec)
        if why is not None:
            raise TournamentError(f"{config.locate_bot(i)}: {why}")
    why = program_problem(filler)
    if why is not None:
        raise TournamentError(f"{config.locate('filler')}: filler: {why}")
    programs = [s for s in (*specs, filler) if s.kind == "program"]
    if programs and config.isolate == "pidns" and not pidns_prefix():
        raise TournamentError(
            f'{config.locate("isolate")}: isolate = "pidns": PID namespaces are not '
            'available on this machine; use isolate = "auto"'
        )
    if programs:
        _check_sandbox(config, specs, filler)


def _check_sandbox(config: TournamentConfig, specs: list[BotSpec], filler: BotSpec) -> None:
    """Refuse, before anything is written, a sandbox this host cannot give (``full``,
    ``uid``) and a bot folder the sandboxed bot could not read, naming the line in the
    file."""
    try:
        require(config.sandbox)
    except SandboxError as exc:
        raise TournamentError(
            f'{config.locate("sandbox")}: sandbox = "{config.sandbox}": {exc}'
        ) from None
    limits = _limits(config)
    for i, spec in enumerate(specs):
        try:
            preflight(spec, limits)
        except SandboxError as exc:
            raise TournamentError(f"{config.locate_bot(i)}: {exc}") from None
    try:
        preflight(filler, limits)
    except SandboxError as exc:
        raise TournamentError(f"{config.locate('filler')}: filler: {exc}") from None


def _limits(config: TournamentConfig) -> Limits:
    """The process limits of the tournament's bot programs (sent to every worker)."""
    return Limits(memory=config.memory_mb << 20, isolate=config.isolate, sandbox=config.sandbox)


def _ruleset(config: TournamentConfig, spec: MapSpec, seats: int) -> Ruleset:
    """The rules of games on ``spec``: the file's ruleset (else the map's own), settings
    applied.

    Raises:
        TournamentError: an unknown ruleset or setting, at its line in the file.
    """
    try:
        rs = get_ruleset(config.ruleset) if config.ruleset else default_ruleset(spec, seats)
    except RulesError as exc:
        raise TournamentError(f"{config.locate('ruleset')}: {exc}") from None
    if config.rules:
        try:
            rs = rs.with_settings(config.rules)
        except (RulesError, TypeError, ValueError) as exc:
            named = str(exc).split("known")[0]  # the key at fault, not the list of known ones
            key = next((k for k in config.rules if k in named), next(iter(config.rules)))
            raise TournamentError(f"{config.locate(key, 'rules')}: rules: {exc}") from None
    return rs


def make_plan(config: TournamentConfig) -> Plan:
    """Build and check everything the tournament needs.

    Raises:
        TournamentError: a field that does not fit the others (the message says which).
        BotError, MapError, RulesError, TimeControlError: a bad bot, map, rule or clock.
    """
    specs = [config.resolve_spec(b.spec, b.protocol) for b in config.bots]
    filler = config.resolve_spec(config.filler)
    _check_programs(config, specs, filler)
    seats = _seats(config, len(specs))
    # fillers depend on the bots and seats only, so the pool's size is not needed yet
    fillers = make_format(config.format, len(specs), 1, config.rounds, config.seed, seats).fillers
    names = _names(config, specs, filler, fillers)
    challenger = _challenger(config, names)
    entrants = [
        Entrant(i, names[i], b.spec, s)
        for i, (b, s) in enumerate(zip(config.bots, specs, strict=True))
    ]
    entrants += [
        Entrant(len(specs) + i, names[len(specs) + i], config.filler, filler, filler=True)
        for i in range(fillers)
    ]
    bot_specs = [e.spec for e in entrants]
    rulesets_by_id: dict[str, Ruleset] = {}

    def problem(spec: MapSpec) -> str | None:
        rs = _ruleset(config, spec, seats)
        rulesets_by_id[spec.id] = rs
        why = playable(spec, rs, seats, bot_specs)
        return None if why is None else f"{why} ({seats} players, {rs.id})"

    maps: dict[str, MapSpec] = {}
    try:
        for item in config.maps:
            for spec in parse_pool(
                config.map_path(item), config.seed, problem, players=seats, verb="play"
            ):
                maps.setdefault(spec.id, spec)
    except (MapError, FormatError) as exc:
        raise TournamentError(f"{config.locate('maps')}: {exc}") from None
    rulesets = [rulesets_by_id[spec.id] for spec in maps.values()]
    fmt = make_format(
        config.format, len(specs), len(maps), config.rounds, config.seed, seats, challenger
    )
    controls: list[tuple[TimeControl, ...]] = []
    for e in entrants:
        row: list[TimeControl] = []
        for rs in rulesets:
            c = config.control(rs.clock)
            c = c.with_overrides(e.spec.time) if e.spec.time else c
            try:
                c.validate()
            except TimeControlError as exc:
                raise TournamentError(f"{config.locate('time')}: time: {exc}") from None
            row.append(c)
        controls.append(tuple(row))
    return Plan(
        config=config,
        entrants=tuple(entrants),
        maps=tuple(maps.values()),
        rulesets=tuple(rulesets),
        controls=tuple(controls),
        format=fmt,
        limits=_limits(config),
    )

"""The tournament file: one TOML file says everything a tournament needs.

An instructor writes it once, runs ``lightcycle tournament run FILE``, and runs the same
command again after any interruption: the file (with the seed in it) determines the whole
schedule, so the second run knows exactly which matches are missing. docs/tournaments.md
describes every field; `load_config` checks them all before anything is played and names
the file, the line and what was expected when something is wrong.

Relative paths in the file (``py:``, ``cteam:`` and ``scheme:`` bots, bot files, map files, ``out``,
the paths of ``cmd:`` commands) are read from the file's folder, so the command works from
any directory; a ``cmd:`` bot runs in its program's folder
(`lightcycle.referee.players.program_folder`), else in the file's folder.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lightcycle.bots.api import BotError
from lightcycle.protocols import get_protocol
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.players import BotSpec, MissingProtocol, default_sandbox, parse_bot_spec
from lightcycle.sandbox import SandboxError
from lightcycle.tournament.tomlfile import _line_of, line_for, toml_error

FORMATS = ("round-robin", "gauntlet", "swiss", "elimination", "ffa")
"""The tournament formats (docs/tournaments.md#formats)."""

DEFAULT_FILLER = "builtin:dummy"
"""The bot that fills groups and tables short of players (the 3D course's Dummy)."""


class TournamentError(ValueError):
    """A tournament that cannot be run as asked, with what to do instead."""


@dataclass(frozen=True)
class BotEntry:
    """One bot of the tournament as the file gives it.

    Attributes:
        spec: the bot spec as written (``builtin:chaser``, ``py:alice.py``...).
        name: the display name (``None``: the bot's own name).
        protocol: the protocol of a ``cmd:`` bot.
    """

    spec: str
    name: str | None = None
    protocol: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain data (the stored configuration)."""
        return {"spec": self.spec, "name": self.name, "protocol": self.protocol}


@dataclass(frozen=True)
class TournamentConfig:
    """A parsed tournament file (see docs/tournaments.md for each field).

    Attributes:
        path: the file, or ``None`` for a configuration built in code.
        name: the tournament's name (default: the file's stem).
        format: one of `FORMATS`.
        bots: the entrants.
        maps: map names or files.
        ruleset: the rules (``None``: each map's own).
        rules: ruleset setting overrides (``turn_limit``...).
        rounds: rounds to play (``None``: the format's default).
        seed: the seed every game seed and every draw derives from.
        time: time-control overrides (``move``, ``first_move``, ``bank``, ``average``,
            ``cpu``).
        players: seats per match in ``ffa`` and ``elimination`` (``None``: default).
        filler: the bot that fills short groups and tables.
        challenger: the gauntlet's bot, by name or spec (``None``: the first bot).
        protocol: the protocol of ``cmd:`` bots that do not name one.
        out: the output folder (replays, logs, the database, the report).
        database: an SQLAlchemy URL (``None``: SQLite in ``out``).
        workers: matches played at once (``None``: one per core).
        memory_mb: memory limit of bot programs.
        isolate: process isolation of bot programs (``auto``, ``pidns``, ``none``).
        sandbox: the sandbox of bot programs (``auto``, ``full``, ``uid``, ``none``; default
            ``$LIGHTCYCLE_SANDBOX``, else ``auto``): docs/sandbox.md.
    """

    path: Path | None
    name: str
    format: str
    bots: tuple[BotEntry, ...]
    maps: tuple[str, ...]
    ruleset: str | None = None
    rules: dict[str, Any] = field(default_factory=dict)
    rounds: int | None = None
    seed: int = 0
    time: dict[str, float | None] = field(default_factory=dict)
    players: int | None = None
    filler: str = DEFAULT_FILLER
    challenger: str | None = None
    protocol: str | None = None
    out: Path = Path("tournament")
    database: str | None = None
    workers: int | None = None
    memory_mb: int = 1024
    isolate: str = "auto"
    sandbox: str = "auto"

    @property
    def base(self) -> Path:
        """The folder relative paths are read from."""
        return self.path.parent if self.path is not None else Path.cwd()

    @property
    def database_url(self) -> str:
        """The database's URL: the given one, or SQLite at ``out/tournament.db``."""
        if self.database is not None:
            return self.database
        return f"sqlite:///{(self.out / 'tournament.db').resolve()}"

    def fingerprint(self) -> dict[str, Any]:
        """What decides the schedule and the games: a resumed run must agree on all of it.

        The output folder, the database, the workers and the process limits are left
        out: moving a tournament or giving it more cores changes no result.
        """
        return {
            "format": self.format,
            "bots": [b.to_dict() for b in self.bots],
            "maps": list(self.maps),
            "ruleset": self.ruleset,
            "rules": dict(sorted(self.rules.items())),
            "rounds": self.rounds,
            "seed": self.seed,
            "time": dict(sorted(self.time.items())),
            "players": self.players,
            "filler": self.filler,
            "challenger": self.challenger,
            "protocol": self.protocol,
        }

    def fingerprint_json(self) -> str:
        """`fingerprint` as canonical JSON (stored with the tournament)."""
        return json.dumps(self.fingerprint(), sort_keys=True, separators=(",", ":"))

    def control(self, clock: Mapping[str, float | None]) -> TimeControl:
        """The time control: the ruleset's defaults with the file's ``[time]`` applied."""
        return TimeControl.for_ruleset(clock).with_overrides(dict(self.time))

    def resolve_spec(self, text: str, protocol: str | None = None) -> BotSpec:
        """Parse a bot spec with relative paths read from the file's folder.

        The spec's ``text`` holds the resolved path (it is what in-process bots are built
        from); the text as written stays in the tournament file and the store.

        Raises:
            BotError: a bad spec (the message names it).
        """
        t = text.strip()
        base = self.base
        for prefix in ("py:", "cteam:", "scheme:", "toml:"):
            if t.startswith(prefix):
                rest = t.removeprefix(prefix)
                suffix = {"py:": ".py", "scheme:": ".scm"}.get(prefix)
                path_text, sep, tail = rest.partition(f"{suffix}:") if suffix else (rest, "", "")
                if sep and suffix:
                    path_text += suffix
                    tail = ":" + tail
                path = Path(path_text)
                if not path.is_absolute() and (base / path).exists():
                    t = f"{prefix}{base / path}{tail}"
                break
        else:
            if t.endswith(".toml") and not Path(t).is_absolute() and (base / t).exists():
                t = str(base / t)
        spec = parse_bot_spec(t, protocol or self.protocol)
        if spec.kind == "program" and spec.cwd is None:
            spec = replace(spec, cwd=base.resolve())
        return spec

    def locate(self, key: str, table: str | None = None) -> str:
        """``FILE, line N`` where ``key`` is set (see `line_for`), for errors."""
        if self.path is None:
            return "the tournament"
        try:
            line = line_for(self.path.read_text(encoding="utf-8"), key, table)
        except OSError:
            return str(self.path)
        return f"{self.path}, line {line}"

    def locate_bot(self, index: int) -> str:
        """``FILE, line N, bot 'NAME'`` for errors about the ``index``-th bot (0-based).

        A file with thirty bots needs the line of the one at fault, not of ``bots =``;
        the bot is named as the file names it (its ``name``, else its spec).
        """
        entry = self.bots[index]
        label = f"bot {(entry.name or entry.spec)!r}"
        if self.path is None:
            return label
        try:
            text = self.path.read_text(encoding="utf-8")
        except OSError:
            return f"{self.path}, {label}"
        before = sum(1 for b in self.bots[:index] if b.spec == entry.spec)
        return f"{self.path}, line {bot_line(text, entry.spec, before)}, {label}"

    def map_path(self, item: str) -> str:
        """A map item with a file path read from the file's folder."""
        candidate = self.base / item
        if not Path(item).is_absolute() and candidate.is_file():
            return str(candidate)
        return item


_KNOWN = {
    "name": 'a string, e.g. name = "week 3"',
    "format": f"one of {', '.join(FORMATS)}",
    "bots": 'a list of bot specs or tables, e.g. bots = ["builtin:chaser", "py:alice.py"]',
    "maps": (
        "a list of map names or files, builtin (every built-in map for the seats) or "
        'random:N (N seeded random maps), e.g. maps = ["ring", "arena-15", "random:4"]'
    ),
    "ruleset": 'a ruleset name, e.g. ruleset = "classic"',
    "rules": "a table of ruleset settings, e.g. [rules] turn_limit = 500",
    "rounds": "a whole number >= 1, e.g. rounds = 2",
    "seed": "a whole number, e.g. seed = 7",
    "time": "a table of seconds, e.g. [time] move = 0.5",
    "players": "a whole number of seats per match, e.g. players = 4",
    "filler": 'a bot spec, e.g. filler = "builtin:dummy"',
    "challenger": 'the name or spec of one of the bots, e.g. challenger = "Alice"',
    "protocol": 'the protocol of cmd: bots, e.g. protocol = "tron2010"',
    "out": 'a folder, e.g. out = "results/week3"',
    "database": 'an SQLAlchemy URL, e.g. database = "sqlite:///week3.db"',
    "workers": "a whole number >= 1, e.g. workers = 4",
    "memory_mb": "a whole number of MiB, e.g. memory_mb = 512",
    "isolate": "auto, pidns or none",
    "sandbox": "auto, full, uid or none",
}
_TIME_KEYS = set(TimeControl().to_dict())
_BOT_KEYS = {"spec", "name", "protocol"}


def bot_line(text: str, spec: str, before: int = 0) -> int:
    """The line of a bot whose spec is ``spec``, after ``before`` bots with the same spec.

    The bot's spec is looked for as a quoted string from the ``bots`` key (or the first
    ``[[bots]]`` table) on; a spec written with escapes is not found, and the error then
    points at ``bots`` itself.
    """
    lines = text.splitlines()
    start = _line_of(text, "bots")
    if start is None:
        header = re.compile(r"^\s*\[\[\s*bots\s*\]\]")
        start = next((n for n, line in enumerate(lines, start=1) if header.match(line)), 1)
    quoted = (f'"{spec}"', f"'{spec}'")
    seen = 0
    for number in range(start, len(lines) + 1):
        line = lines[number - 1]
        hits = sum(line.count(q) for q in quoted)
        if seen + hits > before:
            return number
        seen += hits
    return line_for(text, "bots")


class _Reader:
    """Reads the parsed TOML with the text at hand, to point errors at their line."""

    def __init__(self, path: Path, text: str, data: dict[str, Any]) -> None:
        self.path = path
        self.text = text
        self.data = data

    def error(self, key: str, message: str, table: str | None = None) -> TournamentError:
        line = line_for(self.text, key, table)
        return TournamentError(f"{self.path}, line {line}: {message}")

    def expect(self, key: str, got: Any, table: str | None = None) -> TournamentError:
        wanted = _KNOWN.get(key, "")
        shown = json.dumps(got) if isinstance(got, str | int | float | bool) else type(got).__name__
        name = f"{table}.{key}" if table else key
        return self.error(key, f"{name} = {shown}: expected {wanted}", table)

    def string(self, key: str, default: str | None = None) -> str | None:
        value = self.data.get(key, default)
        if value is not None and not isinstance(value, str):
            raise self.expect(key, value)
        return value

    def integer(self, key: str, default: int | None, low: int | None = None) -> int | None:
        value = self.data.get(key, default)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.expect(key, value)
        if low is not None and value < low:
            raise self.expect(key, value)
        return value


def load_config(
    path: Path, out: Path | None = None, database: str | None = None
) -> TournamentConfig:
    """Read and check a tournament file.

    Args:
        path: the TOML file.
        out: an output folder that overrides the file's ``out``.
        database: a database URL that overrides the file's ``database``.

    Raises:
        TournamentError: naming the file, the line and what was expected.
    """
    if path.is_dir():
        raise TournamentError(f"{path} is a folder: give the tournament file (.toml)")
    if not path.is_file():
        raise TournamentError(f"tournament file {path} not found")
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        raise TournamentError(
            f"{path}, line {line}: not UTF-8 text (byte {exc.start}); expected a file saved "
            "as UTF-8"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise TournamentError(toml_error(path, text, exc)) from None
    r = _Reader(path, text, data)
    unknown = sorted(set(data) - set(_KNOWN))
    if unknown:
        raise r.error(
            unknown[0], f"unknown key {unknown[0]!r}; known keys: {', '.join(sorted(_KNOWN))}"
        )
    fmt = r.string("format", "round-robin")
    if fmt not in FORMATS:
        raise r.expect("format", fmt)
    bots = _bots(r)
    maps_value = data.get("maps")
    if maps_value is None:
        raise r.error("maps", f"no maps: add {_KNOWN['maps']}")
    if isinstance(maps_value, str):
        maps_value = [maps_value]
    if (
        not isinstance(maps_value, list)
        or not maps_value
        or not all(isinstance(m, str) and m.strip() for m in maps_value)
    ):
        raise r.expect("maps", maps_value)
    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise r.expect("rules", rules)
    timing = data.get("time", {})
    if not isinstance(timing, dict):
        raise r.expect("time", timing)
    for key, value in timing.items():
        if key not in _TIME_KEYS:
            raise r.error(
                key, f"unknown [time] key {key!r}; known: {', '.join(sorted(_TIME_KEYS))}", "time"
            )
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise r.error(
                key, f"time.{key} = {value!r}: expected seconds >= 0, e.g. {key} = 0.5", "time"
            )
    top_protocol = r.string("protocol")
    if top_protocol is not None:
        try:
            get_protocol(top_protocol)
        except ValueError as exc:
            raise r.error("protocol", f"protocol = {json.dumps(top_protocol)}: {exc}") from None
    isolate = r.string("isolate", "auto")
    if isolate not in ("auto", "pidns", "none"):
        raise r.expect("isolate", isolate)
    sandbox = r.string("sandbox")
    if sandbox is None:
        try:
            sandbox = default_sandbox()
        except SandboxError as exc:
            raise TournamentError(f"{path}: {exc} (or set sandbox in the file)") from None
    elif sandbox not in ("auto", "full", "uid", "none"):
        raise r.expect("sandbox", sandbox)
    out_text = r.string("out")
    base = path.parent
    out_dir = out if out is not None else base / (out_text if out_text else path.stem)
    config = TournamentConfig(
        path=path,
        name=r.string("name") or path.stem,
        format=fmt,
        bots=bots,
        maps=tuple(m.strip() for m in maps_value),
        ruleset=r.string("ruleset"),
        rules=dict(rules),
        rounds=r.integer("rounds", None, 1),
        seed=r.integer("seed", 0) or 0,
        time={k: float(v) for k, v in timing.items()},
        players=r.integer("players", None, 2),
        filler=r.string("filler", DEFAULT_FILLER) or DEFAULT_FILLER,
        challenger=r.string("challenger"),
        protocol=r.string("protocol"),
        out=out_dir,
        database=database if database is not None else r.string("database"),
        workers=r.integer("workers", None, 1),
        memory_mb=r.integer("memory_mb", 1024, 1) or 1024,
        isolate=isolate or "auto",
        sandbox=sandbox,
    )
    for i, entry in enumerate(config.bots):
        try:
            config.resolve_spec(entry.spec, entry.protocol)
        except MissingProtocol as exc:
            raise TournamentError(
                f"{config.locate_bot(i)}: {_protocol_hint(entry.spec, exc, path)}"
            ) from None
        except BotError as exc:
            raise TournamentError(f"{config.locate_bot(i)}: {exc}") from None
    try:
        config.resolve_spec(config.filler)
    except MissingProtocol as exc:
        hint = _protocol_hint(config.filler, exc, path, table=False)
        raise r.error("filler", f"filler: {hint}") from None
    except BotError as exc:
        raise r.error("filler", f"filler: {exc}") from None
    return config


def _protocol_hint(spec: str, exc: MissingProtocol, path: Path, table: bool = True) -> str:
    """A missing protocol in the words of the tournament file: its TOML keys, not the
    command line's ``--protocol`` that `parse_bot_spec` suggests."""
    top = 'protocol = "tron2010" at the top level of the file, for every bot without one'
    if not spec.strip().startswith("cmd:"):  # a bot file: its own key, or the tournament's
        return f"{exc}, or {top.replace('the file', path.name)}"
    example = json.dumps(spec.strip())
    if not table:
        return f"{example} needs a protocol: set {top} (tron2010, aichallenge, sexp or jsonl)"
    return (
        f"{example} needs a protocol: give it in the bot's table, "
        f'{{ spec = {example}, protocol = "tron2010" }} (or aichallenge, sexp, jsonl), '
        f"or set {top}"
    )


def _bots(r: _Reader) -> tuple[BotEntry, ...]:
    value = r.data.get("bots")
    if value is None:
        raise r.error("bots", f"no bots: add {_KNOWN['bots']}")
    if not isinstance(value, list):
        raise r.expect("bots", value)
    out: list[BotEntry] = []
    for i, item in enumerate(value):
        if isinstance(item, str) and item.strip():
            out.append(BotEntry(item.strip()))
            continue
        if isinstance(item, dict):
            unknown = sorted(set(item) - _BOT_KEYS)
            if unknown:
                raise r.error(
                    "bots",
                    f"bot {i + 1}: unknown key {unknown[0]!r}; known: spec, name, protocol",
                )
            spec, name, protocol = item.get("spec"), item.get("name"), item.get("protocol")
            if not isinstance(spec, str) or not spec.strip():
                raise r.error(
                    "bots",
                    f'bot {i + 1}: expected spec = "..." in the table, '
                    'e.g. { spec = "py:alice.py", name = "Alice" }',
                )
            for label, v in (("name", name), ("protocol", protocol)):
                if v is not None and (not isinstance(v, str) or not v.strip()):
                    raise r.error("bots", f"bot {i + 1}: {label} must be a non-empty string")
            out.append(BotEntry(spec.strip(), name, protocol))
            continue
        raise r.error(
            "bots",
            f"bot {i + 1}: expected a spec string or a table "
            '{ spec = "...", name = "...", protocol = "..." }',
        )
    if len(out) < 2:
        raise r.error("bots", f"a tournament needs at least two bots, got {len(out)}")
    named = [b.name for b in out if b.name is not None]
    twice = sorted({n for n in named if named.count(n) > 1})
    if twice:
        raise r.error("bots", f"two bots are named {twice[0]!r}: give each its own name")
    return tuple(out)

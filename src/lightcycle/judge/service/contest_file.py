"""Reading a contest file: every table and key checked, each mistake one line.

Kept apart from `lightcycle.judge.service.contest` (what a contest *is*: the frozen specs
every worker and page reads) because only ``judge serve``, ``judge worker`` and the CLI
read files: they call `load_contest` here. This module builds those specs, so it imports
`contest` and `contest` imports nothing of it. The checks are the ones
``lightcycle duel`` and ``lightcycle serve`` use for rulesets and map pools, so a judge
that starts can validate every submission.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from lightcycle.judge.service.contest import (
    _BUILTIN_SPECS,
    BUILTIN_LANGUAGES,
    OFFICIAL_MODES,
    SANDBOX_LEVELS,
    Contest,
    ContestError,
    FriendlySpec,
    JudgeSpec,
    LanguageSpec,
    LimitsSpec,
    OfficialSpec,
    ValidationSpec,
)
from lightcycle.tournament.tomlfile import TomlReader

if TYPE_CHECKING:
    from lightcycle.maps.spec import MapSpec

# -- reading the file ----------------------------------------------------------------

_KEYS: dict[str, dict[str, str]] = {
    "contest": {
        "name": 'a short name of letters, digits, _ and -, e.g. name = "tron3d-2026"',
        "title": 'a title for people, e.g. title = "3D Tron, spring"',
        "ruleset": 'a ruleset name, e.g. ruleset = "tron3d@1"',
        "maps": 'a list of map names or files, e.g. maps = ["cube", "donut"]',
        "players": "a whole number of seats per game, e.g. players = 4",
    },
    "limits": {
        "cpu_time": "seconds > 0, e.g. cpu_time = 2.0",
        "move_time": "seconds > 0, e.g. move_time = 1.0",
        "first_move_time": "seconds > 0, e.g. first_move_time = 3.0",
        "time_bank": "seconds >= 0, e.g. time_bank = 1.0",
        "average_time": "seconds > 0, e.g. average_time = 0.1",
        "memory": "MiB, a whole number >= 16, e.g. memory = 256",
        "source_size": "bytes, a whole number >= 1, e.g. source_size = 65536",
    },
    "validation": {
        "protocol": 'a protocol name, e.g. protocol = "jsonl"',
        "self_play_copies": "a whole number >= 2, e.g. self_play_copies = 4",
        "reference": 'a built-in bot, e.g. reference = "builtin:dummy"',
        "qualify_games": "a whole number >= 0, e.g. qualify_games = 4",
        "reference_seats": "a whole number >= 1, e.g. reference_seats = 3",
    },
    "judge": {
        "database": 'an SQLAlchemy URL, e.g. database = "sqlite:///judge.db"',
        "secret_key_file": 'a file name, e.g. secret_key_file = "judge.secret"',
        "workers": "a whole number >= 0, e.g. workers = 2",
        "host": 'an address to listen on, e.g. host = "127.0.0.1"',
        "port": "a port number 1-65535, e.g. port = 8080",
        "sandbox": 'full, auto or uid, e.g. sandbox = "full"',
    },
    "official": {
        "mode": 'elimination, ladder or none, e.g. mode = "elimination"',
        "finalists": "a whole number >= 1, e.g. finalists = 16",
        "rounds_per_start": "a whole number >= 0 (0: until the finalists remain), "
        "e.g. rounds_per_start = 0",
        "schedule": 'a list of UTC times of day, e.g. schedule = ["09:00", "15:30"]',
        "group_size": "a whole number of seats >= 2, e.g. group_size = 4",
        "filler": 'a built-in bot, e.g. filler = "builtin:dummy"',
        "ladder_parallel": "a whole number >= 1, e.g. ladder_parallel = 4",
    },
    "friendly": {
        "players": "a list of seat counts, e.g. players = [2, 4]",
    },
}
_LANGUAGE_KEYS = {
    "suffix": 'the source file suffix, e.g. suffix = ".rs"',
    "build": 'a command as a list, e.g. build = ["rustc", "-O", "-o", "bot", "{source}"]',
    "run": 'a command as a list, e.g. run = ["./bot"]',
}
_POSITIVE = {"cpu_time", "move_time", "first_move_time", "average_time"}


class _Reader(TomlReader):
    """The contest file's text at hand, so that every error names its line."""

    error_type = ContestError

    def string(self, table: str, data: Mapping[str, Any], key: str) -> str:
        value = data[key]
        if not isinstance(value, str) or not value.strip():
            raise self.expect(table, key, value, _KEYS[table][key])
        return value.strip()

    def integer(self, table: str, data: Mapping[str, Any], key: str, low: int) -> int:
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise self.expect(table, key, value, _KEYS[table][key])
        return value

    def number(self, table: str, data: Mapping[str, Any], key: str, positive: bool) -> float:
        value = data[key]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or value < 0
            or (positive and value == 0)
        ):
            raise self.expect(table, key, value, _KEYS[table][key])
        return float(value)

    def strings(self, table: str, data: Mapping[str, Any], key: str, wanted: str) -> list[str]:
        value = data[key]
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(v, str) and v.strip() for v in value)
        ):
            raise self.expect(table, key, value, wanted)
        return [v.strip() for v in value]


def load_contest(path: Path, *, database: str | None = None) -> Contest:
    """Read and check a contest file.

    Args:
        path: the TOML file.
        database: a URL that overrides ``[judge] database`` (``--db``).

    Raises:
        ContestError: one line naming the file, the line, the key and what was expected.
    """
    from lightcycle.maps.spec import MapError
    from lightcycle.rules.ruleset import RulesError
    from lightcycle.rules.variants import get_ruleset

    r = _read(path)
    data = tomllib.loads(r.text)
    r.unknown(
        None,
        data,
        ["contest", "limits", "languages", "validation", "judge", "official", "friendly"],
    )
    if "contest" not in data:
        raise ContestError(f"{path}, line 1: no [contest] table: add one with name and ruleset")
    contest = r.table(data, "contest")
    r.unknown("contest", contest, list(_KEYS["contest"]))
    for key in ("name", "ruleset"):
        if key not in contest:
            raise r.error(key, f"[contest] has no {key}: add {_KEYS['contest'][key]}", "contest")
    name = r.string("contest", contest, "name")
    if not all(c.isalnum() or c in "_-" for c in name) or len(name) > 64:
        raise r.expect("contest", "name", name, _KEYS["contest"]["name"])
    title = r.string("contest", contest, "title") if "title" in contest else name
    ruleset = r.string("contest", contest, "ruleset")
    try:
        rs = get_ruleset(ruleset)
    except RulesError as exc:
        raise r.error("ruleset", f"[contest] ruleset: {exc}", "contest") from None
    low, high = rs.players
    players = r.integer("contest", contest, "players", 2) if "players" in contest else low
    if not low <= players <= high:
        key = "players" if "players" in contest else "ruleset"
        span = f"{low}-{high}" if high != low else str(low)
        raise r.error(
            key, f"[contest] players = {players}: {rs.id} plays {span} players", "contest"
        )
    if "maps" not in contest:
        raise r.error("maps", f"[contest] has no maps: add {_KEYS['contest']['maps']}", "contest")
    items = r.strings("contest", contest, "maps", _KEYS["contest"]["maps"])
    maps = tuple(_map_item(path.parent, item) for item in items)
    result = Contest(name=name, title=title, ruleset=rs.id, maps=maps, players=players, path=path)
    try:
        pool = result.pool()
    except MapError as exc:
        raise r.error("maps", f"[contest] maps: {exc}", "contest") from None
    limits = _limits(r, r.table(data, "limits"))
    languages = _languages(r, r.table(data, "languages"))
    validation = _validation(r, r.table(data, "validation"), rs.id, players, pool)
    judge = _judge(r, r.table(data, "judge"), path.resolve().parent, database)
    official = _official(r, r.table(data, "official"), result, validation)
    friendly = _friendly(r, r.table(data, "friendly"), result, validation)
    return Contest(
        name=name,
        title=title,
        ruleset=rs.id,
        maps=maps,
        players=players,
        limits=limits,
        languages=languages,
        validation=validation,
        judge=judge,
        path=path,
        official=official,
        friendly=friendly,
    )


def _read(path: Path) -> _Reader:
    from lightcycle.tournament.tomlfile import toml_error

    if path.is_dir():
        raise ContestError(f"{path} is a folder: give the contest file (.toml)")
    if not path.is_file():
        raise ContestError(
            f"contest file {path} not found; lightcycle judge init COURSE FILE writes one"
        )
    try:
        text = path.read_bytes().decode("utf-8")
        tomllib.loads(text)
    except OSError as exc:
        raise ContestError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        raise ContestError(f"{path}, line {line}: not UTF-8 text; save the file as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ContestError(toml_error(path, text, exc)) from None
    return _Reader(path, text)


def _map_item(base: Path, item: str) -> str:
    """A map item with a relative file path read from the contest file's folder."""
    candidate = base / item
    if not Path(item).is_absolute() and candidate.is_file():
        return str(candidate.resolve())
    return item


def _limits(r: _Reader, data: Mapping[str, Any]) -> LimitsSpec:
    from lightcycle.referee.clock import TimeControlError

    r.unknown("limits", data, list(_KEYS["limits"]))
    values: dict[str, Any] = {}
    for key in data:
        if key == "memory":
            values[key] = r.integer("limits", data, key, 16)
        elif key == "source_size":
            values[key] = r.integer("limits", data, key, 1)
        else:
            values[key] = r.number("limits", data, key, key in _POSITIVE)
    limits = LimitsSpec(**values)
    try:
        limits.time_control().validate()
    except TimeControlError as exc:
        raise r.error(
            "move_time",
            f"[limits] {exc}".replace("--move-time", "move_time").replace(
                "--average-time", "average_time"
            ),
            "limits",
        ) from None
    return limits


def _languages(r: _Reader, data: Mapping[str, Any]) -> Mapping[str, LanguageSpec]:
    known: dict[str, LanguageSpec] = dict(_BUILTIN_SPECS)
    declared = {k: v for k, v in data.items() if k != "allowed"}
    for name, table in declared.items():
        t = f"languages.{name}"
        if not isinstance(table, dict):
            raise r.error(
                name,
                f"[languages] {name}: expected a table [languages.{name}] with suffix, build "
                "and run, or allowed = [...]",
                "languages",
            )
        if name in _BUILTIN_SPECS:
            raise r.error(name, f"[{t}]: {name} is built in; give another name", t)
        if not all(c.isalnum() or c in "_-+" for c in name):
            raise r.error(name, f"[{t}]: a language name is letters, digits, _, - or +", t)
        r.unknown(t, table, list(_LANGUAGE_KEYS))
        for key in _LANGUAGE_KEYS:
            if key not in table:
                raise r.error(key, f"[{t}] has no {key}: add {_LANGUAGE_KEYS[key]}", t)
        suffix = table["suffix"]
        if not isinstance(suffix, str) or not suffix.startswith(".") or len(suffix) < 2:
            raise r.expect(t, "suffix", suffix, _LANGUAGE_KEYS["suffix"])
        build = r.strings(t, table, "build", _LANGUAGE_KEYS["build"])
        run = r.strings(t, table, "run", _LANGUAGE_KEYS["run"])
        known[name] = LanguageSpec(name, suffix, tuple(build), tuple(run))
    if "allowed" in data:
        wanted = 'a list of languages, e.g. allowed = ["python", "c", "cpp"]'
        allowed = r.strings("languages", data, "allowed", wanted)
        for name in allowed:
            if name not in known:
                raise r.error(
                    "allowed",
                    f"[languages] allowed: unknown language {name!r}; built in: "
                    f"{', '.join(BUILTIN_LANGUAGES)}; declare others as [languages.{name}]",
                    "languages",
                )
    else:
        allowed = list(known)
    return MappingProxyType({name: known[name] for name in allowed})


def _validation(
    r: _Reader, data: Mapping[str, Any], ruleset: str, players: int, pool: list[MapSpec]
) -> ValidationSpec:
    from lightcycle.bots.api import BotError
    from lightcycle.bots.registry import make_bot
    from lightcycle.protocols import get_protocol
    from lightcycle.referee.match import unplayable
    from lightcycle.referee.players import BotSpec
    from lightcycle.rules.variants import get_ruleset

    t = "validation"
    r.unknown(t, data, list(_KEYS[t]))
    default_reference = "builtin:dummy" if ruleset.startswith("tron3d") else "builtin:random"
    values: dict[str, Any] = {
        "reference": default_reference,
        "self_play_copies": players,
        "reference_seats": players - 1,
    }
    if "protocol" in data:
        values["protocol"] = r.string(t, data, "protocol")
        try:
            get_protocol(values["protocol"])
        except ValueError as exc:
            raise r.error("protocol", f"[{t}] protocol: {exc}", t) from None
    for key, low in (("self_play_copies", 2), ("qualify_games", 0), ("reference_seats", 1)):
        if key in data:
            values[key] = r.integer(t, data, key, low)
    if "reference" in data:
        values["reference"] = r.string(t, data, "reference")
    spec = ValidationSpec(**values)
    rs = get_ruleset(ruleset)
    low, high = rs.players
    for key, seats in (
        ("self_play_copies", spec.self_play_copies),
        ("reference_seats", spec.reference_seats + 1),
    ):
        if not low <= seats <= high:
            span = f"{low}-{high}" if high != low else str(low)
            what = "" if key == "self_play_copies" else "with the submission "
            raise r.error(
                key,
                f"[{t}] {key} = {data.get(key, 'default')}: {what}that is a game of {seats} "
                f"players; {rs.id} plays {span}",
                t,
            )
    reference = spec.reference.strip()
    programs = ("py:", "cmd:", "cteam:", "scheme:", "toml:")
    if reference.startswith(programs) or reference.endswith(".toml"):
        raise r.expect(t, "reference", reference, _KEYS[t]["reference"])
    try:
        make_bot(reference)
    except BotError as exc:
        raise r.error("reference", f"[{t}] reference = {json.dumps(reference)}: {exc}", t) from None
    bot = BotSpec(text="", kind="program", protocol=spec.protocol)
    for seats in sorted({spec.self_play_copies, spec.reference_seats + 1}):
        for m in pool:
            problem = unplayable(m, rs, [bot], 0, players=seats)
            if problem is not None:
                raise r.error(
                    "protocol" if "protocol" in data else "maps",
                    f"[{t}] protocol {spec.protocol} cannot play {m.id} with {seats} "
                    f"players: {problem}",
                    t if "protocol" in data else "contest",
                )
    return spec


def _judge(r: _Reader, data: Mapping[str, Any], base: Path, database: str | None) -> JudgeSpec:
    t = "judge"
    r.unknown(t, data, list(_KEYS[t]))
    values: dict[str, Any] = {}
    for key in ("database", "secret_key_file", "host", "sandbox"):
        if key in data:
            values[key] = r.string(t, data, key)
    if values.get("sandbox", "full") not in SANDBOX_LEVELS:
        raise r.expect(t, "sandbox", values["sandbox"], _KEYS[t]["sandbox"])
    if "workers" in data:
        values["workers"] = r.integer(t, data, "workers", 0)
    if "port" in data:
        values["port"] = r.integer(t, data, "port", 1)
        if values["port"] > 65535:
            raise r.expect(t, "port", values["port"], _KEYS[t]["port"])
    spec = JudgeSpec(**values)
    url = database if database is not None else spec.database
    secret = Path(spec.secret_key_file)
    return JudgeSpec(
        database=_relative_sqlite(url, base) if database is None else url,
        secret_key_file=str(secret if secret.is_absolute() else base / secret),
        workers=spec.workers,
        host=spec.host,
        port=spec.port,
        sandbox=spec.sandbox,
    )


def _official(
    r: _Reader, data: Mapping[str, Any], contest: Contest, validation: ValidationSpec
) -> OfficialSpec:
    """The ``[official]`` table; ``group_size`` is checked against the map pool as
    ``[contest] players`` is, so no official game can fail to set up mid-round."""
    import re

    from lightcycle.bots.api import BotError
    from lightcycle.bots.registry import make_bot

    t = "official"
    r.unknown(t, data, list(_KEYS[t]))
    values: dict[str, Any] = {"group_size": contest.players, "filler": validation.reference}
    if "mode" in data:
        values["mode"] = r.string(t, data, "mode")
        if values["mode"] not in OFFICIAL_MODES:
            raise r.expect(t, "mode", values["mode"], _KEYS[t]["mode"])
    for key, low in (
        ("finalists", 1),
        ("rounds_per_start", 0),
        ("group_size", 2),
        ("ladder_parallel", 1),
    ):
        if key in data:
            values[key] = r.integer(t, data, key, low)
    if "schedule" in data:
        times = data["schedule"]
        clock = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]")
        if not isinstance(times, list) or not all(
            isinstance(v, str) and clock.fullmatch(v.strip()) for v in times
        ):
            raise r.expect(t, "schedule", times, _KEYS[t]["schedule"])
        values["schedule"] = tuple(sorted({v.strip() for v in times}))
    if "filler" in data:
        values["filler"] = r.string(t, data, "filler")
        filler = values["filler"]
        if filler.startswith(("py:", "cmd:", "cteam:", "scheme:", "toml:")) or filler.endswith(
            ".toml"
        ):
            raise r.expect(t, "filler", filler, _KEYS[t]["filler"])
        try:
            make_bot(filler)
        except BotError as exc:
            raise r.error("filler", f"[{t}] filler = {json.dumps(filler)}: {exc}", t) from None
    spec = OfficialSpec(**values)
    _check_seats(r, t, "group_size", spec.group_size, contest, validation, "group_size" in data)
    return spec


def _friendly(
    r: _Reader, data: Mapping[str, Any], contest: Contest, validation: ValidationSpec
) -> FriendlySpec:
    """The ``[friendly]`` table; each seat count is checked against the map pool."""
    t = "friendly"
    r.unknown(t, data, list(_KEYS[t]))
    if "players" not in data:
        return FriendlySpec(players=(contest.players,))
    value = data["players"]
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 2 for v in value)
    ):
        raise r.expect(t, "players", value, _KEYS[t]["players"])
    players = tuple(sorted(set(value)))
    for n in players:
        _check_seats(r, t, "players", n, contest, validation, True)
    return FriendlySpec(players=players)


def _check_seats(
    r: _Reader,
    table: str,
    key: str,
    seats: int,
    contest: Contest,
    validation: ValidationSpec,
    given: bool,
) -> None:
    """Refuse a seat count the ruleset, a map of the pool or the protocol cannot play
    (at the key's line, or at ``[contest] players`` where the count is its default)."""
    from lightcycle.maps.spec import MapError
    from lightcycle.referee.match import unplayable
    from lightcycle.referee.players import BotSpec
    from lightcycle.rules.variants import get_ruleset
    from lightcycle.tournament.mappool import parse_pool

    rs = get_ruleset(contest.ruleset)
    low, high = rs.players
    where = (key, table) if given else ("players", "contest")
    if not low <= seats <= high:
        span = f"{low}-{high}" if high != low else str(low)
        raise r.error(
            where[0], f"[{table}] {key}: a game of {seats} players; {rs.id} plays {span}", where[1]
        )
    try:
        pool = parse_pool(
            ",".join(contest.maps),
            seed=0,
            playable=lambda spec: unplayable(spec, rs, [], 0, players=seats),
            players=seats,
            verb=f"play {rs.id} with {seats} players on",
        )
    except MapError as exc:
        raise r.error(where[0], f"[{table}] {key}: {exc}", where[1]) from None
    bot = BotSpec(text="", kind="program", protocol=validation.protocol)
    for m in pool:
        problem = unplayable(m, rs, [bot], 0, players=seats)
        if problem is not None:
            raise r.error(
                where[0],
                f"[{table}] {key}: protocol {validation.protocol} cannot play {m.id} with "
                f"{seats} players: {problem}",
                where[1],
            )


def _relative_sqlite(url: str, base: Path) -> str:
    """A relative SQLite path in the file is read from the contest file's folder, so the
    judge finds its database whatever folder it is started from."""
    prefix = "sqlite:///"
    if url.startswith(prefix) and not url.startswith(prefix + "/") and len(url) > len(prefix):
        return prefix + str((base / url[len(prefix) :]).resolve())
    return url

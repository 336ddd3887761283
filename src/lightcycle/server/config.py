"""The game server's configuration: one TOML file, every value checked before serving.

``lightcycle serve`` with no file plays the Scheme course's torus duel (`default_config`);
a file (docs/server.md, "Configuration"; examples/server/server.toml is a complete one)
names the ports, the database, the limits and any number of queues. `load_config` checks
everything a queue needs to play (the ruleset exists, every map of the pool can be set up
for the queue's players under it, the fill bot is a built-in bot, times are positive)
before a socket is opened: a server that starts can play every queue it lists, and a
mistake is one line naming the file, the line, the key and what was expected.
"""

from __future__ import annotations

import functools
import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from lightcycle.bots.api import BotError
from lightcycle.bots.registry import make_bot
from lightcycle.maps.spec import MapError, MapSpec
from lightcycle.protocols import get_protocol, list_protocols
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.match import unplayable
from lightcycle.referee.players import BotSpec
from lightcycle.rules.ruleset import RulesError, Ruleset
from lightcycle.rules.variants import get_ruleset
from lightcycle.tournament.mappool import parse_pool
from lightcycle.tournament.tomlfile import TomlReader, toml_error

QUEUE_NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")
"""What a queue may be called (it is typed in hellos and URLs)."""

SCHEME_PROTOCOL = "sexp"
"""The protocol of the Scheme port: its queue must be one this protocol can carry."""


class ConfigError(ValueError):
    """A server configuration that cannot be served; the message is one line."""


@dataclass(frozen=True)
class QueueConfig:
    """One queue: what is played and who may play it.

    Attributes:
        name: the queue's name (``[queues.NAME]``).
        ruleset: the rules, by name (``torus@1``).
        maps: the map pool, as ``lightcycle duel --maps`` accepts items; each game draws
            one by its seed.
        players: seats per game.
        move_time: seconds a move, measured at the server (the latency allowance is
            added on top).
        first_move_time: seconds for the first move (``None``: the ruleset's default).
        fill_after: a seat that waited this many seconds gets built-in bots for the empty
            seats (``None``: never).
        fill_bot: the built-in bot that fills seats (a ``builtin:`` spec).
        anonymous: whether players without a secret may join.
        rated: whether games change the queue's ladder.
        protocols: the protocols the jsonl port allows for this queue (empty: every one
            that can carry the queue's games).
    """

    name: str
    ruleset: str = "torus@1"
    maps: tuple[str, ...] = ("torus-20",)
    players: int = 2
    move_time: float = 1.0
    first_move_time: float | None = None
    fill_after: float | None = 5.0
    fill_bot: str = "builtin:medium"
    anonymous: bool = True
    rated: bool = True
    protocols: tuple[str, ...] = ()

    def resolve_ruleset(self) -> Ruleset:
        """The queue's `Ruleset` (checked at load, so this does not fail for a loaded one)."""
        return get_ruleset(self.ruleset)

    def pool(self) -> list[MapSpec]:
        """The map pool as maps, in the order given (``random:N`` drawn from seed 0).

        Raises:
            MapError: a map that does not exist or does not suit the queue.
        """
        return _pool(self)

    def time_control(self) -> TimeControl:
        """The time control of every seat: the ruleset's with the queue's move times."""
        rs = self.resolve_ruleset()
        control = TimeControl.for_ruleset(rs.clock)
        overrides: dict[str, Any] = {"move": self.move_time}
        if self.first_move_time is not None:
            overrides["first_move"] = self.first_move_time
        return control.with_overrides(overrides)

    def allowed_protocols(self) -> tuple[str, ...]:
        """The protocols the jsonl port offers for this queue: the configured ones, or
        every known protocol that can carry every map of the pool."""
        return _allowed(self)

    def _allowed_uncached(self) -> tuple[str, ...]:
        if self.protocols:
            return self.protocols
        rs = self.resolve_ruleset()
        maps = self.pool()
        out = []
        for codec in list_protocols():
            name = codec.name
            bot = BotSpec(text="", kind="program", protocol=name)
            if all(unplayable(m, rs, [bot], 0, players=self.players) is None for m in maps):
                out.append(name)
        return tuple(out)


@dataclass(frozen=True)
class LimitsConfig:
    """Limits that keep one client from hurting the others (docs/server.md)."""

    max_line: int = 65536
    join_timeout: float = 10.0
    per_address: int = 16
    max_connections: int = 4096
    lines_per_second: float = 100.0
    idle_timeout: float = 300.0
    latency_allowance: float = 0.2
    reconnect_grace: float = 10.0
    spectators_per_game: int = 200


def _default_queues() -> Mapping[str, QueueConfig]:
    return MappingProxyType({"torus": QueueConfig("torus")})


@dataclass(frozen=True)
class ServerConfig:
    """The whole server: ports, queues, database, limits (docs/server.md)."""

    host: str = "127.0.0.1"
    scheme_port: int = 7700
    jsonl_port: int = 7701
    web_port: int = 8000
    scheme_queue: str = "torus"
    queues: Mapping[str, QueueConfig] = field(default_factory=_default_queues)
    database: str = "sqlite:///lightcycle-server.db"
    second_login: str = "replace"
    limits: LimitsConfig = field(default_factory=LimitsConfig)


def default_config() -> ServerConfig:
    """The server with no file: the Scheme course's torus duel as queue ``torus``.

    ``torus@1`` on ``torus-20``, two players, 1 s a move (the ruleset's own control: the
    course set no limit of its own, so the referee's default, 3 s for the first move),
    anonymous players welcome, a built-in bot in an empty seat after 5 s.
    """
    return ServerConfig()


# -- reading the file ----------------------------------------------------------------

_SERVER_KEYS = {
    "host": 'an address to listen on, e.g. host = "0.0.0.0"',
    "port_offset": "a whole number added to every port, e.g. port_offset = 100",
    "scheme_port": "a port number 1-65535, e.g. scheme_port = 7700",
    "jsonl_port": "a port number 1-65535, e.g. jsonl_port = 7701",
    "web_port": "a port number 1-65535, e.g. web_port = 8000",
    "scheme_queue": 'the name of a queue, e.g. scheme_queue = "torus"',
    "database": 'an SQLAlchemy URL, e.g. database = "sqlite:///server.db"',
    "second_login": 'replace or refuse, e.g. second_login = "replace"',
}
_LIMIT_INTS = {"max_line", "per_address", "max_connections", "spectators_per_game"}
_LIMIT_ZERO_OK = {"latency_allowance", "reconnect_grace"}
_QUEUE_KEYS = {
    "ruleset": 'a ruleset name, e.g. ruleset = "torus@1"',
    "maps": 'a list of map names or files, e.g. maps = ["torus-20", "random-7"]',
    "players": "a whole number of seats per game, e.g. players = 2",
    "move_time": "seconds > 0, e.g. move_time = 1.0",
    "first_move_time": "seconds > 0, e.g. first_move_time = 3.0",
    "fill_after": 'seconds >= 0 or "never", e.g. fill_after = 5',
    "fill_bot": 'a built-in bot, e.g. fill_bot = "builtin:medium"',
    "anonymous": "true or false",
    "rated": "true or false",
    "protocols": 'a list of protocol names, e.g. protocols = ["jsonl", "tron2010"]',
}
_TOP_KEYS = ("server", "limits", "queues")


class _Reader(TomlReader):
    """The server file's text at hand, so that every error names its line."""

    error_type = ConfigError


def _number(r: _Reader, table: str, data: Mapping[str, Any], key: str, wanted: str) -> float:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise r.expect(table, key, value, wanted)
    return float(value)


def _integer(r: _Reader, table: str, data: Mapping[str, Any], key: str, wanted: str) -> int:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise r.expect(table, key, value, wanted)
    return value


def _string(r: _Reader, table: str, data: Mapping[str, Any], key: str, wanted: str) -> str:
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise r.expect(table, key, value, wanted)
    return value.strip()


def _boolean(r: _Reader, table: str, data: Mapping[str, Any], key: str) -> bool:
    value = data[key]
    if not isinstance(value, bool):
        raise r.expect(table, key, value, "true or false")
    return value


def _strings(r: _Reader, table: str, data: Mapping[str, Any], key: str, wanted: str) -> list[str]:
    value = data[key]
    if isinstance(value, str):
        value = [value]
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(v, str) and v.strip() for v in value)
    ):
        raise r.expect(table, key, value, wanted)
    return [v.strip() for v in value]


def load_config(
    path: Path | None,
    *,
    host: str | None = None,
    port_offset: int = 0,
    database: str | None = None,
) -> ServerConfig:
    """Read and check a server file; ``None`` gives `default_config` with the overrides.

    Args:
        path: the TOML file, or ``None`` for the defaults.
        host: an address that overrides the file's ``host`` (``--host``).
        port_offset: added to every port, on top of the file's ``port_offset``
            (``--port-offset``).
        database: a URL that overrides the file's ``database`` (``--db``).

    Raises:
        ConfigError: one line naming the file, the line, the key and what was expected.
    """
    if path is None:
        config = default_config()
        where = "the default configuration"
        r: _Reader | None = None
    else:
        r = _read(path)
        config = _parse(r)
        where = str(path)
    offset = port_offset
    config = replace(
        config,
        host=host if host is not None else config.host,
        database=database if database is not None else config.database,
        scheme_port=config.scheme_port + offset,
        jsonl_port=config.jsonl_port + offset,
        web_port=config.web_port + offset,
    )
    _check_ports(config, where, r)
    _check_database(config.database, where, r, database is not None)
    return config


def _read(path: Path) -> _Reader:
    if path.is_dir():
        raise ConfigError(f"{path} is a folder: give the server file (.toml)")
    if not path.is_file():
        raise ConfigError(f"server file {path} not found; see examples/server/server.toml")
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
        tomllib.loads(text)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{path}, line {line}: not UTF-8 text; save the file as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(toml_error(path, text, exc)) from None
    return _Reader(path, text)


def _parse(r: _Reader) -> ServerConfig:
    data = tomllib.loads(r.text)
    r.unknown(None, data, list(_TOP_KEYS))
    for key in _TOP_KEYS:
        if key in data and not isinstance(data[key], dict):
            raise r.error(key, f"{key} must be a table, e.g. [{key}]")
    server = r.table(data, "server")
    r.unknown("server", server, list(_SERVER_KEYS))
    base = ServerConfig()
    values: dict[str, Any] = {}
    for key in ("host", "scheme_queue", "database", "second_login"):
        if key in server:
            values[key] = _string(r, "server", server, key, _SERVER_KEYS[key])
    if values.get("second_login", "replace") not in ("replace", "refuse"):
        raise r.expect("server", "second_login", values["second_login"], "replace or refuse")
    offset = 0
    if "port_offset" in server:
        offset = _integer(r, "server", server, "port_offset", _SERVER_KEYS["port_offset"])
    for key in ("scheme_port", "jsonl_port", "web_port"):
        port = getattr(base, key)
        if key in server:
            port = _integer(r, "server", server, key, _SERVER_KEYS[key])
        values[key] = port + offset
    limits = _limits(r, r.table(data, "limits"))
    queues = _queues(r, r.table(data, "queues"))
    config = replace(base, **values, limits=limits, queues=queues)
    scheme = config.scheme_queue
    if scheme not in queues:
        raise r.error(
            "scheme_queue",
            f"[server] scheme_queue = {json.dumps(scheme)}: expected one of the queues "
            f"({', '.join(sorted(queues))}); the Scheme port plays that queue",
            "server",
        )
    _check_scheme_queue(r, queues[scheme])
    return config


def _limits(r: _Reader, data: Mapping[str, Any]) -> LimitsConfig:
    base = LimitsConfig()
    allowed = list(base.__dataclass_fields__)
    r.unknown("limits", data, allowed)
    values: dict[str, Any] = {}
    for key in data:
        if key in _LIMIT_INTS:
            n = _integer(r, "limits", data, key, f"a whole number >= 1, e.g. {key} = 16")
            if n < 1:
                raise r.expect("limits", key, n, f"a whole number >= 1, e.g. {key} = 16")
            values[key] = n
        else:
            low = ">= 0" if key in _LIMIT_ZERO_OK else "> 0"
            wanted = f"seconds {low}, e.g. {key} = {getattr(base, key)}"
            if key == "lines_per_second":
                wanted = "a number > 0, e.g. lines_per_second = 100"
            x = _number(r, "limits", data, key, wanted)
            if x < 0 or (x == 0 and key not in _LIMIT_ZERO_OK):
                raise r.expect("limits", key, data[key], wanted)
            values[key] = x
    return replace(base, **values)


def _queues(r: _Reader, data: Mapping[str, Any]) -> Mapping[str, QueueConfig]:
    if not data:
        return _default_queues()
    out: dict[str, QueueConfig] = {}
    for name, table in data.items():
        if not QUEUE_NAME.fullmatch(name):
            raise r.error(
                name,
                f"queue name {name!r}: expected 1-32 letters, digits, _ or -",
                "queues",
            )
        if not isinstance(table, dict):
            raise r.error(name, f"queues.{name} must be a table, e.g. [queues.{name}]", "queues")
        out[name] = _queue(r, name, table)
    return MappingProxyType(out)


def _queue(r: _Reader, name: str, data: Mapping[str, Any]) -> QueueConfig:
    t = f"queues.{name}"
    r.unknown(t, data, list(_QUEUE_KEYS))
    v: dict[str, Any] = {}
    if "ruleset" in data:
        v["ruleset"] = _string(r, t, data, "ruleset", _QUEUE_KEYS["ruleset"])
        try:
            get_ruleset(v["ruleset"])
        except RulesError as exc:
            raise r.error("ruleset", f"[{t}] ruleset: {exc}", t) from None
    if "maps" in data:
        items = _strings(r, t, data, "maps", _QUEUE_KEYS["maps"])
        v["maps"] = tuple(_map_item(r.path.parent, item) for item in items)
    if "players" in data:
        v["players"] = _integer(r, t, data, "players", _QUEUE_KEYS["players"])
        if v["players"] < 2:
            raise r.expect(t, "players", v["players"], "a whole number >= 2")
    for key in ("move_time", "first_move_time"):
        if key in data:
            v[key] = _number(r, t, data, key, _QUEUE_KEYS[key])
            if v[key] <= 0:
                raise r.expect(t, key, data[key], _QUEUE_KEYS[key])
    if "fill_after" in data:
        value = data["fill_after"]
        if value == "never":
            v["fill_after"] = None
        else:
            v["fill_after"] = _number(r, t, data, "fill_after", _QUEUE_KEYS["fill_after"])
            if v["fill_after"] < 0:
                raise r.expect(t, "fill_after", value, _QUEUE_KEYS["fill_after"])
    if "fill_bot" in data:
        v["fill_bot"] = _string(r, t, data, "fill_bot", _QUEUE_KEYS["fill_bot"])
        problem = fill_bot_problem(v["fill_bot"])
        if problem is not None:
            raise r.error(
                "fill_bot", f"[{t}] fill_bot = {json.dumps(data['fill_bot'])}: {problem}", t
            )
    for key in ("anonymous", "rated"):
        if key in data:
            v[key] = _boolean(r, t, data, key)
    if "protocols" in data:
        protocols = _strings(r, t, data, "protocols", _QUEUE_KEYS["protocols"])
        for p in protocols:
            try:
                get_protocol(p)
            except ValueError as exc:
                raise r.error("protocols", f"[{t}] protocols: {exc}", t) from None
        v["protocols"] = tuple(protocols)
    queue = QueueConfig(name, **v)
    rs = queue.resolve_ruleset()
    low, high = rs.players
    if not low <= queue.players <= high:
        key = "players" if "players" in data else "ruleset"
        raise r.error(
            key,
            f"[{t}] players = {queue.players}: {rs.id} plays {low}"
            + (f"-{high}" if high != low else "")
            + " players",
            t,
        )
    try:
        maps = queue.pool()
    except MapError as exc:
        raise r.error("maps", f"[{t}] maps: {exc}", t) from None
    for p in queue.protocols:
        bot = BotSpec(text="", kind="program", protocol=p)
        for m in maps:
            problem = unplayable(m, rs, [bot], 0, players=queue.players)
            if problem is not None:
                raise r.error(
                    "protocols", f"[{t}] protocols: {p} cannot carry {m.id}: {problem}", t
                )
    try:
        queue.time_control().validate()
    except ValueError as exc:
        raise r.error("move_time", f"[{t}] {exc}", t) from None
    return queue


def _map_item(base: Path, item: str) -> str:
    """A map item with a relative file path read from the config file's folder."""
    candidate = base / item
    if not Path(item).is_absolute() and candidate.is_file():
        return str(candidate.resolve())
    return item


@functools.lru_cache(maxsize=64)
def _allowed(queue: QueueConfig) -> tuple[str, ...]:
    """`QueueConfig.allowed_protocols`, once per queue (every jsonl hello asks)."""
    return queue._allowed_uncached()


def _pool(queue: QueueConfig) -> list[MapSpec]:
    return list(_cached_pool(queue))


@functools.lru_cache(maxsize=64)
def _cached_pool(queue: QueueConfig) -> tuple[MapSpec, ...]:
    """The pool, set up once per queue (each game draws from it)."""
    rs = queue.resolve_ruleset()
    return tuple(
        parse_pool(
            ",".join(queue.maps),
            seed=0,
            playable=lambda spec: unplayable(spec, rs, [], 0, players=queue.players),
            players=queue.players,
            verb=f"play {rs.id} with {queue.players} players on",
        )
    )


def fill_bot_problem(spec: str) -> str | None:
    """Why ``spec`` cannot fill seats (``None``: it can): only built-in bots run in the
    server's process; programs and Python files are for `lightcycle connect`."""
    text = spec.strip()
    if text.startswith(("py:", "cmd:", "cteam:", "scheme:", "toml:")) or text.endswith(".toml"):
        return "expected a built-in bot (builtin:NAME); programs connect as clients"
    try:
        make_bot(text)
    except BotError as exc:
        return str(exc)
    return None


def _check_scheme_queue(r: _Reader, queue: QueueConfig) -> None:
    rs = queue.resolve_ruleset()
    bot = BotSpec(text="", kind="program", protocol=SCHEME_PROTOCOL)
    for m in queue.pool():
        problem = unplayable(m, rs, [bot], 0, players=queue.players)
        if problem is not None:
            raise r.error(
                "scheme_queue",
                f"[server] scheme_queue = {json.dumps(queue.name)}: the Scheme port "
                f"cannot play {m.id}: {problem}",
                "server",
            )


def _check_ports(config: ServerConfig, where: str, r: _Reader | None) -> None:
    seen: dict[int, str] = {}
    for key in ("scheme_port", "jsonl_port", "web_port"):
        port = getattr(config, key)
        problem = None
        if not 1 <= port <= 65535:
            problem = f"{key} is {port} after the port offset: expected 1-65535"
        elif port in seen:
            problem = f"{key} and {seen[port]} are both {port}: give each its own port"
        if problem is not None:
            if r is not None:
                raise r.error(key, problem, "server")
            raise ConfigError(f"{where}: {problem}; change --port-offset")
        seen[port] = key


def _check_database(url: str, where: str, r: _Reader | None, given: bool) -> None:
    import sqlalchemy as sa

    try:
        sa.engine.make_url(url)
    except (sa.exc.ArgumentError, ValueError):
        problem = (
            f"database = {json.dumps(url)}: expected an SQLAlchemy URL, e.g. "
            "sqlite:///server.db or postgresql://user@host/db"
        )
        if r is not None and not given:
            raise r.error("database", f"[server] {problem}", "server") from None
        raise ConfigError(f"{where}: {problem}") from None

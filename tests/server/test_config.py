"""The server's TOML configuration: defaults, the example file, and every mistake named."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from lightcycle.server.config import (
    ConfigError,
    LimitsConfig,
    QueueConfig,
    ServerConfig,
    default_config,
    load_config,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "server" / "server.toml"
CASES = Path(__file__).parent / "data" / "bad_configs.txt"


def bad_configs() -> list[tuple[str, str, str]]:
    """``(line, message, text)`` per case of ``data/bad_configs.txt``."""
    cases: list[tuple[str, str, str]] = []
    header: tuple[str, str] | None = None
    body: list[str] = []
    for raw in CASES.read_text(encoding="utf-8").splitlines():
        if raw.startswith("--- "):
            if header is not None:
                cases.append((*header, "\n".join(body).strip("\n")))
            where, _, message = raw.removeprefix("--- ").partition(" | ")
            header, body = (where, message), []
        elif header is not None:
            body.append(raw)
    assert header is not None
    cases.append((*header, "\n".join(body).strip("\n")))
    return cases


def test_the_default_is_the_scheme_courses_torus_duel() -> None:
    config = default_config()
    assert load_config(None) == config
    assert (config.host, config.scheme_port, config.jsonl_port, config.web_port) == (
        "127.0.0.1",
        7700,
        7701,
        8000,
    )
    assert list(config.queues) == ["torus"] and config.scheme_queue == "torus"
    torus = config.queues["torus"]
    assert torus == QueueConfig("torus")
    assert (torus.ruleset, torus.maps, torus.players) == ("torus@1", ("torus-20",), 2)
    assert torus.fill_after == 5.0 and torus.fill_bot == "builtin:medium" and torus.anonymous
    control = torus.time_control()
    assert (control.move, control.first_move) == (1.0, 3.0)
    assert [m.id for m in torus.pool()] == ["torus-20@1"]
    assert "sexp" in torus.allowed_protocols() and "tron2010" not in torus.allowed_protocols()
    assert config.second_login == "replace" and config.limits == LimitsConfig()


def test_overrides_from_the_command_line() -> None:
    config = load_config(None, host="0.0.0.0", port_offset=100, database="sqlite://")
    assert (config.host, config.scheme_port, config.jsonl_port, config.web_port) == (
        "0.0.0.0",
        7800,
        7801,
        8100,
    )
    assert config.database == "sqlite://"
    with pytest.raises(ConfigError, match=r"web_port is 65536 after the port offset"):
        load_config(None, port_offset=65536 - 8000)
    with pytest.raises(ConfigError, match="expected an SQLAlchemy URL"):
        load_config(None, database="nonsense")


def test_the_example_file_loads_every_key(tmp_path: Path) -> None:
    config = load_config(EXAMPLE)
    assert set(config.queues) == {"torus", "classic", "ffa4"}
    assert config.queues["torus"] == QueueConfig("torus", first_move_time=3.0)
    classic = config.queues["classic"]
    assert classic.protocols == ("jsonl", "tron2010") and not classic.anonymous
    assert classic.fill_after == 30.0 and classic.fill_bot == "builtin:floodfill"
    assert [m.id for m in classic.pool()][-1].startswith("random-7")
    ffa = config.queues["ffa4"]
    assert ffa.players == 4 and not ffa.rated and ffa.time_control().move == 0.2
    assert replace(config, queues=default_config().queues) == replace(
        ServerConfig(), database="sqlite:///lightcycle-server.db"
    )
    # every key of the example is there, so a key added to the code must be documented
    text = EXAMPLE.read_text(encoding="utf-8")
    for name in [*LimitsConfig().__dataclass_fields__, *QueueConfig("x").__dataclass_fields__]:
        assert name == "name" or f"\n{name} =" in text, name
    # the port offset in the file and on the command line add up
    moved = tmp_path / "moved.toml"
    moved.write_text("[server]\nport_offset = 10\nweb_port = 9000\n", encoding="utf-8")
    got = load_config(moved, port_offset=1)
    assert (got.scheme_port, got.web_port) == (7711, 9011)


def test_fill_never_and_relative_map_files(tmp_path: Path) -> None:
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "box.map").write_text(
        (ROOT / "src/lightcycle/maps/data/ring.map").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    path = tmp_path / "s.toml"
    path.write_text(
        '[server]\nscheme_queue = "walled"\n[queues.walled]\nruleset = "classic"\n'
        'maps = ["maps/box.map"]\nfill_after = "never"\n',
        encoding="utf-8",
    )
    q = load_config(path).queues["walled"]
    assert q.fill_after is None
    assert q.maps == (str((tmp_path / "maps" / "box.map").resolve()),)
    assert len(q.pool()) == 1


@pytest.mark.parametrize(("line", "message", "text"), bad_configs(), ids=lambda v: str(v)[:40])
def test_mistakes_name_the_file_the_line_and_what_was_expected(
    tmp_path: Path, line: str, message: str, text: str
) -> None:
    path = tmp_path / "server.toml"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    got = str(info.value)
    assert "\n" not in got
    where = f"{path}, line {line}"
    assert got.startswith(where) and got[len(where)] in ":,", got
    assert message in got, got


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match="is a folder"):
        load_config(tmp_path)
    bad = tmp_path / "latin.toml"
    bad.write_bytes(b'[server]\nhost = "\xe9"\n')
    with pytest.raises(ConfigError, match="line 2: not UTF-8"):
        load_config(bad)


@pytest.mark.parametrize(
    "spec", ["cmd:./bot", "py:bot.py", "cteam:team.c", "scheme:brain.scm", "toml:b.toml", "b.toml"]
)
def test_a_program_cannot_fill_seats(spec: str) -> None:
    """Fill bots play inside the server's process: programs, Scheme brains included,
    connect as clients instead, and the error says so."""
    from lightcycle.server.config import fill_bot_problem

    assert fill_bot_problem(spec) == (
        "expected a built-in bot (builtin:NAME); programs connect as clients"
    )
    assert fill_bot_problem("builtin:random") is None

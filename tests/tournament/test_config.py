"""The tournament file: every field read, every mistake named with its file and line."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from lightcycle.referee.players import make_player
from lightcycle.sandbox import Limits
from lightcycle.tournament.config import TournamentError, bot_line, load_config, toml_error
from lightcycle.tournament.duel import parse_pool, random_seeds
from lightcycle.tournament.plan import make_plan
from tests.conftest import readable

ROOT = Path(__file__).resolve().parents[2]
GOOD = """\
name = "week 3"
format = "round-robin"
bots = [
  "builtin:random",
  { spec = "builtin:chaser", name = "Chase" },
]
maps = ["arena-10"]
rounds = 2
seed = 7

[time]
move = 0.5
"""


def write(tmp_path: Path, text: str, name: str = "t.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_file(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD))
    assert config.name == "week 3" and config.format == "round-robin"
    assert [b.spec for b in config.bots] == ["builtin:random", "builtin:chaser"]
    assert config.bots[1].name == "Chase" and config.rounds == 2 and config.seed == 7
    assert config.out == tmp_path / "t"  # beside the file, named after it
    assert config.database_url == f"sqlite:///{(tmp_path / 't' / 'tournament.db').resolve()}"
    assert config.control({}).move == 0.5
    plan = make_plan(config)
    assert [e.name for e in plan.entrants] == ["Random", "Chase"]


def test_the_fingerprint_ignores_where_and_how_fast(tmp_path: Path) -> None:
    a = load_config(write(tmp_path, GOOD))
    b = load_config(write(tmp_path, 'workers = 3\nout = "elsewhere"\n' + GOOD, "u.toml"))
    assert a.fingerprint_json() == b.fingerprint_json()
    c = load_config(write(tmp_path, GOOD.replace("seed = 7", "seed = 8"), "v.toml"))
    assert c.fingerprint_json() != a.fingerprint_json()


def test_relative_paths_are_read_from_the_files_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "alice.py").write_text((ROOT / "tests/tournament/duel_bots.py").read_text())
    (folder / "bot.py").write_text("")  # the cmd: bot's script, looked for in the folder
    text = GOOD.replace('"builtin:random",', '"py:alice.py:DeepBot", "cmd:python3 bot.py",')
    text = 'protocol = "jsonl"\n' + text
    config = load_config(write(folder, text))
    monkeypatch.chdir(tmp_path)  # anywhere else
    spec = config.resolve_spec("py:alice.py:DeepBot")
    assert spec.text == f"py:{folder / 'alice.py'}:DeepBot"
    assert make_player(spec, Limits(), None).name == "Deep"  # found from elsewhere
    plan = make_plan(config)
    assert plan.entrants[0].spec_text == "py:alice.py:DeepBot"  # stored as written
    cmd = config.resolve_spec("cmd:python3 bot.py")
    assert cmd.cwd == folder.resolve() and cmd.protocol == "jsonl"


VECTORS = Path(__file__).parent / "vectors" / "bad_configs.txt"


def bad_configs() -> list[tuple[bool, str, str, str]]:
    """``(plan, line, message, text)`` per case of ``vectors/bad_configs.txt``."""
    cases: list[tuple[bool, str, str, str]] = []
    header: tuple[bool, str, str] | None = None
    body: list[str] = []
    for raw in VECTORS.read_text(encoding="utf-8").splitlines():
        if raw.startswith("--- "):
            if header is not None:
                cases.append((*header, "\n".join(body).strip("\n")))
            where, _, message = raw.removeprefix("--- ").partition(" | ")
            plan = where.startswith("plan ")
            header, body = (plan, where.removeprefix("plan "), message), []
        elif header is not None:
            body.append(raw)
    assert header is not None
    cases.append((*header, "\n".join(body).strip("\n")))
    return cases


@pytest.mark.parametrize("newline", ["\n", ""], ids=["newline-at-end", "no-newline-at-end"])
@pytest.mark.parametrize(
    ("plan", "line", "message", "text"),
    bad_configs(),
    ids=[f"{c[1]}-{c[2][:40]}" for c in bad_configs()],
)
def test_mistakes_name_the_file_the_line_and_what_was_expected(
    tmp_path: Path, plan: bool, line: str, message: str, text: str, newline: str
) -> None:
    path = write(tmp_path, text + newline)
    with pytest.raises(TournamentError) as info:
        config = load_config(path)
        assert plan, "load_config accepted the file"
        make_plan(config)
    got = str(info.value)
    where = f"{path}, line {line}"
    assert got.startswith(where) and got[len(where)] in ":,", got
    assert message in got, got


def test_an_error_at_the_end_of_the_document_gets_the_last_line() -> None:
    """tomllib says "at end of document" without a line: the message names the last line."""
    path = Path("t.toml")
    text = 'bots = ["random", "chaser"]\nmaps = ["ring"]\nrounds =\n\n\n'
    with pytest.raises(TournamentError) as info:
        raise TournamentError(toml_error(path, text, _toml_error(text)))
    assert str(info.value).startswith("t.toml, line 3, column 9: not valid TOML: Invalid value")
    unclosed = 'name = "x"\n[time'
    got = toml_error(path, unclosed, _toml_error(unclosed))
    assert got.startswith("t.toml, line 2, column 6:") and "at the end of the file" in got


def _toml_error(text: str) -> tomllib.TOMLDecodeError:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return exc
    raise AssertionError("valid TOML")


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TournamentError, match="not found"):
        load_config(tmp_path / "nope.toml")


def test_maps_take_the_duels_pool_items(tmp_path: Path) -> None:
    text = 'bots = ["random", "chaser"]\nmaps = ["ring", "builtin", "random:2"]\nseed = 9\n'
    plan = make_plan(load_config(write(tmp_path, text)))
    want = parse_pool("ring,builtin,random:2", seed=9)  # the duel's reading, same seed
    assert [m.id for m in plan.maps] == [m.id for m in want]
    assert plan.maps[0].id == "ring@1" and plan.maps.count(plan.maps[0]) == 1  # no repeats
    assert [m.name for m in plan.maps[-2:]] == [f"random-{s}" for s in random_seeds(9, 2)]
    assert plan.format.schedule({}).pairings[-1].map == len(plan.maps) - 1  # all are played
    torus = plan.maps.index(next(m for m in plan.maps if m.name == "torus-20"))
    assert plan.rulesets[torus].id == "torus@1"  # each map's own ruleset


def test_builtin_means_the_grid_maps_for_the_seats(tmp_path: Path) -> None:
    text = 'format = "ffa"\nbots = ["random", "chaser", "runaway"]\nmaps = ["builtin"]\n'
    plan = make_plan(load_config(write(tmp_path, text + "players = 4\n")))
    assert "ffa4@1" in [m.id for m in plan.maps] and "ring@1" not in [m.id for m in plan.maps]
    assert all(4 in m.players for m in plan.maps)


def test_a_file_that_is_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'bots = ["random", "chaser"]\nname = "Caf\xe9"\nmaps = ["ring"]\n')
    with pytest.raises(TournamentError, match=r"latin1.toml, line 2: not UTF-8 text"):
        load_config(path)


def test_a_missing_protocol_names_the_toml_key_not_the_cli_flag(tmp_path: Path) -> None:
    """In a tournament file the fix is a TOML key; the command line keeps its flag."""
    from lightcycle.bots.api import BotError
    from lightcycle.referee.players import parse_bot_spec

    with pytest.raises(BotError, match="add --protocol"):  # the CLI's words, for the CLI
        parse_bot_spec("cmd:./bot")
    (tmp_path / "mybot.toml").write_text('command = "./mybot"\n', encoding="utf-8")
    with pytest.raises(BotError) as info:  # a bot file (match --bot mybot.toml): its key
        parse_bot_spec(str(tmp_path / "mybot.toml"))
    assert 'set protocol = "tron2010"' in str(info.value) and "--protocol" not in str(info.value)
    path = write(tmp_path, 'maps = ["ring"]\nbots = [\n  "random",\n  "mybot.toml",\n]\n')
    with pytest.raises(TournamentError) as info:
        load_config(path)
    got = str(info.value)
    assert got.startswith(f"{path}, line 4, bot 'mybot.toml': ") and "--protocol" not in got
    assert 'protocol = "tron2010" at the top level of t.toml' in got
    path = write(tmp_path, 'maps = ["ring"]\nbots = ["random", { spec = "cmd:./b", name = "B" }]')
    with pytest.raises(TournamentError) as info:
        load_config(path)
    got = str(info.value)
    assert got.startswith(f"{path}, line 2, bot 'B': ") and "--protocol" not in got
    assert '{ spec = "cmd:./b", protocol = "tron2010" }' in got
    load_config(write(tmp_path, 'protocol = "jsonl"\n' + path.read_text()))  # the fix works


def test_a_bot_is_found_on_its_own_line() -> None:
    text = (
        'maps = ["ring"]\n'
        "bots = [\n"
        '  "builtin:random",\n'
        "  { spec = 'builtin:chaser', name = 'C' },\n"
        '  "builtin:random",\n'
        "]\n"
    )
    assert bot_line(text, "builtin:random") == 3
    assert bot_line(text, "builtin:chaser") == 4
    assert bot_line(text, "builtin:random", before=1) == 5
    assert bot_line(text, "builtin:floodfill") == 2  # not found: the bots key
    tables = 'maps = ["ring"]\n[[bots]]\nspec = "a"\n[[bots]]\nspec = "b"\n'
    assert bot_line(tables, "b") == 5


def test_a_program_that_is_not_executable_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    (tmp_path / "bot").write_text("#!/bin/sh\n", encoding="utf-8")
    path = write(tmp_path, 'protocol = "jsonl"\nmaps = ["ring"]\nbots = ["random", "cmd:./bot"]\n')
    with pytest.raises(TournamentError, match=r"line 3, bot 'cmd:./bot': command './bot' is "):
        make_plan(load_config(path))
    (tmp_path / "bot").chmod(0o755)
    make_plan(load_config(readable(tmp_path) / "t.toml"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bot", "t.toml"]


# -- the sandbox of bot programs -------------------------------------------------------

TWO = 'maps = ["ring"]\nbots = ["random", "chaser"]\n'


def test_sandbox_defaults_to_auto_or_the_machine_s_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LIGHTCYCLE_SANDBOX", raising=False)
    config = load_config(write(tmp_path, TWO))
    assert config.sandbox == "auto"
    assert make_plan(config).limits.sandbox == "auto"  # what every worker gets
    monkeypatch.setenv("LIGHTCYCLE_SANDBOX", "none")
    assert load_config(write(tmp_path, TWO)).sandbox == "none"
    config = load_config(write(tmp_path, 'sandbox = "full"\n' + TWO))  # the file wins
    assert config.sandbox == "full" and "sandbox" not in config.fingerprint()
    assert load_config(write(tmp_path, 'sandbox = "uid"\n' + TWO)).sandbox == "uid"
    monkeypatch.setenv("LIGHTCYCLE_SANDBOX", "strong")
    with pytest.raises(TournamentError, match=r"t\.toml: LIGHTCYCLE_SANDBOX='strong'"):
        load_config(write(tmp_path, TWO))


def test_a_bad_sandbox_names_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, TWO + 'sandbox = "strong"\n')
    expected = r'line 3: sandbox = "strong": expected auto, full, uid or none'
    with pytest.raises(TournamentError, match=expected):
        load_config(path)


def test_a_uid_sandbox_this_host_cannot_give_is_refused_naming_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lightcycle.sandbox import uidlevel

    (tmp_path / "bot").write_text("#!/bin/sh\n", encoding="utf-8")
    (tmp_path / "bot").chmod(0o755)
    text = 'sandbox = "uid"\nprotocol = "jsonl"\nmaps = ["ring"]\nbots = ["random", "cmd:./bot"]\n'
    config = load_config(write(tmp_path, text))
    monkeypatch.setattr(uidlevel, "unavailable", lambda: "the uid level needs a root referee")
    with pytest.raises(TournamentError, match=r'line 1: sandbox = "uid": .*needs a root referee'):
        make_plan(config)


def test_an_unreadable_bot_folder_is_refused_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lightcycle.referee.players import sandboxed

    if os.geteuid() != 0:
        pytest.skip("only a root referee runs bots as user ids of their own")
    if not sandboxed(Limits(sandbox="auto")):
        pytest.skip("bubblewrap cannot make its namespaces here (lightcycle sandbox check)")
    monkeypatch.delenv("LIGHTCYCLE_SANDBOX", raising=False)
    a = tmp_path / "a"
    a.mkdir(mode=0o700)
    (a / "bot").write_text("#!/bin/sh\n", encoding="utf-8")
    (a / "bot").chmod(0o755)
    text = 'protocol = "jsonl"\nmaps = ["ring"]\nbots = ["random", "cmd:a/bot"]\n'
    path = write(tmp_path, text)
    with pytest.raises(TournamentError) as err:
        make_plan(load_config(path))
    message = str(err.value)
    assert (
        f"line 3, bot 'cmd:a/bot': the sandboxed bot cannot read its folder {tmp_path}/a" in message
    )
    assert f"chmod -R o+rX {a}" in message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "t.toml"]
    make_plan(load_config(write(tmp_path, 'sandbox = "none"\n' + text)))  # a trusted bot
    readable(a)
    assert make_plan(load_config(write(tmp_path, text))).limits.sandbox == "auto"

"""Bot specs: built-in names, ``py:`` files, ``cmd:`` programs and TOML bot files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lightcycle.bots.api import BotError
from lightcycle.bots.registry import builtin_names
from lightcycle.referee.players import (
    BotSpec,
    InProcessPlayer,
    ProgramPlayer,
    make_player,
    parse_bot_spec,
    program_name,
    read_bot_file,
)
from lightcycle.sandbox import Limits

REPO = Path(__file__).resolve().parents[2]

PY_BOT = """
from lightcycle.bots.api import Bot


class Straight(Bot):
    name = "Straight"

    def move(self, view):
        return "n"
"""

TWO_BOTS = (
    PY_BOT
    + """

class Other(Bot):
    name = "Other"

    def move(self, view):
        return "s"
"""
)


# -- built-in, py: and cmd: specs ----------------------------------------------------


@pytest.mark.parametrize("name", builtin_names())
def test_builtin_names(name: str) -> None:
    for text in (name, f"builtin:{name}", f"  {name.upper()} "):
        spec = parse_bot_spec(text)
        assert spec.kind == "inproc" and spec.command == () and spec.protocol is None
        assert spec.text == text.strip()


def test_unknown_builtin_suggests_a_close_name() -> None:
    with pytest.raises(BotError, match=r"unknown bot 'randm'\. Did you mean random\b") as err:
        parse_bot_spec("randm")
    assert "Built-in bots: chaser, dummy, floodfill, linebot, lookbot, medium, random" in str(
        err.value
    )
    with pytest.raises(BotError, match=r"py:path/to/bot\.py"):
        parse_bot_spec("builtin:nothing-like-it")


def test_py_bot_file(tmp_path: Path) -> None:
    path = tmp_path / "straight.py"
    path.write_text(PY_BOT)
    spec = parse_bot_spec(f"py:{path}")
    assert spec == BotSpec(text=f"py:{path}", kind="inproc")
    player = make_player(spec, Limits(), None)
    assert isinstance(player, InProcessPlayer) and player.name == "Straight"


def test_py_bot_file_with_a_class_name(tmp_path: Path) -> None:
    path = tmp_path / "two.py"
    path.write_text(TWO_BOTS)
    assert parse_bot_spec(f"py:{path}:Other").kind == "inproc"
    with pytest.raises(BotError, match="defines 2 Bot classes"):
        parse_bot_spec(f"py:{path}")
    with pytest.raises(BotError, match="has no Bot class 'Third'"):
        parse_bot_spec(f"py:{path}:Third")


def test_py_bot_file_missing(tmp_path: Path) -> None:
    with pytest.raises(BotError, match=r"bot file .*nowhere\.py not found"):
        parse_bot_spec(f"py:{tmp_path / 'nowhere.py'}")


@pytest.mark.parametrize("protocol", ["tron2010", "aichallenge", "sexp", "jsonl"])
def test_cmd_with_a_protocol(protocol: str) -> None:
    spec = parse_bot_spec("cmd:python3 'my bot.py' --fast", protocol)
    assert spec == BotSpec(
        text="cmd:python3 'my bot.py' --fast",
        kind="program",
        command=("python3", "my bot.py", "--fast"),
        protocol=protocol,
    )


def test_cmd_without_a_protocol_says_to_add_it() -> None:
    with pytest.raises(BotError) as err:
        parse_bot_spec("cmd:./mybot")
    assert "'cmd:./mybot' needs a protocol: add --protocol" in str(err.value)
    assert "tron2010" in str(err.value) and "jsonl" in str(err.value)


def test_cmd_with_an_unknown_protocol_suggests_a_close_name() -> None:
    with pytest.raises(BotError) as err:
        parse_bot_spec("cmd:./mybot", "jsnl")
    message = str(err.value)
    assert message.startswith("cmd:./mybot: unknown protocol 'jsnl'.")
    assert "Did you mean jsonl?" in message
    assert "Known: " in message


@pytest.mark.parametrize("text", ["cmd:", "cmd:   ", "  cmd:"])
def test_cmd_without_a_command(text: str) -> None:
    with pytest.raises(BotError, match="give a command after cmd:"):
        parse_bot_spec(text, "jsonl")


@pytest.mark.parametrize("text", ["cmd:python3 'bot.py", 'cmd:"./my bot'])
def test_cmd_with_unbalanced_quotes(text: str) -> None:
    with pytest.raises(BotError, match=r"cannot split the command of .*No closing quotation"):
        parse_bot_spec(text, "jsonl")


# -- TOML bot files ------------------------------------------------------------------


def write(folder: Path, text: str, name: str = "bot.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_full_bot_file_with_a_command_string(tmp_path: Path) -> None:
    (tmp_path / "build").mkdir()
    path = write(
        tmp_path,
        """
command = "./mybot --level 'very hard'"
protocol = "aichallenge"
name = "My Bot"
cwd = "build"
memory_mb = 256

[time]
move = 0.5
first_move = 2
bank = 1.5
average = 0.25
cpu = 30
""",
    )
    spec = parse_bot_spec(str(path), protocol="tron2010")  # the file's protocol wins
    assert spec == BotSpec(
        text=str(path),
        kind="program",
        name="My Bot",
        command=("./mybot", "--level", "very hard"),
        protocol="aichallenge",
        cwd=(tmp_path / "build").resolve(),
        time={"move": 0.5, "first_move": 2.0, "bank": 1.5, "average": 0.25, "cpu": 30.0},
        memory=256 << 20,
    )
    assert all(type(v) is float for v in spec.time.values())
    assert read_bot_file(path) == spec


def test_bot_file_with_a_command_list_and_defaults(tmp_path: Path) -> None:
    sub = tmp_path / "bots"
    sub.mkdir()
    path = write(sub, 'command = ["python3", "my bot.py"]\n')
    spec = read_bot_file(path, protocol="jsonl")  # the match's --protocol
    assert spec.command == ("python3", "my bot.py")
    assert spec.protocol == "jsonl"
    assert spec.cwd == sub.resolve()  # the file's folder
    assert spec.name is None and spec.time == {} and spec.memory is None


def test_bot_file_cwd_is_relative_to_the_file_not_to_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bots" / "data").mkdir(parents=True)
    write(tmp_path / "bots", 'command = "./x"\nprotocol = "sexp"\ncwd = "data"\n')
    monkeypatch.chdir(tmp_path)
    spec = parse_bot_spec("toml:bots/bot.toml")
    assert spec.cwd == (tmp_path / "bots" / "data").resolve()
    spec = parse_bot_spec("bots/bot.toml")
    assert spec.cwd == (tmp_path / "bots" / "data").resolve()
    path = write(tmp_path / "bots", 'command = "./x"\nprotocol = "sexp"\ncwd = ".."\n', "up.toml")
    assert read_bot_file(path).cwd == tmp_path.resolve()


def test_bot_file_player_uses_its_name_and_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path, 'command = "./x"\nprotocol = "jsonl"\nname = "X"\nmemory_mb = 64\n')
    limits = Limits(memory=1 << 30, stderr_tail=500, isolate="none", max_pending=1000)
    player = make_player(read_bot_file(path), limits, None)
    assert isinstance(player, ProgramPlayer)
    assert player.name == "X" and player.process is None and player.starts == 0
    assert player.limits == Limits(
        memory=64 << 20, stderr_tail=500, isolate="none", max_pending=1000
    )
    unnamed = make_player(parse_bot_spec("cmd:python3 bot.py", "jsonl"), limits, None)
    assert unnamed.name == "python3"  # no bot.py in the current folder
    assert unnamed.limits is limits  # no memory_mb: the match's limits


H = 'command = "x"\nprotocol = "jsonl"\n'  # a valid head the bad files add to
COMMAND_TYPE = '"command" must be a string or a list'
TIME_NUMBERS = "[time] holds numbers of seconds"
MEMORY = '"memory_mb" must be a positive integer'
BAD_FILES = {
    "bad-toml": ("command = [", "not valid TOML"),
    "unknown-key": (H + "port = 1", "unknown key port; known: command, cwd, memory_mb, name"),
    "command-int": ('command = 5\nprotocol = "jsonl"', COMMAND_TYPE),
    "command-mixed-list": ('command = ["a", 1]\nprotocol = "jsonl"', COMMAND_TYPE),
    "command-table": ('protocol = "jsonl"\n[command]\nx = "a"', COMMAND_TYPE),
    "command-missing": ('protocol = "jsonl"', COMMAND_TYPE),
    "command-empty-string": ('command = ""\nprotocol = "jsonl"', '"command" is empty'),
    "command-blank-string": ('command = "  "\nprotocol = "jsonl"', '"command" is empty'),
    "command-empty-list": ('command = []\nprotocol = "jsonl"', '"command" is empty'),
    "protocol-missing": ('command = "x"', 'set protocol = "tron2010"'),
    "protocol-int": ('command = "x"\nprotocol = 3', 'set protocol = "tron2010"'),
    "protocol-unknown": (
        'command = "x"\nprotocol = "tron"',
        "unknown protocol 'tron'. Did you mean tron2010?",
    ),
    "name-int": (H + "name = 3", '"name" must be a string'),
    "cwd-missing": (H + 'cwd = "nowhere"', "is not a folder"),
    "cwd-a-file": (H + 'cwd = "bot.toml"', "is not a folder"),
    "cwd-int": (H + "cwd = 1", '"cwd" must be a string'),
    "time-string": (H + '[time]\nmove = "1s"', TIME_NUMBERS),
    "time-bool": (H + "[time]\nmove = true", TIME_NUMBERS),
    "time-not-a-table": (H + "time = 1.0", TIME_NUMBERS),
    "time-nested": (H + "[time.move]\nx = 1", TIME_NUMBERS),
    "memory-zero": (H + "memory_mb = 0", MEMORY),
    "memory-negative": (H + "memory_mb = -5", MEMORY),
    "memory-float": (H + "memory_mb = 1.5", MEMORY),
    "memory-string": (H + 'memory_mb = "512"', MEMORY),
}


@pytest.mark.parametrize(("text", "message"), BAD_FILES.values(), ids=BAD_FILES.keys())
def test_bot_file_errors_name_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text + "\n")
    with pytest.raises(BotError) as err:
        parse_bot_spec(str(path))
    assert str(path) in str(err.value)
    assert message in str(err.value)


def test_bot_file_not_valid_utf8(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_bytes(b'command = "\xff"\n')
    with pytest.raises(BotError, match="not valid TOML") as err:
        read_bot_file(path)
    assert str(path) in str(err.value)


def test_missing_bot_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.toml"
    with pytest.raises(BotError, match=r"bot file .*nowhere\.toml not found") as err:
        parse_bot_spec(str(path))
    assert str(path) in str(err.value)
    with pytest.raises(BotError, match="not found"):
        parse_bot_spec(f"toml:{tmp_path}")  # a folder is no bot file


def test_bot_file_command_with_unbalanced_quotes_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, 'command = "python3 \'my bot.py"\nprotocol = "jsonl"\n')
    with pytest.raises(BotError) as err:
        read_bot_file(path)
    assert str(path) in str(err.value)


def test_bot_file_memory_mb_true_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, 'command = "x"\nprotocol = "jsonl"\nmemory_mb = true\n')
    with pytest.raises(BotError, match='"memory_mb" must be a positive integer'):
        read_bot_file(path)


def test_bot_file_unknown_time_key_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, 'command = "x"\nprotocol = "jsonl"\n[time]\nmoves = 1.0\n')
    with pytest.raises(BotError) as err:
        read_bot_file(path)
    assert str(path) in str(err.value) and "moves" in str(err.value)


# -- display names -------------------------------------------------------------------


def test_program_name_of_the_example_bot() -> None:
    argv = ("python3", "examples/tron2010/bot.py")
    assert (REPO / argv[1]).is_file()
    assert program_name(argv, REPO) == "tron2010/bot.py"


def test_program_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ("python3", "examples/tron2010/bot.py")
    assert program_name(argv) == "python3"  # no such file: the program
    (tmp_path / "examples" / "tron2010").mkdir(parents=True)
    (tmp_path / "examples" / "tron2010" / "bot.py").write_text("")
    assert program_name(argv) == "tron2010/bot.py"
    assert program_name(("python3", "-u", "examples/tron2010/bot.py", "-v")) == "tron2010/bot.py"
    assert program_name(("java", "-jar", "nothere.jar")) == "java"
    (tmp_path / "mybot").write_text("")
    assert program_name(("./mybot", "--fast")) == "mybot"
    assert program_name(("mybot",)) == "mybot"


def test_program_name_of_a_full_path_program_is_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    interpreter = Path(sys.executable)
    assert interpreter.is_file()
    assert program_name((str(interpreter), "missing.py")) == interpreter.name


def test_program_name_looks_in_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    assert program_name(("python3", "src/main.py"), tmp_path) == "src/main.py"
    assert program_name(("python3", "src/main.py"), tmp_path / "src") == "python3"


def test_cteam_spec_compiles_the_c_team_and_runs_it_over_jsonl(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed: cteam: bots cannot be compiled")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    example = Path(__file__).resolve().parents[2] / "examples" / "teams" / "tron_example.c"
    spec = parse_bot_spec(f"cteam:{example}")
    assert (spec.kind, spec.protocol, spec.name) == ("program", "jsonl", "tron_example.c")
    assert spec.command[1:3] == ("-m", "lightcycle.hosts.cteam")
    assert spec.command[-1].startswith(str(tmp_path / "cache"))
    broken = tmp_path / "broken.c"
    broken.write_text("int getName( {\n")
    with pytest.raises(BotError, match=r"(?s)cteam:.*broken\.c:1:"):
        parse_bot_spec(f"cteam:{broken}")

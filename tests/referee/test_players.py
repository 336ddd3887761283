"""Bot specs: built-in names, ``py:`` files, ``cmd:`` programs and TOML bot files."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

import lightcycle
from lightcycle.bots.api import BotError
from lightcycle.bots.registry import builtin_names
from lightcycle.referee.players import (
    SANDBOX_VARIABLE,
    BotSpec,
    InProcessPlayer,
    ProgramPlayer,
    check_readable,
    default_sandbox,
    launch,
    lightcycle_folders,
    make_player,
    parse_bot_spec,
    program_folder,
    program_name,
    read_bot_file,
)
from lightcycle.sandbox import Limits, SandboxError

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
        folder=(tmp_path / "build").resolve(),  # a bot file's cwd is the bot's folder
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
    assert spec.folder is None  # no cwd key: the program's own folder (launch)
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
    # it runs in its source's folder, and its sandbox reads its library and lightcycle
    assert spec.folder == example.parent and spec.read_only == (Path(spec.command[-1]),)
    player = make_player(spec, Limits(), None)  # starts nothing
    assert isinstance(player, ProgramPlayer) and player.folder == example.parent
    package = Path(lightcycle.__file__).resolve().parent
    assert player.read_only == (Path(spec.command[-1]), package)
    broken = tmp_path / "broken.c"
    broken.write_text("int getName( {\n")
    with pytest.raises(BotError, match=r"(?s)cteam:.*broken\.c:1:"):
        parse_bot_spec(f"cteam:{broken}")


# -- a program's own folder ----------------------------------------------------------

FOLDERS = """
# command (run from the base)        the bot's folder ("-": none, a system program)
./bots/a/bot                         bots/a
bots/a/bot                           bots/a
python3 bots/a/bot.py                bots/a
python3 -u -X dev bots/a/bot.py      bots/a
python3.11 bots/b/bot.py             bots/b
/usr/bin/python3 bots/a/bot.py       bots/a
pypy3 bots/b/bot.py                  bots/b
node bots/b/bot.js                   bots/b
java -jar bots/b/bot.jar             bots/b
bash bots/a/run.sh                   bots/a
./bots/a/run.sh --fast               bots/a
python3 -m bots.a                    -
python3 -c 'print(1)'                -
sh -c ./bots/a/bot                   -
python3 missing.py                   -
bots/a/missing                       -
mybot                                -
cat                                  -
/bin/cat                             -
/usr/bin/env                         -
"""

TREE = ("bots/a/bot", "bots/a/bot.py", "bots/a/run.sh", "bots/b/bot.py", "bots/b/bot.js")
TREE += ("bots/b/bot.jar", "bots/a/w.txt", "data.txt")


def _tree(base: Path) -> None:
    for name in TREE:
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text("")
        (base / name).chmod(0o755)


def _rows(table: str) -> list[tuple[str, str]]:
    rows = []
    for line in table.strip().splitlines():
        if line.startswith("#"):
            continue
        command, _, folder = line.rpartition(" ")
        rows.append((command.strip(), folder))
    return rows


@pytest.mark.parametrize(("command", "folder"), _rows(FOLDERS))
def test_program_folder(tmp_path: Path, command: str, folder: str) -> None:
    _tree(tmp_path)
    expected = None if folder == "-" else tmp_path / folder
    assert program_folder(shlex.split(command), tmp_path) == expected


LAUNCHES = """
# command (run from the base)          the bot's folder | the argv it gets (BASE: the base)
./bots/a/bot                           bots/a | ./bot
python3 bots/a/bot.py bots/a/w.txt     bots/a | python3 bot.py w.txt
python3 bots/a/bot.py data.txt         bots/a | python3 bot.py BASE/data.txt
python3 bots/a/bot.py --fast 3         bots/a | python3 bot.py --fast 3
python3 -m bots.a                      BASE   | python3 -m bots.a
mybot data.txt                         BASE   | mybot data.txt
"""


@pytest.mark.parametrize("line", LAUNCHES.strip().splitlines()[1:])
def test_launch_runs_the_bot_in_its_folder(tmp_path: Path, line: str) -> None:
    """Paths of the command are read from where it was given; the bot gets them relative
    to its own folder, its working directory (absolute when outside it)."""
    _tree(tmp_path)
    left, _, argv = line.partition("|")
    command, folder = left.rsplit(maxsplit=1)
    argv_given = tuple(shlex.split(command))
    spec = BotSpec(text=command, kind="program", command=argv_given, cwd=tmp_path)
    got_argv, got_folder = launch(spec)
    assert got_folder == (tmp_path if folder == "BASE" else tmp_path / folder)
    assert " ".join(got_argv) == argv.strip().replace("BASE", str(tmp_path))


def test_a_bot_file_cwd_wins_over_the_program_folder(tmp_path: Path) -> None:
    _tree(tmp_path)
    path = write(tmp_path, 'command = "python3 bots/a/bot.py"\nprotocol = "sexp"\ncwd = "."\n')
    assert launch(read_bot_file(path)) == (("python3", "bots/a/bot.py"), tmp_path.resolve())
    path = write(tmp_path, 'command = "python3 bots/a/bot.py"\nprotocol = "sexp"\n', "b.toml")
    assert launch(read_bot_file(path)) == (("python3", "bot.py"), tmp_path.resolve() / "bots/a")


def test_a_program_bot_runs_in_its_own_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Relative paths inside the bot are relative to its folder, wherever the referee runs."""
    bot = tmp_path / "bots" / "a" / "bot.py"
    bot.parent.mkdir(parents=True)
    bot.write_text("import os, sys\nsys.stdout.write(os.getcwd() + '\\n')\n")
    monkeypatch.chdir(tmp_path)
    player = make_player(parse_bot_spec("cmd:python3 bots/a/bot.py", "jsonl"), Limits(), None)
    assert isinstance(player, ProgramPlayer)
    proc, _ = player.ensure_process("cwd.log")
    try:
        assert proc.wait_exit(10) == 0
        assert proc.read().decode().strip() == str(bot.parent)
    finally:
        player.shutdown()


def test_lightcycle_bots_get_the_package() -> None:
    package = Path(lightcycle.__file__).resolve().parent
    assert (package / "hosts" / "cteam").is_dir()
    for argv in (("python3", "-m", "lightcycle.hosts.cteam", "x.so"), ("py", "-m", "lightcycle")):
        assert lightcycle_folders(argv) == (package,)
    for argv in (("python3", "-m", "lightcyclefoo"), ("python3", "lightcycle"), ("-m",)):
        assert lightcycle_folders(argv) == ()


# -- the sandbox level and readable folders --------------------------------------------


@pytest.mark.parametrize(("value", "level"), [(None, "auto"), ("", "auto"), (" full ", "full")])
def test_default_sandbox(monkeypatch: pytest.MonkeyPatch, value: str | None, level: str) -> None:
    if value is None:
        monkeypatch.delenv(SANDBOX_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(SANDBOX_VARIABLE, value)
    assert default_sandbox() == level


def test_default_sandbox_refuses_a_bad_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SANDBOX_VARIABLE, "strong")
    expected = "LIGHTCYCLE_SANDBOX='strong': set it to none, uid, auto or full"
    with pytest.raises(SandboxError, match=expected):
        default_sandbox()


def test_an_unreadable_folder_is_refused_saying_what_to_do(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only a root referee runs bots as other user ids (the uid pool)")
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o700)
    (folder / "bot").write_text("#!/bin/sh\n")
    (folder / "bot").chmod(0o700)
    with pytest.raises(SandboxError) as err:
        check_readable(("./bot",), folder, Limits(sandbox="full"))
    message = str(err.value)
    assert f"cannot read its folder {folder}" in message
    assert f"chmod -R o+rX {folder}" in message and "--sandbox none" in message
    folder.chmod(0o755)
    with pytest.raises(SandboxError, match=f"cannot read its program {folder / 'bot'}"):
        check_readable(("./bot",), folder, Limits(sandbox="full"))
    (folder / "bot").chmod(0o755)
    check_readable(("./bot",), folder, Limits(sandbox="full"))
    folder.chmod(0o700)
    check_readable(("./bot",), folder, Limits(sandbox="none"))  # runs as the referee

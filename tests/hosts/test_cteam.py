"""The C interface of the team course: tron.h, compiling teams, the host process.

The teams are compiled into a temporary folder and played as real host processes
through the referee (``cmd:`` specs on ``jsonl``), on ``court-small`` under ``teams@1``.
Test teams live in ``tests/hosts/c/``; the example is ``examples/teams/tron_example.c``.
"""

from __future__ import annotations

import ctypes
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lightcycle.hosts import cteam
from lightcycle.hosts.cteam import (
    CompileError,
    CompilerMissing,
    LibraryError,
    compile_team,
    header_path,
    team_bot_command,
)
from lightcycle.hosts.cteam import host as host_mod
from lightcycle.hosts.cteam.symbols import choose_functions, elf_functions, find_team_functions
from lightcycle.maps.registry import get_map
from lightcycle.protocols.base import Params
from lightcycle.protocols.jsonl import JsonLines
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import GameRecord, play_game
from lightcycle.referee.players import Player, ProgramPlayer, make_player, parse_bot_spec
from lightcycle.rules.engine import new_game
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import Limits

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "teams" / "tron_example.c"
C_DIR = Path(__file__).parent / "c"
RULESET = get_ruleset("teams")
COURT = get_map("court-small")
CONTROL = TimeControl.for_ruleset(RULESET.clock)

needs_gcc = pytest.mark.skipif(
    shutil.which("gcc") is None,
    reason="gcc is not installed: the C team interface compiles teams with gcc",
)


@pytest.fixture(scope="module")
def libs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example and the test teams, compiled once for the module."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed: the C team interface compiles teams with gcc")
    out = tmp_path_factory.mktemp("cteam-cache")
    built = {"example": compile_team(EXAMPLE, out)}
    for name in ("chatty", "segfault", "bad_direction"):
        built[name] = compile_team(C_DIR / f"{name}.c", out)
    return built


def c_player(lib: Path, log_dir: Path | None = None) -> Player:
    argv = (sys.executable, "-m", "lightcycle.hosts.cteam", str(lib))
    return make_player(parse_bot_spec("cmd:" + shlex.join(argv), "jsonl"), Limits(), log_dir)


def play(players: list[Player], seed: int, log_prefix: str = "game") -> GameRecord:
    return play_game(players, COURT, RULESET, seed=seed, controls=CONTROL, log_prefix=log_prefix)


@pytest.fixture
def shut() -> Iterator[list[Player]]:
    """Players to shut down after the test (their logs are written then)."""
    players: list[Player] = []
    yield players
    for p in players:
        p.shutdown()


def log_text(log_dir: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(log_dir.glob("*.log")))


# -- tron.h and the host's mirror of it --------------------------------------------------


@needs_gcc
def test_ctypes_structures_match_tron_h(tmp_path: Path) -> None:
    """Every size, offset and constant the host uses is the one gcc sees in tron.h."""
    lines = ["#include <stdio.h>", "#include <stddef.h>", '#include "tron.h"', "int main(void) {"]
    expected: list[str] = []
    for cname, struct in host_mod.STRUCTS.items():
        lines.append(f'printf("%zu\\n", sizeof(struct {cname}));')
        expected.append(str(ctypes.sizeof(struct)))
        for fname, *_ in struct._fields_:
            lines.append(f'printf("%zu\\n", offsetof(struct {cname}, {fname}));')
            expected.append(str(getattr(struct, fname).offset))
    constants = [
        "NORTH",
        "EAST",
        "SOUTH",
        "WEST",
        "TEAM_COUNT",
        "CYCLE_COUNT",
        "MAX_CYCLES",
        "MAX_PLAYER_NAME_LEN",
        "MAX_COLOR_NAME_LEN",
        "MAX_GRID_WIDTH",
        "MAX_GRID_HEIGHT",
        "MAX_WALLS",
    ]
    for name in constants:
        lines.append(f'printf("%d\\n", (int)({name}));')
        expected.append(str(getattr(host_mod, name)))
    lines.append("return 0; }")
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "layout"
    subprocess.run(
        ["gcc", "-std=c11", "-Wall", "-Werror", f"-I{header_path().parent}", str(src), "-o", exe],
        check=True,
    )
    got = subprocess.run([exe], capture_output=True, text=True, check=True).stdout.split()
    assert got == expected


@needs_gcc
def test_example_compiles_without_warnings(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            "gcc",
            *cteam.CFLAGS,
            "-Wall",
            "-Wextra",
            "-pedantic",
            f"-I{header_path().parent}",
            str(EXAMPLE),
            "-o",
            str(tmp_path / "example.so"),
            "-lm",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr


# -- finding the three functions ---------------------------------------------------------


def test_choose_functions_plain_prefixed_and_errors() -> None:
    assert choose_functions({"getName", "init", "move", "_init", "helper"}).prefix == ""
    found = choose_functions({"jane_doe_getName", "jane_doe_init", "jane_doe_move", "_init"})
    assert found.names() == ("jane_doe_getName", "jane_doe_init", "jane_doe_move")
    with pytest.raises(LibraryError, match=r"defines jane_doe_getName, jane_doe_init but not "):
        choose_functions({"jane_doe_getName", "jane_doe_init", "_init", "_fini"}, "lib.so")
    with pytest.raises(LibraryError, match="several sets"):
        choose_functions({f"{p}_{s}" for p in ("a", "b") for s in ("getName", "init", "move")})
    with pytest.raises(LibraryError, match="none of the team functions"):
        choose_functions({"_init", "_fini", "main"})


@needs_gcc
def test_elf_symbols_agree_with_nm(libs: dict[str, Path]) -> None:
    lib = libs["example"]
    found = elf_functions(lib.read_bytes())
    assert found is not None
    assert {"example_team_getName", "example_team_init", "example_team_move"} <= found
    nm = shutil.which("nm")
    if nm is not None:
        listed = subprocess.run(
            [nm, "-D", "--defined-only", str(lib)], capture_output=True, text=True, check=True
        ).stdout
        functions = {ln.split()[-1] for ln in listed.splitlines() if ln.split()[-2:-1] == ["T"]}
        assert found == functions
    assert elf_functions(b"not an ELF file at all" * 4) is None


@needs_gcc
def test_a_given_prefix_is_checked(libs: dict[str, Path]) -> None:
    lib = libs["example"]
    assert find_team_functions(lib, prefix="example_team_").move == "example_team_move"
    with pytest.raises(LibraryError, match="does not define getName, init, move"):
        find_team_functions(lib, prefix="")
    assert find_team_functions(libs["chatty"]).prefix == ""
    assert find_team_functions(libs["segfault"]).prefix == "crash_test_"


# -- the host's structures, driven in-process ---------------------------------------------


def turn_message(turn: int = 1) -> dict[str, Any]:
    """A ``turn`` message of a fresh teams game on court-small, as the referee sends it."""
    state = new_game(RULESET, COURT, seed=0, players=2, names=["c", "other"])
    codec = JsonLines(0)
    codec.start(state, Params())
    message: dict[str, Any] = json.loads(codec.turn(state))
    message["turn"] = turn
    message["cpu"] = [1234, 5678]
    return message


def test_move_data_holds_every_cycle_and_my_list_in_name_order() -> None:
    turn = host_mod.TurnData(turn_message(7), team=1)
    data = turn.data
    assert (data.turn, data.myTeam, data.cycleCount) == (7, 1, 20)
    assert list(data.cpuTime) == [1234, 5678]
    assert [data.cycles[k].name for k in range(20)] == [bytes([65 + k]) for k in range(20)]
    assert (data.cycles[10].x, data.cycles[10].y, data.cycles[10].team) == (11, 13, 1)
    assert [n.name for n in turn.walk()] == [bytes([75 + k]) for k in range(10)]
    assert all(n.direction == 0 and n.jump == 0 for n in turn.walk())


def test_moves_follow_the_list_as_relinked(capsys: pytest.CaptureFixture[str]) -> None:
    turn = host_mod.TurnData(turn_message(), team=0)
    nodes = turn.nodes
    for node in nodes:
        node.direction = host_mod.NORTH
    nodes[2].direction, nodes[2].jump = host_mod.WEST, 1
    nodes[4].direction = host_mod.NORTH | host_mod.SOUTH  # not one flag
    nodes[5].direction = 0  # never set
    # C, then A, B, D ... J; H is dropped from the list; J points back to D (a loop)
    nodes[1].next = ctypes.pointer(nodes[3])
    nodes[2].next = ctypes.pointer(nodes[0])
    nodes[6].next = ctypes.pointer(nodes[8])
    nodes[9].next = ctypes.pointer(nodes[3])
    turn.data.myCycles = ctypes.pointer(nodes[2])
    moves = turn.moves()
    assert list(moves) == ["C", "A", "B", "D", "G", "I", "J"]
    assert moves["C"] == {"heading": "w", "jump": True}
    assert moves["A"] == {"heading": "n", "jump": False}
    err = capsys.readouterr().err
    assert "cycle E: direction 5 is not exactly one of NORTH (1)" in err
    assert "cycle F: direction 0 is not exactly one of" in err
    assert "cycle H is missing from myCycles" in err
    assert "myCycles loops back" in err


def test_structures_are_poisoned_after_the_call() -> None:
    turn = host_mod.TurnData(turn_message(), team=0)
    turn.release()
    raw = ctypes.string_at(ctypes.addressof(turn.data), ctypes.sizeof(turn.data))
    assert set(raw) == {host_mod.POISON}
    nodes = ctypes.string_at(ctypes.addressof(turn.nodes), ctypes.sizeof(turn.nodes))
    assert set(nodes) == {host_mod.POISON}


def test_init_data_describes_the_court() -> None:
    state = new_game(RULESET, get_map("court-walls"), seed=0, players=2, names=["Ann", "Bob"])
    start = json.loads(JsonLines(1).start(state, Params(names=("Ann", "Bob"))))
    data = host_mod.build_init(start, seed=99)
    assert (data.width, data.height, data.myTeam, data.seed) == (64, 48, 1, 99)
    assert (data.cyclesPerTeam, data.cycleCount, data.jumps, data.turnLimit) == (10, 20, 1, 2000)
    walls = {(data.walls[k].x, data.walls[k].y) for k in range(data.wallCount)}
    assert len(walls) == data.wallCount == len(start["board"]["walls"])
    assert (0, 0) in walls and (32, 23) in walls  # the perimeter and the centre's walls
    assert (data.teams[0].name, data.teams[1].name) == (b"Ann", b"Bob")
    assert (data.teams[0].color, data.teams[1].rgb) == (b"cyan", 0xFF00FF)
    with pytest.raises(host_mod.GameError, match=r"larger than tron\.h allows"):
        host_mod.build_init({**start, "board": {**start["board"], "width": 65}}, seed=1)
    duel = new_game(get_ruleset("classic"), get_map("arena-15"), seed=0, players=2)
    with pytest.raises(host_mod.GameError, match="named by letters"):
        host_mod.build_init(json.loads(JsonLines(0).start(duel, Params())), seed=1)


# -- compiling ---------------------------------------------------------------------------


@needs_gcc
def test_compile_is_cached_by_content(tmp_path: Path) -> None:
    src = tmp_path / "team.c"
    src.write_text(EXAMPLE.read_text())
    out = tmp_path / "cache"
    lib = compile_team(src, out)
    assert lib.parent == out and lib.suffix == ".so"
    stamp = lib.stat().st_mtime_ns
    assert compile_team(src, out) == lib and lib.stat().st_mtime_ns == stamp  # reused
    src.write_text(EXAMPLE.read_text().replace("Example team", "Changed team"))
    changed = compile_team(src, out)
    assert changed != lib and changed.is_file()
    assert not list(out.glob("*.tmp"))


def test_cache_dir_honours_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cteam.cache_dir() == tmp_path / "lightcycle" / "cteam"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")
    assert cteam.cache_dir() == Path.home() / ".cache" / "lightcycle" / "cteam"


def test_missing_gcc_says_to_install_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(CompilerMissing, match=r"gcc is not installed.*install"):
        compile_team(EXAMPLE, tmp_path)


@needs_gcc
def test_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(CompileError) as info:
        compile_team(C_DIR / "syntax_error.c", tmp_path)
    assert "syntax_error.c:9:" in str(info.value)
    assert "error" in str(info.value)
    assert list(tmp_path.glob("*.so")) == []


@needs_gcc
def test_library_without_move_is_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(LibraryError) as info:
        team_bot_command(C_DIR / "no_move.c", tmp_path)
    message = str(info.value)
    assert "jane_doe_getName, jane_doe_init but not jane_doe_move" in message
    assert "no_move.c" in message
    # the host refuses it too, saying so in its log, and exits without playing
    lib = tmp_path / "no_move.so"
    subprocess.run(
        ["gcc", *cteam.CFLAGS, f"-I{header_path().parent}", str(C_DIR / "no_move.c"), "-o", lib],
        check=True,
    )
    done = subprocess.run(
        [sys.executable, "-m", "lightcycle.hosts.cteam", str(lib)],
        input=b"",
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == host_mod.EXIT_SETUP
    assert done.stdout == b""
    assert b"but not jane_doe_move" in done.stderr
    with pytest.raises(LibraryError, match="not found"):
        find_team_functions(tmp_path / "missing.so")


@needs_gcc
def test_team_bot_command(libs: dict[str, Path], tmp_path: Path) -> None:
    argv = team_bot_command(EXAMPLE, libs["example"].parent)
    assert argv == (sys.executable, "-m", "lightcycle.hosts.cteam", str(libs["example"]))


# -- playing through the referee ---------------------------------------------------------


@needs_gcc
def test_example_beats_randombot(libs: dict[str, Path], shut: list[Player]) -> None:
    c_team = c_player(libs["example"])
    shut.append(c_team)
    wins = 0
    cpu_used = 0
    for seed in range(4):
        me = seed % 2  # both sides of the court
        random_team = make_player(parse_bot_spec("builtin:randombot"), Limits(), None)
        players = [c_team, random_team] if me == 0 else [random_team, c_team]
        record = play(players, seed)
        assert record.outcome is not None and record.final.outcome is not None
        record.replay.verify()
        verdict = record.seats[me].verdict
        assert verdict.kind not in ("crashed", "bad_output", "timeout"), verdict
        cpu = record.replay.cpu
        assert cpu is not None and len(cpu) == record.final.turn
        assert all(len(turn) == 2 and min(turn) >= 0 for turn in cpu)
        cpu_used += record.final.cpu[me]
        if Path("/proc/self/schedstat").exists():  # nanosecond CPU times: every turn counts
            assert sum(turn[me] > 0 for turn in cpu) > len(cpu) // 2, cpu[:10]
        ranks = record.outcome.ranks
        wins += ranks[me] == 1 and ranks[1 - me] == 2
    # the host's process tree was measured (in clock ticks: its start-up shows at least)
    assert cpu_used > 0
    assert isinstance(c_team, ProgramPlayer)
    assert c_team.starts == 1  # one host process played all four games (jsonl)
    assert wins >= 3, f"the example won {wins} of 4 games against randombot"


@needs_gcc
def test_segfault_is_crashed_and_the_game_ends(
    libs: dict[str, Path], tmp_path: Path, shut: list[Player]
) -> None:
    c_team = c_player(libs["segfault"], tmp_path / "logs")
    shut.append(c_team)
    other = make_player(parse_bot_spec("builtin:randombot"), Limits(), None)
    record = play([c_team, other], seed=1)
    verdict = record.seats[0].verdict
    assert verdict.kind == "crashed", verdict
    assert "SIGSEGV" in verdict.detail or "signal 11" in verdict.detail, verdict.detail
    assert record.outcome.ranks == (2, 1)
    assert record.final.turn == 3
    record.replay.verify()
    c_team.shutdown()  # writes the log
    assert "about to crash on turn 3\n" in log_text(tmp_path / "logs")  # printed just before


@needs_gcc
def test_printf_goes_to_the_log(libs: dict[str, Path], tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    c_team = c_player(libs["chatty"], log_dir)
    other = make_player(parse_bot_spec("builtin:randombot"), Limits(), None)
    try:
        record = play([other, c_team], seed=2, log_prefix="chatty")
    finally:
        c_team.shutdown()
    assert record.seats[1].verdict.kind == "ok", record.seats[1].verdict
    assert all(v is None for turn in record.replay.verdicts or [] for v in turn)
    record.replay.verify()
    log = log_text(log_dir)
    assert "chatty getName" in log
    assert "chatty init 24x20 team 1" in log
    assert "chatty move turn 1\n" in log
    assert f"chatty move turn {record.final.turn}\n" in log


@needs_gcc
def test_invalid_direction_forfeits_that_cycle_only(libs: dict[str, Path], tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    c_team = c_player(libs["bad_direction"], log_dir)
    other = make_player(parse_bot_spec("builtin:randombot"), Limits(), None)
    try:
        record = play([c_team, other], seed=4, log_prefix="bad")
    finally:
        c_team.shutdown()
    verdict = record.seats[0].verdict
    assert verdict.kind == "illegal_move", verdict
    assert verdict.detail == "no move for cycle 0"
    assert not record.seats[0].failed  # the seat played on
    assert record.replay.verdicts is not None
    assert record.replay.verdicts[1][0] == {
        "verdict": "illegal_move",
        "detail": "no move for cycle 0",
    }
    first = record.final.cycles[0]
    assert first.name == "A" and not first.alive
    assert first.death is not None and first.death.turn == 2
    assert "no move for cycle 0" in str(first.death)
    record.replay.verify()
    log = log_text(log_dir)
    assert (
        "cycle A: direction 3 is not exactly one of NORTH (1), EAST (2), SOUTH (4) or WEST (8)"
        in log
    )


@needs_gcc
def test_host_stdout_carries_only_replies(libs: dict[str, Path]) -> None:
    """Driven by hand: the chatty team's printf()s never reach the protocol's stdout."""
    state = new_game(RULESET, COURT, seed=0, players=2, names=["c", "other"])
    codec = JsonLines(0)
    data = codec.start(state, Params()) + codec.turn(state) + codec.end(state)
    done = subprocess.run(
        [sys.executable, "-m", "lightcycle.hosts.cteam", str(libs["chatty"])],
        input=data,
        capture_output=True,
        timeout=30,
        check=False,
        env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith('{"moves":{"A":{"heading":')
    answers = codec.read_move(bytearray(done.stdout), state)
    assert answers is not None and len(answers) == 10
    assert b"chatty move turn 1" in done.stderr


@needs_gcc
def test_a_line_printed_before_a_crash_is_kept(libs: dict[str, Path]) -> None:
    """Without PYTHONUNBUFFERED (which the referee sets), C's stdout is line-buffered."""
    message = turn_message(3)
    state = new_game(RULESET, COURT, seed=0, players=2, names=["c", "other"])
    data = JsonLines(0).start(state, Params()) + json.dumps(message).encode() + b"\n"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    done = subprocess.run(
        [sys.executable, "-m", "lightcycle.hosts.cteam", str(libs["segfault"])],
        input=data,
        capture_output=True,
        timeout=30,
        check=False,
        env=env,
    )
    assert done.returncode == -11  # SIGSEGV
    assert done.stdout == b""
    assert b"about to crash on turn 3\n" in done.stderr

"""Builds of submitted code (`lightcycle.sandbox.build.run_build`) with real gcc.

Each protection is shown holding in the full sandbox and, where it makes a difference,
missing at ``level="none"``, so no test here passes with the protection gone. After every
test nothing of the build may remain: no process marked by this referee, no pool user id
held, no cgroup, no work folder, no zombie child.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lightcycle.sandbox import cgroups, reaper
from lightcycle.sandbox.build import BuildLimits, extract_artifacts, run_build
from lightcycle.sandbox.limits import SandboxError
from lightcycle.sandbox.spawn import reap_sandbox_orphans
from lightcycle.sandbox.strays import reap_strays
from lightcycle.sandbox.uids import POOL
from tests.sandbox.survivors import full_unavailable, zombie_children

WHY_NOT = full_unavailable()
needs_full = pytest.mark.skipif(WHY_NOT is not None, reason=f"no full sandbox: {WHY_NOT}")
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
LEVELS = pytest.mark.parametrize(
    "level", [pytest.param("full", marks=needs_full), pytest.param("none")]
)

GOOD_C = """#include <stdio.h>
int main(void) {
    char line[256];
    while (fgets(line, sizeof line, stdin)) printf("got %s", line);
    return 0;
}
"""
BAD_C = """#include <stdio.h>
int main(void) {
    int x = ;
    return 0;
}
"""


@pytest.fixture(autouse=True)
def nothing_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Work folders go under ``tmp_path/tmp``; after the test none of them, and nothing
    else of a build, may remain."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    yield temp
    assert reaper.bots_of(os.getpid()) == [], "a process of a build is still running"
    assert POOL.held() == [], "a pool user id was not given back"
    assert list(temp.iterdir()) == [], "a work folder was left behind"
    assert zombie_children() == set()
    where = cgroups.hierarchy()
    if where is not None:
        tag = reaper.owner_tag()
        for parent in where.parents:
            left = [n for n in os.listdir(parent) if tag in n]
            assert left == [], f"cgroups left in {parent}: {left}"


def source_with(tmp_path: Path, files: dict[str, str]) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name, text in files.items():
        (src / name).write_text(text)
    os.chmod(src, 0o700)  # the pool user id cannot read it: the source goes in as a tar
    return src


@needs_gcc
@LEVELS
def test_a_c_bot_compiles_and_its_binary_runs(tmp_path: Path, level: str) -> None:
    src = source_with(tmp_path, {"bot.c": GOOD_C})
    out = tmp_path / "out"
    result = run_build(
        ["gcc", "-O2", "-o", "bot", "bot.c"], src, out=out, artifacts=("bot",), level=level
    )
    assert result.ok, result.output + result.reason
    assert result.exit_code == 0 and result.artifacts == ("bot",) and result.reason == ""
    assert result.cpu_seconds > 0
    ran = subprocess.run(
        [str(out / "bot")], input="hello\n", capture_output=True, text=True, timeout=10
    )
    assert ran.stdout == "got hello\n"
    assert sorted(os.listdir(src)) == ["bot.c"]  # the source folder is untouched
    if level == "full":
        assert "bubblewrap" in result.protections and "no network" in result.protections


@needs_gcc
@LEVELS
def test_a_compile_error_says_which_line(tmp_path: Path, level: str) -> None:
    src = source_with(tmp_path, {"bot.c": BAD_C})
    out = tmp_path / "out"
    result = run_build(["gcc", "-o", "bot", "bot.c"], src, out=out, artifacts=("bot",), level=level)
    assert not result.ok
    assert result.exit_code == 1 and result.limit is None
    assert "bot.c:3:" in result.output and "error" in result.output
    assert result.reason == "the build exited with status 1"
    assert not (out / "bot").exists()


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(4)
    sock.settimeout(0.0)
    yield sock
    sock.close()


@LEVELS
def test_a_build_cannot_reach_a_host_listener(
    tmp_path: Path, level: str, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), 2).close()"
    src = source_with(tmp_path, {"x.txt": "x"})
    result = run_build([sys.executable, "-c", code], src, out=tmp_path / "out", level=level)
    try:
        conn, _ = listener.accept()
        conn.close()
        connected = True
    except BlockingIOError:
        connected = False
    if level == "full":
        assert not result.ok and not connected
        assert "Connection refused" in result.output or "unreachable" in result.output
    else:  # the control: without the sandbox the same build gets through
        assert result.ok and connected, result.output


@LEVELS
def test_a_build_writes_only_its_work_folder_and_tmp(tmp_path: Path, level: str) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o777)
    os.chmod(elsewhere, 0o777)  # even a folder open to all
    home_file = Path.home() / f"lightcycle-build-test-{os.getpid()}"
    targets = [src / "evil", elsewhere / "evil"]
    if level == "full":  # never written for real by the control run
        targets += [home_file, Path("/usr/lib") / home_file.name]  # the last one is visible
    script = "; ".join(f"echo x > {t} && echo wrote {t}" for t in targets)
    script += "; echo made > made.txt"
    if level == "full":  # the scratch /tmp is the sandbox's own
        script += "; echo t > /tmp/t && cat /tmp/t"
    result = run_build(
        ["sh", "-c", script], src, out=tmp_path / "out", artifacts=("made.txt",), level=level
    )
    assert result.ok, result.output
    assert (tmp_path / "out" / "made.txt").read_text() == "made\n"
    written = [t for t in targets if t.exists()]
    if level == "full":
        assert written == [], result.output
        assert "wrote" not in result.output
        assert result.output.count("Directory nonexistent") == len(targets) - 1, result.output
        assert "Read-only file system" in result.output or "Permission denied" in result.output
        assert result.output.endswith("t\n")  # the scratch /tmp was writable
    else:
        assert written == targets[:2]
    home_file.unlink(missing_ok=True)


@LEVELS
def test_an_endless_loop_is_stopped_at_the_wall_time(tmp_path: Path, level: str) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    limits = BuildLimits(wall_time=1.0, cpu_time=None)
    result = run_build(
        ["sh", "-c", "while :; do :; done"], src, out=tmp_path / "o", limits=limits, level=level
    )
    assert result.timed_out and result.limit == "wall time" and not result.ok
    assert 1.0 <= result.wall_seconds < 6
    assert result.reason == "stopped at its wall-time limit (1 s)"


@needs_full
def test_a_child_burning_cpu_is_stopped_at_the_cpu_time(tmp_path: Path) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    limits = BuildLimits(wall_time=30.0, cpu_time=0.5)
    cmd = ["sh", "-c", "(while :; do :; done) & wait"]
    result = run_build(cmd, src, out=tmp_path / "o", limits=limits, level="full")
    assert result.limit == "CPU time" and not result.timed_out and not result.ok
    assert result.cpu_seconds >= 0.5
    assert "CPU-time limit (0.5 s)" in result.reason


@needs_full
def test_a_fork_bomb_is_stopped_at_the_process_limit(tmp_path: Path) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    limits = BuildLimits(wall_time=10.0, processes=16)
    bomb = "i=0; while :; do sleep 60 & i=$((i+1)); echo $i; done"
    result = run_build(["sh", "-c", bomb], src, out=tmp_path / "o", limits=limits, level="full")
    assert not result.ok and not result.timed_out
    assert "Cannot fork" in result.output
    forks = [int(x) for x in result.output.split() if x.isdigit()]
    assert forks and max(forks) <= 16  # sleepers count; the sandbox's shells too
    # the sleepers it left die with the build (checked by the autouse fixture)


@LEVELS
def test_output_over_the_cap_is_cut(tmp_path: Path, level: str) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    limits = BuildLimits(output=1000)
    cmd = ["sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x; echo done >&2"]
    result = run_build(cmd, src, out=tmp_path / "o", limits=limits, level=level)
    assert result.ok
    head, _, note = result.output.partition("\n[lightcycle: output cut: ")
    assert head == "x" * 1000
    assert note.startswith("99005 more bytes not shown (the limit is 1000 bytes)]")


@needs_full
def test_the_work_folder_is_full_at_its_size(tmp_path: Path) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    limits = BuildLimits(work_size=1 << 20)
    cmd = ["sh", "-c", "head -c 4000000 /dev/zero > big"]
    result = run_build(cmd, src, out=tmp_path / "o", limits=limits, level="full")
    assert not result.ok and "No space left on device" in result.output


def test_a_work_folder_over_its_size_fails_without_the_sandbox(tmp_path: Path) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    limits = BuildLimits(work_size=1 << 20)
    cmd = ["sh", "-c", "head -c 3000000 /dev/zero > big"]
    result = run_build(cmd, src, out=tmp_path / "o", limits=limits, level="none")
    assert not result.ok and result.limit == "work folder size"
    assert "the work folder grew over its 1 MiB" in result.reason


@LEVELS
def test_links_out_and_special_files_are_not_copied(tmp_path: Path, level: str) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    cmd = ["sh", "-c", "ln -s /etc/passwd bot; mkfifo pipe; mkdir d; ln -s ../../etc d/up"]
    out = tmp_path / "out"
    result = run_build(cmd, src, out=out, artifacts=("bot", "pipe", "d"), level=level)
    assert not result.ok
    assert result.artifacts == ("d",)
    assert "bot: refused (a symbolic link pointing outside)" in result.problems
    assert "pipe: refused (a special file, not a regular one)" in result.problems
    assert "d/up: refused (a symbolic link pointing outside)" in result.problems
    assert sorted(os.listdir(out)) == ["d"] and os.listdir(out / "d") == []


def test_a_chain_of_inside_links_that_leads_outside_is_refused(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, target in (("a/x", "."), ("a/y", "x/../..")):  # each looks inside alone
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
        info = tarfile.TarInfo("a/y/evil")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    out = tmp_path / "out"
    copied, problems = extract_artifacts(buf.getvalue(), ["a"], out)
    assert "a/y: refused (a symbolic link pointing outside)" in problems
    assert "a/y/evil: refused (its folder leads outside the output folder)" in problems
    assert not (tmp_path / "evil").exists()
    assert not (out / "a" / "y").is_symlink()
    assert copied == ["a"]


def test_a_missing_artifact_is_named(tmp_path: Path) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    result = run_build(["true"], src, out=tmp_path / "o", artifacts=("bot",), level="none")
    assert not result.ok and result.reason == "bot: not made by the build"


@pytest.mark.parametrize("name", ["../x", "/etc/passwd", ".", ""])
def test_artifact_names_outside_the_work_folder_are_refused(tmp_path: Path, name: str) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    with pytest.raises(SandboxError, match="give a path inside the work folder"):
        run_build(["true"], src, out=tmp_path / "o", artifacts=(name,), level="none")


def test_a_missing_compiler_is_a_sandbox_error(tmp_path: Path) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    with pytest.raises(SandboxError, match="no such program on the PATH"):
        run_build(["no-such-cc-here"], src, out=tmp_path / "o", level="none")


KILLED_REFEREE = """
import sys
from pathlib import Path
from lightcycle.sandbox.build import BuildLimits, run_build
run_build(["sh", "-c", "while :; do sleep 1; done"], Path(sys.argv[1]), out=Path(sys.argv[2]),
          limits=BuildLimits(wall_time=120), level=sys.argv[3])
"""


@pytest.mark.xdist_group("referee-deaths")  # as tests/referee/test_referee_death.py: a reaper
# run here must not end the strays another test is looking at
@LEVELS
def test_a_referee_killed_mid_build_leaves_nothing_after_the_reaper(
    tmp_path: Path, level: str, nothing_left: Path
) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    env = {**os.environ, "TMPDIR": str(nothing_left)}
    cmd = [sys.executable, "-c", KILLED_REFEREE, str(src), str(tmp_path / "o"), level]
    referee = subprocess.Popen(cmd, env=env)
    try:
        end = time.monotonic() + 30
        while not reaper.bots_of(referee.pid):
            assert referee.poll() is None and time.monotonic() < end, "the build never started"
            time.sleep(0.02)
        made = sorted(p.name.split("-")[1] for p in nothing_left.iterdir())
        assert made == ["build", "referee"]  # its work folder, its lifeline
        time.sleep(0.2)
    finally:
        referee.send_signal(signal.SIGKILL)
        referee.wait()
    end = time.monotonic() + 10
    while reaper.bots_of(referee.pid):  # the build dies with its referee, no reaper needed
        assert time.monotonic() < end, f"left running: {reaper.bots_of(referee.pid)}"
        time.sleep(0.02)
    # this test process may be a subreaper (an earlier build at level none made it one):
    # then the dead referee's orphans are its children, to be reaped as a referee does
    time.sleep(0.1)
    reap_sandbox_orphans()
    reap_strays()  # what the next referee does when it starts: the folder goes
    # (the autouse fixture checks that no folder, process or cgroup is left)


@LEVELS
def test_a_build_killed_by_a_signal_names_it(tmp_path: Path, level: str) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    result = run_build(["sh", "-c", "kill -SEGV $$"], src, out=tmp_path / "o", level=level)
    assert not result.ok and result.exit_code is None and result.signal == "SIGSEGV"
    assert result.reason == "the build was killed by signal SIGSEGV"

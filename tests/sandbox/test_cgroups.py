"""`lightcycle.sandbox.cgroups`: a cgroup per bot counts shared memory and processes.

Each protection is run twice where it matters: with cgroups (the bot is killed or
bounded) and with ``LIGHTCYCLE_CGROUPS=off`` (the same bot gets past its limit), so
every assertion is shown able to fail. Everything that needs a writable cgroup skips,
with `lightcycle.sandbox.cgroups.status`'s reason, on a host without one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from lightcycle.sandbox import BotProcess, Limits, cgroups, proctree, reaper
from lightcycle.sandbox.strays import reap_strays
from tests.sandbox.lab import run_in_lab
from tests.sandbox.survivors import full_unavailable, leftovers
from tests.waiting import wait_for

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="cgroups are Linux only"
)

PY = sys.executable
MIB = 1 << 20
LIMIT = 128 * MIB

HOG = """
import mmap, os, sys
kind, mib, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
chunk = b"\\1" * (1 << 20)
if kind == "mmap":  # MAP_SHARED anonymous: RLIMIT_DATA does not count it
    m = mmap.mmap(-1, mib << 20, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    for _ in range(mib):
        m.write(chunk)
else:  # a file in a tmpfs (/dev/shm, /tmp): page cache that no rlimit counts
    with open(path, "wb") as f:
        for _ in range(mib):
            f.write(chunk)
print("survived", mib, flush=True)
sys.stdin.readline()  # stays (a bot waiting for its next line) until its input ends
"""

THREADS = """
import sys, threading
stop = threading.Event()
n = 0
try:
    for _ in range(int(sys.argv[1])):
        threading.Thread(target=stop.wait, daemon=True).start()
        n += 1
except RuntimeError:
    pass
print("threads", n, flush=True)
stop.set()
"""

REFEREE = """
import json, sys, time
from lightcycle.sandbox import BotProcess, Limits, lifeline
if sys.argv[1:] == ["no-undertaker"]:
    lifeline.start_undertaker = lambda file: None
bot = BotProcess([sys.executable, "-c", "import time; time.sleep(120)"], limits=Limits())
print(json.dumps({"pid": bot.pid, "folders": [str(f) for f in bot.cgroup.folders]}), flush=True)
time.sleep(120)
"""


def need_cgroups() -> None:
    on, why = cgroups.status()
    if not on:
        pytest.skip(f"no usable cgroup here: {why}")


def read_line(proc: BotProcess, timeout: float = 15.0) -> str:
    """The bot's first line of output ('' if it ended or said nothing in time)."""
    data = b""
    end = time.monotonic() + timeout
    while b"\n" not in data and time.monotonic() < end:
        data += proc.read()
        if proc.stdout_eof:
            break
        time.sleep(0.01)
    return data.decode(errors="replace").strip()


def levels() -> list[object]:
    return [
        pytest.param("none", id="none"),
        pytest.param("full", id="full"),
    ]


def bot_folder(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(textwrap.dedent(text))
    os.chmod(tmp_path, 0o755)  # a root referee's bot reads through "others"
    os.chmod(folder, 0o755)
    os.chmod(folder / name, 0o644)
    return folder


def level_or_skip(level: str) -> None:
    need_cgroups()
    if level == "full":
        why = full_unavailable()
        if why is not None:
            pytest.skip(why)


# -- the pure parts ----------------------------------------------------------------------


def test_own_cgroups_reads_v1_and_v2_lines() -> None:
    text = "12:pids:/a\n4:memory:/process_api/x\n2:cpu,cpuacct:/\n0::/user.slice/s.scope\n"
    assert cgroups.own_cgroups(text) == {
        "pids": "/a",
        "memory": "/process_api/x",
        "cpu": "/",
        "cpuacct": "/",
        "": "/user.slice/s.scope",
    }


@pytest.mark.parametrize("value", ["off", "OFF", "0", "no", "false"])
def test_the_variable_turns_them_off(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cgroups.VARIABLE, value)
    assert cgroups.hierarchy() is None
    on, why = cgroups.status()
    assert not on and why.startswith(f"turned off by {cgroups.VARIABLE}=")
    assert cgroups.group_for("1-2-3-abc", LIMIT, 8) is None


# -- a group per bot ---------------------------------------------------------------------


@pytest.mark.parametrize("level", levels())
def test_a_bot_runs_in_its_group_which_is_removed_when_it_is_closed(
    level: str, tmp_path: Path
) -> None:
    level_or_skip(level)
    folder = bot_folder(tmp_path, "hog.py", HOG)
    proc = BotProcess(
        [PY, "hog.py", "mmap", "1", "-"], cwd=folder, limits=Limits(memory=LIMIT, sandbox=level)
    )
    try:
        assert proc.cgroup is not None
        assert "cgroup memory (shared memory counted)" in proc.protections
        assert "cgroup pids" in proc.protections
        assert read_line(proc) == "survived 1"
        for f in proc.cgroup.folders:
            assert f.is_dir() and f.name == f"{cgroups.PREFIX}{proc.mark}"
        members = proc.cgroup.processes()
        assert members and set(members) >= set(proc.alive_processes()) - {proc.pid}
        assert proc.pid in members  # the first process joined before the bot ran
    finally:
        proc.close(grace=0)
    assert leftovers(proc) == []
    assert not any(f.exists() for f in proc.cgroup.folders), "the bot's group was left"


REAPS = pytest.mark.xdist_group("referee-deaths")  # as tests/referee/test_referee_death.py:
# a reaper run here must not end the bots another test is looking at


@pytest.mark.parametrize("undertaker", ["undertaker", "no-undertaker"])
def test_a_referee_killed_with_sigkill_leaves_no_group(undertaker: str) -> None:
    """A dead referee's groups are removed by its undertaker at once
    (`lightcycle.sandbox.undertaker`); without one, they stay until `reap_strays` (a
    referee's next start) removes them: without that pass they would be left for good.

    In a PID namespace of its own (`tests.sandbox.lab`): a referee starting elsewhere
    meanwhile would remove the dead referee's group before this test looks at it.
    """
    need_cgroups()
    run_in_lab(groups_of_a_killed_referee, undertaker)


def groups_of_a_killed_referee(undertaker: str) -> None:  # in the lab
    ref = subprocess.Popen([PY, "-c", REFEREE, undertaker], stdout=subprocess.PIPE, text=True)
    try:
        assert ref.stdout is not None
        info = json.loads(ref.stdout.readline())
        folders = [Path(f) for f in info["folders"]]
        assert all(f.is_dir() for f in folders)
        ref.send_signal(signal.SIGKILL)
        ref.wait()
        assert wait_for(lambda: not any(cgroups._procs(f) for f in folders)), (
            "the bot outlived its referee"
        )
        if undertaker == "undertaker":
            assert wait_for(lambda: not any(f.exists() for f in folders)), (
                "the undertaker left the dead referee's group"
            )
            return
        time.sleep(0.2)
        assert all(f.is_dir() for f in folders), "nothing to reap: the test proves nothing"
        reap_strays()
        assert not any(f.exists() for f in folders), "the reaper left the dead referee's group"
    finally:
        ref.kill()
        ref.wait()


@pytest.mark.parametrize("reap", ["1", "0"], ids=["strays-reaped", "REAP_STRAYS=0"])
def test_detection_kills_a_dead_referees_leftovers_only_when_strays_are_reaped(
    reap: str,
) -> None:
    """The first cgroup detection of a process removes dead referees' groups; with
    ``LIGHTCYCLE_REAP_STRAYS=0`` it leaves a group with processes in it as it is (and
    still removes the empty ones), as that variable promises."""
    need_cgroups()
    run_in_lab(detection_after_a_dead_referee, reap)


def detection_after_a_dead_referee(reap: str) -> None:  # in the lab
    found = cgroups.hierarchy()
    assert found is not None
    gone = subprocess.Popen(["true"])
    start = proctree.start_time(gone.pid)
    gone.wait()
    mark = f"{gone.pid}-{start}-{reaper.pid_namespace()}-{uuid.uuid4().hex}"
    busy = cgroups.BotGroup(found, mark, LIMIT, 8)
    empty = cgroups.BotGroup(found, f"{gone.pid}-{start}-{reaper.pid_namespace()}-0", LIMIT, 8)
    left = subprocess.Popen(["sleep", "60"])
    try:
        for folder in busy.folders:
            (folder / "cgroup.procs").write_text(str(left.pid))
        os.environ["LIGHTCYCLE_REAP_STRAYS"] = reap
        cgroups.detect.cache_clear()
        assert isinstance(cgroups.detect(), cgroups.Hierarchy)
        assert not any(f.exists() for f in empty.folders), "an empty stale group stayed"
        if reap == "0":
            assert left.poll() is None, "killed although LIGHTCYCLE_REAP_STRAYS=0"
            assert all(f.is_dir() for f in busy.folders)
        else:
            assert wait_for(lambda: left.poll() is not None), "the leftover survived"
            assert not any(f.exists() for f in busy.folders)
    finally:
        left.kill()
        left.wait()
        busy.remove(timeout=5.0)


@REAPS
def test_a_live_referees_groups_are_left_alone() -> None:
    need_cgroups()
    found = cgroups.hierarchy()
    assert found is not None
    mine = cgroups.BotGroup(found, reaper.new_mark(), LIMIT, 8)
    other_ns = f"{os.getpid()}-{proctree.start_time(os.getpid())}-1-{uuid.uuid4().hex}"
    foreign = cgroups.BotGroup(found, other_ns, LIMIT, 8)  # a referee we cannot judge
    try:
        reap_strays()
        assert all(f.is_dir() for f in (*mine.folders, *foreign.folders))
    finally:
        assert mine.remove() and foreign.remove()


# -- shared memory -----------------------------------------------------------------------

KINDS = [
    pytest.param("mmap", "none", id="MAP_SHARED-none"),
    pytest.param("mmap", "full", id="MAP_SHARED-full"),
    pytest.param("shm_file", "none", id="dev-shm-file-none"),
    pytest.param("shm_file", "full", id="dev-shm-file-full"),
    pytest.param("tmp_file", "full", id="tmp-file-full"),
]


def run_hog(folder: Path, kind: str, level: str, mib: int) -> tuple[str, str, BotProcess]:
    """Run the hog of ``kind`` for ``mib`` MiB under a 128 MiB limit; its first line
    and how it ended."""
    path = {
        "mmap": "-",
        "shm_file": f"/dev/shm/lightcycle-test-{uuid.uuid4().hex}",
        "tmp_file": "/tmp/hog.bin",
    }[kind]
    limits = Limits(memory=LIMIT, sandbox=level, scratch=1024 * MIB, file_size=None)
    proc = BotProcess([PY, "hog.py", kind, str(mib), path], cwd=folder, limits=limits)
    try:
        line = read_line(proc)
        proc.close_stdin()
        proc.wait_exit(10)
        status = proc.status_text()
    finally:
        proc.close(grace=0)
        if kind == "shm_file":  # the host's /dev/shm without bubblewrap
            Path(path).unlink(missing_ok=True)
    assert leftovers(proc) == []
    return line, status, proc


@pytest.mark.parametrize(("kind", "level"), KINDS)
def test_shared_memory_past_the_limit_kills_the_bot_and_says_why(
    kind: str, level: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    level_or_skip(level)
    if (kind, level) == ("shm_file", "full") and os.geteuid() == 0:
        pytest.skip("a root referee's sandboxed bot cannot write /dev/shm at all (root's, 0755)")
    folder = bot_folder(tmp_path, "hog.py", HOG)
    line, status, _ = run_hog(folder, kind, level, 32)  # under the limit: plays
    assert line == "survived 32", status
    assert status == "exit code 0"
    line, status, proc = run_hog(folder, kind, level, 300)  # past it: killed
    assert line == "", f"the hog survived 300 MiB under a 128 MiB limit ({status})"
    assert status.startswith("killed: over its memory limit (128 MiB, shared memory counted)")
    assert proc.cgroup is not None and not any(f.exists() for f in proc.cgroup.folders)
    monkeypatch.setenv(cgroups.VARIABLE, "off")  # the same bot without its cgroup
    line, status, proc = run_hog(folder, kind, level, 300)
    assert proc.cgroup is None
    assert line == "survived 300", f"without cgroups the hog should get past: {status}"


# -- processes ---------------------------------------------------------------------------


def test_the_pids_limit_bounds_a_bot_that_runs_as_the_referees_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At level ``none`` no ``RLIMIT_NPROC`` applies (it would count the referee's own
    processes); the bot's pids cgroup bounds it all the same."""
    need_cgroups()
    folder = bot_folder(tmp_path, "threads.py", THREADS)

    def threads() -> int:
        proc = BotProcess([PY, "threads.py", "100"], cwd=folder, limits=Limits(processes=16))
        try:
            line = read_line(proc)
        finally:
            proc.close(grace=0)
        assert line.startswith("threads "), line
        return int(line.split()[1])

    assert threads() < 16 + cgroups.PIDS_OVERHEAD
    monkeypatch.setenv(cgroups.VARIABLE, "off")
    assert threads() == 100


# -- joining -----------------------------------------------------------------------------

SLEEPER = [PY, "-c", "import sys; print('up', flush=True); sys.stdin.readline()"]


def test_the_bot_joins_its_group_without_setpriv_too(monkeypatch: pytest.MonkeyPatch) -> None:
    need_cgroups()
    monkeypatch.setattr(reaper, "death_prefix", lambda: ())  # util-linux setpriv missing
    for held in (False, True):
        proc = BotProcess(SLEEPER, limits=Limits(held=held))
        try:
            if held:
                proc.send(b"\n")
            assert read_line(proc) == "up"
            assert proc.cgroup is not None and proc.pid in proc.cgroup.processes()
        finally:
            proc.close(grace=0)
        assert not any(f.exists() for f in proc.cgroup.folders)


def test_a_bot_that_cannot_join_its_group_never_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rather than run without its limits, the start ends with status 125 and says why."""
    need_cgroups()
    monkeypatch.setattr(
        cgroups.BotGroup, "join_script", lambda self: "echo $$ > /nonexistent/cgroup.procs"
    )
    proc = BotProcess(SLEEPER, limits=Limits())
    try:
        assert proc.wait_exit(10) == 125
        proc.wait_stderr(2.0)
        assert read_line(proc, timeout=1.0) == ""
        assert b"lightcycle: cannot join the bot cgroup" in proc.stderr_tail()
    finally:
        proc.close(grace=0)
    assert proc.cgroup is not None and not any(f.exists() for f in proc.cgroup.folders)

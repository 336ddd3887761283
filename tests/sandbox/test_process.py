"""`BotProcess` and the ``/proc`` helpers, with real (small, fast) processes. Linux only.

Every process is closed by the ``spawn`` fixture, whatever the test does; the close tests
check that nothing is left: no process in the bot's tree or session, none carrying its
mark, and (where noted) no zombie child of the test process.
"""

from __future__ import annotations

import os
import resource
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lightcycle.sandbox import BotProcess, Limits, SandboxError, cgroups, proctree
from lightcycle.sandbox import process as process_mod
from lightcycle.sandbox.process import MARK, describe_status, pidns_prefix
from tests.sandbox.survivors import leftovers, zombie_children

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the sandbox reads /proc (Linux only)"
)

PY = sys.executable
NO_PIDNS = "unprivileged PID namespaces (unshare --pid) are not available here"

Spawn = Callable[..., BotProcess]


def isolation_params() -> list[object]:
    """``none`` always; ``auto`` (a PID namespace) only where the system allows it."""
    ns = sys.platform.startswith("linux") and bool(pidns_prefix())
    return [
        pytest.param("none", id="no-isolation"),
        pytest.param("auto", id="pidns", marks=pytest.mark.skipif(not ns, reason=NO_PIDNS)),
    ]


@pytest.fixture
def spawn() -> Iterator[Spawn]:
    """Start a `BotProcess`; every one is closed at the end of the test."""
    started: list[BotProcess] = []

    def start(argv: list[str], **kw: object) -> BotProcess:
        proc = BotProcess(argv, **kw)  # type: ignore[arg-type]
        started.append(proc)
        return proc

    try:
        yield start
    finally:
        for proc in started:
            proc.close(grace=0)


def wait_for(predicate: Callable[[], object], timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            pytest.fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.005)


def read_until(proc: BotProcess, needle: bytes, timeout: float) -> bytes:
    got = bytearray()

    def seen() -> bool:
        got.extend(proc.read())
        return needle in got

    wait_for(seen, timeout, f"{needle!r} on stdout (got {bytes(got)!r})")
    return bytes(got)


# -- start ---------------------------------------------------------------------------


@pytest.mark.parametrize("isolate", isolation_params())
def test_runs_in_its_own_session(spawn: Spawn, isolate: str) -> None:
    proc = spawn(["sh", "-c", "echo up; cat"], limits=Limits(isolate=isolate))
    assert proc.isolated is (isolate != "none")
    read_until(proc, b"up", 1.5)  # the program itself runs (not only unshare)
    assert os.getsid(proc.pid) == proc.pid
    assert os.getpgid(proc.pid) == proc.pid
    assert os.getsid(proc.pid) != os.getsid(0)
    members = proctree.tree(proc.pid, proc.pid)
    assert len(members) >= (2 if proc.isolated else 1)
    assert all(p.sid == proc.pid for p in members)
    assert proc.close(grace=1.0) == 0  # cat ends on end of input
    assert leftovers(proc) == []


def test_the_mark_is_in_the_environment(spawn: Spawn) -> None:
    proc = spawn(
        [PY, "-c", "import os; print(os.environ['LIGHTCYCLE_BOT_MARK'], os.environ['X'])"],
        env={"X": "extra"},
        limits=Limits(isolate="none"),
    )
    out = read_until(proc, b"extra", 1.5)
    assert out.split() == [proc.mark.encode(), b"extra"]


@pytest.mark.parametrize("isolate", isolation_params())
def test_missing_program_is_a_sandbox_error_naming_it(isolate: str) -> None:
    with pytest.raises(SandboxError, match=r"cannot start '/nonexistent/lc-bot': no such file"):
        BotProcess(["/nonexistent/lc-bot", "--x"], limits=Limits(isolate=isolate))
    with pytest.raises(SandboxError, match="'lc-no-such-bot-here': no such program on the PATH"):
        BotProcess(["lc-no-such-bot-here"], limits=Limits(isolate=isolate))


@pytest.mark.parametrize("isolate", isolation_params())
def test_program_relative_to_the_working_directory(
    spawn: Spawn, tmp_path: Path, isolate: str
) -> None:
    script = tmp_path / "bot.sh"
    script.write_text("#!/bin/sh\npwd\n")
    with pytest.raises(SandboxError, match=r"cannot start './bot.sh': not executable \(chmod"):
        BotProcess(["./bot.sh"], cwd=tmp_path, limits=Limits(isolate=isolate))
    script.chmod(0o755)
    with pytest.raises(SandboxError, match="no such file"):
        BotProcess(["./bot.sh"], limits=Limits(isolate=isolate))  # not in the current folder
    proc = spawn(["./bot.sh"], cwd=tmp_path, limits=Limits(isolate=isolate))
    assert read_until(proc, b"\n", 1.5).strip() == str(tmp_path).encode()


@pytest.mark.parametrize(
    "isolate",
    [
        pytest.param("none", id="no-isolation"),
        pytest.param(
            "auto",
            id="pidns",
            marks=[
                pytest.mark.skipif(
                    not sys.platform.startswith("linux") or not pidns_prefix(), reason=NO_PIDNS
                ),
            ],
        ),
    ],
)
def test_program_that_cannot_be_executed_is_a_sandbox_error(
    spawn: Spawn, tmp_path: Path, isolate: str
) -> None:
    script = tmp_path / "bot.sh"
    script.write_text("#!/nonexistent/interpreter\necho hi\n")
    script.chmod(0o755)
    with pytest.raises(SandboxError, match=r"cannot start '.*bot\.sh'"):
        spawn([str(script)], limits=Limits(isolate=isolate))


def test_empty_command_is_a_sandbox_error() -> None:
    with pytest.raises(SandboxError, match="empty bot command"):
        BotProcess([])


def test_required_pid_namespace_that_is_not_available(
    spawn: Spawn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process_mod, "pidns_prefix", lambda: ())
    with pytest.raises(SandboxError, match="PID namespaces are not available"):
        BotProcess(["true"], limits=Limits(isolate="pidns"))
    proc = spawn(["true"], limits=Limits(isolate="auto"))  # auto falls back
    assert not proc.isolated
    assert proc.wait_exit(1.5) == 0


# -- stdin never blocks --------------------------------------------------------------


@pytest.mark.parametrize("isolate", isolation_params())
def test_send_never_blocks(spawn: Spawn, isolate: str) -> None:
    proc = spawn(["sh", "-c", "sleep 0.5; cat >/dev/null"], limits=Limits(isolate=isolate))
    data = b"x" * (4 << 20)
    t0 = time.monotonic()
    proc.send(data)
    proc.send(b"more")  # appended behind what waits
    assert time.monotonic() - t0 < 0.25, "send blocked"
    assert 0 < len(proc.pending) <= len(data) + 4
    assert not proc.broken_pipe

    def drained() -> bool:
        proc.flush()
        return not proc.pending

    wait_for(drained, 1.5, "the pending input to drain")
    assert proc.close(grace=1.0) == 0


def test_send_to_a_process_that_exited_marks_the_pipe_broken(spawn: Spawn) -> None:
    proc = spawn(["true"], limits=Limits(isolate="none"))
    assert proc.wait_exit(1.5) == 0
    proc.send(b"x" * (1 << 20))
    wait_for(lambda: proc.flush() or proc.broken_pipe, 1.0, "a broken pipe")
    proc.send(b"ignored")  # no error, nothing buffered
    assert proc.broken_pipe


# -- stderr --------------------------------------------------------------------------


def test_stderr_tail_is_bounded_and_logged(spawn: Spawn, tmp_path: Path) -> None:
    total = 5 << 20
    script = tmp_path / "flood.py"
    script.write_text(
        "import sys\n"
        f"data = bytes(range(256)) * ({total} // 256)\n"
        "sys.stderr.buffer.write(data)\n"
        "sys.stderr.buffer.write(b'the end')\n"
    )
    log = tmp_path / "logs" / "bot.log"
    proc = spawn([PY, str(script)], log_path=log, limits=Limits(stderr_tail=1000))
    assert proc.wait_exit(1.5) == 0
    assert proc.close() == 0
    written = total + len(b"the end")
    expected = (bytes(range(256)) * (total // 256) + b"the end")[-1000:]
    assert proc.stderr_bytes == written
    assert proc.stderr_tail() == expected
    assert proc.stderr_tail(7) == b"the end"
    head, _, tail = log.read_bytes().partition(b"\n# stderr: ")
    assert head == f"# {PY} {script}".encode()
    assert tail == (
        f"{written} bytes, the first {written - 1000} dropped; the last 1000 follow\n".encode()
        + expected
    )
    assert not (tmp_path / "logs" / "bot.log.tmp").exists()


def test_short_stderr_is_logged_whole(spawn: Spawn, tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    proc = spawn(
        [PY, "-c", "import sys; sys.stderr.write('oops')"],
        log_path=log,
        limits=Limits(isolate="none"),
    )
    assert proc.wait_exit(1.5) == 0
    proc.close()
    assert proc.stderr_tail() == b"oops"
    assert log.read_bytes().endswith(b"\n# stderr: 4 bytes\noops")


# -- CPU time ------------------------------------------------------------------------

BUSY_CHILD = (
    f"{PY} -c 'import time\n"
    "t = time.process_time()\n"
    "while time.process_time() - t < 0.4: pass'; echo done; cat"
)


@pytest.mark.parametrize("isolate", isolation_params())
def test_cpu_time_counts_a_childs_cpu(spawn: Spawn, isolate: str) -> None:
    proc = spawn(["sh", "-c", BUSY_CHILD], limits=Limits(isolate=isolate))
    seen = [proc.cpu_time()]
    got = bytearray()

    def child_done() -> bool:
        seen.append(proc.cpu_time())
        got.extend(proc.read())
        return b"done" in got

    wait_for(child_done, 1.8, "the busy child to finish")
    seen.append(proc.cpu_time())
    assert seen == sorted(seen), "cpu_time decreased"
    assert seen[-1] >= 0.3, f"the child's CPU was not counted: {seen[-1]} s"
    assert seen[-1] < 1.5


# -- ending --------------------------------------------------------------------------

STUBBORN = """
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
if os.fork() == 0:  # the classic double fork: the grandchild leaves the session
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        time.sleep(60)
        os._exit(0)
    os._exit(0)
REAP
print("ready", flush=True)
sys.stdin.read()  # end of input does not stop it either
while True:
    time.sleep(0.05)
"""


def start_stubborn(spawn: Spawn, isolate: str, reap: bool = True) -> BotProcess:
    code = STUBBORN.replace("REAP", "os.wait()" if reap else "pass")
    proc = spawn([PY, "-c", code], limits=Limits(isolate=isolate))
    read_until(proc, b"ready", 1.5)

    def daemon_running() -> bool:  # a marked process outside the bot's session
        for pid in proctree.marked(MARK, proc.mark):
            info = proctree.read_stat(pid)
            if info is not None and info.sid != proc.pid and info.state != "Z":
                return True
        return False

    wait_for(daemon_running, 1.0, "the daemonised grandchild")
    return proc


@pytest.mark.parametrize("isolate", isolation_params())
def test_close_leaves_nothing(spawn: Spawn, isolate: str) -> None:
    proc = start_stubborn(spawn, isolate)
    assert len(leftovers(proc)) >= 2
    t0 = time.monotonic()
    status = proc.close()
    assert time.monotonic() - t0 < 1.5
    assert status == -signal.SIGKILL
    assert proc.poll() == -signal.SIGKILL
    assert proctree.tree(proc.pid, proc.pid) == []
    assert proctree.marked(MARK, proc.mark) == []
    assert proc.close() == -signal.SIGKILL  # twice is fine


@pytest.mark.parametrize("isolate", isolation_params())
def test_kill_leaves_nothing(spawn: Spawn, isolate: str) -> None:
    proc = start_stubborn(spawn, isolate)
    proc.kill()
    assert proc.poll() == -signal.SIGKILL
    assert leftovers(proc) == []


def test_close_without_isolation_leaves_no_zombie_child(spawn: Spawn) -> None:
    proc = start_stubborn(spawn, "none", reap=False)
    wait_for(
        lambda: any(p.state == "Z" for p in proctree.tree(proc.pid, proc.pid)),
        1.0,
        "the unreaped middle process",
    )
    before = zombie_children()
    proc.close()
    assert leftovers(proc) == []
    assert zombie_children() - before == set()


# -- memory limit --------------------------------------------------------------------


@pytest.mark.parametrize("isolate", isolation_params())
def test_memory_limit_is_rlimit_data(spawn: Spawn, isolate: str) -> None:
    limits = Limits(memory=100 << 20, isolate=isolate)
    big = spawn([PY, "-c", "bytearray(300 << 20)"], limits=limits)
    small = spawn([PY, "-c", "bytearray(10 << 20)"], limits=limits)
    assert big.wait_exit(1.8) not in (None, 0)
    assert small.wait_exit(1.8) == 0
    big.close()
    assert b"MemoryError" in big.stderr_tail()


def test_no_memory_limit_keeps_the_referees_limit_and_no_core_files(spawn: Spawn) -> None:
    code = "import resource as r; print(r.getrlimit(r.RLIMIT_DATA), r.getrlimit(r.RLIMIT_CORE))"
    proc = spawn([PY, "-c", code], limits=Limits(memory=None, isolate="none"))
    out = read_until(proc, b"\n", 1.5)
    assert out.strip() == f"{resource.getrlimit(resource.RLIMIT_DATA)} (0, 0)".encode()


# -- status texts and /proc ----------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "text"),
    [
        (None, "still running"),
        (0, "exit code 0"),
        (3, "exit code 3"),
        (127, "exit code 127"),
        (-11, "killed by signal SIGSEGV"),
        (-9, "killed by signal SIGKILL"),
        (-200, "killed by signal 200"),
    ],
)
def test_describe_status(code: int | None, text: str) -> None:
    assert describe_status(code) == text


def test_status_text_of_a_process(spawn: Spawn) -> None:
    proc = spawn(["sh", "-c", "exit 3"], limits=Limits(isolate="none"))
    assert proc.wait_exit(1.5) == 3
    assert proc.status_text() == "exit code 3"


def test_read_stat_of_this_process() -> None:
    info = proctree.read_stat(os.getpid())
    assert info is not None
    assert info.pid == os.getpid()
    assert info.ppid == os.getppid()
    assert info.pgid == os.getpgid(0)
    assert info.sid == os.getsid(0)
    assert info.state == "R"
    assert info.cpu > 0


def test_read_stat_of_a_process_that_does_not_exist() -> None:
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    assert proctree.read_stat(pid_max + 1) is None
    assert proctree.read_stat(0) is None


def test_read_stat_with_parentheses_and_spaces_in_the_name(spawn: Spawn) -> None:
    code = "open('/proc/self/comm', 'w').write('a) b (c'); print('named', flush=True); input()"
    proc = spawn([PY, "-c", code], limits=Limits(isolate="none"))
    read_until(proc, b"named", 1.5)
    info = proctree.read_stat(proc.pid)
    assert info is not None
    assert Path(f"/proc/{proc.pid}/comm").read_text().strip() == "a) b (c"
    assert (info.pid, info.ppid, info.sid) == (proc.pid, os.getpid(), proc.pid)
    assert info.state in ("S", "R")


def test_wait_stderr_sees_the_last_lines_of_an_exited_bot(tmp_path: Path) -> None:
    import sys

    proc = BotProcess(
        [sys.executable, "-c", "import sys; sys.stderr.write('x' * 100000 + 'LAST\\n')"],
        log_path=tmp_path / "bot.log",
    )
    try:
        assert proc.wait_exit(5.0) is not None
        assert proc.wait_stderr(5.0)
        assert proc.stderr_tail(5).endswith(b"LAST\n")
    finally:
        proc.close()


def test_sandbox_limits_defaults() -> None:
    limits = Limits()
    assert (limits.sandbox, limits.processes, limits.open_files) == ("none", 64, 256)
    assert (limits.file_size, limits.scratch, limits.network) == (64 << 20, 64 << 20, False)


def test_without_a_sandbox_the_protections_say_what_there_is(spawn: Spawn) -> None:
    proc = spawn(["true"], limits=Limits(isolate="none"))
    cgroup = ("cgroup memory (shared memory counted)", "cgroup pids")
    with_cgroups = cgroups.hierarchy() is not None
    assert proc.protections == ("own session", "memory rlimit", *(cgroup if with_cgroups else ()))
    assert (proc.sandboxed, proc.uid) == (False, None)


def test_auto_without_bubblewrap_runs_as_none(
    spawn: Spawn, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lightcycle.sandbox import check

    monkeypatch.setattr(check, "bwrap_usable", lambda: False)
    proc = spawn(["true"], limits=Limits(sandbox="auto", isolate="none"))
    assert not proc.sandboxed
    assert proc.wait_exit(1.5) == 0

"""The full sandbox (bubblewrap) against the same bot without it: each protection is shown
holding under ``sandbox="full"`` and missing under ``sandbox="none"``, so no test here can
pass with the protection gone.

The bot is one small Python program (``PROBE``) in its own folder under ``tmp_path``; each
test names what it tries. The tests skip, with the reason, where the host cannot give the
full sandbox (see ``lightcycle sandbox check``).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lightcycle.sandbox import BotProcess, Limits, SandboxError, check, proctree
from lightcycle.sandbox.bwrap import install_prefix, program_folders, resolve_program
from lightcycle.sandbox.uids import uid_range
from tests.sandbox.survivors import leftovers, zombie_children

PY = sys.executable


def _full_unavailable() -> str | None:
    if not sys.platform.startswith("linux"):
        return "the sandbox is Linux only"
    try:
        check.require("full")
    except SandboxError as exc:
        return str(exc)
    return None


WHY_NOT = _full_unavailable()
needs_full = pytest.mark.skipif(WHY_NOT is not None, reason=f"no full sandbox: {WHY_NOT}")
pytestmark = needs_full
BOTH = pytest.mark.parametrize("sandbox", ["full", "none"])
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="the uid pool needs a root referee")

PROBE = textwrap.dedent(
    """
    import os, socket, sys, time
    act, args = sys.argv[1], sys.argv[2:]

    def attempt(f):
        try:
            return "ok " + str(f())
        except OSError as e:
            return "err " + (os.strerror(e.errno) if e.errno else str(e))

    if act == "read":
        print(attempt(lambda: open(args[0]).read().strip()))
    elif act == "write":
        print(attempt(lambda: open(args[0], "w").write("x" * int(args[1]))))
    elif act == "write2":  # two files in turn: the second finds the scratch full
        print(attempt(lambda: open(args[0], "w").write("x" * int(args[2]))))
        print(attempt(lambda: open(args[1], "w").write("x" * int(args[2]))))
    elif act == "proc":
        pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        print(len(pids), os.path.exists(f"/proc/{args[0]}/cmdline"), max(pids))
    elif act == "env":
        print(" ".join(sorted(os.environ)))
    elif act == "connect":
        print(attempt(lambda: socket.create_connection(("127.0.0.1", int(args[0])), 2).close()))
    elif act == "uid":
        print(os.getuid(), os.getgid(), os.getgroups())
    elif act == "fds":
        print(" ".join(sorted(os.listdir("/proc/self/fd"))))
    elif act == "files":
        opened = []
        try:
            for _ in range(int(args[0])):
                opened.append(os.open("/dev/null", os.O_RDONLY))
            print("ok", len(opened))
        except OSError as e:
            print("err", os.strerror(e.errno))
    elif act == "forks":
        made = 0
        try:
            for _ in range(int(args[0])):
                if os.fork() == 0:
                    time.sleep(30)
                    os._exit(0)
                made += 1
            print("ok", made)
        except OSError as e:
            print("err", made, os.strerror(e.errno))
    elif act == "family":  # a sleeping child and a daemon that left the session
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
            os._exit(0)
        print("ready", flush=True)
        time.sleep(60)
    elif act == "echo":
        for line in sys.stdin:
            print("got", line.strip(), flush=True)
    elif act == "busy":
        t = time.process_time()
        while time.process_time() - t < float(args[0]):
            pass
        print("done", flush=True)
        sys.stdin.read()
    elif act == "segv":
        import ctypes
        ctypes.string_at(0)
    """
)


@pytest.fixture
def bot_dir(tmp_path: Path) -> Path:
    """The bot's own folder (0755), next to a secret file of the host."""
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    probe = folder / "probe.py"
    probe.write_text(PROBE)
    probe.chmod(0o644)
    (tmp_path / "secret.txt").write_text("the host's secret\n")
    return folder


class Bots:
    """Starts probes and closes every one, checking that none leaves a process behind."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.started: list[BotProcess] = []

    def start(self, sandbox: str, *args: str, **limits: object) -> BotProcess:
        proc = BotProcess(
            [PY, "probe.py", *args],
            cwd=self.folder,
            limits=Limits(sandbox=sandbox, **limits),  # type: ignore[arg-type]
        )
        self.started.append(proc)
        return proc

    def run(self, sandbox: str, *args: str, **limits: object) -> str:
        """Run the probe to its end; its stdout, stripped."""
        proc = self.start(sandbox, *args, **limits)
        status = proc.wait_exit(20.0)
        out = read_all(proc)
        assert status == 0, f"probe {args} exited {status}: {proc.stderr_tail().decode()}"
        return out.decode().strip()


def read_all(proc: BotProcess, timeout: float = 5.0) -> bytes:
    got = bytearray()
    end = time.monotonic() + timeout
    while not proc.stdout_eof and time.monotonic() < end:
        chunk = proc.read()
        if chunk:
            got += chunk
        else:
            time.sleep(0.005)
    return bytes(got)


def read_until(proc: BotProcess, needle: bytes, timeout: float = 10.0) -> bytes:
    got = bytearray()
    end = time.monotonic() + timeout
    while needle not in got:
        if time.monotonic() > end:
            pytest.fail(f"no {needle!r} from the bot (got {bytes(got)!r}): {proc.stderr_tail()!r}")
        got += proc.read()
        time.sleep(0.002)
    return bytes(got)


@pytest.fixture
def bots(bot_dir: Path) -> Iterator[Bots]:
    made = Bots(bot_dir)
    try:
        yield made
    finally:
        for proc in made.started:
            proc.close(grace=0)
        for proc in made.started:
            assert leftovers(proc) == [], f"processes left by {proc.argv}"


def processes_of_uid(uid: int) -> list[int]:
    out = []
    for p in proctree.processes():
        try:
            status = Path(f"/proc/{p.pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("Uid:") and int(line.split()[1]) == uid:
                out.append(p.pid)
    return out


# -- files ---------------------------------------------------------------------------


@BOTH
def test_cannot_read_a_file_outside_its_folder(bots: Bots, sandbox: str) -> None:
    secret = bots.folder.parent / "secret.txt"
    out = bots.run(sandbox, "read", str(secret))
    if sandbox == "full":
        assert out == "err No such file or directory"
    else:
        assert out == "ok the host's secret"


@BOTH
def test_reads_its_own_folder_but_cannot_write_into_it(bots: Bots, sandbox: str) -> None:
    assert bots.run(sandbox, "read", "probe.py").startswith("ok")
    out = bots.run(sandbox, "write", "left-behind.txt", "10")
    if sandbox == "full":
        assert out == "err Read-only file system"
        assert not (bots.folder / "left-behind.txt").exists()
    else:
        assert out == "ok 10"
        assert (bots.folder / "left-behind.txt").exists()


@BOTH
def test_scratch_tmp_is_size_limited_and_private(bots: Bots, sandbox: str) -> None:
    name = f"/tmp/lc-scratch-{os.getpid()}-{sandbox}"
    a, b = f"{name}-a", f"{name}-b"
    try:
        out = bots.run(sandbox, "write2", a, b, str(3 << 20), scratch=4 << 20).splitlines()
        assert out[0] == "ok 3145728"  # /tmp is writable, up to its size
        if sandbox == "full":
            assert out[1] == "err No space left on device"
            assert not Path(a).exists()  # the scratch was the bot's own, and is gone
        else:
            assert out[1] == "ok 3145728"
            assert Path(a).exists()
    finally:
        for f in (a, b):
            Path(f).unlink(missing_ok=True)


@BOTH
def test_file_size_limit(bots: Bots, sandbox: str) -> None:
    name = f"/tmp/lc-fsize-{os.getpid()}-{sandbox}"
    try:
        out = bots.run(sandbox, "write", name, str(2 << 20), file_size=1 << 20)
        assert out == ("err File too large" if sandbox == "full" else "ok 2097152")
    finally:
        Path(name).unlink(missing_ok=True)


# -- processes, environment, network ---------------------------------------------------


@BOTH
def test_sees_only_its_own_processes(bots: Bots, sandbox: str) -> None:
    count, sees_referee, top = bots.run(sandbox, "proc", str(os.getpid())).split()
    if sandbox == "full":
        assert (sees_referee, int(count) <= 3, int(top) <= 3) == ("False", True, True)
    else:
        assert sees_referee == "True"
        assert int(count) > 3


@BOTH
def test_has_a_clean_environment(bots: Bots, sandbox: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LC_REFEREE_SECRET", "token")
    names = set(bots.run(sandbox, "env").split())
    if sandbox == "full":
        assert names <= {"PATH", "HOME", "LANG", "PYTHONUNBUFFERED", "LIGHTCYCLE_BOT_MARK", "PWD"}
        assert "LC_REFEREE_SECRET" not in names
    else:
        assert "LC_REFEREE_SECRET" in names


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP listener on the test's loopback interface; yields its port."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(5)
    accepted: list[socket.socket] = []

    def serve() -> None:
        try:
            while True:
                accepted.append(server.accept()[0])
        except OSError:
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()
        for s in accepted:
            s.close()


@BOTH
def test_has_no_network(bots: Bots, sandbox: str, listener: int) -> None:
    out = bots.run(sandbox, "connect", str(listener))
    if sandbox == "full":
        assert out.startswith("err"), out
    else:
        assert out == "ok None"


def test_network_when_allowed(bots: Bots, listener: int) -> None:
    assert bots.run("full", "connect", str(listener), network=True) == "ok None"


@BOTH
def test_open_files_limit(bots: Bots, sandbox: str) -> None:
    out = bots.run(sandbox, "files", "100", open_files=32)
    assert out == ("err Too many open files" if sandbox == "full" else "ok 100")


@BOTH
def test_process_limit(bots: Bots, sandbox: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if sandbox == "none":  # without the sandbox and its cgroup (tests/sandbox/test_cgroups.py)
        monkeypatch.setenv("LIGHTCYCLE_CGROUPS", "off")
    proc = bots.start(sandbox, "forks", "40", processes=16)
    out = read_until(proc, b"\n").decode().split()
    if sandbox == "full":
        assert out[0] == "err" and int(out[1]) < 16, out
    else:
        assert out == ["ok", "40"]
    proc.kill()
    assert leftovers(proc) == []


def test_no_descriptor_of_the_referee_leaks_in(bots: Bots) -> None:
    # 0, 1, 2 and the one listdir opens: not the seccomp filter's memfd, nothing else
    assert bots.run("full", "fds").split() == ["0", "1", "2", "3"]


@root_only
@BOTH
def test_runs_as_a_pool_uid(bots: Bots, sandbox: str) -> None:
    proc = bots.start(sandbox, "uid")
    assert proc.wait_exit(20) == 0
    uid, gid, groups = read_all(proc).decode().split(" ", 2)
    if sandbox == "full":
        first, last = uid_range()
        assert proc.uid is not None and first <= proc.uid <= last
        assert (int(uid), int(gid), groups.strip()) == (proc.uid, proc.uid, "[]")
        assert f"own uid {proc.uid}" in proc.protections
    else:
        assert proc.uid is None
        assert int(uid) == os.getuid()


@root_only
def test_live_bots_get_different_uids_and_give_them_back(bots: Bots) -> None:
    a = bots.start("full", "echo")
    b = bots.start("full", "echo")
    assert a.uid is not None and b.uid is not None and a.uid != b.uid
    a.close()
    c = bots.start("full", "echo")
    assert c.uid not in (None, b.uid)


# -- stdin/stdout, CPU, ending -----------------------------------------------------------


def test_pipes_and_cpu_time_work_in_the_sandbox(bots: Bots) -> None:
    proc = bots.start("full", "echo")
    proc.send(b"hello\n")
    assert read_until(proc, b"got hello\n") == b"got hello\n"
    busy = bots.start("full", "busy", "0.3")
    read_until(busy, b"done")
    assert 0.25 <= busy.cpu_time() < 1.5  # the host-side /proc scan finds the bot
    assert busy.close() == 0  # ends on end of input


def test_kill_takes_everything_it_started(bots: Bots) -> None:
    proc = bots.start("full", "family")
    read_until(proc, b"ready")
    assert len(leftovers(proc)) >= 5  # bwrap, its init, the bot, a child, a daemon
    uid = proc.uid
    t0 = time.monotonic()
    proc.kill()
    assert time.monotonic() - t0 < 2.0
    assert proc.poll() == -signal.SIGKILL
    assert leftovers(proc) == []
    if uid is not None:
        assert processes_of_uid(uid) == []


def test_a_signal_is_reported_as_the_signal(bots: Bots) -> None:
    proc = bots.start("full", "segv")
    assert proc.wait_exit(20) == -signal.SIGSEGV
    assert proc.status_text() == "killed by signal SIGSEGV"


def test_a_bot_outlives_the_thread_that_started_it(bots: Bots) -> None:
    started: list[BotProcess] = []
    thread = threading.Thread(target=lambda: started.append(bots.start("full", "echo")))
    thread.start()
    thread.join()
    time.sleep(0.2)  # a parent-death signal tied to that thread would have fired by now
    proc = started[0]
    assert proc.poll() is None
    proc.send(b"still here\n")
    read_until(proc, b"got still here")


REFEREE = """
import sys, time
from lightcycle.sandbox import BotProcess, Limits
proc = BotProcess([sys.executable, "probe.py", "family"], cwd=sys.argv[1],
                  limits=Limits(sandbox="full"))
got = b""
while b"ready" not in got:
    got += proc.read()
    time.sleep(0.01)
print(proc.pid, proc.mark, flush=True)
time.sleep(60)
"""


def test_the_bot_dies_with_a_referee_killed_by_sigkill(bot_dir: Path) -> None:
    from lightcycle.sandbox.process import MARK

    before = zombie_children()
    referee = subprocess.Popen([PY, "-c", REFEREE, str(bot_dir)], stdout=subprocess.PIPE, text=True)
    try:
        assert referee.stdout is not None
        pid, mark = referee.stdout.readline().split()
        assert len(proctree.tree(int(pid), int(pid))) >= 5
        referee.kill()
        referee.wait(10)
        end = time.monotonic() + 5
        while proctree.marked(MARK, mark) and time.monotonic() < end:
            time.sleep(0.01)
        assert proctree.marked(MARK, mark) == []
        # bwrap itself, re-parented to PID 1, may wait there as a zombie: nothing runs
        assert [p for p in proctree.tree(int(pid), int(pid)) if p.state != "Z"] == []
    finally:
        referee.kill()
        referee.wait()
        for orphan in zombie_children() - before:  # ours if this process is a subreaper
            os.waitpid(orphan, 0)


# -- the command line, without running it -----------------------------------------------


def test_install_prefix() -> None:
    assert install_prefix(Path("/opt/py/3.11/bin/python3")) == Path("/opt/py/3.11")
    assert install_prefix(Path("/opt/tool/run")) == Path("/opt/tool")


def test_a_pyenv_shim_resolves_to_the_real_interpreter(tmp_path: Path) -> None:
    program = resolve_program("python3", tmp_path)
    assert Path(program).parent.name != "shims"
    assert Path(program).is_absolute()
    folders = program_folders(program, tmp_path)
    real = Path(os.path.realpath(program))
    assert all(not str(f).startswith("/usr") for f in folders)
    if not str(real).startswith(("/usr", "/bin")):
        assert install_prefix(real) in folders


def test_a_folder_that_would_hide_the_scratch_is_refused() -> None:
    with pytest.raises(SandboxError, match="give it a folder of its own"):
        BotProcess(["true"], cwd="/tmp", limits=Limits(sandbox="full"))


def test_an_unknown_sandbox_level_is_refused() -> None:
    with pytest.raises(SandboxError, match="unknown sandbox 'strong': use one of none, uid, auto"):
        BotProcess(["true"], limits=Limits(sandbox="strong"))


@root_only
def test_a_folder_its_pool_uid_cannot_read_is_refused(bot_dir: Path) -> None:
    bot_dir.chmod(0o700)
    with pytest.raises(SandboxError, match=r"cannot read its folder .*: chmod -R o\+rX"):
        BotProcess([PY, "probe.py", "env"], cwd=bot_dir, limits=Limits(sandbox="full"))
    bot_dir.chmod(0o755)
    script = bot_dir / "bot.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o700)
    with pytest.raises(SandboxError, match=r"cannot read its program .*bot\.sh"):
        BotProcess(["./bot.sh"], cwd=bot_dir, limits=Limits(sandbox="full"))


def test_a_script_in_its_folder_runs(bots: Bots) -> None:
    script = bots.folder / "bot.sh"
    script.write_text('#!/bin/sh\necho "hi from $(id -u)"\n')
    script.chmod(0o755)
    proc = BotProcess(["./bot.sh"], cwd=bots.folder, limits=Limits(sandbox="full"))
    bots.started.append(proc)
    assert proc.wait_exit(20) == 0
    assert read_all(proc).decode().strip() == f"hi from {proc.uid if proc.uid else os.getuid()}"

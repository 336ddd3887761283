"""Every attack of ``tests/sandbox/attacks/`` is stopped by the full sandbox.

Each test runs one attack program as a `BotProcess`, from a folder of its own under the
test's temporary folder (beside another bot's folder holding a secret), twice:

- ``full``: with ``Limits(sandbox="full")``; every attempt must report ``BLOCKED`` (or
  the program be killed before it reports ``WORKED``), no process of it may be left,
  and the host must be unchanged (no file written outside the sandbox, no connection
  reached a host listener). Skipped, with `lightcycle.sandbox.check.require`'s reason,
  on a host that cannot give the full sandbox.
- ``none`` (test id ``no-sandbox-attack-works``): the same program with
  ``Limits(sandbox="none")`` must report ``WORKED`` where this host allows the attack,
  so each ``full`` assertion is shown able to fail. An attempt the host refuses by
  itself (a kernel without the x32 ABI, a user that is not root) is named in the skip.
  Cgroups (`lightcycle.sandbox.cgroups`) apply at every level, so this mode turns them
  off (``LIGHTCYCLE_CGROUPS=off``): it is the unprotected baseline.

The attack programs write ``ATTACK <name> WORKED|BLOCKED <detail>`` lines to stderr
(``attacks/_attack.py``). Every attack is bounded in count, size and time, so the
``none`` half cannot harm the host; what it leaves (files, processes) is removed here.
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from lightcycle.sandbox import BotProcess, Limits, cgroups
from tests.sandbox.survivors import full_unavailable, leftovers, zombie_children

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the attacks and the sandbox are Linux only"
)

ATTACKS = Path(__file__).parent / "attacks"
ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
IS_ROOT = os.geteuid() == 0
SECRET_VAR = "LIGHTCYCLE_TEST_SECRET"
MIB = 1 << 20


MODES = [
    pytest.param("full", id="full-sandbox"),
    pytest.param("none", id="no-sandbox-attack-works"),
]


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """``full`` (skipped where the host cannot give it) or ``none`` (no cgroups either)."""
    if request.param == "full":
        why = full_unavailable()
        if why is not None:
            pytest.skip(why)
    else:
        monkeypatch.setenv(cgroups.VARIABLE, "off")
    return str(request.param)


@dataclass
class Attack:
    """What one run of an attack program said and left."""

    attempts: dict[str, tuple[str, str]] = field(default_factory=dict)
    finished: bool = False
    status: int | None = None
    stderr: str = ""

    def outcome(self, name: str) -> str:
        return self.attempts.get(name, ("MISSING", ""))[0]

    def detail(self, name: str) -> str:
        return self.attempts.get(name, ("", ""))[1]


def parse(text: str) -> Attack:
    out = Attack(stderr=text)
    for line in text.splitlines():
        if line == "ATTACK-END":
            out.finished = True
        m = re.match(r"ATTACK (\S+) (WORKED|BLOCKED) ?(.*)", line)
        if m:
            out.attempts[m.group(1)] = (m.group(2), m.group(3))
    return out


@dataclass
class Folders:
    """The bot's own folder, a neighbour's folder with a secret, and an output folder."""

    bot: Path
    other: Path
    out: Path
    secret: str
    tag: str


@pytest.fixture
def folders(tmp_path: Path) -> Folders:
    bots = tmp_path / "bots"
    bot, other, out = bots / "hostile", bots / "other", tmp_path / "out"
    for d in (bot, other, out):
        d.mkdir(parents=True)
    for src in ATTACKS.glob("*.py"):
        shutil.copy(src, bot / src.name)
    secret = f"secret-{uuid.uuid4().hex[:12]}"
    (other / "secret.txt").write_text(secret + "\n")
    (other / "secret.txt").chmod(0o644)  # even world-readable, it must stay out of reach
    return Folders(bot, other, out, secret, uuid.uuid4().hex[:12])


def limits(mode: str, **kw: object) -> Limits:
    return Limits(sandbox=mode, **kw)  # type: ignore[arg-type]


def run_attack(
    folders: Folders,
    argv: list[str],
    mode: str,
    *,
    timeout: float = 20.0,
    interact: Callable[[BotProcess], None] | None = None,
    **limit_kw: object,
) -> Attack:
    """Run an attack program to its end; check that no process of it is left.

    ``argv[0]`` is a program in the bot's folder (a ``.py`` runs through this Python).
    ``interact`` is called while it runs (after its process started).
    """
    program = argv[0]
    command = [PY, program, *argv[1:]] if program.endswith(".py") else [f"./{program}", *argv[1:]]
    proc = BotProcess(command, cwd=folders.bot, limits=limits(mode, **limit_kw))
    try:
        if interact is not None:
            interact(proc)
        status = proc.wait_exit(timeout)
        assert status is not None, f"{program} still running after {timeout} s"
        proc.wait_stderr(2.0)
    finally:
        status = proc.close(grace=0)
    result = parse(proc.stderr_tail().decode(errors="replace"))
    result.status = status
    assert leftovers(proc) == [], f"{program} left processes running"
    assert zombie_children() == set()
    return result


def expect(
    result: Attack, mode: str, names: list[str], host_refuses: dict[str, str] | None = None
) -> None:
    """``full``: each attempt BLOCKED; ``none``: each WORKED, but for those the host
    itself refuses (``host_refuses``: name -> why), which are skipped if no other is left."""
    assert result.finished, f"the attack did not finish:\n{result.stderr}"
    refused = host_refuses or {}
    if mode == "full":
        for name in names:
            assert result.outcome(name) == "BLOCKED", (
                f"{name} under the full sandbox: {result.outcome(name)} {result.detail(name)}"
            )
        return
    for name in names:
        if name in refused:
            continue
        assert result.outcome(name) == "WORKED", (
            f"{name} without the sandbox should work on this host, else its full-sandbox "
            f"test proves nothing: {result.outcome(name)} {result.detail(name)}"
        )
    if refused and all(n in refused for n in names):
        pytest.skip("; ".join(f"{n}: {why}" for n, why in refused.items()))


def needs_root(*names: str) -> dict[str, str]:
    """The attempts that only root can make without a sandbox, when we are not root."""
    return {} if IS_ROOT else dict.fromkeys(names, "works only for root, and this is not")


# -- files -------------------------------------------------------------------------------


def root_entry() -> str | None:
    """A name in /root that no bot may see (not on the way to this Python's prefix)."""
    try:
        names = sorted(os.listdir("/root"))
    except OSError:
        return None
    needed = {Path(sys.prefix).resolve(), *Path(sys.prefix).resolve().parents}
    return next((n for n in names if Path("/root", n) not in needed), None)


def test_reading_files_outside_its_folder(mode: str, folders: Folders, tmp_path: Path) -> None:
    db = tmp_path / "judge" / "judge.sqlite"
    db.parent.mkdir()
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE secrets (secret TEXT)")
        con.execute("INSERT INTO secrets VALUES (?)", (folders.secret,))
    con.close()
    argv = [
        "read_files.py",
        f"neighbour={folders.other / 'secret.txt'}",
        "relative=../other/secret.txt",
        f"database={db}",
        f"repository={ROOT / 'pyproject.toml'}",
    ]
    names = [
        "read_shadow",
        "read_neighbour",
        "read_neighbour_relative",
        "read_database",
        "read_repository",
    ]
    entry = root_entry()
    if entry is not None:
        argv.append(f"root_entry={entry}")
        names.append("list_root")
    result = run_attack(folders, argv, mode)
    expect(result, mode, names, needs_root("read_shadow", "list_root"))
    if mode == "none":  # it read the right things
        for name in ("read_neighbour", "read_neighbour_relative", "read_database"):
            assert folders.secret in result.detail(name)


def test_writing_outside_its_scratch(mode: str, folders: Folders) -> None:
    tag = folders.tag
    shm = Path(f"/dev/shm/lightcycle-attack-{tag}")
    note = Path(f"/tmp/lightcycle-attack-note-{tag}")
    before = sorted(p.name for p in folders.bot.iterdir())
    try:
        argv = ["write_files.py", f"out={folders.out}", f"tag={tag}"]
        first = run_attack(folders, argv, mode)
        second = run_attack(folders, argv, mode)  # a later game: finds the first's note?
        expect(first, mode, ["write_out", "write_own_folder", "write_dev_shm"])
        expect(second, mode, ["scratch_leak"])
        written = [
            p for p in (folders.out / f"planted-{tag}.txt", folders.bot / f"planted-{tag}.txt")
        ]
        if mode == "full":  # the host is unchanged
            assert list(folders.out.iterdir()) == []
            assert sorted(p.name for p in folders.bot.iterdir()) == before
            assert not shm.exists() and not note.exists()
        else:  # the files the program said it wrote are there
            assert all(p.is_file() for p in [*written, shm, note])
    finally:
        for p in (shm, note):
            p.unlink(missing_ok=True)


# -- the host's processes, environment and user --------------------------------------


@pytest.fixture
def referee() -> Iterator[tuple[int, str]]:
    """A process standing for the referee: a mark on its command line and a secret in
    its environment. Yields its pid and the mark."""
    mark = f"lightcycle-referee-{uuid.uuid4().hex[:12]}"
    env = {**os.environ, SECRET_VAR: "hunter2"}
    proc = subprocess.Popen(
        [PY, "-c", "import sys, time; time.sleep(float(sys.argv[1]))", "60", mark], env=env
    )
    try:
        yield proc.pid, mark
    finally:
        proc.kill()
        proc.wait()


def uid_of(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    m = re.search(r"^Uid:\s+(\d+)", status, re.M)
    return int(m.group(1)) if m else None


def test_seeing_the_host(
    mode: str, folders: Folders, referee: tuple[int, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pid, mark = referee
    monkeypatch.setenv(SECRET_VAR, "hunter2")  # the referee's environment
    program_uids: list[int | None] = []

    def look(proc: BotProcess) -> None:
        """While it waits: the host's view of the user ids its program runs as."""
        end = time.monotonic() + 10
        while b"ATTACK-END" not in proc.stderr_tail() and proc.poll() is None:
            assert time.monotonic() < end, "see_host.py never finished"
            time.sleep(0.01)
        for p in proc.alive_processes():
            try:
                cmdline = Path(f"/proc/{p}/cmdline").read_bytes()
            except OSError:
                continue
            if cmdline.split(b"\0")[0] == PY.encode() and b"see_host.py" in cmdline:
                program_uids.append(uid_of(p))
        proc.close_stdin()

    argv = ["see_host.py", f"referee={pid}", f"mark={mark}", f"secret={SECRET_VAR}"]
    argv += [f"uid={os.getuid()}", "linger=1"]
    result = run_attack(folders, argv, mode, interact=look)
    names = ["proc_scan", "proc_cmdline", "proc_environ", "proc_mem", "inherited_env"]
    names += ["same_uid", "capabilities"]
    expect(result, mode, names, needs_root("capabilities"))
    assert program_uids, "the program's process was not found from the host"
    if mode == "full":
        assert os.getuid() not in program_uids, "the bot runs as the referee's user"
    else:
        assert program_uids == [os.getuid()]


# -- network -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pending(listener: socket.socket) -> bool:
    """Whether a connection waits in ``listener``'s queue."""
    return bool(select.select([listener], [], [], 0.05)[0])


def test_network(mode: str, folders: Folders, tmp_path: Path) -> None:
    tcp = socket.create_server(("127.0.0.1", 0))
    unix_path = str(tmp_path / "host.sock")
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(unix_path)
    unix.listen(1)
    abstract_name = f"lightcycle-test-{folders.tag}"
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(b"\0" + abstract_name.encode())
    abstract.listen(1)
    port = free_port()
    reached: list[bool] = []

    def knock(proc: BotProcess) -> None:
        """Once it listens: can the host reach the bot's port?"""
        end = time.monotonic() + 10
        while b"tcp_listen READY" not in proc.stderr_tail() and proc.poll() is None:
            assert time.monotonic() < end, "network.py never listened"
            time.sleep(0.005)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                reached.append(True)
        except OSError:
            reached.append(False)

    try:
        argv = ["network.py", f"connect={tcp.getsockname()[1]}", f"unix={unix_path}"]
        argv += [f"abstract={abstract_name}", f"listen={port}", "wait=1"]
        result = run_attack(folders, argv, mode, interact=knock)
        expect(result, mode, ["tcp_connect", "unix_socket", "unix_abstract", "tcp_listen"])
        host_side = [pending(s) for s in (tcp, unix, abstract)] + reached
        if mode == "full":  # no listener of the host was reached, nor the bot's port
            assert host_side == [False] * 4
        else:
            assert host_side == [True] * 4
    finally:
        for s in (tcp, unix, abstract):
            s.close()


# -- neighbours: ptrace, terminal injection ----------------------------------------------


def legacy_tiocsti() -> bool:
    """Whether this kernel lets TIOCSTI through at all (``dev.tty.legacy_tiocsti``)."""
    try:
        return Path("/proc/sys/dev/tty/legacy_tiocsti").read_text().strip() != "0"
    except OSError:
        return True  # older kernels have no switch: always allowed


def test_neighbours(mode: str, folders: Folders) -> None:
    mark = f"neighbour-{folders.tag}"
    isolate = "none" if mode == "none" else "auto"  # ptrace needs the same PID namespace
    neighbour = BotProcess(
        [PY, "-c", "import sys; sys.stdin.read()", mark],
        cwd=folders.other,
        limits=limits(mode, isolate=isolate),
    )
    master, slave = os.openpty()
    try:
        argv = ["neighbours.py", f"pid={neighbour.pid}", f"mark={mark}"]
        argv.append(f"tty={os.ttyname(slave)}")
        result = run_attack(folders, argv, mode, isolate=isolate)
        os.set_blocking(slave, False)
        try:
            injected = os.read(slave, 100)
        except BlockingIOError:
            injected = b""
        refuses = needs_root("tiocsti_host")
        if not legacy_tiocsti():
            refuses.update(dict.fromkeys(["tiocsti_host", "tiocsti_own"], "legacy_tiocsti=0"))
        expect(result, mode, ["ptrace_neighbour", "tiocsti_host", "tiocsti_own"], refuses)
        if mode == "full":
            assert injected == b"", "keystrokes reached the host's terminal"
        elif "tiocsti_host" not in refuses:
            assert injected == b"#\n"
        assert neighbour.poll() is None, "the neighbour was harmed"
        status = Path(f"/proc/{neighbour.pid}/status").read_text()
        assert re.search(r"^TracerPid:\s+0$", status, re.M), "the neighbour is still traced"
    finally:
        neighbour.close(grace=0)
        os.close(master)
        os.close(slave)
    assert leftovers(neighbour) == []


# -- resources ---------------------------------------------------------------------------


def test_fork_bomb(mode: str, folders: Folders) -> None:
    result = run_attack(folders, ["fork_bomb.py", "count=200", "hold=5"], mode, processes=64)
    expect(result, mode, ["fork_bomb"])


def test_thread_bomb(mode: str, folders: Folders) -> None:
    result = run_attack(folders, ["thread_bomb.py", "count=300"], mode, processes=64)
    expect(result, mode, ["thread_bomb"])


def test_shared_memory_counts(mode: str, folders: Folders) -> None:
    """Shared anonymous memory past a 256 MiB limit: refused, or the hog killed (by the
    bot's memory cgroup; skipped where the host gives none)."""
    if mode == "full":
        on, why = cgroups.status()
        if not on:
            pytest.skip(f"shared memory is counted by a memory cgroup only: {why}")
    argv = ["shm_hog.py", "total=768", "step=64"]
    result = run_attack(folders, argv, mode, memory=256 * MIB)
    if mode == "full" and result.outcome("shm_hog") == "MISSING":
        assert result.status is not None and result.status < 0, (
            f"the hog neither finished nor was killed: {result.stderr}"
        )
        return
    expect(result, mode, ["shm_hog"])


@pytest.mark.parametrize("where", ["cwd", "tmp"])
def test_disk_fill(mode: str, folders: Folders, where: str) -> None:
    name = f"lightcycle-attack-fill-{folders.tag}.bin"
    left = [folders.bot / name, Path("/tmp") / name]
    try:
        argv = ["disk_fill.py", f"where={where}", "total=100", f"tag={folders.tag}"]
        result = run_attack(folders, argv, mode, file_size=64 * MIB, scratch=64 * MIB)
        expect(result, mode, [f"disk_fill_{where}"])
        sizes = [p.stat().st_size if p.exists() else 0 for p in left]
        if mode == "full":
            assert sizes == [0, 0], "the bot left a file on the host"
        else:
            assert max(sizes) == 100 * MIB
    finally:
        for p in left:
            p.unlink(missing_ok=True)


def test_file_descriptor_hog(mode: str, folders: Folders) -> None:
    result = run_attack(folders, ["fd_hog.py", "count=1000"], mode, open_files=256)
    expect(result, mode, ["fd_hog"])


# -- processes left behind when the referee dies ----------------------------------------

STAND_IN = """
import sys, time
from lightcycle.sandbox import BotProcess, Limits
mode, isolate, folder, *argv = sys.argv[1:]
proc = BotProcess(argv, cwd=folder, limits=Limits(sandbox=mode, isolate=isolate))
end = time.monotonic() + 10
while b"READY" not in proc.stderr_tail() and time.monotonic() < end:
    time.sleep(0.01)
print("PIDS", *proc.alive_processes(), flush=True)
time.sleep(60)
"""
"""A referee that starts one bot and then waits to be killed."""


def start_time(pid: int) -> str | None:
    """The process's start time (``/proc/PID/stat`` field 22), to tell a reused pid;
    ``None`` once it is gone or a zombie (dead, waiting for its new parent to reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return None if fields[0] in ("Z", "X") else fields[19]


@pytest.mark.parametrize("kind", ["sleep", "loop", "daemon", "setsid"])
def test_nothing_outlives_a_killed_referee(mode: str, folders: Folders, kind: str) -> None:
    """The referee dies by SIGKILL while its bot has children of ``kind``: they go too.

    Without the sandbox (``isolate="none"``) the bot's first process gets a parent-death
    signal but the children it forks do not, and whether they outlive the referee
    depends on how they were started; the next run's reaper ends them
    (tests/sandbox/test_reaper.py). So only the sandboxed half asserts here.
    """
    if mode != "full":
        pytest.skip("without the sandbox, a killed referee's strays are the reaper's job")
    argv = [PY, "leave_children.py", f"kind={kind}", "hold=20"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    isolate = "none" if mode == "none" else "auto"
    referee = subprocess.Popen(
        [PY, "-c", STAND_IN, mode, isolate, str(folders.bot), *argv],
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    survivors: list[int] = []
    pids: dict[int, str | None] = {}
    try:
        assert referee.stdout is not None
        line = referee.stdout.readline()
        assert line.startswith("PIDS"), f"the stand-in referee said {line!r}"
        pids = {int(p): start_time(int(p)) for p in line.split()[1:]}
        assert len(pids) >= 2, f"the bot's children were not seen: {line}"
        referee.send_signal(signal.SIGKILL)
        referee.wait()
        end = time.monotonic() + 1.5
        while True:
            survivors = [p for p, t in pids.items() if t is not None and start_time(p) == t]
            if not survivors or time.monotonic() > end:
                break
            time.sleep(0.02)
        assert survivors == [], f"{len(survivors)} bot processes outlived the referee"
    finally:
        referee.kill()
        referee.wait()
        for pid in survivors:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        reap(list(pids))  # those of them this process adopted (it may be a subreaper)


def reap(pids: list[int]) -> None:
    """Reap those of ``pids`` that became our children (a subreaper adopts orphans)."""
    end = time.monotonic() + 2.0
    left = set(pids)
    while left and time.monotonic() < end:
        for pid in list(left):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid  # not ours (or already reaped): the kernel's business
            if done:
                left.discard(pid)
        time.sleep(0.01)


# -- kernel interfaces and other system-call entries -------------------------------------


def test_kernel_surface(mode: str, folders: Folders) -> None:
    result = run_attack(folders, ["kernel_surface.py"], mode)
    refuses: dict[str, str] = {}
    if platform.machine() != "x86_64":
        refuses = {"int80": "not x86_64", "x32": "not x86_64"}
    elif mode == "none":
        refuses = host_refused(result, ["int80", "x32"])
    expect(result, mode, ["keyring", "mount_namespace", "int80", "x32"], refuses)


def host_refused(result: Attack, names: list[str]) -> dict[str, str]:
    """Other-ABI entries this kernel closes by itself (no IA32 emulation, no x32 ABI)."""
    return {
        n: f"this kernel refuses it itself ({result.detail(n)})"
        for n in names
        if result.outcome(n) == "BLOCKED"
    }


def test_other_abis_from_c(mode: str, folders: Folders) -> None:
    gcc = shutil.which("gcc")
    if gcc is None or platform.machine() != "x86_64":
        pytest.skip("needs gcc on x86_64 to build the int $0x80 and x32 program")
    subprocess.run(
        [gcc, "-O1", "-o", str(folders.bot / "other_abis"), str(ATTACKS / "other_abis.c")],
        check=True,
    )
    result = run_attack(folders, ["other_abis"], mode)
    refuses = host_refused(result, ["int80", "x32"]) if mode == "none" else {}
    expect(result, mode, ["int80", "x32"], refuses)

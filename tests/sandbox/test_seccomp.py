"""The bot seccomp filter, loaded for real into child processes. Linux x86_64 only.

Each attack program (``seccomp/attack.c``) runs twice through the same loader
(``seccomp/loader.c``, the tests' stand-in for ``bwrap --seccomp``): under the filter it
must be refused, and without it the same attempt must work (or at least answer something
else), which shows that the refusal comes from the filter and that the test can fail.
Good programs (C and Python) must still work under the filter. The C programs are
compiled with the real gcc into a temporary folder.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import platform
import select
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from lightcycle.sandbox import locate, proctree, seccomp
from lightcycle.sandbox.process import MARK, SandboxError

HERE = Path(__file__).parent / "seccomp"
PY = sys.executable

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux only"),
    pytest.mark.skipif(
        platform.machine() != "x86_64",
        reason="the attack programs use x86_64 system-call entries (int $0x80, x32)",
    ),
]

EPERM = f"errno={errno.EPERM}"
ENOSYS = f"errno={errno.ENOSYS}"
SIGSYS = "killed by SIGSYS"


@dataclass(frozen=True)
class Programs:
    """The compiled test programs and the filter, written to a temporary folder."""

    loader: Path
    attack: Path
    good: Path
    bpf: Path
    folder: Path


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Programs:
    """Compile the loader and the programs with gcc; write the filter next to them."""
    reason = seccomp.seccomp_unavailable()
    if reason is not None:
        pytest.skip(f"no seccomp filter on this host: {reason}")
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed: apt-get install gcc")
    out = tmp_path_factory.mktemp("seccomp")
    for name in ("loader", "attack", "good"):
        source = str(HERE / f"{name}.c")
        subprocess.run(
            [gcc, "-O1", "-Wall", "-Wextra", "-Werror", "-pthread", "-o", str(out / name), source],
            check=True,
            timeout=120,
        )
    (out / "filter.bpf").write_bytes(seccomp.filter_bpf())
    return Programs(out / "loader", out / "attack", out / "good", out / "filter.bpf", out)


@pytest.fixture
def mark() -> Iterator[str]:
    """A mark in every test program's environment; none may be running afterwards."""
    value = uuid.uuid4().hex
    yield value
    assert proctree.marked(MARK, value) == []


def run(
    programs: Programs,
    filtered: bool,
    argv: list[str],
    mark: str,
    prefix: tuple[str, ...] = (),
    stdin: int | None = subprocess.DEVNULL,
) -> str:
    """Run ``argv`` through the loader; its last output line, or how it died."""
    cmd = [*prefix, str(programs.loader), str(programs.bpf) if filtered else "none", *argv]
    done = subprocess.run(
        cmd,
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, MARK: mark},
        start_new_session=True,  # no controlling terminal: the test's is never touched
    )
    if done.returncode == -signal.SIGSYS:
        return SIGSYS
    assert done.returncode == 0, f"{cmd} exited {done.returncode}: {done.stderr}"
    lines = done.stdout.strip().splitlines()
    assert lines, f"{cmd} printed nothing: {done.stderr}"
    return lines[-1].split(" ", 1)[-1]


# (attack arguments, the filter's answer, why the host may refuse it by itself)
ATTACKS = {
    "ptrace-parent": (["ptrace"], EPERM, "ptrace of the parent needs root where Yama is on"),
    "keyctl": (["keyctl"], EPERM, "keyrings are off in this kernel"),
    "unshare-user": (["unshare_user"], EPERM, "user namespaces are off here"),
    "clone3-newuser": (["clone3_newuser"], ENOSYS, "user namespaces are off here"),
    "int80-i386": (["int80"], SIGSYS, "this kernel has no i386 emulation"),
    "int80-from-a-thread": (["int80_thread"], SIGSYS, "this kernel has no i386 emulation"),
    "x32": (["x32"], SIGSYS, "this kernel has no x32 ABI (CONFIG_X86_X32_ABI)"),
    "io_uring": (["io_uring"], EPERM, "io_uring is off here (kernel.io_uring_disabled)"),
    "personality": (["personality"], EPERM, "personality is refused by the host"),
    "personality-bit31": (["personality_high"], EPERM, "personality is refused by the host"),
}
ATTACKS.update(
    {
        f"clone-{name}": (["clone", hex(flag)], EPERM, f"{name} needs privileges here")
        for name, flag in seccomp.CLONE_NAMESPACE_FLAGS.items()
    }
)


@pytest.mark.parametrize("name", list(ATTACKS))
def test_attack_is_refused_under_the_filter(programs: Programs, mark: str, name: str) -> None:
    argv, refused, _ = ATTACKS[name]
    assert run(programs, True, [str(programs.attack), *argv], mark) == refused


@pytest.mark.parametrize("name", list(ATTACKS))
def test_attack_works_without_the_filter(programs: Programs, mark: str, name: str) -> None:
    argv, refused, host_reason = ATTACKS[name]
    outcome = run(programs, False, [str(programs.attack), *argv], mark)
    assert outcome != refused, f"{name} is refused ({outcome}) even without the filter"
    if outcome != "ok":
        pytest.skip(f"{host_reason}: without the filter it answers {outcome}, not ok")


def mount_namespace() -> tuple[str, ...]:
    """A prefix running a command in a private mount namespace, or skip the test."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("unshare (util-linux) is not installed")
    prefixes: list[tuple[str, ...]] = []
    if os.geteuid() == 0:
        prefixes.append((unshare, "--mount", "--propagation", "private"))
    prefixes.append((unshare, "--user", "--map-root-user", "--mount", "--propagation", "private"))
    for prefix in prefixes:
        if subprocess.run([*prefix, "true"], capture_output=True, timeout=10).returncode == 0:
            return prefix
    pytest.skip("no private mount namespace here (needs root or user namespaces)")


@pytest.mark.parametrize("filtered", [True, False], ids=["filtered", "unfiltered"])
def test_mount(programs: Programs, mark: str, tmp_path: Path, filtered: bool) -> None:
    """The mount is attempted in a private mount namespace: the host's mounts never change."""
    prefix = mount_namespace()
    outcome = run(programs, filtered, [str(programs.attack), "mount", str(tmp_path)], mark, prefix)
    assert outcome == (EPERM if filtered else "ok")


@pytest.mark.parametrize("high", [False, True], ids=["tiocsti", "tiocsti-high-bits"])
@pytest.mark.parametrize("filtered", [True, False], ids=["filtered", "unfiltered"])
def test_terminal_injection(programs: Programs, mark: str, filtered: bool, high: bool) -> None:
    """TIOCSTI on the test's own pty; junk in the request's high 32 bits changes nothing.

    The kernel reads the request as 32 bits, so a filter comparing all 64 would let
    ``TIOCSTI | 1 << 32`` through: the high-bit case fails against such a filter.
    """
    master, slave = os.openpty()
    try:
        what = "tiocsti_high" if high else "tiocsti"
        outcome = run(programs, filtered, [str(programs.attack), what], mark, stdin=slave)
        if filtered:
            assert outcome == EPERM
            return
        if outcome != "ok":
            pytest.skip(f"TIOCSTI is off here (dev.tty.legacy_tiocsti): it answers {outcome}")
        ready, _, _ = select.select([master], [], [], 5)
        assert ready and b"x" in os.read(master, 100), "the injected character never arrived"
    finally:
        os.close(master)
        os.close(slave)


@pytest.mark.parametrize("filtered", [True, False], ids=["filtered", "unfiltered"])
def test_tioclinux(programs: Programs, mark: str, filtered: bool) -> None:
    """A pty is no virtual console, so without the filter the kernel answers ENOTTY."""
    master, slave = os.openpty()
    try:
        outcome = run(programs, filtered, [str(programs.attack), "tioclinux"], mark, stdin=slave)
    finally:
        os.close(master)
        os.close(slave)
    assert outcome == (EPERM if filtered else f"errno={errno.ENOTTY}")


def sweep(programs: Programs, mark: str, filtered: bool) -> dict[str, str]:
    """Every refused call with arguments -1 (harmless either way): name -> answer."""
    lib = seccomp._library()
    skipped = set(seccomp.skipped_syscalls())
    calls = [n for n in (*seccomp.DENIED, *seccomp.ENOSYS_CALLS) if n not in skipped]
    args = [f"{n}={lib.seccomp_syscall_resolve_name(n.encode())}" for n in calls]
    cmd = [str(programs.loader), str(programs.bpf) if filtered else "none", PY]
    done = subprocess.run(
        [*cmd, str(HERE / "sweep.py"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, MARK: mark},
        start_new_session=True,
    )
    assert done.returncode == 0, done.stderr
    answers = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert sorted(answers) == sorted(calls)
    return answers


def test_every_denied_call_is_refused(programs: Programs, mark: str) -> None:
    answers = sweep(programs, mark, filtered=True)
    expected = {n: ENOSYS if n in seccomp.ENOSYS_CALLS else EPERM for n in answers}
    assert answers == expected


def test_without_the_filter_the_kernel_answers(programs: Programs, mark: str) -> None:
    """As root nothing refuses these calls for lack of privileges: EPERM is the filter's."""
    if os.geteuid() != 0:
        pytest.skip("as a user the kernel itself answers EPERM (capabilities): run as root")
    if "Seccomp:\t0" not in Path("/proc/self/status").read_text():
        pytest.skip("this process already runs under a seccomp filter that may answer EPERM")
    answers = sweep(programs, mark, filtered=False)
    assert [n for n, a in answers.items() if a == EPERM] == []
    assert answers["clone3"] != ENOSYS


def test_good_c_program_works(programs: Programs, mark: str) -> None:
    """fork, a thread (clone3 answers ENOSYS, glibc falls back to clone), files, memory."""
    assert run(programs, True, [str(programs.good), str(programs.bpf)], mark) == "ok"


def test_good_python_program_works(programs: Programs, mark: str) -> None:
    code = (
        "import subprocess, sys, threading\n"
        "box = []\n"
        "threads = [threading.Thread(target=box.append, args=(i,)) for i in range(4)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "out = subprocess.run([sys.executable, '-c', 'print(6 * 7)'],\n"
        "                     capture_output=True, text=True, check=True).stdout\n"
        "print('python', sorted(box) == [0, 1, 2, 3] and out.strip() == '42')\n"
    )
    assert run(programs, True, [PY, "-c", code], mark) == "True"


def test_bpf_is_a_whole_program() -> None:
    bpf = seccomp.filter_bpf()
    assert bpf and len(bpf) % 8 == 0
    assert len(bpf) // 8 <= 4096  # BPF_MAXINSNS: the kernel refuses longer programs
    assert seccomp.filter_bpf() == bpf


def test_only_calls_missing_on_x86_64_are_skipped() -> None:
    assert set(seccomp.skipped_syscalls()) <= {"stime", "vm86", "vm86old", "create_module"}
    assert "ptrace" in seccomp.DENIED and "io_uring_setup" in seccomp.DENIED


def test_unavailable_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without libseccomp: one line naming it and the install script, and SandboxError."""

    def no_library(name: str, *args: object, **kwargs: object) -> None:
        raise OSError(f"{name}: cannot open shared object file")

    seccomp.compiled.cache_clear()
    seccomp._library.cache_clear()
    monkeypatch.setattr(ctypes, "CDLL", no_library)
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    try:
        reason = seccomp.seccomp_unavailable()
        assert reason is not None and "libseccomp" in reason
        assert "scripts/install-sandbox" in reason and "\n" not in reason
        with pytest.raises(SandboxError, match="libseccomp"):
            seccomp.filter_bpf()
    finally:
        monkeypatch.undo()
        seccomp.compiled.cache_clear()
        seccomp._library.cache_clear()
    assert seccomp.seccomp_unavailable() is None


def test_bubblewrap_loads_the_filter(programs: Programs, mark: str) -> None:
    """``bwrap --seccomp FD`` installs the same program: attacks refused, good code runs."""
    bwrap = locate.bwrap_path()  # the system's, else the packaged one
    if bwrap is None:
        pytest.skip("bubblewrap is not installed: run scripts/install-sandbox")
    user = [] if os.geteuid() == 0 else ["--unshare-user"]
    fd = os.open(programs.bpf, os.O_RDONLY)
    try:
        outcomes = {}
        for argv in (["unshare_user"], ["keyctl"], ["ptrace"], ["int80"], ["good"]):
            program = programs.good if argv == ["good"] else programs.attack
            args = [str(programs.bpf)] if argv == ["good"] else argv
            cmd = [bwrap, *user, "--ro-bind", "/", "/", "--unshare-pid", "--die-with-parent"]
            cmd += ["--seccomp", str(fd), str(program), *args]
            os.lseek(fd, 0, os.SEEK_SET)  # bwrap reads the program from the fd's offset
            done = subprocess.run(
                cmd,
                pass_fds=(fd,),
                capture_output=True,
                text=True,
                timeout=60,
                env={**os.environ, MARK: mark},
                start_new_session=True,
            )
            if done.returncode in (-signal.SIGSYS, 128 + signal.SIGSYS) and not done.stdout:
                outcomes[argv[0]] = SIGSYS  # bwrap exits 128 + the signal that killed it
            elif done.returncode == 0:
                outcomes[argv[0]] = done.stdout.strip().split(" ", 1)[-1]
            else:
                pytest.skip(f"bubblewrap cannot run here: {done.stderr.strip()}")
        assert outcomes == {
            "unshare_user": EPERM,
            "keyctl": EPERM,
            "ptrace": EPERM,
            "int80": SIGSYS,
            "good": "ok",
        }
    finally:
        os.close(fd)

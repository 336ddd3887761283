"""The uid level: a root referee without bubblewrap never runs a bot as root (issue 37).

``auto`` on a root host where no ``bwrap`` works gives each bot its own user id, no
capabilities, a private copy of its folder, rlimits and a cgroup it cannot change
(`lightcycle.sandbox.uidlevel`); what it leaves in ``/tmp``, ``/var/tmp`` and
``/dev/shm`` is removed after its game (`lightcycle.sandbox.shared`). Bubblewrap is
made unusable through the seam ``auto`` reads (`lightcycle.sandbox.check.bwrap_usable`,
which ``LIGHTCYCLE_BWRAP=off`` turns off), not by uninstalling it.

Each probe runs twice: at ``uid`` (``auto`` without bubblewrap) every attempt must be
refused; at ``none`` (test id ``none-attack-works``) the same attempts must work for a
root referee, so each assertion is shown able to fail. The bots run the system's
``python3``: a pool user id cannot run a Python under ``/root`` (pyenv's).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from lightcycle.sandbox import BotProcess, Limits, SandboxError, cgroups, check, locate, uidlevel
from tests.sandbox.survivors import SHARED, leftovers, planted, zombie_children
from tests.sandbox.test_attacks import ATTACKS, Attack, parse

SYSTEM_PY = "/usr/bin/python3"
SECRET_VAR = "LIGHTCYCLE_TEST_SECRET"

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only"),
    pytest.mark.skipif(os.geteuid() != 0, reason="the uid level is a root referee's"),
    pytest.mark.skipif(
        not os.access(SYSTEM_PY, os.X_OK), reason=f"needs {SYSTEM_PY} (a Python for every user)"
    ),
]


@pytest.fixture(params=["uid", "none"], ids=["uid-level", "none-attack-works"])
def level(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """``uid``: ``auto`` with bubblewrap unusable; ``none``: the unprotected baseline."""
    monkeypatch.setattr(check, "bwrap_usable", lambda: False)
    return "auto" if request.param == "uid" else "none"


@dataclass
class Seats:
    """Folders of two bots (closed to others: the uid level copies them) and a tag."""

    bot: Path
    other: Path
    secret: str
    tag: str


@pytest.fixture
def seats() -> Iterator[Seats]:
    base = Path(tempfile.mkdtemp(prefix="lightcycle-uidtest-"))
    base.chmod(0o755)  # a path every user may walk, as a home folder often is
    bot, other = base / "hostile", base / "other"
    for d in (bot, other):
        d.mkdir(mode=0o700)
    for src in ATTACKS.glob("*.py"):
        shutil.copy(src, bot / src.name)
    secret = f"secret-{uuid.uuid4().hex[:12]}"
    (other / "secret.txt").write_text(secret + "\n")
    (other / "echo.py").write_text(
        "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"
    )
    try:
        yield Seats(bot, other, secret, uuid.uuid4().hex[:12])
    finally:
        shutil.rmtree(base, ignore_errors=True)


def start(level: str, argv: list[str], folder: Path, **kw: object) -> BotProcess:
    proc = BotProcess(argv, cwd=folder, limits=Limits(sandbox=level, **kw))  # type: ignore[arg-type]
    assert proc.level == ("uid" if level == "auto" else "none"), proc.protections
    return proc


def run_probe(level: str, seats: Seats, argv: list[str], **kw: object) -> Attack:
    proc = start(level, [SYSTEM_PY, *argv], seats.bot, **kw)
    try:
        assert proc.wait_exit(30) is not None, f"{argv[0]} still running"
        proc.wait_stderr(2.0)
    finally:
        status = proc.close(grace=0)
    result = parse(proc.stderr_tail().decode(errors="replace"))
    result.status = status
    assert result.finished, result.stderr
    assert leftovers(proc) == [] and zombie_children() == set()
    return result


def program_pid(proc: BotProcess, word: str) -> int:
    """The pid of the bot's own program (not the sandbox's steps before it)."""
    for pid in proc.alive_processes():
        try:
            if word.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        except OSError:
            continue
    raise AssertionError(f"no process of {word}")


def echo(proc: BotProcess, line: bytes) -> bytes:
    proc.send(line)
    got, end = b"", time.monotonic() + 10
    while not got.endswith(b"\n") and time.monotonic() < end:
        got += proc.read()
        time.sleep(0.005)
    return got


def test_a_bot_reaches_nothing_of_others(level: str, seats: Seats) -> None:
    """Root's files, another bot's folder and pipes, the referee: out of reach. The other
    bot (an echo) is unaffected."""
    env = {**os.environ, SECRET_VAR: seats.secret}
    stand_in = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)
    neighbour = start(level, [SYSTEM_PY, "echo.py", seats.tag], seats.other)
    try:
        assert echo(neighbour, b"before\n") == b"before\n"
        seen = neighbour.private or seats.other  # the folder as the neighbour reads it
        argv = ["uid_level.py", f"neighbour={seen / 'secret.txt'}"]
        argv += [f"original={seats.other / 'secret.txt'}", f"tag={seats.tag}"]
        argv += [f"referee={stand_in.pid}", f"needle={SECRET_VAR}"]
        argv.append(f"pipes={program_pid(neighbour, 'echo.py')}")
        result = run_probe(level, seats, argv)
        names = ["read_shadow", "read_neighbour", "read_neighbour_original"]
        names += ["referee_environ", "referee_mem", "referee_fd"]
        names += ["neighbour_stdin", "neighbour_stdout", "capabilities", "become_root"]
        names += ["new_privileges"] if level == "auto" else []
        for name in names:
            want = "BLOCKED" if level == "auto" else "WORKED"
            assert result.outcome(name) == want, (name, result.stderr)
        if level == "auto":
            assert result.outcome("groups") == "BLOCKED", result.stderr
        assert echo(neighbour, b"after\n") == b"after\n"
        assert neighbour.poll() is None
    finally:
        neighbour.close(grace=0)
        stand_in.kill()
        stand_in.wait()
        for path in planted(seats.tag):
            path.unlink(missing_ok=True)


def test_its_cgroup_is_not_its_to_change(level: str, seats: Seats) -> None:
    on, why = cgroups.status()
    if not on:
        pytest.skip(f"no cgroups here: {why}")
    argv = ["uid_level.py", "cgroups=1", f"tag={seats.tag}"]
    try:
        result = run_probe(level, seats, argv, memory=256 << 20, processes=64)
    finally:
        for path in planted(seats.tag):
            path.unlink(missing_ok=True)
    for name in ("cgroup_memory", "cgroup_pids", "cgroup_leave"):
        want = "BLOCKED" if level == "auto" else "WORKED"
        assert result.outcome(name) == want, (name, result.stderr)
        if level == "auto":
            assert result.detail(name).startswith(("EACCES", "EPERM")), result.stderr


def test_files_left_in_shared_folders_are_removed(level: str, seats: Seats) -> None:
    """At ``none`` the bot's files stay (they are the referee's user's: nothing tells
    them apart); at ``uid`` everything its user id owns there goes after the game."""
    try:
        result = run_probe(level, seats, ["uid_level.py", f"tag={seats.tag}"])
        for name in ("leave_dev_shm", "leave_tmp", "leave_var_tmp"):
            assert result.outcome(name) == "WORKED", result.stderr
        present = [str(p.parent) for p in planted(seats.tag)]
        assert present == ([] if level == "auto" else sorted(SHARED))
    finally:
        for p in planted(seats.tag):
            p.unlink(missing_ok=True)


def test_a_fork_bomb_is_bounded(level: str, seats: Seats) -> None:
    if level == "none":
        pytest.skip("a root bot's fork bomb is bounded by its cgroup only: test_attacks")
    result = run_probe(level, seats, ["fork_bomb.py", "count=200", "hold=5"], processes=64)
    assert result.outcome("fork_bomb") == "BLOCKED", result.stderr


def test_the_documented_seam(monkeypatch: pytest.MonkeyPatch, seats: Seats) -> None:
    """``LIGHTCYCLE_BWRAP=off`` (what a host without bubblewrap looks like) makes
    ``auto`` the uid level for a root referee."""
    monkeypatch.setenv(locate.BWRAP_VARIABLE, "off")
    locate.clear_cache()
    try:
        assert uidlevel.effective("auto") == "uid"
        proc = BotProcess([SYSTEM_PY, "-c", "pass"], cwd=seats.bot, limits=Limits(sandbox="auto"))
        proc.close(grace=1)
        assert proc.level == "uid" and proc.uid is not None
    finally:
        monkeypatch.delenv(locate.BWRAP_VARIABLE)
        locate.clear_cache()


def test_a_program_its_uid_cannot_run_is_refused(
    monkeypatch: pytest.MonkeyPatch, seats: Seats
) -> None:
    monkeypatch.setattr(check, "bwrap_usable", lambda: False)
    closed = Path(tempfile.mkdtemp(prefix="lightcycle-closed-"))  # 0700
    try:
        shutil.copy(SYSTEM_PY, closed / "python3")
        with pytest.raises(SandboxError, match="closed to other users"):
            BotProcess(
                [str(closed / "python3"), "-c", "pass"],
                cwd=seats.bot,
                limits=Limits(sandbox="auto"),
            )
    finally:
        shutil.rmtree(closed)


def test_at_the_full_level_nothing_is_left_either(seats: Seats) -> None:
    """Bubblewrap's ``/tmp`` is a private tmpfs and its ``/dev/shm`` lies in its own
    ``/dev`` (root's, so a pool user id cannot write it), ``/var/tmp`` is not there: what
    the bot writes is gone with the sandbox."""
    from tests.sandbox.survivors import full_unavailable

    why = full_unavailable()
    if why is not None:
        pytest.skip(why)
    seats.bot.chmod(0o755)  # bubblewrap binds the folder itself: its pool id reads it
    for f in seats.bot.iterdir():
        f.chmod(0o644)
    try:
        proc = BotProcess(
            [SYSTEM_PY, "uid_level.py", f"tag={seats.tag}"],
            cwd=seats.bot,
            limits=Limits(sandbox="full"),
        )
        try:
            assert proc.wait_exit(30) is not None
            proc.wait_stderr(2.0)
        finally:
            proc.close(grace=0)
        result = parse(proc.stderr_tail().decode(errors="replace"))
        assert result.outcome("leave_tmp") == "WORKED", result.stderr  # its own scratch
        assert planted(seats.tag) == []
    finally:
        for p in planted(seats.tag):
            p.unlink(missing_ok=True)

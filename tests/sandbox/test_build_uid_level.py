"""Builds at the uid level: where bubblewrap cannot run, a root referee's build at
``auto`` runs as a pool user id (`lightcycle.sandbox.uidlevel`), never as root.

Each protection is shown against the same build at ``level="none"`` (as root), where it
is missing, so none of these tests passes with the protection gone. Afterwards nothing
of the build may remain: no process, no pool user id, no private folder, no file of
its user id in the shared folders, no zombie child.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from lightcycle.sandbox import check, reaper, uidlevel
from lightcycle.sandbox.build import BuildLimits, run_build
from lightcycle.sandbox.uids import POOL, uid_range
from tests.sandbox.survivors import zombie_children

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only"),
    pytest.mark.skipif(os.geteuid() != 0, reason="the uid level is a root referee's"),
]

GOOD_C = '#include <stdio.h>\nint main(void) { puts("built"); return 0; }\n'


@pytest.fixture(params=["uid", "none"], ids=["uid-level", "none-as-root"])
def level(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """``uid``: ``auto`` with bubblewrap unusable; ``none``: the unprotected baseline."""
    if request.param == "uid" and uidlevel.unavailable() is not None:
        pytest.skip(f"no uid level here: {uidlevel.unavailable()}")
    monkeypatch.setattr(check, "bwrap_usable", lambda: False)
    return "auto" if request.param == "uid" else "none"


@pytest.fixture(autouse=True)
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Work and private folders go in a fresh folder every user can walk through (a
    pool user id cannot enter pytest's own, which is root's alone); afterwards it must
    be empty and nothing of the build may be left. (``tmp_path`` is made first, where
    pytest makes it.)"""
    folder = Path(tempfile.mkdtemp(prefix="lightcycle-buildtest-", dir="/tmp"))
    folder.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    try:
        yield folder
        assert reaper.bots_of(os.getpid()) == [], "a process of a build is still running"
        assert POOL.held() == [], "a pool user id was not given back"
        assert list(folder.iterdir()) == [], "a work or private folder was left behind"
        assert zombie_children() == set()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def source_with(base: Path, files: dict[str, str]) -> Path:
    src = base / "src"
    src.mkdir()
    for name, text in files.items():
        (src / name).write_text(text)
    os.chmod(src, 0o700)  # root's alone: the source goes in as a tar, never read in place
    return src


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_a_build_runs_as_a_pool_user_and_its_binary_comes_out(level: str, tmp_path: Path) -> None:
    src = source_with(tmp_path, {"bot.c": GOOD_C})
    out = tmp_path / "out"
    script = "head -c 40 /etc/shadow; gcc -O2 -o bot bot.c && id -u > who"
    result = run_build(["sh", "-c", script], src, out=out, artifacts=("bot", "who"), level=level)
    uid = int((out / "who").read_text())
    ran = subprocess.run([str(out / "bot")], capture_output=True, text=True, timeout=10)
    assert ran.stdout == "built\n"
    assert sorted(os.listdir(src)) == ["bot.c"]  # the source folder is untouched
    if level == "auto":
        assert result.ok, result.output + result.reason
        first, last = uid_range()
        assert first <= uid <= last, uid
        assert "Permission denied" in result.output  # /etc/shadow is root's alone
        assert f"own uid {uid}" in result.protections and "no capabilities" in result.protections
    else:
        assert uid == 0 and result.ok and "Permission denied" not in result.output


def test_files_a_build_leaves_in_the_shared_folders_are_removed(level: str, tmp_path: Path) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    left = [Path(d) / f"lightcycle-buildtest-{uuid.uuid4().hex}" for d in ("/tmp", "/dev/shm")]
    script = "; ".join(f"echo x > {p}" for p in left) + "; echo made > made.txt"
    try:
        result = run_build(
            ["sh", "-c", script], src, out=tmp_path / "out", artifacts=("made.txt",), level=level
        )
        assert result.ok, result.output + result.reason
        assert (tmp_path / "out" / "made.txt").read_text() == "made\n"
        assert [p.exists() for p in left] == [level == "none"] * len(left)
    finally:
        for p in left:
            p.unlink(missing_ok=True)


def test_a_work_folder_over_its_size_fails(level: str, tmp_path: Path) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    limits = BuildLimits(work_size=1 << 20)
    cmd = ["sh", "-c", "head -c 3000000 /dev/zero > big"]
    result = run_build(cmd, src, out=tmp_path / "o", limits=limits, level=level)
    assert not result.ok and result.limit == "work folder size"
    assert "the work folder grew over its 1 MiB" in result.reason


def test_a_build_cannot_write_the_referees_folders(level: str, tmp_path: Path) -> None:
    src = source_with(tmp_path, {"x.txt": "x"})
    mine = tmp_path / "referee"
    mine.mkdir()
    mine.chmod(0o755)  # readable by all, writable by root alone
    script = f"echo x > {mine}/evil; echo done"
    result = run_build(["sh", "-c", script], src, out=tmp_path / "o", level=level)
    assert result.ok, result.output + result.reason
    assert (mine / "evil").exists() == (level == "none"), result.output

"""The referee's lifeline (`lightcycle.sandbox.lifeline`): a bot whose referee is gone
when its start chain's last fork is done ends before its program runs.

The race itself (a referee SIGKILLed while bubblewrap sets a bot's sandbox up) shows
about once in 200 random kills; these tests stage its outcome instead: the bot starts
with a lifeline nobody holds, as it would find its dead referee's, and must not run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from lightcycle.sandbox import BotProcess, Limits, SandboxError, levels, lifeline, reaper
from lightcycle.sandbox.prefixes import pidns_prefix

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only"),
    pytest.mark.skipif(lifeline.flock_path() is None, reason="util-linux flock is missing"),
]


def _why_not(level: str) -> str | None:
    if level == "none":
        return None if pidns_prefix() else "PID namespaces (unshare --pid) are not available"
    try:
        levels.require(level)
    except SandboxError as exc:
        return str(exc)
    return None


LEVELS = [
    pytest.param(
        level,
        id=level,
        marks=pytest.mark.skipif(_why_not(level) is not None, reason=str(_why_not(level))),
    )
    for level in ("full", "uid", "none")
]


def _start(level: str, folder: Path) -> BotProcess:
    """``echo ran`` as a bot at ``level`` (``none``: in a PID namespace, the fork the
    lifeline guards there)."""
    isolate = "pidns" if level == "none" else "auto"
    return BotProcess(
        ["/bin/echo", "ran"], cwd=folder, limits=Limits(sandbox=level, isolate=isolate)
    )


def _output(proc: BotProcess) -> tuple[int | None, bytes]:
    status = proc.wait_exit(20.0)
    got = bytearray()
    while not proc.stdout_eof:
        chunk = proc.read()
        if not chunk:
            break
        got += chunk
    proc.close()
    return status, bytes(got)


@pytest.fixture
def folder() -> Iterator[Path]:
    made = Path(tempfile.mkdtemp(prefix="lightcycle-lifelinetest-"))
    made.chmod(0o755)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def _orphaned_lifeline(folder: Path) -> Path:
    """A lifeline as a dead referee leaves it: the file, readable, with nobody's lock."""
    top = folder / "dead-referee"
    top.mkdir(mode=0o755)
    file = top / "lifeline"
    file.touch(mode=0o644)
    file.chmod(0o644)
    return file


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_whose_referee_is_gone_does_not_run(
    level: str, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    orphaned = _orphaned_lifeline(folder)
    monkeypatch.setattr(lifeline, "path", lambda: orphaned)
    status, out = _output(_start(level, folder))
    assert out == b"", f"the bot ran with its referee gone ({level}): {out!r}"
    assert status == 0


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_whose_referee_lives_runs(level: str, folder: Path) -> None:
    status, out = _output(_start(level, folder))
    assert (status, out) == (0, b"ran\n")
    assert lifeline.is_held(lifeline.path() or Path("/nonexistent"))


def test_the_lock_is_this_process_s_and_a_child_s_own() -> None:
    mine = lifeline.path()
    assert mine is not None and lifeline.is_held(mine)
    assert mine.stat().st_mode & 0o777 == 0o644
    assert mine.parent.stat().st_mode & 0o777 == 0o700
    script = textwrap.dedent(
        f"""
        import os, sys
        from pathlib import Path
        from lightcycle.sandbox import lifeline
        print(lifeline.is_held(Path({str(mine)!r})))
        pid = os.fork()
        if pid == 0:
            theirs = lifeline.path()
            print(theirs != Path({str(mine)!r}) and lifeline.is_held(theirs), flush=True)
            os._exit(0)
        os.waitpid(pid, 0)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.split() == ["True", "True"], done.stderr


def test_a_dead_referee_s_lifeline_is_removed_a_live_one_kept(tmp_path: Path) -> None:
    ended = subprocess.run(
        [sys.executable, "-c", "from lightcycle.sandbox import lifeline; print(lifeline.path())"],
        capture_output=True,
        text=True,
        check=True,
    )
    left = Path(ended.stdout.strip())
    assert not left.exists(), "a referee that exits removes its lifeline"
    base = Path(tempfile.gettempdir())
    stale = Path(
        tempfile.mkdtemp(prefix=f"{lifeline.PREFIX}{os.getpid()}-1-{reaper.pid_namespace()}-")
    )
    (stale / "lifeline").touch()
    mine = lifeline.path()
    assert mine is not None
    removed = lifeline.remove_stale()
    assert stale in removed and not stale.exists(), "a start time that is not the pid's: dead"
    assert mine.exists(), "a live referee's lifeline is kept"
    assert base in stale.parents

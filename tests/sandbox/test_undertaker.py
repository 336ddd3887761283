"""A referee's undertaker (`lightcycle.sandbox.undertaker`): what a referee's death
leaves is ended at once, by the process that waits on its lifeline.

The cases it exists for (a bubblewrap blocked in its set-up, a namespace's init not yet
armed) come from a kill landing in a window of microseconds to milliseconds; these tests
stage the outcome instead: a bot with no parent-death signal at all, whose referee is
SIGKILLed. `tests/sandbox/test_reaper.py` shows that bot outliving a referee without an
undertaker.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid

import pytest

from lightcycle.sandbox import lifeline, reaper, undertaker
from lightcycle.sandbox.limits import MARK
from tests.sandbox.lab import run_in_lab
from tests.waiting import wait_for

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only"),
    pytest.mark.skipif(lifeline.flock_path() is None, reason="util-linux flock is missing"),
]

PY = sys.executable

REFEREE = """
import json, sys, time
from lightcycle.sandbox import BotProcess, Limits, reaper
reaper.death_prefix = lambda: ()  # no parent-death signal: only the undertaker is left
bot = BotProcess([sys.executable, "-c", "import time; time.sleep(120)"],
                 limits=Limits(isolate="none"))
print(json.dumps({"pid": bot.pid}), flush=True)
time.sleep(120)
"""


def test_the_undertaker_ends_a_sigkilled_referee_s_bot() -> None:
    run_in_lab(undertaker_buries)


def undertaker_buries() -> None:  # in the lab: no other reaper can do its work
    ref = subprocess.Popen([PY, "-c", REFEREE], stdout=subprocess.PIPE, text=True)
    try:
        assert ref.stdout is not None
        bot = json.loads(ref.stdout.readline())["pid"]
        assert reaper.bots_of(ref.pid) == [bot]
        ref.send_signal(signal.SIGKILL)
        ref.wait()
        assert wait_for(lambda: reaper.bots_of(ref.pid) == [], 10.0), "the undertaker left the bot"
    finally:
        ref.kill()
        ref.wait()
        for pid in reaper.bots_of(ref.pid):
            os.kill(pid, signal.SIGKILL)


def _sleeper(tag: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, MARK: f"{tag}-{uuid.uuid4().hex}"}
    return subprocess.Popen(["sleep", "60"], env=env)


def test_bury_ends_that_referee_s_processes_only() -> None:
    ns = reaper.pid_namespace()
    mine, other = f"999999-1-{ns}", f"999998-1-{ns}"
    theirs, others = _sleeper(mine), _sleeper(other)
    try:
        assert wait_for(lambda: theirs.pid in reaper.bots_of(999999), 5.0)
        killed = undertaker.bury(mine)
        assert theirs.pid in killed and others.pid not in killed
        assert theirs.wait(5) == -signal.SIGKILL
        assert others.poll() is None, "another referee's stray is not this undertaker's"
    finally:
        for proc in (theirs, others):
            proc.kill()
            proc.wait()


def test_a_referee_that_exits_ends_its_undertaker() -> None:
    script = (
        "from lightcycle.sandbox import lifeline\n"
        "f = lifeline.path()\n"
        "print(lifeline._UNDERTAKERS[__import__('os').getpid()].pid, f, flush=True)\n"
    )
    done = subprocess.run([PY, "-c", script], capture_output=True, text=True, check=True)
    pid, file = done.stdout.split()
    assert wait_for(lambda: not os.path.exists(f"/proc/{pid}") or _zombie(int(pid)), 5.0)
    assert not os.path.exists(file)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True

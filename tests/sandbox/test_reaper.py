"""Bots die with their referee (a parent-death signal), and the reaper ends the strays.

A "referee" here is a small Python process that starts one bot and waits; the test kills
it with SIGKILL, the one signal it cannot clean up after. The bot ignores its input (a
bot that exits at the end of its input would leave by itself) and starts a child, as a
bot doing work in a helper process would.

A test that kills a referee and looks at its strays runs in a PID namespace of its own
(`tests.sandbox.lab`): any referee starting elsewhere on the machine meanwhile (another
test's, another worker's) reaps the strays of dead referees, and would end the ones this
test is looking at before it sees them.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from lightcycle.sandbox import BotProcess, Limits, proctree, reaper
from lightcycle.sandbox.process import MARK, pidns_prefix
from lightcycle.sandbox.strays import reap_strays
from tests.sandbox.lab import run_in_lab
from tests.waiting import wait_for

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the reaper reads /proc (Linux only)"
)

PY = sys.executable
NO_SETPRIV = "util-linux setpriv (the parent-death signal) is not installed"
NO_PIDNS = "unprivileged PID namespaces (unshare --pid) are not available here"

BOT = """
import os, time
if os.fork() == 0:
    time.sleep(120)  # a helper process: no parent-death signal of its own
    os._exit(0)
time.sleep(120)
"""

REFEREE = """
import json, sys, time
from lightcycle.sandbox import BotProcess, Limits, lifeline, reaper
if sys.argv[2] == "without":
    reaper.death_prefix = lambda: ()  # the attack: no parent-death signal,
    lifeline.start_undertaker = lambda file: None  # and no undertaker
bot = BotProcess([sys.executable, "-c", sys.argv[3]], limits=Limits(isolate=sys.argv[1]))
print(json.dumps({"pid": bot.pid, "mark": bot.mark}), flush=True)
time.sleep(120)
"""


@contextlib.contextmanager
def referee(isolate: str, death_signal: bool) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """A referee with its bot running (in the lab); killed, with its bots, at the end."""
    ref = subprocess.Popen(
        [PY, "-c", REFEREE, isolate, "with" if death_signal else "without", BOT],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert ref.stdout is not None
        info = json.loads(ref.stdout.readline())
        # the bot and its child are up: both run the bot's own code. Counting marked
        # processes is not enough: `unshare --fork` carries the mark, and so does its
        # child from the fork on, before it has set its parent-death signal and exec'd;
        # a referee killed in that window leaves a bot the death signal cannot end (the
        # reaper's job, not this test's).
        assert wait_for(lambda: len(_running_the_bot(ref.pid)) >= 2), "the bot did not start"
        yield ref, int(info["pid"])
    finally:
        ref.kill()
        ref.wait()
        for pid in reaper.bots_of(ref.pid):
            os.kill(pid, signal.SIGKILL)


def isolations() -> list[object]:
    ns = bool(pidns_prefix())
    return [
        pytest.param("none", id="no-isolation"),
        pytest.param("auto", id="pidns", marks=pytest.mark.skipif(not ns, reason=NO_PIDNS)),
    ]


@pytest.mark.parametrize("isolate", isolations())
def test_a_referee_killed_with_sigkill_takes_its_bot_along(isolate: str) -> None:
    if not reaper.death_prefix():
        pytest.skip(NO_SETPRIV)
    run_in_lab(killed_with_its_death_signal, isolate)


def killed_with_its_death_signal(isolate: str) -> None:  # in the lab
    with referee(isolate, True) as (ref, main):
        ref.send_signal(signal.SIGKILL)
        ref.wait()
        assert wait_for(lambda: _dead(main)), "the bot's first process outlived its referee"
        if isolate == "auto":
            # the namespace's init gets `unshare --kill-child`'s death signal and takes
            # every process of the namespace with it; a referee killed while that init
            # was forked but not yet armed is caught by its lifeline's check (the kill
            # here comes later: both processes already run the bot's code)
            assert wait_for(lambda: reaper.bots_of(ref.pid) == []), (
                f"the PID namespace outlived its referee: {reaper.bots_of(ref.pid)}"
            )
        else:  # the bot's own child has no parent-death signal: a stray for the reaper
            assert reaper.bots_of(ref.pid) != [], "the bot's child did not outlive the referee"
        reap_strays()
        assert wait_for(lambda: reaper.bots_of(ref.pid) == []), "the reaper left a stray"


@pytest.mark.parametrize("isolate", isolations())
def test_without_the_death_signal_the_bot_outlives_its_referee(isolate: str) -> None:
    run_in_lab(killed_without_its_death_signal, isolate)


def killed_without_its_death_signal(isolate: str) -> None:  # in the lab
    with referee(isolate, False) as (ref, main):
        ref.send_signal(signal.SIGKILL)
        ref.wait()
        time.sleep(0.5)
        survivors = reaper.bots_of(ref.pid)
        # (unshare carries no mark of its own)
        assert main in survivors or isolate == "auto", (main, survivors)
        assert len(survivors) >= 2, f"the attack failed: {survivors} outlived the referee"
        killed = reap_strays()
        assert set(survivors) <= set(killed), (survivors, killed)
        assert wait_for(lambda: reaper.bots_of(ref.pid) == []), "the reaper left a stray"


def _running_the_bot(referee: int) -> list[int]:
    """The processes of ``referee``'s bot that run the bot's code (exec'd, not starting)."""
    found = []
    for pid in reaper.bots_of(referee):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")[:-1]
        except OSError:
            continue
        # the Python itself, not a step of the start whose arguments name it (unshare,
        # the lifeline's check: a bot whose referee dies there never runs)
        if argv[:1] == [PY.encode()] and argv[-1:] == [BOT.encode()]:
            found.append(pid)
    return found


def _dead(pid: int) -> bool:
    info = proctree.read_stat(pid)
    return info is None or info.state in ("Z", "X")


def test_the_reaper_leaves_live_referees_bots_and_marks_it_cannot_judge() -> None:
    run_in_lab(live_referees_and_marks_it_cannot_judge)


def live_referees_and_marks_it_cannot_judge() -> None:  # in the lab
    mine = BotProcess([PY, "-c", "import time; time.sleep(60)"], limits=Limits(isolate="none"))
    me, start, ns = reaper.owner_of(mine.mark) or (0, 0, 0)
    assert (me, start, ns) == (
        os.getpid(),
        proctree.start_time(os.getpid()),
        reaper.pid_namespace(),
    )
    marks = {
        "stray": f"{me}-{start + 1}-{ns}-x",  # this pid, another start: a referee gone
        "other namespace": f"{me}-{start + 1}-{ns + 1}-x",  # pids mean something else there
        "old mark": "0123456789abcdef",  # names no referee
    }
    others = {
        name: subprocess.Popen(["sleep", "60"], env={**os.environ, MARK: mark})
        for name, mark in marks.items()
    }
    try:
        assert wait_for(lambda: all(reaper._marks(MARK).get(p.pid) for p in others.values()))
        killed = reap_strays()
        assert others["stray"].pid in killed
        assert others["stray"].wait(5) == -signal.SIGKILL
        for name in ("other namespace", "old mark"):
            assert others[name].poll() is None, f"the reaper killed a process with {name}"
        assert mine.poll() is None and not set(mine.alive_processes()) & set(killed)
    finally:
        for p in others.values():
            p.kill()
            p.wait()
        mine.close(grace=0)


def test_marks_name_their_referee() -> None:
    mark = reaper.new_mark()
    assert reaper.owner_of(mark) == (
        os.getpid(),
        proctree.start_time(os.getpid()),
        reaper.pid_namespace(),
    )
    assert reaper.new_mark() != mark
    assert reaper.owner_of("not-a-mark") is None

"""`SparePool`: spares started ahead, processes ended in the background, nothing left over."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lightcycle.sandbox import BotProcess, Limits, SandboxError, SparePool, proctree
from tests.sandbox.survivors import leftovers, zombie_children
from tests.waiting import wait_for

PY = sys.executable
ECHO = [PY, "-c", "import sys\nfor line in sys.stdin: print(line.strip(), flush=True)"]


def recording(
    argv: list[str], isolate: str = "auto"
) -> tuple[Callable[[], BotProcess], list[BotProcess]]:
    made: list[BotProcess] = []

    def start() -> BotProcess:
        proc = BotProcess(argv, limits=Limits(isolate=isolate))
        made.append(proc)
        return proc

    return start, made


def read_line(proc: BotProcess, timeout: float = 5.0) -> bytes:
    buf = b""
    end = time.monotonic() + timeout
    while b"\n" not in buf and time.monotonic() < end:
        buf += proc.read()
        time.sleep(0.002)
    return buf


@pytest.mark.parametrize("isolate", ["auto", "none"])
def test_a_spare_is_started_while_the_taken_process_works(isolate: str) -> None:
    start, made = recording(ECHO, isolate)
    with SparePool(start, spares=1) as pool:
        first = pool.take()
        assert pool.from_spares == 0
        assert wait_for(lambda: len(made) == 2), "no spare was started"
        first.send(b"hi\n")
        assert read_line(first) == b"hi\n"
        second = pool.take()
        assert second is made[1] and pool.from_spares == 1
        second.send(b"again\n")
        assert read_line(second) == b"again\n"
        pool.retire(first, grace=0.05)
        pool.retire(second, grace=0.05)
        assert wait_for(lambda: len(made) == 3)
    assert pool.started == 3 and pool.unused == 1
    for proc in made:
        assert leftovers(proc) == []
    assert zombie_children() == set()


def test_without_spares_each_take_starts_one() -> None:
    start, made = recording(ECHO)
    with SparePool(start, spares=0) as pool:
        a = pool.take()
        time.sleep(0.05)
        assert len(made) == 1
        pool.retire(a)
        pool.take()
        assert len(made) == 2 and pool.from_spares == 0
    for proc in made:
        assert leftovers(proc) == []


def test_retire_ends_the_process_in_the_background_and_writes_its_log(tmp_path: Path) -> None:
    start, _made = recording([PY, "-c", "import sys; sys.stderr.write('bye\\n'); sys.stdin.read()"])
    pool = SparePool(start, spares=0)
    proc = pool.take()
    proc.log_path = tmp_path / "bot.log"
    t0 = time.perf_counter()
    pool.retire(proc, grace=1.0)
    assert time.perf_counter() - t0 < 0.1, "retire must not wait for the process"
    pool.close()
    assert proc.poll() is not None and leftovers(proc) == []
    assert b"bye" in (tmp_path / "bot.log").read_bytes()
    assert zombie_children() == set()


@pytest.mark.parametrize("isolate", ["auto", "none"])
def test_close_kills_unused_spares_and_stubborn_retirees(isolate: str) -> None:
    stubborn = [
        PY,
        "-c",
        "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "import os\nif os.fork() == 0:\n    time.sleep(60)\ntime.sleep(60)",
    ]
    start, made = recording(stubborn, isolate)
    pool = SparePool(start, spares=2)
    taken = pool.take()
    assert wait_for(lambda: len(made) == 3)
    pool.retire(taken, grace=0.05)
    pool.close()
    pool.close()  # idempotent
    assert pool.unused == 2
    for proc in made:
        assert leftovers(proc) == [], "a process of the pool survived it"
    assert zombie_children() == set()


def test_take_after_close_is_refused() -> None:
    start, _made = recording(ECHO)
    pool = SparePool(start, spares=1)
    pool.close()
    with pytest.raises(SandboxError):
        pool.take()


def test_a_spare_that_cannot_start_is_reported_by_the_next_take() -> None:
    calls = 0
    made: list[BotProcess] = []

    def start() -> BotProcess:
        nonlocal calls
        calls += 1
        if calls > 1:
            raise SandboxError("cannot start 'bot': no such file")
        proc = BotProcess(ECHO)
        made.append(proc)
        return proc

    with SparePool(start, spares=1) as pool:
        first = pool.take()
        assert wait_for(lambda: calls >= 2)
        with pytest.raises(SandboxError, match="no such file"):
            pool.take()
        pool.retire(first)
    assert leftovers(made[0]) == []


def test_a_spare_that_died_while_waiting_is_handed_out_as_it_is() -> None:
    start, made = recording([PY, "-c", "raise SystemExit(3)"])
    with SparePool(start, spares=1) as pool:
        pool.retire(pool.take())
        assert wait_for(lambda: len(made) == 2 and made[1].poll() is not None)
        dead = pool.take()
        assert dead is made[1] and dead.poll() == 3  # the game sees a crash, as if cold
        pool.retire(dead)


@pytest.mark.parametrize("spares", [-1, 9])
def test_spares_out_of_range(spares: int) -> None:
    with pytest.raises(ValueError, match="spares"):
        SparePool(lambda: BotProcess(ECHO), spares=spares)


# -- spares cannot take CPU from a game; the starter outlives what it started ------------


def held_pool(
    argv: list[str], held: bool = True, isolate: str = "auto"
) -> tuple[SparePool, list[BotProcess]]:
    """A pool whose spares start held (as `ProgramPlayer` makes them), or not."""
    made: list[BotProcess] = []

    def start(hold: bool) -> BotProcess:
        proc = BotProcess(argv, limits=Limits(isolate=isolate, held=hold))
        made.append(proc)
        return proc

    spare = (lambda: start(True)) if held else None
    return SparePool(lambda: start(False), 1, held_start=spare), made


def hostile(marker: Path) -> list[str]:
    """A bot that leaves a marker file and spins, in a thread and in a child too."""
    return [
        PY,
        "-c",
        "import os, sys, threading\n"
        f"open({str(marker)!r}, 'a').close()\n"
        "def spin():\n    while True: pass\n"
        "threading.Thread(target=spin, daemon=True).start()\n"
        "if os.fork() == 0:\n    spin()\n"
        "spin()",
    ]


def tree_cpu(proc: BotProcess) -> float:
    return sum(p.precise_cpu() for p in proctree.tree(proc.pid, proc.pid))


@pytest.mark.parametrize("isolate", ["auto", "none"])
def test_a_held_spare_runs_nothing_of_the_bot_before_its_game(isolate: str, tmp_path: Path) -> None:
    """While another game is timed, a hostile spare neither spins nor touches anything;
    taken for its own game, it starts. Without the hold (the attack) it spins at once."""
    for held in (False, True):
        marker = tmp_path / f"started-{held}"
        pool, made = held_pool(hostile(marker), held, isolate)
        with pool:
            pool.retire(pool.take(), grace=0)
            assert wait_for(lambda made=made: len(made) == 2)
            spare = made[1]
            time.sleep(1.0)  # another game would be timed now
            used = tree_cpu(spare)
            if not held:
                assert marker.exists() and used > 0.3, "the attack failed: the spare idled"
                continue
            assert not marker.exists(), "a held spare ran the bot's code"
            assert used < 0.05, f"a held spare used {used:.3f} s of CPU while waiting"
            assert pool.take() is spare
            assert wait_for(marker.exists), "a released spare did not start its bot"
            pool.retire(spare, grace=0)
        for proc in made:
            assert leftovers(proc) == []
    assert zombie_children() == set()


def test_a_released_spare_gets_its_input_intact_and_an_unused_one_never_starts(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "started"
    echo = [
        PY,
        "-c",
        f"open({str(marker)!r}, 'a').close()\n"
        "import sys\nfor line in sys.stdin: print(line.strip(), flush=True)",
    ]
    pool, made = held_pool(echo)
    with pool:
        first = pool.take()
        assert wait_for(lambda: len(made) == 2)
        first.send(b"one\n")
        assert read_line(first) == b"one\n"
        pool.retire(first)
        marker.unlink()
        spare = pool.take()
        assert spare is made[1]
        spare.send(b"two\n\nthree\n")  # the hold took its own line only
        got = read_line(spare)
        while got.count(b"\n") < 3 and (more := read_line(spare, 1.0)):
            got += more
        assert got == b"two\n\nthree\n"
        pool.retire(spare)
        marker.unlink()
        assert wait_for(lambda: len(made) == 3)
        time.sleep(0.3)
    assert pool.unused == 1
    assert not marker.exists(), "a spare killed unused ran the bot"
    for proc in made:
        assert leftovers(proc) == []


def test_close_gives_retirees_their_grace_even_when_the_starter_started_them(
    tmp_path: Path,
) -> None:
    """A bot's parent-death signal fires when the thread that started it ends: the
    starter thread must outlive the spares it started, retirees in their grace included."""
    polite = [
        PY,
        "-c",
        "import sys, time\nsys.stdin.read()\ntime.sleep(0.2)\n"
        "sys.stderr.write('bye\\n')\nsys.exit(0)",
    ]
    start, made = recording(polite)
    pool = SparePool(start, spares=1)
    pool.retire(pool.take(), grace=2.0)
    assert wait_for(lambda: len(made) == 2)
    spare = pool.take()
    spare.log_path = tmp_path / "spare.log"
    pool.retire(spare, grace=2.0)
    pool.close()
    assert spare.poll() == 0, "the spare was killed before its grace was over"
    assert b"bye" in (tmp_path / "spare.log").read_bytes()
    for proc in made:
        assert leftovers(proc) == []
    assert zombie_children() == set()


def test_retire_with_kill_stops_the_bot_at_once_and_waits_off_path() -> None:
    stubborn = [
        PY,
        "-c",
        "import os, signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "os.fork()\ntime.sleep(60)",
    ]
    start, _made = recording(stubborn)
    with SparePool(start, spares=0) as pool:
        proc = pool.take()
        assert wait_for(lambda: len(leftovers(proc)) >= 2)
        t0 = time.perf_counter()
        pool.retire(proc, grace=5.0, kill=True)
        assert time.perf_counter() - t0 < 0.05, "retire waited for the tear-down"
        assert wait_for(lambda: proc.poll() is not None, 1.0), "no grace: killed at once"
    assert leftovers(proc) == []
    assert zombie_children() == set()

"""`SparePool`: spares started ahead, processes ended in the background, nothing left over."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lightcycle.sandbox import BotProcess, Limits, SandboxError, SparePool
from tests.sandbox.survivors import leftovers, zombie_children

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


def wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


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

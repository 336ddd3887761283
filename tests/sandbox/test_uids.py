"""`lightcycle.sandbox.uids`: one user id per live bot, across referee processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lightcycle.sandbox import SandboxError
from lightcycle.sandbox.uids import DEFAULT_RANGE, UIDS_VARIABLE, UidPool, uid_range


def test_default_range(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(UIDS_VARIABLE, raising=False)
    assert uid_range() == DEFAULT_RANGE == (61000, 61999)


@pytest.mark.parametrize("raw", ["61000", "a-b", "5-10", "62000-61000", "0-100"])
def test_a_bad_range_is_refused_with_an_example(raw: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(UIDS_VARIABLE, raw)
    with pytest.raises(SandboxError, match="set it like 61000-61999"):
        uid_range()


def test_ids_are_unique_skip_users_and_come_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(UIDS_VARIABLE, "65533-65535")  # 65534 is nobody on Debian
    pool = UidPool(tmp_path / "locks")
    a, b = pool.acquire(), pool.acquire()
    assert {a, b} == {65533, 65535}
    with pytest.raises(SandboxError, match=r"no free sandbox user id: all 3 .* widen the range"):
        pool.acquire()
    pool.release(a)
    assert pool.acquire() == a
    assert pool.held() == sorted({a, b})


LOCK_ONE = """
import sys
from pathlib import Path
from lightcycle.sandbox.uids import UidPool
pool = UidPool(Path(sys.argv[1]))
print(pool.acquire(), flush=True)
sys.stdin.read()
"""


def test_another_process_never_gets_a_held_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(UIDS_VARIABLE, "62000-62001")
    locks = tmp_path / "locks"
    other = subprocess.Popen(
        [sys.executable, "-c", LOCK_ONE, str(locks)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout is not None
        theirs = int(other.stdout.readline())
        pool = UidPool(locks)
        mine = pool.acquire()
        assert {theirs, mine} == {62000, 62001}
        with pytest.raises(SandboxError, match="no free sandbox user id"):
            pool.acquire()
    finally:
        other.kill()
        other.wait()
    assert pool.acquire() == theirs  # its lock went with the process

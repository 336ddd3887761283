"""Holding off Python's cyclic garbage collector while someone's clock runs.

A full collection walks every tracked object of the process: in a tournament worker with
the compiled search loaded that is 120,000 objects and 66 ms on the 2-core VM, over
150 ms when the machine is busy. Whoever's clock is running when one falls due pays for
it, and it is not theirs to pay: a searching bot holds the collector off for its move,
and the referee while its in-process bots think. The allocations made meanwhile
still count, so a collection due comes right after, off every clock.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

MAX_OFF = 5.0
"""Seconds the collector may stay off while holders overlap without a gap (games on
several threads of one process, as in the judge's workers): past it, a holder leaving
collects, so the process's cyclic garbage is bounded by a few seconds' worth."""

_lock = threading.Lock()
_holders = 0
_restore = False
_off_since = 0.0


@contextmanager
def no_collection() -> Iterator[None]:
    """Hold off the cyclic garbage collector for the duration.

    The collector is process-wide, and a tournament worker may run bots on several
    threads: the first holder disables it (remembering whether it was enabled) and the
    last one to leave enables it again, so overlapping holders neither re-enable it under
    each other nor leave it off. Where holders overlap for longer than `MAX_OFF`, the
    one leaving then collects (charged to whoever is timed at that moment: the price of
    never collecting would be memory without bound).
    """
    global _holders, _restore, _off_since
    with _lock:
        if _holders == 0:
            _restore = gc.isenabled()
            _off_since = time.monotonic()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _restore:
                if _holders == 0:
                    gc.enable()
                elif time.monotonic() - _off_since > MAX_OFF:
                    _off_since = time.monotonic()
                    gc.collect()


def holders() -> int:
    """How many holders are inside `no_collection` now (0 when nobody holds it off)."""
    return _holders

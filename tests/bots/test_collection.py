"""Holding off the garbage collector while a clock runs (`lightcycle.bots.collection`)."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

from lightcycle.bots import collection
from lightcycle.bots.collection import holders, no_collection


class Node:
    """A cycle of these is garbage only the cyclic collector frees."""

    other: Node | None = None


def cyclic_garbage() -> weakref.ref[Node]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_overlapping_holders_on_threads_restore_the_collector_once() -> None:
    assert gc.isenabled()
    inside = threading.Barrier(2)
    out: list[bool] = []

    def hold(first: bool) -> None:
        with no_collection():
            inside.wait()
            if first:
                out.append(gc.isenabled())  # the other thread is still inside
            inside.wait()

    threads = [threading.Thread(target=hold, args=(i == 0,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [False]
    assert gc.isenabled() and holders() == 0


@pytest.mark.parametrize("max_off", [0.0, 3600.0])
def test_holders_overlapping_past_the_limit_collect_on_leaving(
    monkeypatch: pytest.MonkeyPatch, max_off: float
) -> None:
    """Games on threads of one process can hold the collector off without a gap; past
    `MAX_OFF` the one leaving collects, so cyclic garbage does not pile up for ever."""
    monkeypatch.setattr(collection, "MAX_OFF", max_off)
    gc.collect()
    with no_collection():
        with no_collection():  # another game's turn, overlapping this one
            garbage = cyclic_garbage()
        # the inner one has left; the outer still holds the collector off
        assert not gc.isenabled()
        assert (garbage() is None) is (max_off == 0.0)
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with no_collection():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()

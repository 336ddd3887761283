"""Scratch objects lent to one caller at a time, for tables shared by every thread.

A board's compiled tables (`native.fill_for` and the others) are made once and cached
per board, because on a big board they cost more than a move may. The arrays a compiled
call writes as it goes cannot be part of them: `lightcycle serve` runs every game's
built-in bots on worker threads (and the judge runs matches on threads), two games on
one map then search one board at once, and the kernels run without the GIL and check
no bounds. When the scratch arrays were cached with the tables, two threads wrote into
the same ones: a segfault, or a different move than the node budget fixes.

So the cached object keeps only what no call writes, and a call takes its scratch from
`Spares` and gives it back when done. On one thread that is always the same scratch
object, made with the tables (the speed and the reuse of before); a second thread that
comes while it is lent makes another, kept for the next time. ``list.pop`` and
``list.append`` are atomic, so taking and giving need no lock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")


class Spares(Generic[T]):
    """Scratch objects of one kind, each held by one caller at a time.

    As many are made as callers ever held them at once (the threads searching the board
    together), and all are kept: a few arrays the size of the board each.
    """

    def __init__(self, make: Callable[[], T], ready: int = 1) -> None:
        """Args:
        make: makes a new scratch object.
        ready: how many to make now rather than on first use (one: the first call on
            any clock finds its scratch made, as `endgame.prepare` wants).
        """
        self._make = make
        self._free: list[T] = [make() for _ in range(ready)]

    def take(self) -> T:
        """A scratch object for the caller alone, until it `give`s it back."""
        try:
            return self._free.pop()
        except IndexError:  # every one is lent: another thread is searching this board
            return self._make()

    def give(self, item: T) -> None:
        """Hand back what `take` lent (no caller may use it after this)."""
        self._free.append(item)

    @contextmanager
    def lend(self) -> Iterator[T]:
        """`take` for the ``with`` block, given back however it ends."""
        item = self.take()
        try:
            yield item
        finally:
            self.give(item)

    def spare(self) -> int:
        """How many are made and not lent now."""
        return len(self._free)

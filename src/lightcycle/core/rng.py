"""The engine's only randomness, derived from ``(seed, turn, stream)``.

Every random choice the rules make (a collision order, a coin toss between equals, where to
place starts) asks for a fresh generator keyed by the game seed, the turn and a stream
name, so a seed plus the moves reproduce a game exactly, whatever order the stages or
the bots ask in. The generator is splitmix64: tiny, well mixed, and easy to port.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import TypeVar

_MASK = (1 << 64) - 1
T = TypeVar("T")


def _mix(z: int) -> int:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & _MASK
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & _MASK
    return z ^ (z >> 31)


def _hash_text(text: str) -> int:
    h = 0xCBF29CE484222325
    for byte in text.encode():
        h = ((h ^ byte) * 0x100000001B3) & _MASK
    return h


class Rng:
    """A deterministic generator for one purpose on one turn of one game."""

    __slots__ = ("_state",)

    def __init__(self, seed: int, turn: int = 0, stream: str = "") -> None:
        self._state = _mix((seed & _MASK) ^ _mix(turn + 1) ^ _hash_text(stream))

    def next_u64(self) -> int:
        """Return the next 64-bit value."""
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        return _mix(self._state)

    def below(self, n: int) -> int:
        """Return an integer uniformly in ``[0, n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, got {n}")
        limit = _MASK - (_MASK % n) - 1 if n & (n - 1) else _MASK
        while True:
            v = self.next_u64()
            if v <= limit:
                return v % n

    def choice(self, items: list[T] | tuple[T, ...]) -> T:
        """Return one of ``items``."""
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle ``items`` in place (Fisher-Yates)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

"""Sets of cells as Python ints.

A board of n cells fits in an n-bit int: membership is one shift and mask, union and
difference are single operations, and an int is immutable, so snapshots cost nothing.
This is why trails and walls are bitmasks throughout the engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator


def from_cells(cells: Iterable[int]) -> int:
    """Return the bitmask holding exactly ``cells``."""
    mask = 0
    for c in cells:
        mask |= 1 << c
    return mask


def iter_cells(mask: int) -> Iterator[int]:
    """Yield the cells of ``mask`` in increasing order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def count(mask: int) -> int:
    """Return how many cells ``mask`` holds."""
    return mask.bit_count()


def contains(mask: int, cell: int) -> bool:
    """Return whether ``cell`` is in ``mask``."""
    return (mask >> cell) & 1 == 1

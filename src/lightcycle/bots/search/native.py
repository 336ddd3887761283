"""The chamber bound in machine code, when the optional ``fast`` extra is installed.

`chambers.fill_bound` is a depth-first pass over every cell of a territory. On a tight
board the search's evaluation calls it twice a leaf, and in pure Python it is then nine
tenths of the search's time (about 0.2 ms a call on a 15x15 room): the ply or two that
separates strong from the best programs of the 2010 contest on small maps. Compiled with
numba (``pip install 'lightcycle[fast]'``) the same pass takes a few microseconds.

The issue allows a compiled kernel only as an extra with a pure-Python fallback that
plays the same moves for the same node budget. So this is the very algorithm of
`chambers.fill_bound` (the same neighbour order, the same blocks, the same sums): its
value is equal on every input (tests/bots/search/test_native.py checks thousands of
regions), and a search with either makes the same moves. Pure Python stays the default
install; set ``LIGHTCYCLE_NATIVE=0`` to use it even where numba is installed.

Numba compiles on first import (about a second) and caches the machine code next to this
file or in its user cache, so later processes load it in a few hundred milliseconds. The
searching bots import this module when they are made, which is before any game's clock
starts.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

from lightcycle.bots.search.bitboard import Kernel
from lightcycle.bots.search.chambers import fill_bound

Bound = Callable[[int, int], int]
"""``bound(head, free)``: `chambers.fill_bound` on one kernel, with parity."""

_compiled: Any = None
_why_not: str | None = None


def _compile() -> Any:
    """The compiled pass, or ``None`` (the reason in ``_why_not``)."""
    global _compiled, _why_not
    if _compiled is not None or _why_not is not None:
        return _compiled
    if os.environ.get("LIGHTCYCLE_NATIVE", "1") == "0":
        _why_not = "LIGHTCYCLE_NATIVE=0"
        return None
    try:
        from lightcycle.bots.search import _native_kernels
    except ImportError as exc:  # numba (the fast extra) not installed
        _why_not = f"numba is not installed ({exc}): pip install 'lightcycle[fast]'"
        return None
    except Exception as exc:  # a platform numba cannot compile for: stay pure
        _why_not = f"numba could not compile the kernel: {exc}"
        return None
    _compiled = _native_kernels
    return _compiled


def available() -> bool:
    """Whether the compiled chamber bound is in use in this process."""
    return _compile() is not None


def why_not() -> str | None:
    """Why the compiled bound is not in use (``None`` when it is)."""
    _compile()
    return _why_not


def chamber_bound(kernel: Kernel) -> Bound:
    """`chambers.fill_bound` for ``kernel`` (with parity): compiled when numba is
    installed and allowed, else the pure-Python function itself."""
    if _compile() is None:
        return partial(fill_bound, kernel)
    return _native_bound(kernel)


@lru_cache(maxsize=16)
def _native_bound(kernel: Kernel) -> Bound:
    """The compiled bound with ``kernel``'s tables made once (a game's boards share one)."""
    bound: Bound = _compiled.bound_for(kernel.neighbours, kernel.size, kernel.black)
    return bound

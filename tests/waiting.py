"""Polling until something holds: the helper the process and referee tests share."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(condition: Callable[[], object], timeout: float = 5.0, poll: float = 0.01) -> bool:
    """Whether ``condition`` held within ``timeout`` seconds, asking every ``poll``.

    It asks once more at the deadline: a process ending during the last sleep counts,
    and a test asserting the result fails only on a condition still false then.
    """
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(poll)
    return bool(condition())

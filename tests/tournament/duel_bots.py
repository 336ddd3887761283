"""Small in-process bots for the duel tests (``py:tests/tournament/duel_bots.py:Name``)."""

from __future__ import annotations

import time

from lightcycle.bots.api import Bot, MoveAnswer
from lightcycle.rules.observe import View


class DeepBot(Bot):
    """Takes the first safe heading and reports a fixed search depth, like a searcher."""

    name = "Deep"

    def __init__(self) -> None:
        self.moves = 0

    def move(self, view: View) -> MoveAnswer:
        self.moves += 1
        safe = view.safe_headings()
        return safe[0] if safe else "n"

    def report(self) -> dict[str, float]:
        return {"depth": 7.5, "moves": float(self.moves)}


class CrashBot(Bot):
    """Raises on its third move: the referee must record ``crashed`` and play on."""

    name = "Crash"

    def __init__(self) -> None:
        self.moves = 0

    def move(self, view: View) -> MoveAnswer:
        self.moves += 1
        if self.moves == 3:
            raise RuntimeError("boom")
        safe = view.safe_headings()
        return safe[0] if safe else "n"


class SlowBot(Bot):
    """Sleeps 0.15 s on its second move, past a short move time: a ``timeout``."""

    name = "Slow"

    def __init__(self) -> None:
        self.moves = 0

    def move(self, view: View) -> MoveAnswer:
        self.moves += 1
        if self.moves == 2:
            time.sleep(0.15)
        safe = view.safe_headings()
        return safe[0] if safe else "n"

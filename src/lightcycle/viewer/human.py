"""A person at the keyboard as a bot: arrow keys or i/j/k/l steer a cycle on a grid.

The game does not wait for people: each turn the human has one tick (``1 / speed``
seconds) to press a key, and the cycle keeps its heading if none comes, as a light cycle
would. Only the very first move waits, so nobody loses before they have found the keys.
Reversing into one's own trail is always fatal, so a key for the opposite heading is
ignored rather than obeyed.

The bot takes its keys from a function (a `lightcycle.viewer.keys.RawTerminal`'s
``read`` in ``lightcycle play``, a script in tests) and its time from a clock function,
so it is tested without a terminal or a wait.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from lightcycle.bots.api import Bot, MoveAnswer
from lightcycle.core.moves import Forfeit
from lightcycle.core.topology import GridTopology, Heading
from lightcycle.rules.observe import View

STEER = {
    "up": Heading.N,
    "down": Heading.S,
    "left": Heading.W,
    "right": Heading.E,
    "i": Heading.N,
    "k": Heading.S,
    "j": Heading.W,
    "l": Heading.E,
}
"""Keys and the headings they steer to (i/j/k/l as the tron-engine's human player had)."""
QUIT = ("q", "ctrl-c")

KeySource = Callable[[float | None], list[str]]
"""Waits up to the given seconds (``None``: until a key) and returns the keys pressed."""


class HumanError(ValueError):
    """A game a human cannot steer from the keyboard (a graph board, several cycles)."""


def steer(current: Heading | None, key: str) -> Heading | None:
    """The heading ``key`` asks for, or ``None`` for a key that does not steer (or that
    would turn the cycle back onto its own trail)."""
    wanted = STEER.get(key)
    if wanted is None or (current is not None and wanted == current.opposite):
        return None
    return wanted


def check_steerable(view: View) -> None:
    """Raise `HumanError` unless the human's seat is one cycle on a grid board.

    Raises:
        HumanError: naming what keyboard play cannot do.
    """
    if not isinstance(view.topology, GridTopology):
        raise HumanError(
            "a human steers with arrow keys on grid boards; this game is on a "
            f"{view.topology.describe()}"
        )
    if len(view.my_cycles) != 1:
        raise HumanError(
            f"a human steers one cycle; this seat has {len(view.my_cycles)} (ruleset teams?)"
        )


class HumanBot(Bot):
    """The keyboard player.

    Args:
        keys: where keys come from (see `KeySource`).
        tick: seconds the human has for each move after the first.
        clock: a monotonic clock (tests give a fake one).
    """

    name = "Human"

    def __init__(
        self,
        keys: KeySource,
        tick: float = 0.25,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.keys = keys
        self.tick = tick
        self.clock = clock
        self.heading: Heading | None = None
        self.quit = False

    def start(self, game: View) -> None:
        """Check the game can be steered, before the first move (raising forfeits it)."""
        check_steerable(game)
        self.heading = None
        self.quit = False

    def move(self, view: View) -> MoveAnswer:
        """Wait out this turn's tick for keys; the last steering key wins."""
        if self.quit:
            return Forfeit(view.me.index, "the human quit")
        heading = self.heading
        first = heading is None
        deadline = self.clock() + self.tick
        while True:
            timeout = None if first and heading is None else max(0.0, deadline - self.clock())
            for key in self.keys(timeout):
                if key in QUIT:
                    self.quit = True
                    return Forfeit(view.me.index, "the human quit")
                wanted = steer(self.heading, key)
                if wanted is not None:  # not `or`: Heading.N is 0, which is false
                    heading = wanted
            if heading is not None and (first or self.clock() >= deadline):
                break
        self.heading = heading
        return heading.letter

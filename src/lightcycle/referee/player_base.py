"""What every player is (`Player`), and the in-process kind (`InProcessPlayer`).

`players` makes a player of any spec (`players.make_player`) and holds the program kind
(`players.ProgramPlayer`); an HTTP snake (`http_bot.HttpPlayer`) is an in-process player
too. The kinds build on these two classes and the factory builds on the kinds, so the
classes live here, below both: `http_bot` imports this module, not the factory that
makes its players, and `players` can make an `HttpPlayer` without a cycle. `players`
re-exports both names.
"""

from __future__ import annotations

from lightcycle.bots.api import Bot
from lightcycle.bots.registry import make_bot
from lightcycle.referee.specs import BotSpec


class Player:
    """One bot across the games of a match (a seat changes from game to game)."""

    def __init__(self, spec: BotSpec) -> None:
        self.spec = spec
        self.name = spec.name or spec.text

    def shutdown(self) -> None:
        """Release what the player holds (processes)."""


class InProcessPlayer(Player):
    """A Python bot called in the referee's own process; a fresh instance per game."""

    def __init__(self, spec: BotSpec) -> None:
        super().__init__(spec)
        self.bot: Bot = make_bot(spec.text)
        self.name = spec.name or self.bot.display_name

    def new_game(self) -> Bot:
        """A fresh bot instance for the next game."""
        self.bot = make_bot(self.spec.text)
        return self.bot

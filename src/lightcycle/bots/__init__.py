"""The in-process bot API (`Bot`, `brain`) and the built-in bots."""

from lightcycle.bots.api import Bot, BotError, brain

__all__ = ["Bot", "BotError", "brain"]

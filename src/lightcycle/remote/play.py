"""`play_remote`: the Scheme course's ``play-remote-tron`` for Python bots and programs."""

from __future__ import annotations

import re

from lightcycle.bots.api import Bot
from lightcycle.remote.client import RemoteClient
from lightcycle.remote.local import make_local_bot
from lightcycle.remote.wire import Hello
from lightcycle.sandbox import Limits

_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def player_name(text: str) -> str:
    """A name the server accepts (1-16 of ``A-Z a-z 0-9 _ -``) made from a bot's name."""
    name = _NAME.sub("-", text).strip("-")[:16].strip("-")
    return name or "player"


def play_remote(
    host: str,
    port: int,
    bot: str | Bot,
    queue: str = "torus",
    name: str | None = None,
    secret: str | None = None,
    protocol: str | None = None,
) -> str:
    """Play one game on a lightcycle server; print and return ``win``, ``loss`` or ``draw``.

    Args:
        host: the server's address, e.g. ``localhost``.
        port: its ``jsonl`` port (7701 by default).
        bot: a bot spec (``builtin:chaser``, ``py:mybot.py``, ``cmd:./mybot`` with
            ``protocol``) or a `Bot` object.
        queue: the queue to join (the server's default is ``torus``).
        name: the player name (default: from the bot's name).
        secret: the account's secret, for a registered name.
        protocol: the protocol of a ``cmd:`` bot.

    Raises:
        lightcycle.remote.RemoteError: no server, a refusal, a lost connection (its text
            is one line that says what to do).
        BotError, SandboxError: a bot that cannot be made or started.

    Example:
        >>> import lightcycle
        >>> lightcycle.play_remote("localhost", 7701, "builtin:chaser")  # doctest: +SKIP
        win
        'win'
    """
    local = make_local_bot(bot, protocol, Limits())
    hello = Hello(
        name=name or player_name(local.display_name),
        queue=queue,
        protocol=local.protocol,
        secret=secret,
    )
    try:
        end = RemoteClient(host, port, local, hello).play_game()
    finally:
        local.close()
    print(end.result, flush=True)
    return end.result

"""`play_remote`: the Scheme course's ``play-remote-tron`` for Python bots and programs."""

from __future__ import annotations

import re

from lightcycle.bots.api import Bot
from lightcycle.remote.client import RemoteClient
from lightcycle.remote.local import make_local_bot
from lightcycle.remote.wire import Hello
from lightcycle.sandbox import Limits

_NAME = re.compile(r"[^A-Za-z0-9_-]+")


MAX_NAME = 40
"""Longest player name a server takes (`lightcycle.server.accounts.check_name`)."""


def player_name(text: str) -> str:
    """A tidy default name made from a bot's name (1-16 of ``A-Z a-z 0-9 _ -``)."""
    name = _NAME.sub("-", text).strip("-")[:16].strip("-")
    return name or "player"


def name_problem(name: str) -> str | None:
    """Why a server would refuse ``name`` as a player name (``None``: it takes it).

    The server's rule (`lightcycle.server.accounts.check_name`), checked before
    connecting so that a bad ``--name`` is a usage error: 1-40 printable characters,
    spaces inside allowed, none at either end, not a built-in bot's ``builtin:`` name.
    """
    if not name or len(name) > MAX_NAME:
        return f"a name is 1-{MAX_NAME} printable characters, e.g. {player_name(name)}"
    if not name.isprintable() or name != name.strip():
        return "a name is printable characters with no space at its start or end"
    if name.lower().startswith("builtin:"):
        return "builtin:... names the built-in bots; pick another name"
    return None


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

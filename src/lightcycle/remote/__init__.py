"""Playing on a lightcycle server from here: ``lightcycle connect`` and `play_remote`.

A local bot (a program relayed byte for byte, or an in-process Python bot) takes a seat
on a remote server's ``jsonl`` port in framed mode; see docs/server.md, "Playing
remotely". It sits above the referee: it runs programs as the referee's players do.
"""

from __future__ import annotations

from lightcycle.remote.client import BotFailed, GameEnd, RemoteClient
from lightcycle.remote.play import play_remote, player_name
from lightcycle.remote.wire import Hello, Lost, NoServer, Refused, RemoteError, parse_address

__all__ = [
    "BotFailed",
    "GameEnd",
    "Hello",
    "Lost",
    "NoServer",
    "Refused",
    "RemoteClient",
    "RemoteError",
    "parse_address",
    "play_remote",
    "player_name",
]

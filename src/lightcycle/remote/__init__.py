"""Playing on a lightcycle server from here: ``lightcycle connect`` and `play_remote`.

A local bot (a program relayed byte for byte, or an in-process Python bot) takes a seat
on a remote server's ``jsonl`` port in framed mode; see docs/server.md, "Playing
remotely". It sits above the referee: it runs programs as the referee's players do.

The names below are imported on first use (PEP 562), not with the package: the judge's
Python host (`lightcycle.judge.service.pyhost`) starts once per game in the sandbox and
needs only `lightcycle.remote.decode`, so it must not pay for the client, the referee
and the sandbox that ``from lightcycle.remote import RemoteClient`` brings.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lightcycle.remote.client import BotFailed, GameEnd, RemoteClient
    from lightcycle.remote.play import name_problem, play_remote, player_name
    from lightcycle.remote.wire import (
        Hello,
        Lost,
        NoServer,
        Refused,
        RemoteError,
        parse_address,
    )

_HOMES = {
    "BotFailed": "client",
    "GameEnd": "client",
    "RemoteClient": "client",
    "name_problem": "play",
    "play_remote": "play",
    "player_name": "play",
    "Hello": "wire",
    "Lost": "wire",
    "NoServer": "wire",
    "Refused": "wire",
    "RemoteError": "wire",
    "parse_address": "wire",
}
"""Each public name and the module of this package that defines it."""

__all__ = [
    "BotFailed",
    "GameEnd",
    "Hello",
    "Lost",
    "NoServer",
    "Refused",
    "RemoteClient",
    "RemoteError",
    "name_problem",
    "parse_address",
    "play_remote",
    "player_name",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module when the name is first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])

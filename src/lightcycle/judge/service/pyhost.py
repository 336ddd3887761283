"""Run a submitted Python `Bot` class as a program speaking ``jsonl``.

A judge never imports a student's Python into its own process: a class file is run as
``python3 -m lightcycle.judge.service.pyhost bot.py`` in the sandbox, like any program
bot, and this host turns the referee's ``jsonl`` lines into `View`s and the bot's
answers into ``{"move": ...}`` lines (`lightcycle.remote.inprocess.InProcessBot`, the
relay ``lightcycle connect`` uses). A bot's exception on a move is reported on stderr and
costs that move (the referee times it out); the host exits when its input ends.

Example: python3 -m lightcycle.judge.service.pyhost bot.py < messages.jsonl
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str] | None = None) -> int:
    """Play the bot of ``argv[0]`` (``FILE.py`` or ``FILE.py:ClassName``) over stdin/stdout."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python3 -m lightcycle.judge.service.pyhost BOT.py", file=sys.stderr)
        return 2
    from lightcycle.bots.api import BotError
    from lightcycle.remote.decode import DecodeError
    from lightcycle.remote.inprocess import InProcessBot

    try:
        host = InProcessBot(f"py:{args[0]}")
    except BotError as exc:
        print(f"cannot load the bot: {exc}", file=sys.stderr)
        return 1
    out = sys.stdout.buffer
    for line in sys.stdin:
        try:
            kind = json.loads(line).get("type") if line.strip() else None
        except (ValueError, AttributeError):
            kind = None
        if kind == "start":
            host.start_game()
        try:
            replies = host.deliver(line)
        except DecodeError as exc:
            print(f"cannot play this game: {exc}", file=sys.stderr)
            return 1
        for reply in replies:
            out.write(reply)
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

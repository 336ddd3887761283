"""``lightcycle serve``: the game server (TCP ports for remote bots, a live web page)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from lightcycle.cli.common import console, err, user_errors


def serve(
    config: Annotated[
        Path | None,
        typer.Argument(help="A server file (TOML); without one, the defaults (docs/server.md)."),
    ] = None,
    host: Annotated[
        str | None, typer.Option("--host", help="Address to listen on (default 127.0.0.1).")
    ] = None,
    port_offset: Annotated[
        int, typer.Option("--port-offset", help="Add this to every port (7700, 7701, 8000).")
    ] = 0,
    db: Annotated[
        str | None,
        typer.Option("--db", help="Database URL (sqlite:///server.db or postgresql://...)."),
    ] = None,
) -> None:
    """Run the game server until Ctrl-C: remote bots play in queues, people watch live.

    With no file: the Scheme course's torus duel on port 7700 (a built-in bot takes an
    empty seat after 5 s), lightcycle's jsonl protocol on 7701 and the web page on 8000,
    on 127.0.0.1. Ctrl-C or SIGTERM stops it; games in flight are recorded as aborted.

    Example: lightcycle serve --port-offset 100 --db sqlite:///games.db
    """
    from lightcycle.server.config import ConfigError, load_config
    from lightcycle.storage import StorageError

    with user_errors():
        try:
            cfg = load_config(config, host=host, port_offset=port_offset, database=db)
        except ConfigError as exc:  # as text: "[server]" in a message is not markup
            err.print(Text(str(exc), style="red"), highlight=False)
            raise typer.Exit(2) from None
        from lightcycle.server.app import Listening
        from lightcycle.server.app import serve as run_server

        def ready(where: Listening) -> None:
            for line in where.lines():
                console.print(line, markup=False, highlight=False)
            console.print("Ctrl-C stops the server.", markup=False, highlight=False)

        try:
            asyncio.run(run_server(cfg, ready=ready))
        except StorageError as exc:
            err.print(Text(str(exc), style="red"), highlight=False)
            raise typer.Exit(2) from None
        except OSError as exc:
            err.print(
                f"cannot listen: {exc.strerror or exc}; is another server running? "
                "Try --port-offset.",
                markup=False,
                highlight=False,
            )
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            pass

"""``lightcycle view``: browse a folder of replays in a web browser, served on localhost."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lightcycle.cli.common import console, user_errors


def view(
    folder: Annotated[
        Path, typer.Argument(help="A folder of replays (.json, .jsonl, .match, .tron).")
    ] = Path("replays"),
    host: Annotated[str, typer.Option(help="Address to listen on (localhost only by default).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="Port to listen on.", min=0, max=65535)] = 8000,
) -> None:
    """Serve a folder of replays: a list page (bots, map, result, length, date) and the viewer.

    Every game opens in the same viewer `lightcycle replay --html` writes; a replay whose
    moves do not lead to its stored outcome is shown as corrupt, never played. Needs the
    web extra: pip install 'lightcycle[web]'.

    Example: lightcycle view replays --port 8000  (then open http://127.0.0.1:8000/)
    """
    with user_errors():
        if not folder.is_dir():
            raise typer.BadParameter(f"{folder} is not a folder")
        from lightcycle.viewer.server import serve

        console.print(
            f"serving {folder} on http://{host}:{port}/  (Ctrl-C to stop)",
            markup=False,
            soft_wrap=True,
        )
        serve(folder, host=host, port=port)

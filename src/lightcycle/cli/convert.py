"""``lightcycle convert``: a replay from one format to another, checked on the way."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lightcycle.cli.common import console, user_errors


def convert(
    source: Annotated[
        Path, typer.Argument(help="The replay to read (.json, .jsonl, .match or .tron).")
    ],
    target: Annotated[Path, typer.Argument(help="The file to write ('-' for standard output).")],
    to: Annotated[
        str | None,
        typer.Option(
            "--to",
            "-t",
            help="Target format: lightcycle, jsonl, match, marlboro (default: from TARGET's "
            "extension).",
        ),
    ] = None,
    from_: Annotated[
        str | None,
        typer.Option("--from", "-f", help="Source format (default: from its extension or text)."),
    ] = None,
) -> None:
    """Convert a replay between lightcycle's JSON, JSON Lines, match files and tron-engine files.

    The game is re-simulated on the way in: a file whose moves do not lead to the result it
    states is refused as corrupt. A format that cannot hold the game (a torus in a
    tron-engine file, a jump in a match file) is refused with the reason.

    Example: lightcycle convert replays/game.json game.jsonl; lightcycle convert
    games/ring__alice__bob__1.tron ring.json
    """
    from lightcycle.replay.convert import format_for_path, format_named, read_file
    from lightcycle.replay.model import ReplayError

    with user_errors():
        fmt = format_named(to) if to else format_for_path(target)
        if fmt is None:
            raise ReplayError(
                f"cannot tell the format of {target} from its extension; give --to "
                "(lightcycle, jsonl, match or marlboro)"
            )
        replay = read_file(source, from_)
        text = fmt.write(replay)
        if str(target) == "-":
            typer.echo(text, nl=False)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)
        console.print(
            f"{source} -> {target} ({fmt.name}, {len(replay.turns)} turns)",
            markup=False,
            soft_wrap=True,
        )

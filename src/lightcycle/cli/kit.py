"""``lightcycle kit COURSE DIR``: write out what a course's student starts from."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lightcycle.cli.common import console, user_errors


def kit(
    course: Annotated[
        str,
        typer.Argument(
            help="The course: scheme (the Scheme course's library, tron.scm) or tron3d "
            "(the 3D course's C++ kit).",
            show_default=False,
        ),
    ],
    folder: Annotated[
        Path,
        typer.Argument(
            help="The folder to write it into (created if missing).", show_default=False
        ),
    ],
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Overwrite files in FOLDER that differ from the kit's (kept otherwise)."
        ),
    ] = False,
) -> None:
    """Write a course's starting kit into FOLDER: the files its students build on.

    A file already in FOLDER with other content (your own edits) is kept unless --force.

    Example: lightcycle kit scheme my-tron
    """
    from lightcycle.kits import get_kit, write_kit

    with user_errors():
        report = write_kit(course, folder, force=force)
    for rel in report.written:
        console.print(f"wrote {folder / rel}", highlight=False)
    for rel in report.kept:
        console.print(
            f"kept {folder / rel}: it differs from the kit's (your edits?); --force replaces it",
            highlight=False,
        )
    if report.same and not report.written:
        console.print(f"{folder}: the kit's files are already there, unchanged", highlight=False)
    steps = [s.replace("{dir}", str(folder)) for s in get_kit(course).next_steps]
    if steps:
        console.print("Next:", highlight=False)
        for s in steps:
            console.print(f"  {s}", highlight=False, soft_wrap=True)

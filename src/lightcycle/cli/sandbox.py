"""``lightcycle sandbox``: what this host enforces on the bots it runs."""

from __future__ import annotations

from typing import Annotated, Literal

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from lightcycle.cli.common import console, user_errors

sandbox_app = typer.Typer(
    help="The bot sandbox: what this host can enforce on untrusted bots.\n\n"
    "Example: lightcycle sandbox check",
    no_args_is_help=True,
)


@sandbox_app.command("check")
def sandbox_check(
    require: Annotated[
        Literal["none", "auto", "full"] | None,
        typer.Option(
            "--require",
            help="Exit with status 2, naming what is missing and how to get it, when the "
            "host cannot give this sandbox (full: every protection; cgroups where the host "
            "gives them).",
        ),
    ] = None,
) -> None:
    """Print each protection a sandboxed bot gets here: on or off, and how or why not.

    Example: lightcycle sandbox check --require full
    """
    from lightcycle.sandbox.check import host_report
    from lightcycle.sandbox.check import require as require_level

    table = Table(title="Bot sandbox on this host", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("protection", no_wrap=True)
    table.add_column("state", no_wrap=True)
    table.add_column("how, or why not", ratio=1)
    for p in host_report():
        state = Text("on", style="green") if p.on else Text("off", style="red")
        table.add_row(p.name, state, p.detail)
    console.print(table)
    if require is not None:
        with user_errors():
            require_level(require)
        console.print(f"The {require} sandbox is available here.", highlight=False)

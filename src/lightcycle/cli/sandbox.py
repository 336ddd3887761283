"""``lightcycle sandbox``: what this host enforces on the bots it runs."""

from __future__ import annotations

import json
from typing import Annotated, Literal

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from lightcycle.cli.common import console, user_errors
from lightcycle.sandbox.limits import SANDBOX_LEVELS, SandboxError

sandbox_app = typer.Typer(
    help="The bot sandbox: what this host can enforce on untrusted bots.\n\n"
    "Example: lightcycle sandbox check",
    no_args_is_help=True,
)


@sandbox_app.command("check")
def sandbox_check(
    require: Annotated[
        Literal["none", "uid", "auto", "full"] | None,
        typer.Option(
            "--require",
            help="Exit with status 2, naming what is missing and how to get it, when the "
            "host cannot give this sandbox (full: every protection; cgroups where the host "
            "gives them).",
        ),
    ] = None,
    level: Annotated[
        str | None,
        typer.Option(
            "--level",
            help=f"The sandbox level of the run to describe ({', '.join(SANDBOX_LEVELS)}; "
            "default: $LIGHTCYCLE_SANDBOX, else auto, as match, duel, grade and tournament "
            "use).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the lines as JSON, for scripts.")
    ] = False,
) -> None:
    """Print each protection as the bots of a run at this level get it here: on or off,
    and how, or why not and how to get it.

    Example: lightcycle sandbox check --require full
    """
    from lightcycle.referee.players import default_sandbox
    from lightcycle.sandbox.levels import gives_full, level_report
    from lightcycle.sandbox.levels import require as require_level

    with user_errors():
        if level is not None and level not in SANDBOX_LEVELS:
            raise SandboxError(f"--level {level!r}: give {', '.join(SANDBOX_LEVELS)}")
        chosen: str = level or default_sandbox()
        report = level_report(chosen)
        full = gives_full(chosen)
    if as_json:
        lines = [{"name": p.name, "on": p.on, "detail": p.detail} for p in report]
        data = {"level": chosen, "full": full, "protections": lines}
        print(json.dumps(data, indent=1))
    else:
        title = f"Bots at sandbox {chosen} on this host: " + (
            "the full sandbox" if full else "less than the full sandbox"
        )
        table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)
        table.add_column("protection", no_wrap=True)
        table.add_column("state", no_wrap=True)
        table.add_column("how, or why not", ratio=1)
        for p in report:
            state = Text("on", style="green") if p.on else Text("off", style="red")
            table.add_row(p.name, state, p.detail)
        console.print(table)
    if require is not None:
        with user_errors():
            require_level(require)
        console.print(f"The {require} sandbox is available here.", highlight=False)

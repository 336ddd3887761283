"""What every command shares: the consoles and the user-error guard."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
import typer.rich_utils
from rich.console import Console
from rich.markup import escape

console = Console()
err = Console(stderr=True)


def _usage_error_line(error: Any) -> None:  # Typer's own (vendored) ClickException
    """Print a usage error as every other error is printed: one ``error:`` line, and where
    to read more (Typer's default is a usage line, a hint and a boxed message)."""
    if error.__class__.__name__ == "NoArgsIsHelpError":  # the help was printed instead
        return
    ctx = getattr(error, "ctx", None)
    where = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
    err.print(
        f"[bold red]error:[/] {escape(error.format_message())}{escape(where)}",
        highlight=False,
        soft_wrap=True,
    )


# Typer prints usage errors (a bad option value, a missing argument) through this hook;
# the pinned range of typer (pyproject.toml) is the one tests/cli checks this with
setattr(typer.rich_utils, "rich_format_error", _usage_error_line)  # noqa: B010 -- a hook, typed loosely

ProtocolOption = Annotated[
    str | None,
    typer.Option(
        "--protocol", "-p", help="Protocol of cmd: bots: tron2010, aichallenge, sexp, jsonl."
    ),
]
"""``--protocol``: the wire protocol of ``cmd:`` bots, shared by every command that
starts bot programs."""

SandboxOption = Annotated[
    str | None,
    typer.Option(
        "--sandbox",
        help="Sandbox of bot programs: auto (default: the strongest this host offers), "
        "full (every protection, else refuse to start; `lightcycle sandbox check` shows "
        "what this host has) or none (a trusted bot being debugged). Default: "
        "$LIGHTCYCLE_SANDBOX, else auto.",
        show_default=False,
    ),
]
"""``--sandbox``: how program bots are confined (docs/sandbox.md)."""


def sandbox_level(level: str | None) -> str:
    """The ``--sandbox`` level, checked before any game: ``full`` must be available here.

    Args:
        level: the option's value; ``None`` (not given): ``$LIGHTCYCLE_SANDBOX``, else
            ``auto``, so untrusted bots are confined unless someone says otherwise.

    Raises:
        SandboxError: an unknown level, or ``full`` on a host that lacks a protection
            (the message names each missing one and how to get it).
    """
    from lightcycle.referee.players import default_sandbox
    from lightcycle.sandbox import SandboxError
    from lightcycle.sandbox.levels import require

    if level is None:
        level = default_sandbox()
    elif level not in ("none", "uid", "auto", "full"):
        raise SandboxError(f"--sandbox {level!r}: give none, uid, auto or full")
    require(level)
    return level


_WARNED: set[str] = set()


def warn_sandbox(level: str, specs: Iterable[Any] | None = None) -> None:
    """Say once, in one line on stderr, that the run's program bots get less than the
    full sandbox, what they lack and how to get it (`lightcycle.sandbox.levels.shortfall`).

    A fall-back from ``auto`` to less must never be silent: a stranger's bot would run
    with the referee's rights and nobody would know. ``none`` was asked for on purpose
    and says nothing, nor does a run without program bots.

    Args:
        level: the run's sandbox level.
        specs: the run's bot specs (``None``: assume program bots).
    """
    if specs is not None and not any(getattr(s, "kind", "") == "program" for s in specs):
        return
    from lightcycle.sandbox.levels import shortfall

    line = shortfall(level)
    if line is None or line in _WARNED:
        return
    _WARNED.add(line)
    err.print(escape(line), style="yellow", highlight=False, soft_wrap=True)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn the project's input errors into one red line and exit status 2."""
    from lightcycle.bots.api import BotError
    from lightcycle.cli.runs import RunOptionError
    from lightcycle.formats.errors import FormatError
    from lightcycle.kits import KitError
    from lightcycle.maps.spec import MapError
    from lightcycle.protocols.base import UnsupportedGame
    from lightcycle.referee.clock import TimeControlError
    from lightcycle.replay.model import ReplayError
    from lightcycle.rules.ruleset import RulesError
    from lightcycle.sandbox import SandboxError
    from lightcycle.storage import StorageError
    from lightcycle.tournament.config import TournamentError
    from lightcycle.tournament.store import StoreError

    errors = (
        BotError,
        FormatError,
        KitError,
        MapError,
        RunOptionError,
        ReplayError,
        RulesError,
        UnsupportedGame,
        TimeControlError,
        SandboxError,
        TournamentError,
        StoreError,
        StorageError,
    )
    try:
        yield
    except errors as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None

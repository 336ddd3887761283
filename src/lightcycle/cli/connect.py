"""``lightcycle connect``: play on a lightcycle server with a local bot."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from lightcycle.cli.common import (
    ProtocolOption,
    SandboxOption,
    err,
    sandbox_level,
    user_errors,
    warn_sandbox,
)
from lightcycle.cli.runs import INTERRUPTED, RunOptionError


def connect(
    address: Annotated[
        str, typer.Argument(help="The server's jsonl port as HOST:PORT, e.g. localhost:7701.")
    ],
    bot: Annotated[
        str,
        typer.Option(
            "--bot",
            "-b",
            help="The bot: cmd:'COMMAND' (with --protocol) or FILE.toml, relayed unmodified; "
            "or builtin:NAME / py:FILE.py[:Class], played in this process over jsonl.",
        ),
    ],
    queue: Annotated[str, typer.Option(help="The queue to join.")] = "torus",
    protocol: ProtocolOption = None,
    name: Annotated[
        str | None,
        typer.Option(
            help="Player name, 1-40 printable characters, spaces inside allowed "
            "(default: from the bot)."
        ),
    ] = None,
    secret: Annotated[
        str | None,
        typer.Option(
            envvar="LIGHTCYCLE_SECRET",
            help="The account's secret (the first login with a secret claims the name).",
            show_envvar=True,
        ),
    ] = None,
    games: Annotated[int, typer.Option(help="Games to play, one after the other.", min=1)] = 1,
    challenge: Annotated[
        str | None, typer.Option(help="Challenge this player by name instead of queueing.")
    ] = None,
    accept: Annotated[str | None, typer.Option(help="Accept this player's challenge.")] = None,
    sandbox: SandboxOption = None,
    memory: Annotated[
        int, typer.Option(help="Memory limit of a bot program, MiB (RLIMIT_DATA).")
    ] = 1024,
) -> None:
    """Play games on a lightcycle server with a local bot, and print each result.

    A program bot runs here as in `lightcycle match` (same process limits and sandbox);
    its stdin and stdout are relayed to the server, so a bot that plays locally plays
    remotely without a change. A dropped connection is resumed within the server's
    grace while the bot keeps running.

    Exit status: 0 every game played; 2 a bad option or a bot that cannot start or
    play; 3 no server at HOST:PORT; 4 the server refused (name, secret, queue,
    challenge); 5 the connection dropped and could not be resumed; 130 Ctrl-C (the
    game is left and the bot killed).

    Example: lightcycle connect localhost:7701 --queue classic
    --bot 'cmd:python3 examples/tron2010/bot.py' --protocol tron2010
    """
    from lightcycle.cli.runs import start_run
    from lightcycle.remote import (
        Hello,
        RemoteClient,
        RemoteError,
        name_problem,
        parse_address,
        player_name,
    )
    from lightcycle.remote.local import InProcessBot, LocalBot, make_local_bot
    from lightcycle.sandbox import Limits

    local: LocalBot | None = None
    undo = start_run()  # SIGTERM and SIGHUP leave the game as Ctrl-C does
    try:
        with user_errors():
            try:
                host, port = parse_address(address)
            except ValueError as exc:
                raise RunOptionError(str(exc)) from None
            if challenge is not None and accept is not None:
                raise RunOptionError("give --challenge or --accept, not both")
            if memory < 1:
                raise RunOptionError(f"--memory {memory}: give a limit in MiB, e.g. 1024")
            level = sandbox_level(sandbox)
            local = make_local_bot(bot, protocol, Limits(memory=memory << 20, sandbox=level))
            if not isinstance(local, InProcessBot):  # a program bot, in the sandbox
                warn_sandbox(level)
            problem = name_problem(name) if name is not None else None
            if problem is not None:
                raise RunOptionError(f"--name {name!r}: {problem}")
            hello = Hello(
                name=name or player_name(local.display_name),
                queue=queue,
                protocol=local.protocol,
                secret=secret,
                challenge=challenge,
                accept=accept,
            )
            client = RemoteClient(host, port, local, hello)
            for _ in range(games):
                end = client.play_game()
                typer.echo(end.line())
    except RemoteError as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt:
        err.print("interrupted: left the game and stopped the bot", highlight=False)
        raise typer.Exit(INTERRUPTED) from None
    finally:
        if local is not None:
            local.close()
        undo()

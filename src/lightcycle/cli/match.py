"""``lightcycle match``: a timed series between bots of any kind, with a results table."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from lightcycle.cli.common import ProtocolOption, console, user_errors


def match(
    bot: Annotated[
        list[str],
        typer.Option(
            "--bot",
            "-b",
            help="A bot, once per seat: builtin:NAME, py:FILE.py[:Class], cmd:'COMMAND' "
            "(with --protocol), FILE.toml, or cteam:FILE.c (a C team of the team course).",
        ),
    ],
    map: Annotated[
        list[str], typer.Option("--map", "-m", help="Map name or file; repeat for a map pool.")
    ] = ["ring"],  # noqa: B006 -- Typer needs a literal default
    protocol: ProtocolOption = None,
    ruleset: Annotated[
        str | None,
        typer.Option("--ruleset", "-r", help="classic, torus, ffa (default: from the map)."),
    ] = None,
    games: Annotated[int, typer.Option(help="Number of games.", min=1)] = 1,
    swap_sides: Annotated[
        bool, typer.Option("--swap-sides/--no-swap-sides", help="Rotate seats between games.")
    ] = False,
    seed: Annotated[int, typer.Option(help="Seed of the first game (game i uses seed+i).")] = 0,
    move_time: Annotated[
        float | None,
        typer.Option(help="Seconds per move (default: 1; teams: none)."),
    ] = None,
    first_move_time: Annotated[
        float | None,
        typer.Option(help="Seconds for the first move and set-up (default: 3; teams: 5)."),
    ] = None,
    time_bank: Annotated[
        float | None, typer.Option(help="Reserve seconds slow moves draw on (default: 0).")
    ] = None,
    average_time: Annotated[
        float | None,
        typer.Option(help="Limit on the mean move time after the first move (teams: 0.1)."),
    ] = None,
    cpu_time: Annotated[
        float | None, typer.Option(help="CPU seconds per game for a program's whole process tree.")
    ] = None,
    turn_limit: Annotated[int | None, typer.Option(help="End each game after N turns.")] = None,
    memory: Annotated[
        int, typer.Option(help="Memory limit of bot programs, MiB (RLIMIT_DATA).")
    ] = 1024,
    isolate: Annotated[
        str, typer.Option(help="auto: own PID namespace where possible; pidns: required; none.")
    ] = "auto",
    spares: Annotated[
        int,
        typer.Option(
            help="Processes started ahead, while a game plays, for each program that gets a "
            "new process per game (0: start each when its game begins).",
            min=0,
            max=8,
        ),
    ] = 1,
    reuse_processes: Annotated[
        bool,
        typer.Option(
            "--reuse-processes/--no-reuse-processes",
            help="Keep tron2010 programs' processes from game to game. Only for bots that "
            "keep no state between turns: the protocol cannot say that a new game begins.",
        ),
    ] = False,
    param: Annotated[
        list[str],
        typer.Option(help="Extra KEY=VALUE parameter announced to aichallenge/jsonl bots."),
    ] = [],  # noqa: B006
    out: Annotated[
        Path | None, typer.Option(help="Output folder for replays, logs and results.json.")
    ] = None,
) -> None:
    """Play a timed series between bots in any language and print a results table.

    Example: lightcycle match --map ring --bot cmd:./mybot --bot builtin:chaser
    --protocol tron2010 --move-time 1 --first-move-time 3 --games 10 --swap-sides
    """
    from lightcycle.maps.registry import get_map
    from lightcycle.referee.clock import TimeControl
    from lightcycle.referee.local import default_ruleset
    from lightcycle.referee.match import run_match
    from lightcycle.referee.players import parse_bot_spec
    from lightcycle.rules.variants import get_ruleset
    from lightcycle.sandbox import Limits

    with user_errors():
        if len(bot) < 2:
            raise typer.BadParameter("give at least two --bot options, e.g. --bot builtin:random")
        specs = [parse_bot_spec(b, protocol, reuse=reuse_processes) for b in bot]
        maps = [get_map(m) for m in map]
        rs = get_ruleset(ruleset) if ruleset else default_ruleset(maps[0], len(specs))
        if turn_limit is not None:
            rs = rs.with_settings(turn_limit=turn_limit)
        given = {
            "move": move_time,
            "first_move": first_move_time,
            "bank": time_bank,
            "average": average_time,
            "cpu": cpu_time,
        }
        control = TimeControl.for_ruleset(rs.clock).with_overrides(
            {k: v for k, v in given.items() if v is not None}
        )
        control.validate()
        if isolate not in ("auto", "pidns", "none"):
            raise typer.BadParameter("--isolate takes auto, pidns or none")
        extra: list[tuple[str, str]] = []
        for p in param:
            key, sep, value = p.partition("=")
            if not sep or not key or " " in key:
                raise typer.BadParameter(f"--param {p!r}: write KEY=VALUE, e.g. --param seed=3")
            extra.append((key, value))
        out_dir = out or Path("matches") / time.strftime("%Y%m%d-%H%M%S")
        with Progress(
            TextColumn("[bold]games"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[last]}"),
            TimeRemainingColumn(),
            console=console,
            transient=True,
            disable=not console.is_terminal,
        ) as progress:
            task = progress.add_task("games", total=games, last="")

            def on_game(i: int, record: Any) -> None:
                progress.update(task, advance=1, last=record.outcome.reason)

            result = run_match(
                specs,
                maps,
                rs,
                games=games,
                seed=seed,
                swap_sides=swap_sides,
                control=control,
                limits=Limits(memory=memory << 20, isolate=isolate),
                out_dir=out_dir,
                on_game=on_game,
                extra_params=tuple(extra),
                spares=spares,
            )
        console.print(results_table(result))
        console.print(f"replays, logs and results.json in {out_dir}/", highlight=False)


def results_table(result: Any) -> Table:
    """The per-bot results of a match."""
    table = Table(title=f"{len(result.games)} games", header_style="bold")
    for col in ("bot", "W", "L", "D", "FW", "FL", "score", "avg ms", "max ms", "verdicts"):
        table.add_column(col, justify="left" if col in ("bot", "verdicts") else "right")
    for s in result.stats:
        verdicts = ", ".join(f"{k} {v}" for k, v in s.verdicts.items()) or "-"
        table.add_row(
            s.name,
            str(s.wins),
            str(s.losses),
            str(s.draws),
            str(s.forfeit_wins),
            str(s.forfeit_losses),
            f"{s.score:g}",
            f"{s.avg_move_time * 1000:.1f}",
            f"{s.move_time_max * 1000:.1f}",
            verdicts,
        )
    return table

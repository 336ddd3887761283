"""``lightcycle grade``: play a rubric's series with a bot and print its grade."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from lightcycle.cli.common import (
    ProtocolOption,
    SandboxOption,
    console,
    sandbox_level,
    user_errors,
    warn_sandbox,
)
from lightcycle.cli.runs import INTERRUPTED, check_free, counted

if TYPE_CHECKING:
    from lightcycle.tournament.grade import GameDone, PartialGrade
    from lightcycle.tournament.rubricmodel import Rubric
    from lightcycle.tournament.rubricscore import Grade


def grade(
    bot: Annotated[
        str,
        typer.Argument(
            help="The bot to grade: builtin:NAME, py:FILE.py[:Class], cmd:'COMMAND' "
            "(with --protocol), FILE.toml, cteam:FILE.c, scheme:FILE.scm[:PROC] (a Scheme "
            "course brain), or http://HOST:PORT (a Battlesnake).",
            show_default=False,
        ),
    ],
    rubric: Annotated[
        str,
        typer.Option(
            "--rubric",
            "-r",
            help="teams (the team course's 75 points), duel (the duel ladder), or a "
            "rubric file (docs/grading.md).",
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            help="Folder for replays and logs (one folder per series) and grade.json: new or empty."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the grade as JSON instead of a table.")
    ] = False,
    seed: Annotated[
        int | None,
        typer.Option(min=0, help="Replace the rubric's seed (game i of each series uses seed+i)."),
    ] = None,
    protocol: ProtocolOption = None,
    sandbox: SandboxOption = None,
) -> None:
    """Grade a bot the way a course does: rows like "wins 3 of 3 games vs RandomBot".

    Every series of the rubric (an opponent and a number of games) is played once, with
    the bot changing sides between games, and every row is scored from it. The rubric's
    time controls bind the bot (a bot file's own time table is ignored). Ctrl-C stops
    after the games already finished and shows them, ungraded (exit status 130).

    Example: lightcycle grade cteam:my_team.c --rubric teams --out grade/
    """
    from lightcycle.tournament.grade import GradeInterrupted
    from lightcycle.tournament.rubric import load_rubric

    with user_errors():
        sandbox = sandbox_level(sandbox)
        rub = load_rubric(rubric)
        warn_sandbox(sandbox)  # the graded bot is a program (cmd:, cteam:, a bot file)
        if out is not None:
            check_free(out)
        try:
            result = _play(bot, rub, protocol, seed, out, as_json, sandbox)
        except GradeInterrupted as stop:
            if as_json:
                print(json.dumps(stop.partial.to_dict(), indent=1))
            else:
                console.print(partial_table(stop.partial))
                if out is not None:
                    console.print(f"replays, logs and grade.json in {out}/", highlight=False)
            raise typer.Exit(INTERRUPTED) from None
        if as_json:
            print(json.dumps(result.to_dict(), indent=1))
            return
        console.print(grade_table(result))
        for note in result.notes:
            console.print(f"[yellow]note:[/] {note}", highlight=False)
        if out is not None:
            console.print(f"replays, logs and grade.json in {out}/", highlight=False)


def _play(
    bot: str,
    rub: Rubric,
    protocol: str | None,
    seed: int | None,
    out: Path | None,
    quiet: bool,
    sandbox: str = "auto",
) -> Grade:
    """Grade ``bot`` with a progress bar per series (none with ``quiet`` or off a terminal)."""
    from lightcycle.sandbox import Limits
    from lightcycle.tournament.grade import grade_bot

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[last]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=quiet or not console.is_terminal,
    ) as progress:
        tasks = [progress.add_task(f"vs {s.label}", total=s.games, last="") for s in rub.series]
        tally: dict[int, list[str]] = {}

        def on_game(event: GameDone) -> None:
            letters = tally.setdefault(event.series, [])
            letters.append({"win": "W", "draw": "D", "loss": "L"}[event.result])
            progress.update(tasks[event.series], advance=1, last="".join(letters))

        return grade_bot(
            bot,
            rub,
            protocol=protocol,
            seed=seed,
            out_dir=out,
            on_game=on_game,
            limits=Limits(sandbox=sandbox),
        )


def _points(value: float) -> str:
    return f"{value:g}"


def grade_table(result: Grade) -> Table:
    """The rows of a grade (requirement, result, points), series by series, and the total."""
    table = Table(
        title=f"{result.title}: {result.bot}",
        header_style="bold",
        show_footer=True,
    )
    table.add_column("requirement", footer="total")
    table.add_column("result", footer="")
    table.add_column(
        "points",
        justify="right",
        footer=f"{_points(result.total)} / {_points(result.maximum)}",
    )
    for s in result.series:
        r = s.result
        verdicts = ", ".join(f"{k} {v}" for k, v in sorted(r.verdicts.items()))
        line = f"W {r.wins}  D {r.draws}  L {r.losses}"
        if s.credit != r.wins:  # draws count half a win in this series
            line += f"  = {_points(s.credit)}"
        if verdicts:
            line += f"  ({verdicts})"
        table.add_row(f"[bold]vs {s.label}[/]", line, "", end_section=False)
        for row in s.rows:
            mark = "[green]achieved[/]" if row.achieved else "[red]not achieved[/]"
            table.add_row(
                f"  {row.requirement}",
                mark,
                f"{_points(row.points)} / {_points(row.max_points)}",
            )
        table.add_section()
    return table


def partial_table(partial: PartialGrade) -> Table:
    """What an interrupted grading played, series by series: results, no points."""
    table = Table(
        title=f"partial: {partial.games} of {counted(partial.games_planned, 'game')} "
        f"(interrupted): {partial.bot}, not graded",
        header_style="bold",
    )
    table.add_column("series")
    table.add_column("played", justify="right")
    table.add_column("result")
    for s in partial.series:
        r = s.result
        verdicts = ", ".join(f"{k} {v}" for k, v in sorted(r.verdicts.items()))
        line = f"W {r.wins}  D {r.draws}  L {r.losses}" + (f"  ({verdicts})" if verdicts else "")
        table.add_row(f"vs {s.label}", f"{r.games} of {s.games_planned}", line)
    return table

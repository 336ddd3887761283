"""``lightcycle grade``: play a rubric's series with a bot and print its grade."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from lightcycle.cli.common import ProtocolOption, console, user_errors

if TYPE_CHECKING:
    from lightcycle.tournament.grade import GameDone
    from lightcycle.tournament.rubric import Grade


def grade(
    bot: Annotated[
        str,
        typer.Argument(
            help="The bot to grade: builtin:NAME, py:FILE.py[:Class], cmd:'COMMAND' "
            "(with --protocol), FILE.toml, or cteam:FILE.c.",
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
        typer.Option(help="Folder for replays and logs (one folder per series) and grade.json."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the grade as JSON instead of a table.")
    ] = False,
    seed: Annotated[
        int | None,
        typer.Option(min=0, help="Replace the rubric's seed (game i of each series uses seed+i)."),
    ] = None,
    protocol: ProtocolOption = None,
) -> None:
    """Grade a bot the way a course does: rows like "wins 3 of 3 games vs RandomBot".

    Every series of the rubric (an opponent and a number of games) is played once, with
    the bot changing sides between games, and every row is scored from it. The rubric's
    time controls bind the bot (a bot file's own time table is ignored).

    Example: lightcycle grade cteam:my_team.c --rubric teams --out grade/
    """
    from lightcycle.tournament.grade import grade_bot
    from lightcycle.tournament.rubric import load_rubric

    with user_errors():
        rub = load_rubric(rubric)
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[last]}"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            disable=as_json or not console.is_terminal,
        ) as progress:
            tasks = [progress.add_task(f"vs {s.label}", total=s.games, last="") for s in rub.series]
            tally: dict[int, list[str]] = {}

            def on_game(event: GameDone) -> None:
                letters = tally.setdefault(event.series, [])
                letters.append({"win": "W", "draw": "D", "loss": "L"}[event.result])
                progress.update(tasks[event.series], advance=1, last="".join(letters))

            result = grade_bot(bot, rub, protocol=protocol, seed=seed, out_dir=out, on_game=on_game)
        if as_json:
            print(json.dumps(result.to_dict(), indent=1))
            return
        console.print(grade_table(result))
        for note in result.notes:
            console.print(f"[yellow]note:[/] {note}", highlight=False)
        if out is not None:
            console.print(f"replays, logs and grade.json in {out}/", highlight=False)


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

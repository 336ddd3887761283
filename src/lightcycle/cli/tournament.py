"""``lightcycle tournament``: run a tournament from a file, report on it, check its store."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich import box
from rich.console import Group
from rich.live import Live
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from lightcycle.cli.common import console, err, user_errors, warn_sandbox

if TYPE_CHECKING:
    from lightcycle.tournament.cluster import RayExecutor
    from lightcycle.tournament.report import Report
    from lightcycle.tournament.standings import Standing
    from lightcycle.tournament.store import Store

tournament_app = typer.Typer(
    help="Tournaments with ratings: round robin, gauntlet, Swiss, elimination, ffa tables.\n\n"
    "Example: lightcycle tournament run examples/tournaments/classroom.toml",
    no_args_is_help=True,
)

PathArg = Annotated[
    Path,
    typer.Argument(
        help="The tournament file (TOML), or its output folder, or its tournament.db.",
        metavar="PATH",
        show_default=False,
    ),
]
DbOption = Annotated[
    str | None,
    typer.Option("--db", help="Database URL instead of the file's (e.g. postgresql://...)."),
]
NameOption = Annotated[
    str | None,
    typer.Option("--name", help="The tournament, when the database holds several."),
]

ExecutorOption = Annotated[
    Literal["process", "ray"],
    typer.Option(
        "--executor",
        help="Where games run: process (a pool of processes on this machine) or ray (a Ray "
        "cluster, local or --ray-address; needs Ray: pip install 'lightcycle\\[cluster]'; "
        "every node needs the same files at the same paths, see docs/tournaments.md).",
    ),
]
RayAddressOption = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        metavar="ADDRESS",
        help="With --executor ray: the cluster to use: auto (the one `ray start` began on "
        "this machine), HOST:PORT of its head, or ray://HOST:10001 (default: start a local "
        "Ray for this run).",
        show_default=False,
    ),
]
"""``--executor`` and ``--ray-address``, shared by ``tournament run`` and ``duel``."""


@contextmanager
def ray_executor(
    kind: str, address: str | None, workers: int | None, duel: bool = False
) -> Iterator[RayExecutor | None]:
    """The Ray executor ``--executor ray`` asks for (``None`` for the default pool).

    Ray starts only here, after the command's input was checked, since starting it takes
    seconds; a missing Ray is one red line naming the extra. The executor is shut down
    at the end (with the local Ray it started); an interruption cancels its tasks.

    Raises:
        typer.BadParameter: ``--ray-address`` without ``--executor ray``.
        typer.Exit: Ray is missing (status 2).
    """
    if kind != "ray":
        if address is not None:
            raise typer.BadParameter("--ray-address needs --executor ray")
        yield None
        return
    from lightcycle.tournament.cluster import ClusterError, duel_executor, tournament_executor

    try:
        make = duel_executor if duel else tournament_executor
        executor = make(address, workers)
    except ClusterError as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    try:
        yield executor
    except BaseException:
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    executor.shutdown()


def _open(path: Path, db: str | None, name: str | None) -> tuple[Store, str | None, Path]:
    """The store, the tournament's name and the output folder for a PATH argument."""
    from lightcycle.tournament.config import TournamentError, load_config
    from lightcycle.tournament.store import Store

    if path.suffix == ".toml":
        config = load_config(path, database=db)
        if db is None and config.database is None and not (config.out / "tournament.db").is_file():
            # reading must not leave an empty database (and its folder) behind
            raise TournamentError(
                f"{path} has not been run yet ({config.out / 'tournament.db'} does not exist): "
                f"run `lightcycle tournament run {path}` first"
            )
        return Store(config.database_url), name or config.name, config.out
    if path.is_dir():
        url = db or f"sqlite:///{(path / 'tournament.db').resolve()}"
        if db is None and not (path / "tournament.db").is_file():
            raise TournamentError(f"{path} holds no tournament.db; give the tournament file")
        return Store(url), name, path
    if path.is_file():
        return Store(db or f"sqlite:///{path.resolve()}"), name, path.parent
    raise TournamentError(f"{path} not found: give the tournament file (.toml) or its folder")


def _standings_table(
    rows: list[Standing], title: str, notes: dict[int, str] | None = None
) -> Table:
    """The standings; forfeit and place columns only where they say something."""
    multi = any(max(r.line.places, default=1) > 2 for r in rows)
    forfeits = any(r.line.forfeit_wins or r.line.forfeit_losses for r in rows)
    caption = "pts: 1 per rival finished ahead of, ½ per tie; μ−3σ: OpenSkill"
    caption += "; FW/FL: forfeit wins/losses" if forfeits else ""
    caption += "; place: mean place" if multi else ""
    table = Table(title=title, header_style="bold", box=box.SIMPLE_HEAD, caption=caption)
    cols = ["#", "bot", "G", "W", "D", "L"]
    cols += ["FW", "FL"] if forfeits else []
    cols += ["pts", "%"]
    cols += ["place"] if multi else []
    cols += ["Elo", "μ−3σ"]
    cols += ["note"] if notes else []
    for c in cols:
        if c in ("bot", "note"):
            table.add_column(c, no_wrap=True)
        else:
            table.add_column(c, justify="right", no_wrap=True)
    for r in rows:
        line = r.line
        cells = [str(r.place), escape(r.name), str(line.games), str(line.wins), str(line.draws)]
        cells.append(str(line.losses))
        if forfeits:
            cells += [str(line.forfeit_wins), str(line.forfeit_losses)]
        cells += [f"{line.points:g}", f"{100 * line.percent:.1f}"]
        if multi:
            cells.append("-" if line.mean_place is None else f"{line.mean_place:.2f}")
        cells += [f"{r.elo:.0f}", f"{r.ordinal:.1f}"]
        if notes:
            cells.append(notes.get(r.entrant, ""))
        table.add_row(*cells)
    return table


@tournament_app.command("run")
def run(
    file: Annotated[
        Path,
        typer.Argument(help="The tournament file (TOML).", metavar="FILE", show_default=False),
    ],
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-j",
            help="Matches at once (default: the file's, else one per core).",
            min=1,
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Output folder instead of the file's `out`.")
    ] = None,
    db: DbOption = None,
    executor: ExecutorOption = "process",
    ray_address: RayAddressOption = None,
) -> None:
    """Play a tournament, or whatever is missing of it, and show the standings.

    The file gives the bots, maps, ruleset, time controls, format, rounds and seed (see
    docs/tournaments.md). Results, ratings and replay paths go to a database in the
    output folder as each match ends; stop it at any moment (even kill -9) and run the
    same command again: it plays only the matches that are missing.

    With --executor ray the games run on a Ray cluster (-j: CPUs to use, default every
    CPU of the cluster, whatever the file's workers); the database stays with this command.

    Example: lightcycle tournament run examples/tournaments/classroom.toml -j 4

    Example: lightcycle tournament run week3.toml --executor ray --ray-address auto
    """
    from lightcycle.tournament.config import load_config
    from lightcycle.tournament.plan import make_plan
    from lightcycle.tournament.results import MatchResult
    from lightcycle.tournament.runner import RunProgress, run_tournament
    from lightcycle.tournament.store import MatchRow, Store

    with user_errors(), ExitStack() as stack:
        config = load_config(file, out=out, database=db)
        plan = make_plan(config)
        warn_sandbox(config.sandbox, [e.spec for e in plan.entrants])
        # Ray starts (seconds) once the file is known to be good, before the store opens
        # (the file's `workers` suits one machine; on Ray only -j limits the cluster's CPUs)
        cluster = stack.enter_context(ray_executor(executor, ray_address, workers))
        store = Store(config.database_url)
        progress = Progress(
            TextColumn("[bold]matches"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
        )
        task = progress.add_task("matches", total=None, rate="")
        live = Live(progress, console=console, transient=True, refresh_per_second=4)
        shown = [0.0]
        title = f"{config.name}: {config.format}"

        def on_match(m: MatchRow, res: MatchResult, p: RunProgress) -> None:
            if p.done == p.resumed + 1:  # matches stored earlier must not count as speed
                progress.reset(task, completed=p.resumed, total=None, rate="")
            rate = p.played / p.elapsed if p.elapsed > 0 else 0.0
            progress.update(
                task,
                completed=p.done,
                total=p.scheduled if p.final else None,
                rate=f"{rate:.1f} games/s",
            )
            now = time.monotonic()
            if now - shown[0] > 0.5:  # a table costs more than a game: redraw it twice a second
                shown[0] = now
                # the format's own order (an elimination's rounds survived), as the report
                rows = p.standings()
                live.update(Group(progress, _standings_table(rows[:20], title, p.notes())))

        try:
            if console.is_terminal:
                live.start()
            summary = run_tournament(
                plan,
                store=store,
                workers=cluster.max_workers if cluster is not None else workers,
                executor=cluster,
                on_match=on_match,
            )
        except KeyboardInterrupt:
            live.stop()
            err.print(
                "interrupted: every finished match is stored; run the same command again "
                "to play the rest",
                highlight=False,
            )
            raise typer.Exit(130) from None
        finally:
            if console.is_terminal:
                live.stop()
        from lightcycle.tournament.report import build_report

        report = build_report(store, config.name)
        store.close()
    console.print(_standings_table(report.standings, title, report.notes))
    if summary.played == summary.byes == 0:
        console.print(
            f"Nothing left to play: all {summary.total} matches were already stored.",
            highlight=False,
        )
    else:
        console.print(
            f"{summary.played} games played by this run"
            + (f", {summary.byes} byes" if summary.byes else "")
            + (f", {summary.resumed} matches were already stored" if summary.resumed else "")
            + f" ({summary.total} in all, {summary.wall_seconds:.1f} s, {summary.workers} "
            + ("worker)." if summary.workers == 1 else "workers)."),
            highlight=False,
        )
    console.print(
        f"Replays in {config.out}/replays; report: lightcycle tournament report {config.out}",
        highlight=False,
    )


@tournament_app.command("report")
def report_cmd(
    path: PathArg,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the whole report as JSON instead of tables.")
    ] = False,
    html: Annotated[
        Path | None,
        typer.Option(
            help="Folder for report.html, report.json, the PNG charts and games/ (a viewer "
            "page per game) (default: the output folder)."
        ),
    ] = None,
    db: DbOption = None,
    name: NameOption = None,
) -> None:
    """Show standings, crosstable, Elo and OpenSkill tables; write HTML and PNG charts.

    Writes report.html (tables, rating history as inline SVG, every game linked to its
    viewer page and replay), games/KEY.html (a standalone viewer page per game, opened
    from disk with no server), report.json, elo.png and openskill.png into the output
    folder. Works while the tournament is still running.

    Example: lightcycle tournament report examples/tournaments/classroom.toml
    """
    from lightcycle.tournament.report import build_report, report_dict, write_report

    with user_errors():
        store, tname, out_dir = _open(path, db, name)
        try:
            report = build_report(store, tname)
        finally:
            store.close()
        written = write_report(report, html or out_dir, out_dir)
    if as_json:
        typer.echo(json.dumps(report_dict(report), indent=1, allow_nan=False))
        return
    _print_report(report)
    console.print(f"wrote {', '.join(str(p) for p in written)}", highlight=False)
    if not any(p.suffix == ".png" for p in written):
        err.print("PNG charts need Pillow: pip install 'lightcycle[images]'")


def _print_report(report: Report) -> None:
    title = f"{report.name}: {report.format}, {report.done} of {report.scheduled} matches"
    console.print(_standings_table(report.standings, title, report.notes))
    rows = report.standings
    if 2 <= len(rows) <= 16:
        # columns are numbered like the rows: names would not fit across a terminal
        cross = Table(
            title="crosstable: points the row took from the column / games",
            header_style="bold",
            caption="columns: the bots by their row number",
        )
        cross.add_column("")
        cross.add_column("bot", no_wrap=True)
        for i, _ in enumerate(rows, start=1):
            cross.add_column(str(i), justify="right", no_wrap=True)
        for i, r in enumerate(rows, start=1):
            cells = [str(i), escape(r.name)]
            for col in rows:
                cell = report.cross.get((r.entrant, col.entrant))
                shown = "·" if r is col else "" if cell is None else f"{cell[0]:g}/{cell[1]}"
                cells.append(shown)
            cross.add_row(*cells)
        console.print(cross)
    ratings = Table(title="ratings", header_style="bold")
    for c in ("bot", "Elo", "mu", "sigma", "mu - 3 sigma"):
        ratings.add_column(c, justify="left" if c == "bot" else "right")
    for r in sorted(rows, key=lambda s: -s.elo):
        ratings.add_row(
            escape(r.name), f"{r.elo:.1f}", f"{r.mu:.2f}", f"{r.sigma:.2f}", f"{r.ordinal:.2f}"
        )
    console.print(ratings)


@tournament_app.command("check")
def check_cmd(
    path: PathArg,
    repair: Annotated[
        bool,
        typer.Option(
            "--repair",
            help="Delete the results from the first problem on, so the next run plays them again.",
        ),
    ] = False,
    db: DbOption = None,
    name: NameOption = None,
) -> None:
    """Check that the stored ratings follow from the stored results.

    Every game's result must come with its rating updates (they are committed in one
    transaction), results must be a prefix of the schedule, and recomputing Elo and
    OpenSkill from the results alone must give back every stored rating exactly. Exit
    status 1 when something is wrong.

    Example: lightcycle tournament check examples/tournaments/classroom.toml
    """
    from lightcycle.tournament.check import check
    from lightcycle.tournament.store import StoreError

    with user_errors():
        store, tname, out_dir = _open(path, db, name)
        try:
            row = store.tournament(tname)
            if row is None:
                raise StoreError(f"no tournament {tname or ''} in {store.url}")
            problems = check(store, row.id, out_dir)
            matches = store.matches(row.id)
            played = sum(1 for m in matches if m.result_id is not None)
            for p in problems:
                style = "red" if p.repairable else "yellow"
                console.print(f"[{style}]{p.key}[/]: {escape(p.message)}", highlight=False)
            fixable = [p for p in problems if p.repairable]
            if repair and fixable:
                deleted = store.delete_results(row.id, fixable[0].seq)
                console.print(
                    f"deleted {deleted} results from {fixable[0].key} on; "
                    "run the tournament again to play them",
                    highlight=False,
                )
                return
        finally:
            store.close()
    if fixable:
        console.print(
            f"[bold red]{len(fixable)} problem(s)[/] in {row.name}; "
            "run again with --repair to delete the results from the first one on",
            highlight=False,
        )
        raise typer.Exit(1)
    console.print(
        f"[bold green]consistent[/]: {played} of {len(matches)} matches played, "
        "every rating recomputed from the results equals the stored one",
        highlight=False,
    )

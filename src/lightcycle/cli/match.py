"""``lightcycle match``: a timed series between bots of any kind, with a results table.

Everything is checked before the first game (the bots, every map of the pool, the time
controls, the output folder), so a mistake costs seconds, not a half-played series. The
summary says why each failing bot failed (exit code or signal, the end of its stderr);
a Ctrl-C prints the games finished so far and keeps them.
"""

from __future__ import annotations

import ast
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from lightcycle.cli.common import (
    ProtocolOption,
    SandboxOption,
    console,
    err,
    sandbox_level,
    user_errors,
    warn_sandbox,
)
from lightcycle.cli.runs import (
    INTERRUPTED,
    RunOptionError,
    claim_folder,
    counted,
    release_folder,
)

if TYPE_CHECKING:
    from lightcycle.referee.match import MatchResult

LIVE_SPEED = 20.0
"""Turns a second ``--browser`` shows at most (the referee waits between turns, outside
every clock), so a game between fast bots can be watched."""


def match(
    bot: Annotated[
        list[str],
        typer.Option(
            "--bot",
            "-b",
            help="A bot, once per seat: builtin:NAME, py:FILE.py[:Class], cmd:'COMMAND' "
            "(with --protocol), FILE.toml, cteam:FILE.c (a C team of the team course), "
            "scheme:FILE.scm[:PROC] (a brain of the Scheme course's library), or "
            "http://HOST:PORT (a Battlesnake web server).",
        ),
    ],
    map: Annotated[
        list[str], typer.Option("--map", "-m", help="Map name or file; repeat for a map pool.")
    ] = ["ring"],  # noqa: B006 -- Typer needs a literal default
    protocol: ProtocolOption = None,
    ruleset: Annotated[
        str | None,
        typer.Option(
            "--ruleset",
            "-r",
            help="classic, torus, ffa... for every map (default: each map's own).",
        ),
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
    sandbox: SandboxOption = None,
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
        Path | None,
        typer.Option(
            help="Output folder for replays, logs and results.json: new or empty (default: "
            "a new matches/DATE-TIME/)."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the results as JSON instead of a table.")
    ] = False,
    browser: Annotated[
        bool,
        typer.Option(
            "--browser",
            help=f"Watch the games live in the web viewer ({LIVE_SPEED:g} turns/s at most).",
        ),
    ] = False,
    no_open: Annotated[
        bool, typer.Option("--no-open", help="With --browser: print the page's address only.")
    ] = False,
) -> None:
    """Play a timed series between bots in any language and print a results table.

    Every map of the pool must take as many players as there are bots. Ctrl-C stops
    the match after the games already finished: their table is printed and their
    replays and results.json are kept (exit status 130).

    Example: lightcycle match --map ring --bot cmd:./mybot --bot builtin:chaser
    --protocol tron2010 --move-time 1 --first-move-time 3 --games 10 --swap-sides;
    lightcycle match --bot builtin:chaser --bot builtin:runaway --browser
    """
    from lightcycle.maps.registry import get_map
    from lightcycle.referee.clock import TimeControl
    from lightcycle.referee.local import default_ruleset
    from lightcycle.referee.match import MatchInterrupted, check_pool, run_match
    from lightcycle.referee.players import parse_bot_spec, preflight
    from lightcycle.rules.variants import get_ruleset
    from lightcycle.sandbox import Limits
    from lightcycle.viewer.live_server import local_view

    with user_errors():
        if len(bot) < 2:
            raise RunOptionError("give at least two --bot options, e.g. --bot builtin:random")
        specs = [parse_bot_spec(b, protocol, reuse=reuse_processes) for b in bot]
        maps = [get_map(m) for m in map]
        chosen = get_ruleset(ruleset) if ruleset else None
        rulesets = [default_ruleset(m, len(specs)) if chosen is None else chosen for m in maps]
        if turn_limit is not None:
            rulesets = [rs.with_settings(turn_limit=turn_limit) for rs in rulesets]
        given = {
            "move": move_time,
            "first_move": first_move_time,
            "bank": time_bank,
            "average": average_time,
            "cpu": cpu_time,
        }
        overrides = {k: v for k, v in given.items() if v is not None}
        controls = [TimeControl.for_ruleset(rs.clock).with_overrides(overrides) for rs in rulesets]
        for control in controls:
            control.validate()
        if memory < 1:  # RLIMIT_DATA of 0 or less: no program could even start
            raise RunOptionError(f"--memory {memory}: give a limit in MiB, e.g. --memory 1024")
        if isolate not in ("auto", "pidns", "none"):
            raise RunOptionError("--isolate takes auto, pidns or none")
        sandbox = sandbox_level(sandbox)
        extra: list[tuple[str, str]] = []
        for p in param:
            key, sep, value = p.partition("=")
            if not sep or not key or " " in key:
                raise RunOptionError(f"--param {p!r}: write KEY=VALUE, e.g. --param seed=3")
            extra.append((key, value))
        check_pool(specs, maps, rulesets, seed)  # before anything is written or started
        limits = Limits(memory=memory << 20, isolate=isolate, sandbox=sandbox)
        for spec in specs:
            preflight(spec, limits)
        warn_sandbox(sandbox, specs)
        out_dir, created = claim_folder(out, Path("matches") / time.strftime("%Y%m%d-%H%M%S"))
        assert out_dir is not None
        shown = err if as_json else console
        finished = 0
        live = local_view(
            browser,
            no_open,
            LIVE_SPEED,
            lambda line: shown.print(line, highlight=False),
            first="game-001",
        )
        try:
            with Progress(
                TextColumn("[bold]games"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[last]}"),
                TimeRemainingColumn(),
                console=shown,
                transient=True,
                disable=not shown.is_terminal,
            ) as progress:
                task = progress.add_task("games", total=games, last="")

                def on_game(i: int, record: Any) -> None:
                    nonlocal finished
                    finished += 1
                    progress.update(task, advance=1, last=record.outcome.reason)
                    if live is not None:
                        if i + 1 < games:
                            live.expect(f"game-{i + 2:03d}")
                        live.end(f"game-{i + 1:03d}", record.replay)

                result = run_match(
                    specs,
                    maps,
                    rulesets,
                    games=games,
                    seed=seed,
                    swap_sides=swap_sides,
                    control=controls,
                    limits=limits,
                    out_dir=out_dir,
                    on_game=on_game,
                    extra_params=tuple(extra),
                    spares=spares,
                    on_turn=None if live is None else live.game_turn,
                )
        except MatchInterrupted as stop:
            if live is not None:
                live.stop()
            show_results(stop.result, out_dir, as_json)
            raise typer.Exit(INTERRUPTED) from None
        except Exception:
            if live is not None:
                live.stop()
            if finished == 0:  # a bot that could not start, say: leave no folder behind
                release_folder(out_dir, created)
            raise
    show_results(result, out_dir, as_json)
    if live is not None:
        live.stop(linger=True)


def show_results(result: MatchResult, out_dir: Path, as_json: bool) -> None:
    """The table and what went wrong (or the JSON), and where the files are."""
    where = f"replays, logs and results.json in {out_dir}/"
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=1))
        err.print(where, highlight=False)
        return
    console.print(results_table(result))
    for line in verdict_lines(result):
        # one line each, whatever the terminal's width: easy to copy, easy to grep
        console.print(line, soft_wrap=True)
    console.print(where, highlight=False)


STDERR_TAIL = "; stderr tail: "
"""How the referee appends a crashed program's last stderr bytes to its verdict."""


def short_detail(detail: str, lines: int = 3, width: int = 200) -> str:
    """A verdict's detail on one line: the exit code or signal and the last stderr lines.

    The referee keeps the end of a program's stderr, quoted; a traceback's last lines say
    what went wrong, so those are shown, joined with ``|`` and cut from the left to
    ``width`` characters (the whole stderr is in the bot's log).
    """
    head, sep, tail = detail.partition(STDERR_TAIL)
    if not sep:
        return detail if len(detail) <= width else detail[: width - 1] + "…"
    try:
        text = ast.literal_eval(tail)
    except (ValueError, SyntaxError):
        text = tail
    if not isinstance(text, str):
        text = tail
    last = " | ".join([ln.strip() for ln in text.splitlines() if ln.strip()][-lines:])
    room = max(width - len(head) - len("; stderr: "), 20)
    if len(last) > room:
        last = "…" + last[-(room - 1) :]
    return f"{head}; stderr: {last}"


def verdict_lines(result: MatchResult) -> list[Text]:
    """One line per bot and verdict other than ok: how often, the first game, and why."""
    out: list[Text] = []
    for s in result.stats:
        for kind, (game, detail) in sorted(s.verdict_examples.items()):
            times = counted(s.verdicts.get(kind, 0), "game")
            why = short_detail(detail) if detail else "no detail"
            out.append(Text(f"{s.name} {kind} in {times} (first: game {game}): {why}", "yellow"))
    return out


def results_table(result: MatchResult) -> Table:
    """The per-bot results of a match; a partial one says so in its title."""
    played = len(result.games)
    if result.complete:
        title = counted(played, "game")
    else:
        title = f"partial: {played} of {counted(result.games_planned, 'game')} (interrupted)"
    table = Table(title=title, header_style="bold")
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

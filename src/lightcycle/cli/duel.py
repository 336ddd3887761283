"""``lightcycle duel``: is bot A stronger than bot B? Side-swapped pairs, Elo, SPRT."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Group
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
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
from lightcycle.cli.runs import INTERRUPTED, RunOptionError, check_free, counted
from lightcycle.cli.tournament import ExecutorOption, RayAddressOption, ray_executor

if TYPE_CHECKING:
    from lightcycle.tournament.duelmaps import PhaseTime
    from lightcycle.tournament.duelresult import DuelResult
    from lightcycle.tournament.duelstats import DuelProgress
    from lightcycle.tournament.pairs import PairResult
    from lightcycle.tournament.stats import EloEstimate


def duel(
    a: Annotated[
        str,
        typer.Argument(
            help="Bot A, the one under test: builtin:NAME, py:FILE.py[:Class], "
            "cmd:'COMMAND' (with --protocol), FILE.toml, scheme:FILE.scm (a Scheme course "
            "brain), or http://HOST:PORT (a Battlesnake).",
            metavar="A",
            show_default=False,
        ),
    ],
    b: Annotated[
        str,
        typer.Argument(help="Bot B, the reference (same forms).", metavar="B", show_default=False),
    ],
    games: Annotated[
        int,
        typer.Option(
            "--games",
            "-n",
            help="Games to play (with --sprt: at most): an even number, since every map and "
            "seed is played twice, seats swapped.",
            min=1,
        ),
    ] = 200,
    maps: Annotated[
        str,
        typer.Option(
            "--maps",
            "-m",
            help="Map pool, comma-separated: map names or files, builtin (every built-in "
            "two-player grid map), random:N (N seeded random symmetric maps), random-SEED.",
        ),
    ] = "builtin,random:8",
    protocol: ProtocolOption = None,
    ruleset: Annotated[
        str | None,
        typer.Option("--ruleset", "-r", help="Rules for every map (default: each map's own)."),
    ] = None,
    move_time: Annotated[float, typer.Option(help="Seconds per move.")] = 0.1,
    first_move_time: Annotated[
        float, typer.Option(help="Seconds for the first move and set-up.")
    ] = 1.0,
    turn_limit: Annotated[int | None, typer.Option(help="End each game after N turns.")] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", "-j", help="Pairs played at once (default: one per core).", min=1
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option(help="Duel seed: pair k uses seed+k; random maps derive from it.")
    ] = 0,
    sprt: Annotated[
        tuple[float, float] | None,
        typer.Option(
            metavar="ELO0 ELO1",
            help="Stop as soon as a sequential test accepts H0 (A is no more than ELO0 "
            "stronger) or H1 (A is at least ELO1 stronger), e.g. --sprt 0 20.",
            show_default=False,
        ),
    ] = None,
    alpha: Annotated[float, typer.Option(help="SPRT: false-positive rate (H1 wrongly).")] = 0.05,
    beta: Annotated[float, typer.Option(help="SPRT: false-negative rate (H0 wrongly).")] = 0.05,
    sandbox: SandboxOption = None,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Folder for results.json, replays and bot logs: new or empty (default: none)."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the results as JSON instead of a table.")
    ] = False,
    by_map: Annotated[
        bool,
        typer.Option(
            "--by-map",
            help="Also show the results map by map, worst for A first (score, Elo, time "
            "per move of both sides and A's by phase, failures), and both sides' time per "
            "move by phase of the game: where a bot loses, and where its clock goes.",
        ),
    ] = False,
    executor: ExecutorOption = "process",
    ray_address: RayAddressOption = None,
) -> None:
    """Play two bots in side-swapped pairs and say, with statistics, which is stronger.

    Each map and seed is played twice with the seats swapped; the report gives A's
    wins, draws and losses, its score, the Elo difference with a 95% confidence
    interval, the likelihood that A is stronger, move times, search depths (where a bot
    reports them) and verdicts. With --sprt the duel stops as soon as the test decides.
    Ctrl-C stops it after the pairs already finished and reports them, marked partial
    (exit status 130). See docs/duel.md.

    With --executor ray the pairs run on a Ray cluster (-j: pairs at once, default
    every CPU of the cluster).

    Example: lightcycle duel py:v2.py py:v1.py --games 400 --move-time 0.1 --sprt 0 20

    Example: lightcycle duel py:v2.py py:v1.py --games 4000 --executor ray --ray-address auto

    Example: lightcycle duel builtin:strong cmd:./champion --protocol tron2010 --maps
    my-maps/ --by-map
    """
    from lightcycle.maps.registry import get_map  # noqa: F401 -- fail early on a broken install
    from lightcycle.referee.clock import TimeControl
    from lightcycle.referee.players import parse_bot_spec, preflight
    from lightcycle.rules.variants import get_ruleset
    from lightcycle.sandbox import Limits
    from lightcycle.tournament.duel import run_duel
    from lightcycle.tournament.duelresult import DuelInterrupted
    from lightcycle.tournament.duelstats import SprtConfig

    with user_errors():
        sandbox = sandbox_level(sandbox)
        if games % 2:
            # refused rather than rounded: the report must be of the games asked for
            raise RunOptionError(
                f"--games {games}: duels play side-swapped pairs; give an even number, "
                f"e.g. --games {games + 1}"
            )
        if out is not None:
            check_free(out)
        spec_a = parse_bot_spec(a, protocol)
        spec_b = parse_bot_spec(b, protocol)
        for spec in (spec_a, spec_b):
            preflight(spec, Limits(sandbox=sandbox))
        warn_sandbox(sandbox, (spec_a, spec_b))
        rs = get_ruleset(ruleset) if ruleset else None
        if turn_limit is not None:
            if rs is None:
                raise RunOptionError("--turn-limit needs --ruleset (e.g. -r classic)")
            rs = rs.with_settings(turn_limit=turn_limit)
        control = TimeControl(move=move_time, first_move=first_move_time)
        control.validate()
        test = None
        if sprt is not None:
            try:
                test = SprtConfig(sprt[0], sprt[1], alpha, beta)
            except ValueError as exc:
                raise RunOptionError(f"--sprt: {exc}") from None
        shown = err if as_json else console
        try:
            with (
                ray_executor(executor, ray_address, workers, duel=True) as cluster,
                Progress(
                    TextColumn("[bold]pairs"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TextColumn("{task.fields[rate]}"),
                    TimeElapsedColumn(),
                    TimeRemainingColumn(),
                    TextColumn("{task.fields[score]}"),
                    console=shown,
                    transient=True,
                    disable=not shown.is_terminal,
                ) as progress,
            ):
                task = progress.add_task("pairs", total=games // 2, rate="", score="")

                def on_pair(pair: PairResult, p: DuelProgress) -> None:
                    progress.update(
                        task,
                        completed=p.pairs_done,
                        rate=f"{2 * p.pairs_done / max(p.elapsed, 1e-9):.1f} games/s",
                        score=live_score(p),
                    )

                result = run_duel(
                    spec_a,
                    spec_b,
                    maps,
                    games=games,
                    ruleset=rs,
                    control=control,
                    seed=seed,
                    workers=cluster.max_workers if cluster is not None else workers,
                    sprt=test,
                    on_pair=on_pair,
                    executor=cluster,
                    out_dir=out,
                    limits=Limits(sandbox=sandbox),
                )
        except DuelInterrupted as stop:
            _show(stop.result, out, as_json, by_map)
            raise typer.Exit(INTERRUPTED) from None
    _show(result, out, as_json, by_map)


def _show(result: DuelResult, out: Path | None, as_json: bool, maps: bool = False) -> None:
    """The report (or the JSON), and where the files are."""
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=1, allow_nan=False))
        return
    console.print(report(result))
    if maps and result.pairs:
        console.print(map_report(result))
        console.print(phase_report(result))
    if out is not None:
        console.print(f"results.json, replays and logs in {out}/", highlight=False)


def live_score(p: DuelProgress) -> str:
    """The progress line's score: ``A 62.5% +88 Elo`` and the SPRT's LLR."""
    from lightcycle.tournament.stats import elo_from_score, format_elo

    t = p.trinomial
    score = (t.wins + 0.5 * t.draws) / t.games if t.games else 0.5
    text = f"A {t.wins}-{t.draws}-{t.losses} {score:.1%} {format_elo(elo_from_score(score), 0)}"
    if p.sprt is not None:
        text += f"  LLR {p.sprt.llr:.2f} [{p.sprt.lower:.2f}, {p.sprt.upper:.2f}]"
    return text


def _interval(low: float, high: float) -> str:
    from lightcycle.tournament.stats import format_elo

    return f"{format_elo(low)} .. {format_elo(high)}"


def _elo_cell(est: EloEstimate, flip: bool) -> str:
    """``+88.4 (+55.1 .. +123.9)``: the Elo and the very interval the line below the
    table gives (a ``±`` half-width would differ from it: the interval is not symmetric
    in Elo); below `MIN_SAMPLES` pairs the Elo alone, marked as not yet measured."""
    from lightcycle.tournament.stats import format_elo

    elo, low, high = est.elo, est.elo_low, est.elo_high
    if flip:
        elo, low, high = -elo + 0.0, -high, -low  # + 0.0: no "-0.0"
    if not est.enough:
        return f"{format_elo(elo)} (too few pairs)"
    return f"{format_elo(elo)} ({_interval(low, high)})"


def report(result: DuelResult) -> Group:
    """The duel's table (one row per bot, each from its own side) and its verdict lines."""
    from lightcycle.tournament.stats import MIN_SAMPLES, format_elo

    a, b = result.bots
    games = counted(result.games, "game")
    if result.interrupted:
        games = f"partial: {result.games} of {counted(2 * result.pairs_planned, 'game')}"
    title = (
        f"{games} ({counted(len(result.pairs), 'side-swapped pair')}) on "
        f"{counted(len(result.maps), 'map')}, {result.wall_seconds:.1f} s"
        + (" (interrupted)" if result.interrupted else "")
    )
    if not result.pairs:
        return Group(Text(title), Text("No pair finished: there is nothing to compare yet."))
    est = result.estimate()
    t = result.trinomial
    show_depth = a.depth is not None or b.depth is not None
    table = Table(title=title, header_style="bold")
    columns = ["bot", "W", "D", "L", "score", "Elo (95% CI)", "LOS", "avg ms"]
    columns += ["depth"] if show_depth else []
    columns += ["verdicts"]
    for col in columns:
        table.add_column(
            col,
            justify="left" if col in ("bot", "verdicts") else "right",
            no_wrap=col.startswith("Elo"),
        )
    sides = (
        (a, t.wins, t.losses, est.score, est.elo, est.los),
        (b, t.losses, t.wins, 1.0 - est.score, -est.elo, 1.0 - est.los),
    )
    for bot, wins, losses, score, _, los in sides:
        verdicts = ", ".join(f"{k} {v}" for k, v in sorted(bot.verdicts.items())) or "-"
        row = [
            bot.name,
            str(wins),
            str(t.draws),
            str(losses),
            f"{score:.1%}",
            _elo_cell(est, bot is b),
            f"{los:.1%}" if est.enough else "-",
            f"{bot.avg_move_time * 1000:.1f}",
        ]
        if show_depth:
            row.append(f"{bot.depth:.1f}" if bot.depth is not None else "-")
        row.append(verdicts)
        table.add_row(*row)
    interval = (
        f"95% CI {_interval(est.elo_low, est.elo_high)}"
        if est.enough
        else f"no interval yet: {counted(est.samples, 'pair')}, at least {MIN_SAMPLES} needed"
    )
    lines = [
        Text(
            f"A = {a.name} ({a.spec}), B = {b.name} ({b.spec}). Elo of A over B: "
            f"{format_elo(est.elo)}, {interval} "
            f"(pairs as samples; pentanomial {'/'.join(map(str, result.pentanomial.counts))}"
            " for pairs scoring 0, ½, 1, 1½, 2).",
        )
    ]
    if math.isinf(est.elo) and est.enough:
        lines.append(Text("Every game went one way: the Elo is unbounded; the CI gives the bound."))
    for bot in (a, b):
        for kind, detail in sorted(bot.verdict_examples.items()):
            lines.append(Text(f"{bot.name} {kind}, e.g.: {detail}", style="yellow"))
    if result.sprt is not None:
        s = result.sprt
        style = "bold green" if s.state == "H1" else "bold red" if s.state == "H0" else "bold"
        when = f" after {result.sprt_pairs} pairs" if s.decided else ""
        stopped = " (stopped early)" if result.stopped_early else ""
        lines.append(Text(f"SPRT: {s.describe()}{when}{stopped}", style=style))
    return Group(table, *lines)


def _by_phase(phases: dict[str, PhaseTime]) -> str:
    """``opening/middle/separated`` mean ms a move, ``-`` for a phase not reached."""
    return "/".join(
        f"{phases[p].ms:.0f}" if p in phases else "-" for p in ("opening", "middle", "separated")
    )


def phase_report(result: DuelResult) -> Table:
    """Both bots' time per move by phase of the game over the whole duel
    (`lightcycle.rules.phases`): where a bot spends its clock, and where it does not."""
    from lightcycle.rules.phases import PHASES
    from lightcycle.tournament.duelmaps import by_phase

    a, b = result.bots
    sides = by_phase(g for pair in result.pairs for g in pair.games)
    table = Table(title="Time per move by phase", header_style="bold")
    for col in ("phase", "moves", f"A ms ({a.name})", f"B ms ({b.name})"):
        table.add_column(col, justify="left" if col == "phase" else "right")
    for phase in PHASES:
        if phase not in sides[0] and phase not in sides[1]:
            continue
        ta, tb = sides[0].get(phase), sides[1].get(phase)
        table.add_row(
            phase,
            str(ta.moves if ta else 0),
            f"{ta.ms:.1f}" if ta else "-",
            f"{tb.ms:.1f}" if tb else "-",
        )
    return table


def map_report(result: DuelResult) -> Table:
    """The duel map by map (`duelmaps.by_map`), worst score for A first."""
    from lightcycle.tournament.duelmaps import by_map

    a, b = result.bots
    table = Table(title=f"By map, A = {a.name}, B = {b.name}", header_style="bold")
    # no Elo column: a map's few pairs give intervals too wide to read (results.json
    # has them, by_map)
    columns = ["map", "games", "W", "D", "L", "score", "A ms", "B ms", "A ms o/m/s"]
    columns += ["fails", "turns"]
    for col in columns:
        if col == "map":  # a map's name is what the table is for: never cut short
            table.add_column(col, no_wrap=True, min_width=max(len(m) for m in result.maps))
        else:
            table.add_column(col, justify="right", no_wrap=col in ("score", "fails", "A ms o/m/s"))
    for line in by_map(result.pairs):
        t = line.trinomial
        table.add_row(
            line.map,
            str(line.games),
            str(t.wins),
            str(t.draws),
            str(t.losses),
            f"{line.score:.1%}",
            f"{line.ms[0]:.1f}",
            f"{line.ms[1]:.1f}",
            _by_phase(line.phases[0]),
            f"{line.failures[0]}/{line.failures[1]}",
            f"{line.turns:.0f}",
        )
    return table

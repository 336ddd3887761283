"""The ``lightcycle`` command line: play, replay, maps, rules.

Every command has ``--help`` with an example. Errors caused by the user's input (a bad map
file, an unknown bot, a corrupt replay) print one red line that says what to do and exit
with status 2; they never show a traceback.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.console import Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from lightcycle.cli.common import SandboxOption, console, user_errors
from lightcycle.core.state import GameState

if TYPE_CHECKING:
    from lightcycle.referee.local import MatchResult as LocalResult
    from lightcycle.referee.specs import BotSpec
    from lightcycle.replay.model import Replay

app = typer.Typer(
    name="lightcycle",
    help="Tron light-cycle AI: play bots, watch replays, browse maps and rulesets.\n\n"
    "Example: lightcycle play --map ring --bots chaser,runaway --seed 7",
    no_args_is_help=True,
    rich_markup_mode="markdown",
    pretty_exceptions_enable=False,
)


def _version() -> str:
    """The installed distribution's version (what pip installed), else the package's own."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lightcycle")
    except PackageNotFoundError:  # run from a source tree that was never installed
        from lightcycle import __version__

        return __version__


def _print_version(wanted: bool) -> None:
    if wanted:
        console.print(f"lightcycle {_version()}", highlight=False)
        raise typer.Exit()


@app.callback()
def _options(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the installed version and exit.",
        ),
    ] = False,
) -> None:
    """The options of ``lightcycle`` itself (the app's help text is the one shown)."""
    del version
    from lightcycle.cli.runs import RUNS, start_run

    if ctx.invoked_subcommand in RUNS:  # strays reaped; SIGTERM/SIGHUP end it as Ctrl-C
        ctx.call_on_close(start_run())


maps_app = typer.Typer(help="Browse the built-in maps.\n\nExample: lightcycle maps show ring")
rules_app = typer.Typer(help="Browse the rulesets.\n\nExample: lightcycle rules list")
app.add_typer(maps_app, name="maps")
app.add_typer(rules_app, name="rules")


def _frame(state: GameState, use_unicode: bool, live: bool = False) -> Group:
    """The board, the status line, and on graph boards the heads and items by vertex.

    A frame redrawn in place (``live``) must fit the terminal: a board taller or wider
    than it is scaled down (`lightcycle.render.fit`); a frame printed once may be tall.
    """
    from lightcycle.core.topology import GridTopology
    from lightcycle.render.fit import fit_board
    from lightcycle.render.graph import vertex_lines
    from lightcycle.render.text import board_text, status_line

    topo = state.board.topology
    status = status_line(state)
    parts: list[Text] = []
    if isinstance(topo, GridTopology):
        # the status line (wrapped), a scale note and the line the cursor is left on
        rest = -(-len(status) // max(1, console.width)) + 2
        rows = console.height - rest if live else None
        fit = fit_board(topo.width, topo.height, console.width, rows, walls=state.board.walls)
        parts.append(board_text(state, unicode=use_unicode, fit=fit))
        note = fit.note(topo.width, topo.height)
        if note:
            parts.append(Text(note, style="dim"))
    else:
        parts.append(board_text(state, unicode=use_unicode))
    parts.append(Text(status))
    if not isinstance(topo, GridTopology):
        parts.append(Text("\n".join(vertex_lines(state, heads=True)), style="dim"))
    return Group(*parts)


def _animator(speed: float, use_unicode: bool) -> tuple[Callable[[GameState], None], Live]:
    live = Live(console=console, auto_refresh=False, transient=False)
    delay = 1.0 / speed if speed > 0 else 0.0

    def show(state: GameState) -> None:
        live.update(_frame(state, use_unicode, live=True))
        live.refresh()
        if delay:
            time.sleep(delay)

    return show, live


def _print_final(state: GameState, use_unicode: bool) -> None:
    console.print(_frame(state, use_unicode), highlight=False)


def deaths_table(state: GameState) -> Table:
    """Per cycle: its seat, its label as the board shows it, and how and when it died.

    The turn is the board's: a cycle that died on turn 12 (its 12th move) is first
    shown dead at ``turn 12`` in the viewers, where turn 0 is the start.
    """
    from lightcycle.render.text import cycle_label, death_detail

    table = Table(box=None, show_header=True, header_style="bold")
    for col in ("seat", "cycle", "fate", "turn", "detail"):
        table.add_column(col)
    for c in state.cycles:
        name = state.teams[c.team].name
        if c.death is None:
            table.add_row(name, cycle_label(c), "alive", "", "")
        else:
            table.add_row(
                name,
                cycle_label(c),
                c.death.cause.value,
                str(c.death.turn),
                death_detail(state, c.death.detail),
            )
    return table


@app.command()
def play(
    map: Annotated[str, typer.Option("--map", "-m", help="Map name or file.")] = "ring",
    bots: Annotated[
        str,
        typer.Option(
            "--bots", "-b", help="Comma-separated bots, one per seat; 'human' is you (arrow keys)."
        ),
    ] = "chaser,runaway",
    seed: Annotated[int, typer.Option(help="Game seed: same seed, same game.")] = 0,
    ruleset: Annotated[
        str | None,
        typer.Option(
            "--ruleset", "-r", help="classic, torus, ffa, teams, tron3d (default: from the map)."
        ),
    ] = None,
    turn_limit: Annotated[int | None, typer.Option(help="End the game after N turns.")] = None,
    speed: Annotated[
        float | None,
        typer.Option(help="Turns per second shown (0: max; default 20, 5 with a human).", min=0),
    ] = None,
    render: Annotated[bool, typer.Option("--render/--no-render", help="Animate the game.")] = True,
    ascii: Annotated[
        bool, typer.Option("--ascii", help="ASCII symbols instead of Unicode.")
    ] = False,
    replay: Annotated[
        Path | None,
        typer.Option(
            # help is markdown: a bare <game> would be taken for an HTML tag and vanish
            help="Replay file to write (default: `replays/MAP_BOTS_seedSEED.json`).",
        ),
    ] = None,
    browser: Annotated[
        bool, typer.Option("--browser", help="Watch the game live in the web viewer instead.")
    ] = False,
    no_open: Annotated[
        bool, typer.Option("--no-open", help="With --browser: print the page's address only.")
    ] = False,
    sandbox: SandboxOption = None,
) -> None:
    """Play a match between bots and show it: built-in and py: bots in this process, and
    programs (scheme:FILE.scm, a brain of the Scheme course's library; cteam:FILE.c;
    FILE.toml) as the referee's seats.

    With 'human' among the bots you steer that seat's cycle with the arrow keys or i/j/k/l
    (grid boards, one cycle per seat); the first key starts the game, q gives up.

    Example: lightcycle play --map ring --bots chaser,runaway --seed 7;
    lightcycle play --map arena-15 --bots human,chaser;
    lightcycle play --map ring --bots chaser,runaway --browser;
    lightcycle play --map torus-20 --bots scheme:random-move-bot.scm,chaser
    """
    from lightcycle.referee.local import play as play_match

    with user_errors():
        from lightcycle.cli.runs import RunOptionError, check_output_file

        bot_list = [b.strip() for b in bots.split(",") if b.strip()]
        if len(bot_list) < 2:
            raise RunOptionError("give at least two bots, e.g. --bots random,chaser")
        if replay is not None:
            check_output_file(replay, "--replay", (".json",))
            if replay.exists():
                raise RunOptionError(
                    f"--replay {replay} exists and replays are never written over; give "
                    "another name or delete it"
                )
        settings: dict[str, Any] = {} if turn_limit is None else {"turn_limit": turn_limit}
        from lightcycle.cli.human import is_human, play_human

        animate = render and console.is_terminal and not browser
        on_turn = None
        live = None
        view = None
        if any(is_human(b) for b in bot_list):
            if browser:
                raise typer.BadParameter("a human plays in the terminal: leave out --browser")
            animate = True
            result = play_human(map, bot_list, seed, ruleset, settings, speed, not ascii)
        else:
            from lightcycle.viewer.live_server import local_view

            view = local_view(
                browser,
                no_open,
                20 if speed is None else speed,
                lambda line: console.print(line, highlight=False),
                first="game",
            )
            if view is not None:
                on_turn = view.on_turn("game")
            elif animate:
                on_turn, live = _animator(20 if speed is None else speed, not ascii)
                live.start()
            try:
                programs = _program_specs(bot_list)
                if programs is None:
                    result = play_match(
                        map,
                        bot_list,
                        seed=seed,
                        ruleset=ruleset,
                        settings=settings,
                        on_turn=on_turn,
                    )
                else:
                    result = _play_programs(
                        map, programs, seed, ruleset, settings, on_turn, sandbox
                    )
                if view is not None:
                    view.end("game", result.replay)
            except BaseException:
                if view is not None:
                    view.stop()
                raise
            finally:
                if live is not None:
                    live.stop()
        if render and not animate:
            _print_final(result.final, not ascii)
        console.print(deaths_table(result.final))
        console.print(
            f"[bold]{result.summary()}[/] ({result.outcome.reason}, turn {result.outcome.turn})",
            highlight=False,
        )
        default = Path("replays") / _replay_name(result.replay.map_id, bot_list, seed)
        path = _save_replay(result.replay, replay, default)
        console.print(f"replay: {path}  (watch: lightcycle replay {path})", highlight=False)
        if view is not None:
            view.stop(linger=True)


def _program_specs(bots: list[str]) -> list[BotSpec] | None:
    """The bots' specs when one of them is a program (``scheme:``, ``cteam:``, a bot
    file, a Battlesnake), else ``None``: in-process bots only, played by the in-process
    referee. (``cmd:`` needs a protocol, which ``play`` does not take: a bot file says
    it.)"""
    from lightcycle.referee.specs import parse_bot_spec

    program = ("scheme:", "cteam:", "toml:", "http://", "https://")
    if not any(b.startswith(program) or b.endswith(".toml") for b in bots):
        return None
    return [parse_bot_spec(b) for b in bots]


def _play_programs(
    map: str,
    specs: list[BotSpec],
    seed: int,
    ruleset: str | None,
    settings: dict[str, Any],
    on_turn: Callable[[GameState], None] | None,
    sandbox: str | None,
) -> LocalResult:
    """One game with program seats (`lightcycle.referee.match.play_one`), as the
    in-process referee's result."""
    from lightcycle.cli.common import sandbox_level, warn_sandbox
    from lightcycle.maps.registry import get_map
    from lightcycle.referee.local import MatchResult, default_ruleset
    from lightcycle.referee.match import play_one
    from lightcycle.rules.variants import get_ruleset
    from lightcycle.sandbox import Limits

    spec = get_map(map)
    rs = get_ruleset(ruleset) if ruleset is not None else default_ruleset(spec, len(specs))
    if settings:
        rs = rs.with_settings(settings)
    limits = Limits(sandbox=sandbox_level(sandbox))
    warn_sandbox(limits.sandbox, specs)
    record = play_one(specs, spec, rs, seed=seed, limits=limits, on_turn=on_turn)
    return MatchResult(record.outcome, record.final, record.replay, record.names)


def _save_replay(replay: Replay, asked: Path | None, default: Path) -> Path:
    """Write the game's replay where it was asked for (checked free before the game), or
    at ``default`` made unique (``-2``, ``-3``... before ``.json``): a replay is never
    written over. Where the write fails the game is kept in the system's temporary
    folder and the error says where, so a game played is never lost.

    Raises:
        RunOptionError: the write failed; the message names the file that holds the game.
    """
    import tempfile

    from lightcycle.cli.runs import RunOptionError

    path = asked or _unique(default)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replay.save(path)
        return path
    except OSError as exc:
        reason = exc.strerror or str(exc)
    kept = Path(tempfile.mkdtemp(prefix="lightcycle-")) / default.name
    replay.save(kept)
    raise RunOptionError(
        f"cannot write the replay {path}: {reason}; the game is kept in {kept} "
        f"(watch: lightcycle replay {kept})"
    )


def _unique(path: Path) -> Path:
    """``path``, or the first of ``NAME-2.json``, ``NAME-3.json``... that is free."""
    n = 1
    candidate = path
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate


def _replay_name(map_id: str, bots: list[str], seed: int) -> str:
    safe = "-".join(b.replace(":", "_").replace("/", "_") for b in bots)
    return f"{map_id.replace('@', '-')}_{safe}_seed{seed}.json"


@maps_app.command("list")
def maps_list() -> None:
    """List the built-in maps.

    Example: lightcycle maps list
    """
    from lightcycle.maps.registry import list_maps

    # a light frame, unwrapped short columns and the tags under the description leave
    # the description most of an 80-column terminal
    table = Table(title="Built-in maps", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("name", "v", "size", "players"):
        table.add_column(col, no_wrap=True)
    table.add_column("description and tags", ratio=1)
    for m in list_maps():
        about = Text(m.description)
        about.append("\n" + " ".join(m.tags), style="dim")
        table.add_row(
            m.name, str(m.version), m.size_text(), ",".join(str(p) for p in m.players), about
        )
    console.print(table)


@maps_app.command("show")
def maps_show(
    name: Annotated[str, typer.Argument(help="Map name, name@version or file.")],
    ascii: Annotated[bool, typer.Option("--ascii", help="ASCII symbols.")] = False,
    players: Annotated[
        int | None, typer.Option(help="Players (for maps with random starts).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for random starts.")] = 0,
    vertices: Annotated[
        bool,
        typer.Option(
            "--vertices",
            help="List every vertex, face by face: position, neighbours, what is on it"
            " (graph boards).",
        ),
    ] = False,
) -> None:
    """Draw a map in the terminal with its fairness report.

    Graph boards (3D meshes) are drawn flattened, with the vertices the cycles start on
    listed; --vertices adds a table of every vertex, face by face of the solid: its
    number, position, the vertices one move away and what stands on it, in columns
    fitted to the terminal (pipe it into less or grep for a vertex's number).

    Example: lightcycle maps show ring; lightcycle maps show cube --players 4 --vertices
    """
    from lightcycle.core.topology import GraphTopology
    from lightcycle.maps.fairness import fair_game
    from lightcycle.maps.registry import get_map
    from lightcycle.referee.local import default_ruleset
    from lightcycle.rules.engine import new_game

    with user_errors():
        spec = get_map(name)
        n = players or (len(spec.starts) if spec.starts else spec.players[0])
        state = new_game(default_ruleset(spec, n), spec, seed=seed, players=n)
        console.print(
            f"[bold]{spec.id}[/] {spec.topology.describe()} "
            f"players {','.join(map(str, spec.players))}  {spec.description}",
            highlight=False,
        )
        _print_final(state, not ascii)
        if vertices and isinstance(spec.topology, GraphTopology):
            from lightcycle.render.graph import vertex_table

            console.print(vertex_table(state, unicode=not ascii), highlight=False)
        elif vertices:  # every cell of a grid is drawn above, at its place
            console.print("--vertices lists graph boards; a grid is drawn whole above", style="dim")
        starts = tuple(tuple(c.head for c in state.cycles_of(t.index)) for t in state.teams)
        report = fair_game(spec.board, starts)
        console.print(str(report), highlight=False)


@rules_app.command("list")
def rules_list() -> None:
    """List the rulesets with their stages.

    Example: lightcycle rules list
    """
    from lightcycle.rules.variants import list_rulesets

    # Stage ids are names to type into a ruleset file, so they are never cut or wrapped
    # (one per line, in their own column); the description column takes what is left
    # and carries the aliases and what each verdict costs, so the table fits 80 columns.
    table = Table(title="Rulesets", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("id", "players", "board", "stages"):
        table.add_column(col, no_wrap=True)
    table.add_column("description", ratio=1)
    for r in list_rulesets():
        about = Text(r.description)
        about.append(f"\naliases: {', '.join(r.aliases)}", style="dim")
        for cost in sorted(set(r.verdicts.values())):
            verdicts = ", ".join(v for v, c in r.verdicts.items() if c == cost)
            about.append(f"\nverdicts the {cost} pays for: {verdicts}", style="dim")
        table.add_row(r.id, f"{r.players[0]}-{r.players[1]}", r.board, "\n".join(r.stages), about)
    console.print(table)


def main() -> None:
    """Entry point of the ``lightcycle`` script and of ``python -m lightcycle``."""
    from lightcycle.cli.runs import die_as_signalled

    try:
        app(prog_name="lightcycle")
    finally:
        die_as_signalled()  # a run ended by SIGTERM/SIGHUP reports that signal


from lightcycle.cli.match import match as _match  # noqa: E402 -- registered after app exists

app.command("match")(_match)

from lightcycle.cli.grade import grade as _grade  # noqa: E402 -- registered after app exists

app.command("grade")(_grade)

from lightcycle.cli.duel import duel as _duel  # noqa: E402 -- registered after app exists

app.command("duel")(_duel)

from lightcycle.cli.replay import replay as _replay  # noqa: E402 -- registered after app exists

app.command("replay")(_replay)

from lightcycle.cli.convert import convert as _convert  # noqa: E402 -- registered after app exists

app.command("convert")(_convert)

from lightcycle.cli.view import view as _view  # noqa: E402 -- registered after app exists

app.command("view")(_view)

from lightcycle.cli.tournament import tournament_app as _tournament_app  # noqa: E402

app.add_typer(_tournament_app, name="tournament")

from lightcycle.cli.sandbox import sandbox_app as _sandbox_app  # noqa: E402

app.add_typer(_sandbox_app, name="sandbox")

from lightcycle.cli.connect import connect as _connect  # noqa: E402 -- registered after app exists

app.command("connect")(_connect)

from lightcycle.cli.serve import serve as _serve  # noqa: E402 -- registered after app exists

app.command("serve")(_serve)

from lightcycle.cli.judge import judge_app as _judge_app  # noqa: E402

app.add_typer(_judge_app, name="judge")

from lightcycle.cli.kit import kit as _kit  # noqa: E402 -- registered after app exists

app.command("kit")(_kit)


if __name__ == "__main__":  # pragma: no cover -- after every command is registered
    main()

"""``lightcycle replay``: watch a replay in the terminal, or export it as HTML or images.

In a terminal the replay plays interactively (`lightcycle.viewer.terminal`: space,
arrows, +/-, g N enter, home/end, q). Piped, or with ``--turn N``, it prints one frame
and the result, which is what scripts and tests read. ``--html``, ``--png``, ``--svg`` and
``--gif`` write files instead of showing the game.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.live import Live

from lightcycle.cli.common import console, user_errors

if TYPE_CHECKING:
    from lightcycle.core.state import GameState
    from lightcycle.replay.model import Replay


def replay(
    file: Annotated[
        Path, typer.Argument(help="A replay: lightcycle .json, .jsonl, .match or .tron.")
    ],
    speed: Annotated[float, typer.Option(help="Turns per second when playing.", min=0.1)] = 10,
    render: Annotated[
        bool, typer.Option("--render/--no-render", help="Show the board (else the result only).")
    ] = True,
    turn: Annotated[
        int | None, typer.Option(help="Show (or export) this turn only; -1 is the last.")
    ] = None,
    ascii: Annotated[bool, typer.Option("--ascii", help="ASCII symbols.")] = False,
    interactive: Annotated[
        bool | None,
        typer.Option(
            "--interactive/--no-interactive",
            help="Keys to pause, step and seek (default: when run in a terminal).",
        ),
    ] = None,
    html: Annotated[
        Path | None, typer.Option(help="Write a self-contained HTML viewer to this file.")
    ] = None,
    png: Annotated[
        Path | None, typer.Option(help="Write --turn (default: the last) as a PNG image.")
    ] = None,
    svg: Annotated[
        Path | None, typer.Option(help="Write --turn (default: the last) as an SVG image.")
    ] = None,
    gif: Annotated[
        Path | None, typer.Option(help="Write the whole game as an animated GIF.")
    ] = None,
    cell: Annotated[
        int | None,
        typer.Option(
            help="Pixels per grid cell in images (default: the board about 640 px wide; "
            "graph boards are 40 cells square).",
            min=2,
        ),
    ] = None,
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="Replay format (default: from extension or content)."),
    ] = None,
) -> None:
    """Re-simulate a replay, check it, and watch it (or export it).

    A replay whose moves do not lead to its stored outcome is refused as corrupt. In a
    terminal: space play/pause, →/← or l/h step, +/- speed, g N enter go to turn N,
    home/end first/last turn, q quit.

    Example: lightcycle replay replays/ring-1_chaser-runaway_seed3.json --speed 20;
    lightcycle replay game.json --html game.html; lightcycle replay game.json --png t.png
    --turn 40
    """
    from lightcycle.cli.runs import RunOptionError, check_output_file
    from lightcycle.replay.convert import read_file
    from lightcycle.viewer.facts import result_text

    with user_errors():
        for option, path, suffixes in (
            ("--html", html, (".html", ".htm")),
            ("--png", png, (".png",)),
            ("--svg", svg, (".svg",)),
            ("--gif", gif, (".gif",)),
        ):
            if path is not None:
                check_output_file(path, option, suffixes)
        rep = read_file(file, fmt)
        states = list(rep.states())
        last = len(states) - 1
        if turn is not None:
            if turn == -1:
                turn = last
            if not 0 <= turn <= last:
                raise RunOptionError(
                    f"--turn {turn}: this game has turns 0..{last}; give one of them "
                    "(or -1 for the last)"
                )
        if html or png or svg or gif:
            try:
                _export(rep, states, turn, html, png, svg, gif, cell, speed)
            except OSError as exc:
                where = str(exc.filename or "the output file").removesuffix(".tmp")
                raise RunOptionError(
                    f"cannot write {where}: {exc.strerror or exc}; choose a folder you can write to"
                ) from None
            return
        from lightcycle.viewer.keys import interactive as is_interactive
        from lightcycle.viewer.terminal import frame, start

        unicode = not ascii
        shown = None  # the turn printed once, if any (its frame tells the result at the end)
        if (
            render
            and turn is None
            and (interactive if interactive is not None else is_interactive())
        ):
            _watch(rep, states, speed, unicode)
        elif render:
            shown = last if turn is None else turn
            p = start(last, speed, turn=shown, playing=False)
            console.print(
                frame(rep, states, p, unicode, console.width, keys_help=False), highlight=False
            )
        if rep.outcome is not None and shown != last:
            console.print(f"[bold]{result_text(rep)}[/]", highlight=False)


def _watch(rep: Replay, game: list[GameState], speed: float, unicode: bool) -> None:
    """The interactive loop: redraw, wait for a key or the next tick, until q."""
    from lightcycle.viewer.keys import RawTerminal
    from lightcycle.viewer.terminal import frame, handle_key, start, tick

    p = start(len(game) - 1, speed)
    with RawTerminal() as keys, Live(console=console, auto_refresh=False, screen=False) as live:
        while not p.quit:
            live.update(
                frame(rep, game, p, unicode, console.width, height=console.height), refresh=True
            )
            pressed = keys.read(p.delay if p.playing else None)
            if pressed:
                for key in pressed:
                    p = handle_key(p, key)
            else:
                p = tick(p)


def _export(
    rep: Replay,
    game: list[GameState],
    turn: int | None,
    html: Path | None,
    png: Path | None,
    svg: Path | None,
    gif: Path | None,
    cell: int | None,
    speed: float,
) -> None:
    at = len(game) - 1 if turn is None else turn
    shown = game[at]
    last = game[-1].turn
    history = game[: at + 1]
    if html is not None:
        from lightcycle.viewer.html import write_html

        write_html(rep, game, html, turn=turn or 0)
        console.print(
            f"html: {html}  (open it in a browser; it needs no network)",
            markup=False,
            soft_wrap=True,
        )
    if svg is not None:
        from lightcycle.render.svg import state_svg

        _write(
            svg,
            state_svg(shown, cell=cell, map_name=rep.map_id, last_turn=last, history=history),
        )
        console.print(f"svg: {svg} (turn {shown.turn})", markup=False, soft_wrap=True)
    if png is not None:
        from lightcycle.viewer.images import write_png

        write_png(shown, png, cell=cell, map_name=rep.map_id, last_turn=last, history=history)
        console.print(f"png: {png} (turn {shown.turn})", markup=False, soft_wrap=True)
    if gif is not None:
        from lightcycle.viewer.images import write_gif

        write_gif(game, gif, cell=cell, speed=speed, map_name=rep.map_id)
        console.print(f"gif: {gif} ({len(game)} frames)", markup=False, soft_wrap=True)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)

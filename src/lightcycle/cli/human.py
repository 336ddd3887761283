"""``lightcycle play --bots human,...``: a person steers a cycle from the keyboard.

The glue between the local referee, the keyboard (`lightcycle.viewer.keys`) and the
human bot (`lightcycle.viewer.human`): it checks that the game can be steered before it
starts, puts the terminal in cbreak mode for the game's length, and draws every turn.
The replay records the human's seat as the bot ``python:lightcycle.viewer.human.HumanBot``
named ``Human``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.live import Live
from rich.text import Text

from lightcycle.cli.common import console

if TYPE_CHECKING:
    from lightcycle.core.state import GameState
    from lightcycle.referee.local import MatchResult

HUMAN = "human"
DEFAULT_SPEED = 5.0
"""Turns per second when a person plays: a fifth of a second to react."""
KEYS_HELP = "steer: arrow keys or i/j/k/l   quit: q   (your first key starts the game)"


def is_human(spec: str) -> bool:
    """Whether a ``--bots`` entry asks for a person at the keyboard."""
    return spec.strip().lower() in (HUMAN, f"builtin:{HUMAN}")


def play_human(
    map_name: str,
    bots: Sequence[str],
    seed: int,
    ruleset: str | None,
    settings: dict[str, Any],
    speed: float | None,
    unicode: bool,
) -> MatchResult:
    """Play one game in which the ``human`` seats are steered from this terminal.

    Raises:
        typer.BadParameter: when not run in a terminal, or the game cannot be steered
            with keys (graph boards, several cycles per seat).
    """
    import typer

    from lightcycle.bots.api import Bot
    from lightcycle.maps.registry import get_map
    from lightcycle.referee.local import default_ruleset
    from lightcycle.referee.local import play as play_match
    from lightcycle.rules.engine import new_game
    from lightcycle.rules.observe import View
    from lightcycle.rules.variants import get_ruleset
    from lightcycle.viewer.human import HumanBot, HumanError, check_steerable
    from lightcycle.viewer.keys import RawTerminal, interactive

    if not interactive():
        raise typer.BadParameter("a human player needs a terminal (standard input and output)")
    spec = get_map(map_name)
    rs = get_ruleset(ruleset) if ruleset else default_ruleset(spec, len(bots))
    if settings:
        rs = rs.with_settings(settings)
    state = new_game(rs, spec, seed=seed, players=len(bots))
    seats = [i for i, b in enumerate(bots) if is_human(b)]
    try:
        for seat in seats:
            check_steerable(View(state, seat))
    except HumanError as exc:
        raise typer.BadParameter(str(exc)) from None
    tick = 1.0 / (speed or DEFAULT_SPEED)
    with RawTerminal() as keys:
        players: list[str | Bot] = [
            HumanBot(keys.read, tick=tick) if is_human(b) else b for b in bots
        ]
        live = Live(console=console, auto_refresh=False, transient=False)
        you = tuple(c.index for seat in seats for c in state.cycles_of(seat))

        def show(s: GameState) -> None:
            live.update(frame(s, unicode, you, console.width, console.height), refresh=True)

        with live:
            return play_match(spec, players, seed=seed, ruleset=rs, on_turn=show)


def frame(state: GameState, unicode: bool, you: Sequence[int], width: int, height: int) -> Group:
    """The board, the status line and the keys, with the player's cycle marked ``@``.

    A board that does not fit the terminal is scrolled to follow the player's head at
    full size rather than scaled down: steering needs every cell (see
    `lightcycle.render.fit`).

    Args:
        state: the state to draw.
        unicode: Unicode symbols (else ASCII).
        you: the cycles the person steers.
        width: the terminal's columns.
        height: the terminal's lines.
    """
    from lightcycle.core.topology import GridTopology
    from lightcycle.render.fit import fit_board
    from lightcycle.render.text import board_text, status_line

    topo = state.board.topology
    status = status_line(state, you=you)
    parts: list[Text] = []
    if isinstance(topo, GridTopology):
        mine = [state.cycles[i] for i in you]
        follow = next((c.head for c in mine if c.alive), mine[0].head if mine else None)
        # the status line (wrapped), the keys, a scroll note, the cursor's line
        rest = -(-len(status) // max(1, width)) + 3
        fit = fit_board(topo.width, topo.height, width, height - rest, follow=follow)
        parts.append(board_text(state, unicode=unicode, fit=fit, you=you))
        note = fit.note(topo.width, topo.height)
        if note:
            parts.append(Text(note, style="dim"))
    else:
        parts.append(board_text(state, unicode=unicode))
    parts += [Text(status), Text(KEYS_HELP, style="dim")]
    return Group(*parts)

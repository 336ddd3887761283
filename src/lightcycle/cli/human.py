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

        def show(s: GameState) -> None:
            live.update(_frame(s, unicode), refresh=True)

        with live:
            return play_match(spec, players, seed=seed, ruleset=rs, on_turn=show)


def _frame(state: GameState, unicode: bool) -> Group:
    from lightcycle.core.topology import GridTopology
    from lightcycle.render.text import board_text, status_line

    topo = state.board.topology
    compact = isinstance(topo, GridTopology) and 2 * topo.width > console.width
    return Group(
        board_text(state, unicode=unicode, compact=compact),
        Text(status_line(state)),
        Text(KEYS_HELP, style="dim"),
    )

"""The terminal replay viewer: a state machine driven by keys, and the frame it draws.

`Playback` is an immutable state and `handle_key` / `tick` are pure functions of it, so
every key's effect is tested without a terminal; ``lightcycle replay`` only reads keys
(`lightcycle.viewer.keys`) and redraws `frame` until `Playback.quit`.

Keys:

=====================  ==========================================
space                  play / pause
→ or l, ← or h         one turn forward / back (and pause)
+ / -                  faster / slower
home or 0, end or $    first / last turn
g, digits, enter       go to a turn (escape cancels)
q or ctrl-c            quit
=====================  ==========================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Group
from rich.table import Table
from rich.text import Text

from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology
from lightcycle.render.fit import fit_board
from lightcycle.render.graph import vertex_lines
from lightcycle.render.text import TEAM_STYLES, board_text
from lightcycle.replay.model import Replay
from lightcycle.viewer.facts import result_text, seat_rows

SPEEDS = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
"""Turns per second that + and - step through."""

HELP = "space play/pause  ←/→ h/l step  +/- speed  g N enter go to  home/end  q quit"


@dataclass(frozen=True)
class Playback:
    """Where the viewer is.

    Attributes:
        turn: the turn shown (0 is the start).
        last: the last turn of the game.
        playing: whether `tick` advances.
        speed: turns per second while playing.
        typing: the digits typed after ``g`` (``None``: not typing a turn).
        quit: the user asked to leave.
        note: a one-line remark for the status bar (an out-of-range turn, say).
    """

    turn: int
    last: int
    playing: bool = True
    speed: float = 10.0
    typing: str | None = None
    quit: bool = False
    note: str = ""

    @property
    def delay(self) -> float:
        """Seconds between turns while playing."""
        return 1.0 / self.speed


def start(last: int, speed: float = 10.0, turn: int = 0, playing: bool = True) -> Playback:
    """The playback of a game whose last turn is ``last``."""
    return Playback(turn=max(0, min(turn, last)), last=last, playing=playing, speed=speed)


def _faster(speed: float, up: bool) -> float:
    if up:
        return next((s for s in SPEEDS if s > speed), SPEEDS[-1])
    return next((s for s in reversed(SPEEDS) if s < speed), SPEEDS[0])


def handle_key(p: Playback, key: str) -> Playback:
    """The playback after ``key`` (a name from `lightcycle.viewer.keys.decode_keys`)."""
    replace = dataclasses.replace
    p = replace(p, note="")
    if p.typing is not None:
        if key.isdigit() and len(key) == 1:
            return replace(p, typing=p.typing + key)
        if key == "backspace":
            return replace(p, typing=p.typing[:-1])
        if key == "enter":
            if not p.typing:
                return replace(p, typing=None)
            wanted = int(p.typing)
            if wanted > p.last:
                return replace(p, typing=None, note=f"no turn {wanted}: the game has 0..{p.last}")
            return replace(p, typing=None, turn=wanted, playing=False)
        if key in ("escape", "g"):
            return replace(p, typing=None)
        if key not in ("q", "ctrl-c"):
            return p
    if key in ("q", "ctrl-c"):
        return replace(p, quit=True, typing=None)
    if key == "space":
        if not p.playing and p.turn >= p.last:  # play again from the start
            return replace(p, playing=True, turn=0)
        return replace(p, playing=not p.playing)
    if key in ("right", "l"):
        return replace(p, turn=min(p.last, p.turn + 1), playing=False)
    if key in ("left", "h"):
        return replace(p, turn=max(0, p.turn - 1), playing=False)
    if key in ("+", "=", "up"):
        return replace(p, speed=_faster(p.speed, True))
    if key in ("-", "_", "down"):
        return replace(p, speed=_faster(p.speed, False))
    if key in ("home", "0"):
        return replace(p, turn=0, playing=False)
    if key in ("end", "$", "G"):
        return replace(p, turn=p.last, playing=False)
    if key == "pageup":
        return replace(p, turn=max(0, p.turn - 10), playing=False)
    if key == "pagedown":
        return replace(p, turn=min(p.last, p.turn + 10), playing=False)
    if key == "g":
        return replace(p, typing="")
    return p


def tick(p: Playback) -> Playback:
    """The playback one delay later: the next turn while playing, pausing at the end."""
    if not p.playing:
        return p
    if p.turn >= p.last:
        return dataclasses.replace(p, playing=False)
    turn = p.turn + 1
    return dataclasses.replace(p, turn=turn, playing=turn < p.last)


def status_text(p: Playback, live: bool = True) -> Text:
    """``▶ turn 12/40  10 turns/s`` and what is being typed or remarked (only
    ``turn 12/40`` for a frame printed once, where playing and speed mean nothing)."""
    text = Text()
    if not live:
        text.append(f"turn {p.turn}/{p.last}", style="bold")
        if p.turn == 0:
            text.append(" (start)")
        return text
    text.append("▶ " if p.playing else "❚❚ ", style="bold")
    text.append(f"turn {p.turn}/{p.last}", style="bold")
    if p.turn == 0:
        text.append(" (start)")
    text.append(f"  {p.speed:g} turns/s")
    if p.typing is not None:
        text.append(f"  go to turn: {p.typing}_", style="bold yellow")
    if p.note:
        text.append(f"  {p.note}", style="yellow")
    return text


def ms_text(seconds: float) -> str:
    """A move time in milliseconds, with a decimal below 10 ms (``0.4 ms``, ``212 ms``)."""
    ms = seconds * 1000
    return f"{ms:.1f} ms" if ms < 10 else f"{ms:.0f} ms"


def seat_table(
    replay: Replay, states: Sequence[GameState], turn: int, unicode: bool, width: int = 80
) -> Table:
    """Per seat: moves into this turn, verdict, move time, score, alive cycles or fate.

    One line per seat, so the frame's height is known and the board can be fitted to
    what is left: a team's ten moves are cut short (…) to a third of the ``width``
    rather than wrapped or squeezing the verdicts out.
    """
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("seat", no_wrap=True)
    table.add_column("moves", no_wrap=True, overflow="ellipsis", max_width=max(8, width // 3))
    for col in ("verdict", "time", "score", "status"):
        table.add_column(col, no_wrap=col != "verdict")
    for team, row in enumerate(seat_rows(replay, states, turn, unicode)):
        status = (
            f"{row.alive}/{row.cycles} alive"
            if row.alive and row.cycles > 1
            else "alive"
            if row.alive
            else row.fate
        )
        table.add_row(
            Text(f"{row.labels} {row.name}", style=TEAM_STYLES[team % len(TEAM_STYLES)]),
            row.moves,
            Text(row.verdict, style="red") if row.verdict else "",
            "" if row.time is None else ms_text(row.time),
            str(row.score),
            status,
        )
    return table


def frame(
    replay: Replay,
    states: Sequence[GameState],
    p: Playback,
    unicode: bool = True,
    width: int = 80,
    keys_help: bool = True,
    height: int | None = None,
) -> Group:
    """Everything the viewer draws for ``p``: board, status, seats, and on graph boards
    the heads by vertex; the result once the last turn is shown.

    Args:
        replay: the verified replay.
        states: its states, turn 0 first.
        p: where the viewer is.
        unicode: Unicode symbols (else ASCII).
        width: the terminal's width (boards wider than half of it are drawn compact,
            boards wider than all of it scaled down).
        keys_help: draw for the interactive player (the key line, play state and speed);
            off for a frame printed once.
        height: the terminal's height, for a frame redrawn in place: a board taller than
            what the rest of the frame leaves is scaled down to fit, never cut off
            (`lightcycle.render.fit`). ``None``: any height (a frame printed once).
    """
    state = states[p.turn]
    topo = state.board.topology
    table = seat_table(replay, states, p.turn, unicode, width)
    lines: list[Text | Table] = [status_text(p, live=keys_help), table]
    if p.turn == p.last and replay.outcome is not None:
        lines.append(Text(result_text(replay), style="bold"))
    if keys_help:
        lines.append(Text(HELP, style="dim"))
    board: list[Text] = []
    if isinstance(topo, GridTopology):
        # kept for the rest, whether shown or not (so the scale stays put at the last
        # turn): the status line, the table's header and rows, the result, the keys, a
        # scale note and the line the cursor is left on
        rest = 1 + 1 + len(state.teams) + 1 + int(keys_help) + 1 + 1
        rows = None if height is None else height - rest
        fit = fit_board(topo.width, topo.height, width, rows, walls=state.board.walls)
        board.append(board_text(state, unicode=unicode, fit=fit))
        note = fit.note(topo.width, topo.height)
        if note:
            board.append(Text(note, style="dim"))
    else:
        board.append(board_text(state, unicode=unicode))
    parts: list[Text | Table] = [*board, *lines]
    if not isinstance(topo, GridTopology):
        parts.insert(3, Text("\n".join(vertex_lines(state, heads=True)), style="dim"))
    return Group(*parts)

"""Local play: in-process Python bots in one match, with every move recorded.

This is the simplest referee: no processes and no clocks, so it is what tests, notebooks
and ``lightcycle play`` use. A bot that raises, answers nothing or answers a move the rules
reject forfeits that turn's cycle with the reason recorded; the loop never crashes because
of a bot.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lightcycle.bots.api import Bot
from lightcycle.bots.registry import make_bot
from lightcycle.core.moves import Forfeit, Move, Outcome
from lightcycle.core.state import GameState
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapSpec
from lightcycle.referee.players import unique_names
from lightcycle.replay.model import Replay
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.legal import moves_this_turn, team_moves
from lightcycle.rules.observe import View
from lightcycle.rules.ruleset import Ruleset
from lightcycle.rules.variants import default_ruleset as default_ruleset  # its old home
from lightcycle.rules.variants import get_ruleset


@dataclass
class MatchResult:
    """What a finished game produced.

    Attributes:
        outcome: ranks, winner or draw, reason.
        final: the last state (every cycle's death turn and cause).
        replay: the game's replay, already verified to re-simulate.
        names: the seat names, in seat order.
    """

    outcome: Outcome
    final: GameState
    replay: Replay
    names: list[str]

    @property
    def winner(self) -> int | None:
        """The winning seat, or ``None`` for a draw."""
        return self.outcome.winner

    def summary(self) -> str:
        """``Random (Player 1) has won!`` or ``The game was a draw.``"""
        return result_line(self.outcome, self.names)

    def _repr_html_(self) -> str | None:
        """A notebook's view: the game in the HTML viewer, inline (`Replay._repr_html_`)."""
        return self.replay._repr_html_()


def result_line(outcome: Outcome, names: Sequence[str]) -> str:
    """The one-line result in the words of the Scheme course's ``play-tron``."""
    if outcome.winner is not None:
        return f"{names[outcome.winner]} (Player {outcome.winner + 1}) has won!"
    firsts = [f"{names[t]} (Player {t + 1})" for t, r in enumerate(outcome.ranks) if r == 1]
    if len(outcome.ranks) == 2 or len(firsts) == len(outcome.ranks):
        return "The game was a draw."
    return "The game was a draw between " + ", ".join(firsts) + "."


def ask(bot: Bot, view: View) -> Any:
    """Call ``bot.move``; any exception becomes a `Forfeit` reason string."""
    try:
        return bot.move(view)
    except Exception as exc:  # a bot's bug must never stop the game
        return Forfeit(view.me.index, f"bot raised {type(exc).__name__}: {exc}")


def collect_moves(
    state: GameState, bots: Sequence[Bot], cpu: list[int] | None = None
) -> dict[int, Move | Forfeit]:
    """Ask each team's bot for its moves and read the answers strictly.

    A team is asked only when one of its cycles moves this turn (`moves_this_turn`). A
    bot with one moving cycle may answer one move; a bot with several answers a dict
    from cycle (index or name, such as ``"A"``) to move, and the order of that dict is
    the order its cycles move in under the sequential rulesets.

    Args:
        state: the state before the turn.
        bots: one per team.
        cpu: when given, each team's CPU microseconds spent in ``move`` are stored in it.
    """
    moves: dict[int, Move | Forfeit] = {}
    for team, bot in enumerate(bots):
        cycles = [c for c in state.cycles_of(team) if moves_this_turn(state, c.index)]
        if not cycles:
            continue
        view = View(state, team)
        started = time.thread_time_ns()
        answer = ask(bot, view)
        if cpu is not None:
            cpu[team] = (time.thread_time_ns() - started) // 1000
        moves.update(team_moves(state, cycles, answer))
    return moves


def play(
    map: str | MapSpec,
    bots: Sequence[str | Bot | type[Bot]],
    seed: int = 0,
    ruleset: str | Ruleset | None = None,
    settings: dict[str, Any] | None = None,
    on_turn: Callable[[GameState], None] | None = None,
    replay_path: str | Path | None = None,
) -> MatchResult:
    """Play one game between in-process bots and return its result.

    Args:
        map: a map name (``ring``), ``name@version``, a map file path, or a `MapSpec`.
        bots: one per seat: bot names (``random``, ``builtin:chaser``, ``py:bot.py``),
            `Bot` classes or instances.
        seed: the game seed (random starts, random rules, built-in bots' dice).
        ruleset: a ruleset name or object; default from the map (``classic``, ``torus`` or
            ``ffa``).
        settings: ruleset setting overrides, e.g. ``{"turn_limit": 500}``.
        on_turn: called with every state, turn 0 first (for live rendering).
        replay_path: where to write the JSON replay (optional).

    Example:
        >>> import lightcycle
        >>> lightcycle.play("ring", ["random", "wallhugger"], seed=7).summary()  # doctest: +SKIP
        'WallHugger (Player 2) has won!'
    """
    spec = get_map(map) if isinstance(map, str) else map
    players = [make_bot(b) for b in bots]
    rs = get_ruleset(ruleset) if ruleset is not None else default_ruleset(spec, len(players))
    if settings:
        rs = rs.with_settings(settings)
    names = unique_names([p.display_name for p in players])
    state = new_game(rs, spec, seed=seed, players=len(players), names=names)
    seats = [{"name": n, "bot": _spec_text(b)} for n, b in zip(names, bots, strict=True)]
    replay = Replay.start(state, spec, seats)
    start_errors: dict[int, str] = {}
    for team, bot in enumerate(players):
        try:
            bot.start(View(state, team))
        except Exception as exc:  # a bot's bug forfeits its first move, nothing more
            start_errors[team] = f"start() raised {type(exc).__name__}: {exc}"
    if on_turn:
        on_turn(state)
    measure = "cpu" in rs.measures
    while state.outcome is None:
        cpu = [0] * len(players) if measure else None
        moves = collect_moves(state, players, cpu)
        for team, reason in start_errors.items():
            for c in state.cycles_of(team):
                if c.alive:
                    moves[c.index] = Forfeit(c.index, reason)
        start_errors.clear()
        replay.record(state, moves, cpu=cpu)
        state = step(state, moves, cpu)
        if on_turn:
            on_turn(state)
    replay.finish(state)
    if replay_path is not None:
        replay.save(replay_path)
    assert state.outcome is not None
    return MatchResult(outcome=state.outcome, final=state, replay=replay, names=names)


def _spec_text(b: str | Bot | type[Bot]) -> str:
    if isinstance(b, str):
        return b if ":" in b else f"builtin:{b}"
    cls = b if isinstance(b, type) else type(b)
    return f"python:{cls.__module__}.{cls.__qualname__}"

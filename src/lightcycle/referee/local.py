"""Local play: in-process Python bots in one match, with every move recorded.

This is the simplest referee: no processes and no clocks, so it is what tests, notebooks
and ``lightcycle play`` use. A bot that raises, answers nothing or answers a move the rules
reject forfeits that turn's cycle with the reason recorded; the loop never crashes because
of a bot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lightcycle.bots.api import Bot
from lightcycle.bots.registry import make_bot
from lightcycle.core.moves import Forfeit, Move, Outcome
from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapSpec
from lightcycle.referee.players import unique_names
from lightcycle.replay.model import Replay
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.legal import read_answer
from lightcycle.rules.observe import View
from lightcycle.rules.ruleset import Ruleset
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


def result_line(outcome: Outcome, names: Sequence[str]) -> str:
    """The one-line result in the words of the Scheme course's ``play-tron``."""
    if outcome.winner is not None:
        return f"{names[outcome.winner]} (Player {outcome.winner + 1}) has won!"
    firsts = [f"{names[t]} (Player {t + 1})" for t, r in enumerate(outcome.ranks) if r == 1]
    if len(outcome.ranks) == 2 or len(firsts) == len(outcome.ranks):
        return "The game was a draw."
    return "The game was a draw between " + ", ".join(firsts) + "."


def default_ruleset(spec: MapSpec, players: int) -> Ruleset:
    """The ruleset a map suggests: torus for wrapping grids, ffa beyond two players."""
    topo = spec.board.topology
    if isinstance(topo, GridTopology) and topo.wrap:
        return get_ruleset("torus" if players == 2 else "ffa")
    return get_ruleset("classic" if players == 2 else "ffa")


def ask(bot: Bot, view: View) -> Any:
    """Call ``bot.move``; any exception becomes a `Forfeit` reason string."""
    try:
        return bot.move(view)
    except Exception as exc:  # a bot's bug must never stop the game
        return Forfeit(view.me.index, f"bot raised {type(exc).__name__}: {exc}")


def collect_moves(state: GameState, bots: Sequence[Bot]) -> dict[int, Move | Forfeit]:
    """Ask each live team's bot for its move and read the answers strictly."""
    moves: dict[int, Move | Forfeit] = {}
    for team, bot in enumerate(bots):
        cycles = [c for c in state.cycles_of(team) if c.alive]
        if not cycles:
            continue
        view = View(state, team)
        answer = ask(bot, view)
        if isinstance(answer, Forfeit):
            for c in cycles:
                moves[c.index] = Forfeit(c.index, answer.reason)
            continue
        answers = answer if isinstance(answer, dict) else {cycles[0].index: answer}
        for c in cycles:
            a = answers.get(c.index)
            try:
                moves[c.index] = read_answer(state, c.index, a)
            except ValueError as exc:
                moves[c.index] = Forfeit(c.index, f"bad answer: {exc}")
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
    while state.outcome is None:
        moves = collect_moves(state, players)
        for team, reason in start_errors.items():
            for c in state.cycles_of(team):
                if c.alive:
                    moves[c.index] = Forfeit(c.index, reason)
        start_errors.clear()
        replay.record(state, moves)
        state = step(state, moves)
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

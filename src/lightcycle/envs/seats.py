"""Bots in an environment's other seats, asked as the local referee asks them.

`lightcycle.referee.local` plays in-process bots; environments sit beside the referee
and may not import it, so this is its turn loop's asking part on the bots layer: a
team is asked only when one of its cycles moves, its answer is read strictly by
`lightcycle.rules.legal.team_moves` (one move, or a dict by cycle), the referee's own
reading, and a bot that raises or answers garbage forfeits the cycles it failed to
move, with the reason. No clock: an environment has none to keep.

`PolicyBot` goes the other way: a policy over this package's observations, seated as a
bot, for self-play or to face the built-in bots wherever a bot is taken.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lightcycle.bots.api import Bot, MoveAnswer
from lightcycle.bots.registry import make_bot
from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.state import GameState
from lightcycle.envs.game import observed_limit, with_max_turns
from lightcycle.envs.observe import Layout, layout_of, observe
from lightcycle.envs.spaces import decode_action
from lightcycle.rules.legal import moves_this_turn, team_moves
from lightcycle.rules.observe import View
from lightcycle.rules.ruleset import Ruleset

BotLike = str | Bot | type[Bot] | Callable[[View], MoveAnswer]
"""What an environment takes for a seat: a bot spec (``random``, ``strong:nodes=2000``,
``py:bot.py``), a `Bot` class or instance, or a function from a `View` to an answer."""


class FunctionBot(Bot):
    """A bot made of a function ``(view) -> answer`` (a heading, a node or a `Move`)."""

    name = "Function"

    def __init__(self, fn: Callable[[View], MoveAnswer]) -> None:
        self.fn = fn
        self.name = getattr(fn, "__name__", "Function")  # type: ignore[misc]

    def move(self, view: View) -> MoveAnswer:
        """The function's answer."""
        return self.fn(view)


def seat_bot(spec: BotLike) -> Bot:
    """A fresh bot for ``spec`` (a `Bot` instance is used as it is)."""
    if isinstance(spec, (str, Bot)) or (isinstance(spec, type) and issubclass(spec, Bot)):
        return make_bot(spec)
    if callable(spec):
        return FunctionBot(spec)
    raise TypeError(f"not a bot: {spec!r} (give a bot name, a Bot, or a function of a View)")


def start(bot: Bot, state: GameState, team: int) -> None:
    """Call ``bot.start`` with the turn-0 view; a bot's error there is its own."""
    bot.start(View(state, team))


def ask(bot: Bot, state: GameState, team: int) -> dict[int, Move | Forfeit]:
    """The moves of ``team``'s cycles that move this turn, from ``bot``'s answer.

    In the order the bot listed them (the order the sequential rulesets follow); an
    exception or an answer the rules cannot read forfeits, with the reason.
    """
    cycles = [c for c in state.cycles_of(team) if moves_this_turn(state, c.index)]
    if not cycles:
        return {}
    try:
        answer = bot.move(View(state, team))
    except Exception as exc:  # a bot's bug must never stop the environment
        answer = Forfeit(cycles[0].index, f"bot raised {type(exc).__name__}: {exc}")
    return team_moves(state, cycles, answer)


Policy = Callable[[dict[str, np.ndarray]], Any]
"""A policy: one agent's observation dict in, an action index out."""


class PolicyBot(Bot):
    """A policy over `lightcycle.envs.observe` observations, playing as a bot.

    Every moving cycle of its team is given the observation an environment would give
    it and moved by the policy's action. The layout is worked out from the first state
    it sees (the rules' turn limit, or ``max_turns`` as the environment had it), so a
    policy trained in an environment sees the same arrays here.

    Args:
        policy: observation dict -> action index.
        max_turns: the environment's ``max_turns``, if it had one.
        name: shown in results.
    """

    def __init__(self, policy: Policy, max_turns: int | None = None, name: str = "Policy") -> None:
        self.policy = policy
        self.max_turns = max_turns
        self.name = name  # type: ignore[misc]
        self._layout: tuple[object, object, Layout] | None = None

    def layout(self, state: GameState) -> Layout:
        """The observation layout of ``state``'s game (kept per board and ruleset)."""
        rs, board = state.ruleset, state.board
        assert isinstance(rs, Ruleset)
        if self._layout is None or self._layout[0] is not rs or self._layout[1] is not board:
            if self.max_turns is not None:
                rs = with_max_turns(rs, self.max_turns)
            self._layout = (state.ruleset, board, layout_of(rs, board, observed_limit(rs, board)))
        return self._layout[2]

    def move(self, view: View) -> MoveAnswer:
        """One move per moving cycle of the team, in cycle order."""
        state = view.state
        layout = self.layout(state)
        answer: dict[int, Move] = {}
        for c in view.my_cycles:
            if moves_this_turn(state, c.index):
                action = self.policy(observe(state, c.index, layout))
                answer[c.index] = decode_action(state, c.index, action, layout)
        return answer if len(answer) != 1 else next(iter(answer.values()))

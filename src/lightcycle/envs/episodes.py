"""Episodes as replays: an environment's games kept in the referee's own replay format.

An environment steps `lightcycle.rules.engine.step`, the function the referee judges
with, so its games are games like any other and are written as `lightcycle play` writes
them: a `lightcycle.replay.model.Replay` built by `Replay.start`, `Replay.record` and
`Replay.finish`, never a format of our own. Such a replay is what ``lightcycle replay``
re-simulates and checks against its stored outcome, what ``lightcycle replay --html`` and
``lightcycle view`` show, and what a notebook displays inline (`Replay._repr_html_`).

- `EpisodeLog`: what the single-game environments keep while they play, for their
  ``replay()``: the first state and each turn's state and moves. Stepping costs a list
  append; the moves are encoded only when a replay is asked for.
- `GameRecorder`: the batched engine's games by index. It steps a
  `lightcycle.envs.batched.BatchedGames` and keeps each game's actions in arrays; a
  game's replay re-simulates them through `rules.engine.step` from the game's seed (the
  engine plays exactly those games, which tests/envs/test_batched.py checks move for
  move), so the replay holds what the rules say happened, causes of death included,
  which the engine's arrays do not record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from lightcycle.bots.api import Bot
from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.state import GameState
from lightcycle.envs.observe import layout_of
from lightcycle.envs.spaces import decode_action
from lightcycle.maps.spec import MapSpec
from lightcycle.replay.model import Replay, ReplayError
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.ruleset import Ruleset

if TYPE_CHECKING:  # the single-game environments use this module without the engine
    from lightcycle.envs.batched import BatchedGames, StepResult

Seat = dict[str, str]
"""A replay's seat: ``{"name": ..., "bot": ...}``, one per team."""

AGENT = "agent"
"""The ``bot`` of a seat an environment's caller moved: whatever policy stepped it."""


def spec_text(spec: object) -> str:
    """How a replay names a bot given as ``spec``: a spec string as ``lightcycle play``
    writes it (``builtin:random``, ``py:bot.py``), else ``python:module.Name`` of the
    class or function, so a replay says which code played."""
    if isinstance(spec, str):
        return spec if ":" in spec else f"builtin:{spec}"
    code = type(spec) if isinstance(spec, Bot) else spec
    name = getattr(code, "__qualname__", type(code).__qualname__)
    return f"python:{getattr(code, '__module__', None) or '?'}.{name}"


def agent_seats(state: GameState, names: Sequence[str] | None = None) -> list[Seat]:
    """Seats for a game every cycle of which is an agent (the parallel environment).

    A team is named by its agents: ``player_3`` for a team of one cycle,
    ``player_0..player_9`` for a team of ten, so the replay tells which agent was which
    seat. ``names`` (one per team) replaces those names, e.g. with the policies'.
    """
    seats = []
    for team in state.teams:
        cycles = [c.index for c in state.cycles_of(team.index)]
        own = f"player_{cycles[0]}" + (f"..player_{cycles[-1]}" if len(cycles) > 1 else "")
        seats.append({"name": own, "bot": AGENT})
    return with_names(seats, names)


def with_names(seats: list[Seat], names: Sequence[str] | None) -> list[Seat]:
    """``seats`` renamed by ``names`` (one per seat), if given.

    Raises:
        ValueError: for a number of names other than the number of seats.
    """
    if names is None:
        return seats
    if len(names) != len(seats):
        raise ValueError(f"{len(names)} names given for {len(seats)} seats; give one per team")
    return [{**seat, "name": str(name)} for seat, name in zip(seats, names, strict=True)]


class EpisodeLog:
    """The game an environment is playing, kept to be written as a replay.

    The environment calls `start` with each new game's first state and `add` before
    every `step` of the rules with that step's state and moves (in the order the rules
    get them: the sequential rulesets follow it, and the replay stores it).
    """

    def __init__(self) -> None:
        self.first: GameState | None = None
        self.turns: list[tuple[GameState, Mapping[int, Move | Forfeit]]] = []

    def start(self, state: GameState) -> None:
        """Forget the last game; ``state`` is turn 0 of the next."""
        self.first = state
        self.turns = []

    def add(self, state: GameState, moves: Mapping[int, Move | Forfeit]) -> None:
        """Keep the moves played from ``state`` (not copied: the caller makes a new dict
        each turn)."""
        self.turns.append((state, moves))

    def replay(self, spec: MapSpec, final: GameState, seats: Sequence[Seat]) -> Replay:
        """The game so far as a replay, with its outcome once ``final`` has one.

        Raises:
            RuntimeError: before the first game started.
        """
        if self.first is None:
            raise RuntimeError("no game has been played yet: call reset() first")
        replay = Replay.start(self.first, spec, seats)
        for state, moves in self.turns:
            replay.record(state, dict(moves))
        if final.outcome is not None:
            replay.finish(final)
        return replay


# --------------------------------------------------------------------------- batched


def batched_replay(
    ruleset: Ruleset,
    spec: MapSpec,
    seed: int,
    actions: npt.ArrayLike,
    names: Sequence[str] | None = None,
    players: int | None = None,
) -> Replay:
    """The replay of a batched game: its actions re-played through `rules.engine.step`.

    Args:
        ruleset, spec: the engine's ruleset (its turn limit set) and map.
        seed: the game's seed (`BatchedGames.seeds`).
        actions: ``(turns, P)`` action indices, one row per turn played, as the engine
            took them (a dead cycle's entry is ignored).
        names: the seats' names, one per team (default the agents': `agent_seats`).
        players: the number of teams (default as `new_game`).

    Raises:
        ReplayError: when the rules end the game before its actions run out (actions
            that are not this game's).
    """
    state = new_game(ruleset, spec, seed=seed, players=players)
    replay = Replay.start(state, spec, agent_seats(state, names))
    layout = layout_of(ruleset, state.board, 1)
    for turn, row in enumerate(np.asarray(actions)):
        if state.outcome is not None:
            raise ReplayError(
                f"the game of seed {seed} ended on turn {state.turn}, but actions for turn "
                f"{turn + 1} follow: these are not that game's actions"
            )
        # in cycle order: the batched engine moves a team's cycles in index order
        moves: dict[int, Move | Forfeit] = {
            c.index: decode_action(state, c.index, int(row[c.index]), layout)
            for c in state.cycles
            if c.alive
        }
        replay.record(state, moves)
        state = step(state, moves)
    if state.outcome is not None:
        replay.finish(state)
    return replay


class GameRecorder:
    """Steps a `BatchedGames` and keeps its games' actions, so any game is a replay.

    Step through the recorder (`step` takes and returns what `BatchedGames.step` does);
    resets may go to the engine directly. Every slot keeps its current game (from its
    first turn to now: `replay`) and the last game it finished (`finished`), whatever
    the engine's autoreset mode. Memory: two ``int8`` arrays of ``N x L x P`` (``L`` the
    longest game the rules allow: `BatchedGames.horizon` turns).

    Args:
        games: the engine; its state is read, never changed, except by `step`.
        names: the seats' names in replays (one per team; default the agents').
    """

    def __init__(self, games: BatchedGames, names: Sequence[str] | None = None) -> None:
        self.games = games
        self.names = None if names is None else list(names)
        n, p = games.num_games, games.num_cycles
        length = games.horizon + 1
        self._moves = np.zeros((n, length, p), dtype=np.int8)
        self._recorded = games.turn.astype(np.int64)  # turns of each current game kept
        self._recorded[self._recorded > 0] = -1  # games already under way: not recorded
        self._last_moves = np.zeros_like(self._moves)
        self._last_seed = np.zeros(n, dtype=np.uint64)
        self._last_turns = np.full(n, -1, dtype=np.int64)  # -1: none finished yet

    def step(self, actions: npt.ArrayLike) -> StepResult:
        """`BatchedGames.step`, keeping the actions of the games that move."""
        g = self.games
        act = np.asarray(actions)
        moving = np.flatnonzero(~g.over)  # over: restarted by this step, or frozen
        turn = g.turn[moving].astype(np.int64)
        seeds = g.seeds.copy()
        result = g.step(act)
        self._moves[moving, turn] = act[moving]
        kept = self._recorded[moving]
        # a game at turn 0 starts its record; one that moved outside the recorder has none
        self._recorded[moving] = np.where((turn == 0) | (kept == turn), turn + 1, -1)
        ended = np.flatnonzero(result.terminated | result.truncated)
        if len(ended):
            self._last_moves[ended] = self._moves[ended]
            self._last_seed[ended] = seeds[ended]
            self._last_turns[ended] = np.where(
                self._recorded[ended] >= 0, self._recorded[ended], -2
            )
        self._recorded[result.restarted] = 0
        return result

    def replay(self, game: int) -> Replay:
        """The game now in slot ``game``, from its first turn to now (a game that just
        ended stays on view until the engine restarts it, in ``next_step`` mode).

        Raises:
            ValueError: for a game stepped outside the recorder, whose moves it lacks.
        """
        g = self.games
        turns = int(g.turn[game])
        if turns and self._recorded[game] != turns:
            raise ValueError(
                f"game {game} was stepped without the recorder: its moves are not all kept"
            )
        return self._replay(int(g.seeds[game]), self._moves[game, :turns])

    def finished(self, game: int) -> Replay | None:
        """The last game slot ``game`` finished (``None`` before its first ended).

        Raises:
            ValueError: when that game was stepped partly outside the recorder.
        """
        turns = int(self._last_turns[game])
        if turns == -1:
            return None
        if turns < 0:
            raise ValueError(
                f"the last game of slot {game} was stepped without the recorder: its moves "
                "are not all kept"
            )
        return self._replay(int(self._last_seed[game]), self._last_moves[game, :turns])

    def _replay(self, seed: int, actions: npt.NDArray[np.int8]) -> Replay:
        g = self.games
        return batched_replay(g.ruleset, g.spec, seed, actions, self.names, g.players)

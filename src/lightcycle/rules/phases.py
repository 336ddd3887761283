"""The phase of a duel: where a bot's clock goes, told apart.

A searching bot spends its clock differently in each part of a duel: its first move has
a longer limit (set-up); in the opening the cycles are far apart; in the middle game
they fight for room, where one move can decide the game; once they are separated each
fills its own region, where a fill solver often proves its answer at once. A mean time
per move over a whole game hides a bot that stops early exactly where it matters, so a
duel reports the time per move by phase (`lightcycle.tournament.duelmaps`).

The phases, of the position a move is played from:

- ``first``: the first move (turn 0), with its own limit;
- ``opening``: turns 1 to `OPENING_TURNS` - 1 while the cycles share a region;
- ``middle``: later, while they share a region;
- ``separated``: once no free cell is reachable by both heads (for good: regions only
  shrink).

Pure: a function of the state (`lightcycle.core.state.GameState`).
"""

from __future__ import annotations

from lightcycle.core.state import GameState

PHASES = ("first", "opening", "middle", "separated")
"""Every phase, in the order a game goes through them."""

OPENING_TURNS = 10
"""Turns counted as the opening (the first move included), unless already separated."""


def region(state: GameState, cell: int) -> int:
    """The free cells reachable from ``cell`` (a head), as a bitmask (``cell`` not in it)."""
    nbrs = state.board.topology.neighbours
    occ = state.occupied
    seen = 0
    frontier = [n for n in nbrs[cell] if not (occ >> n) & 1]
    for n in frontier:
        seen |= 1 << n
    while frontier:
        nxt = []
        for c in frontier:
            for n in nbrs[c]:
                bit = 1 << n
                if not (occ | seen) & bit:
                    seen |= bit
                    nxt.append(n)
        frontier = nxt
    return seen


def separated(state: GameState) -> bool:
    """Whether the two live cycles of a duel can no longer reach a common free cell."""
    heads = [c.head for c in state.cycles if c.alive]
    if len(heads) != 2:
        return True
    mine = region(state, heads[0])
    nbrs = state.board.topology.neighbours[heads[1]]
    return not any((mine >> n) & 1 for n in nbrs)


def duel_phase(state: GameState, was_separated: bool = False) -> str:
    """The phase of the position ``state`` (see the module).

    Args:
        state: a duel position (two cycles).
        was_separated: the cycles were separated at an earlier turn (then they still
            are; the flood fill is skipped).
    """
    if state.turn == 0:
        return "first"
    if was_separated or separated(state):
        return "separated"
    return "opening" if state.turn < OPENING_TURNS else "middle"


class PhaseLog:
    """The phase of every position of one duel, as the referee passes its states
    (`lightcycle.referee.game.play_game`'s ``on_turn``).

    Attributes:
        phases: the phase of the position at each turn, by turn.
    """

    def __init__(self) -> None:
        self.phases: list[str] = []

    def __call__(self, state: GameState) -> None:
        if state.outcome is not None or len(state.cycles) != 2:
            return
        was = bool(self.phases) and self.phases[-1] == "separated"
        while len(self.phases) < state.turn:  # never: a state every turn
            self.phases.append(self.phases[-1] if self.phases else "first")
        self.phases.append(duel_phase(state, was))

    def times(self, times: list[list[float | None]] | None, seat: int) -> dict[str, list[float]]:
        """``{phase: [moves, seconds]}`` for ``seat`` from a replay's move times."""
        out: dict[str, list[float]] = {}
        for turn, phase in enumerate(self.phases):
            if times is None or turn >= len(times) or seat >= len(times[turn]):
                break
            t = times[turn][seat]
            if t is None:
                continue
            entry = out.setdefault(phase, [0, 0.0])
            entry[0] += 1
            entry[1] += t
        return out

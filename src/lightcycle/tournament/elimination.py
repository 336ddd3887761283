"""The 3D course's elimination: one player out per round, until the ranking is complete.

The course's judge ran a round every day, and each round discarded one program:

1. the players still at risk are drawn into random groups of four; a group short of four
   is filled with ``Dummy`` players;
2. each group plays one match;
3. a player that does better than two of its three rivals is safe for this round;
4. the others are regrouped and play again (a new heat), until one player is left:
   that player is out of the competition.

Repeating rounds until one player remains ranks everyone: the last one out is second,
the first one out is last. Where the course's text leaves a gap, this module decides:

- Groups are as equal as possible (seven players make groups of four and three, not four
  and one), and seats within a group are drawn, fillers included.
- "Better than" is a strictly better place; a tie with a rival does not count.
- A heat in which every player at risk would be safe (two players and two fillers, both
  beating the fillers) keeps the players that beat the fewest rivals at risk.
- A round that goes `MAX_HEATS` heats without a loser (bots that always tie) ends by
  tie-break: out goes the player at risk that beat the fewest rivals over the round's
  heats, ties drawn from the seed.
- Heats use the tournament's maps in turn; each game has its own seed.

With ``players = 2`` this is the same procedure with duels: winning is "better than one of
one rival".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lightcycle.core.rng import Rng
from lightcycle.tournament.schedule import (
    Format,
    Pairing,
    Results,
    Schedule,
    game_seed,
    shuffled,
    split_even,
)

MAX_HEATS = 30
"""Heats a round may take before a tie-break decides who is out."""


@dataclass
class EliminationState:
    """Where an elimination stands given some results.

    Attributes:
        pairings: every match scheduled so far.
        final: whether the schedule is complete.
        remaining: entrants still in, by entrant number.
        out: ``(entrant, round)`` in the order they were eliminated.
        tie_breaks: rounds that ended by tie-break.
    """

    pairings: list[Pairing] = field(default_factory=list)
    final: bool = False
    remaining: list[int] = field(default_factory=list)
    out: list[tuple[int, int]] = field(default_factory=list)
    tie_breaks: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Elimination:
    """The elimination format (see the module docstring).

    Attributes:
        entrants: the bots (fillers are numbered after them).
        maps: the tournament's maps.
        seats: seats per group (4 in the course).
        rounds: elimination rounds (``None``: ``entrants - 1``, a full ranking).
        seed: the tournament seed.
    """

    entrants: int
    maps: int
    seats: int = 4
    rounds: int | None = None
    seed: int = 0
    name: str = "elimination"

    @property
    def total_rounds(self) -> int:
        """Rounds to play: each puts one entrant out."""
        full = max(self.entrants - 1, 0)
        return min(self.rounds, full) if self.rounds is not None else full

    @property
    def need(self) -> int:
        """Rivals a player must beat to be safe (two of three in groups of four)."""
        return self.seats // 2

    @property
    def fillers(self) -> int:
        """Fillers the smallest group may need."""
        most = 0
        for k in range(2, self.entrants + 1):
            smallest = min(len(g) for g in split_even(list(range(k)), self.seats))
            most = max(most, self.seats - smallest)
        return most

    def schedule(self, results: Results) -> Schedule:
        state = self.state(results)
        return Schedule(state.pairings, state.final)

    def ranking(self, results: Results) -> list[list[int]] | None:
        state = self.state(results)
        tiers = [sorted(state.remaining)] if state.remaining else []
        return tiers + [[p] for p, _ in reversed(state.out)]

    def state(self, results: Results) -> EliminationState:
        """Replay the elimination over ``results`` (pure: same results, same state)."""
        st = EliminationState(remaining=list(range(self.entrants)))
        fillers = [self.entrants + i for i in range(self.fillers)]
        heats = 0
        for e in range(1, self.total_rounds + 1):
            at_risk = list(st.remaining)
            beaten_total = dict.fromkeys(at_risk, 0)
            h = 0
            while len(at_risk) > 1:
                h += 1
                if h > MAX_HEATS:
                    low = min(beaten_total[x] for x in at_risk)
                    worst = [x for x in at_risk if beaten_total[x] == low]
                    at_risk = [Rng(self.seed, 0, f"elimination:{e}:tie-break").choice(worst)]
                    st.tie_breaks.append(e)
                    break
                order = shuffled(self.seed, f"elimination:{e}:{h}", at_risk)
                groups: list[Pairing] = []
                for g, group in enumerate(split_even(order, self.seats), start=1):
                    full = group + fillers[: self.seats - len(group)]
                    seats = shuffled(self.seed, f"elimination:{e}:{h}:{g}:seats", full)
                    groups.append(
                        Pairing(
                            f"e{e:03d}-h{h:02d}-g{g:02d}",
                            e,
                            tuple(seats),
                            heats % self.maps,
                            game_seed(self.seed, "elimination", e, h, g),
                            f"round {e}, heat {h}, group {g}",
                        )
                    )
                heats += 1
                st.pairings += groups
                if any(p.key not in results for p in groups):
                    return st
                beaten: dict[int, int] = {}
                for p in groups:
                    ranks = results[p.key]
                    for i, entrant in enumerate(p.seats):
                        if entrant < self.entrants:
                            beaten[entrant] = sum(1 for r in ranks if r > ranks[i])
                for entrant, b in beaten.items():
                    beaten_total[entrant] += b
                stay = [x for x in at_risk if beaten[x] < self.need]
                if not stay:
                    low = min(beaten[x] for x in at_risk)
                    stay = [x for x in at_risk if beaten[x] == low]
                at_risk = stay
            loser = at_risk[0]
            st.remaining.remove(loser)
            st.out.append((loser, e))
        st.final = True
        return st


def format_notes(fmt: Format, results: Results) -> dict[int, str]:
    """A word per entrant where the format has one: an elimination's ``out r3``,
    ``still in`` or ``winner``; nothing for the other formats.

    The report and the live table of ``tournament run`` both show it, so they say the
    same thing about the same results.
    """
    if not isinstance(fmt, Elimination):
        return {}
    state = fmt.state(results)
    notes = {p: f"out r{e}" for p, e in state.out}
    for p in state.remaining:
        notes[p] = "winner" if state.final and len(state.remaining) == 1 else "still in"
    return notes

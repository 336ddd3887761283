"""Swiss system: for fields too large for a round robin.

Each round pairs entrants with similar scores, so after ``log2(n)`` rounds the strongest
have met each other without everyone playing everyone. Pairings follow the Monrad
variant, which is simple to check by hand: order the entrants by points (ties in a fixed
order drawn from the seed), then pair the first with the next one it has not met yet, and
so on down the list. A backtracking search finds such a pairing whenever one exists;
only when every pairing repeats a meeting (small fields, many rounds) are repeats
allowed, as few as the greedy order makes. With an odd number of entrants the
lowest-placed entrant that has not had a bye sits out and scores as if it had won all
its games of the round.

A pairing plays every map twice, seats swapped, with one seed per map. A round is
scheduled only once every game of the previous round is finished, since its pairings
depend on those results; the store keeps the rounds played so far, and a resumed run
recomputes the same pairings from them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from lightcycle.tournament.elo import actual
from lightcycle.tournament.schedule import Pairing, Results, Schedule, game_seed, shuffled

SEARCH_BUDGET = 200_000
"""Steps the repeat-free pairing search may take before falling back to greedy pairing."""


def default_rounds(entrants: int) -> int:
    """``ceil(log2(n))`` rounds: enough for one entrant to be the only one undefeated."""
    return max(1, math.ceil(math.log2(max(entrants, 2))))


def points_of(pairing: Pairing, ranks: tuple[int, ...], bye_points: float) -> dict[int, float]:
    """Each seat's points from one finished match (a bye scores ``bye_points``)."""
    if pairing.bye:
        return {pairing.seats[0]: bye_points}
    out: dict[int, float] = {}
    for i, p in enumerate(pairing.seats):
        out[p] = sum(actual(ranks[i], ranks[j]) for j in range(len(ranks)) if j != i)
    return out


def pair_round(
    order: Sequence[int], met: set[frozenset[int]], had_bye: set[int]
) -> tuple[list[tuple[int, int]], int | None]:
    """Pair one round.

    Args:
        order: the entrants from first to last in the standings.
        met: pairs of entrants that have already met.
        had_bye: entrants that have already had a bye.

    Returns:
        The pairs (higher-placed entrant first) and the entrant with the bye, if any.
    """
    rest = list(order)
    bye: int | None = None
    if len(rest) % 2:
        without = [p for p in reversed(rest) if p not in had_bye]
        bye = without[0] if without else rest[-1]
        rest.remove(bye)
    budget = [SEARCH_BUDGET]
    pairs = _search(rest, met, budget)
    if pairs is None:
        pairs = _greedy(rest, met)
    return pairs, bye


def _search(
    rest: list[int], met: set[frozenset[int]], budget: list[int]
) -> list[tuple[int, int]] | None:
    """A repeat-free pairing of ``rest`` (first with the nearest possible), or ``None``."""
    if not rest:
        return []
    p = rest[0]
    for i in range(1, len(rest)):
        q = rest[i]
        if frozenset((p, q)) in met:
            continue
        budget[0] -= 1
        if budget[0] < 0:
            return None
        sub = _search(rest[1:i] + rest[i + 1 :], met, budget)
        if sub is not None:
            return [(p, q), *sub]
    return None


def _greedy(rest: list[int], met: set[frozenset[int]]) -> list[tuple[int, int]]:
    """Each in turn with the nearest it has not met, or the nearest at all."""
    left = list(rest)
    out: list[tuple[int, int]] = []
    while left:
        p = left.pop(0)
        fresh = [q for q in left if frozenset((p, q)) not in met]
        q = fresh[0] if fresh else left[0]
        left.remove(q)
        out.append((p, q))
    return out


@dataclass(frozen=True)
class Swiss:
    """The Swiss format (see the module docstring).

    Attributes:
        entrants: how many.
        maps: maps in the tournament (a pairing plays each twice).
        rounds: rounds (``None``: `default_rounds`).
        seed: the tournament seed.
    """

    entrants: int
    maps: int
    rounds: int | None = None
    seed: int = 0
    name: str = "swiss"
    seats: int = 2
    fillers: int = 0

    @property
    def total_rounds(self) -> int:
        """The rounds that will be played."""
        return self.rounds if self.rounds is not None else default_rounds(self.entrants)

    @property
    def bye_points(self) -> float:
        """A bye is worth winning every game of a pairing."""
        return 2.0 * self.maps

    def schedule(self, results: Results) -> Schedule:
        tiebreak = shuffled(self.seed, "swiss:order", range(self.entrants))
        position = {p: i for i, p in enumerate(tiebreak)}
        points = dict.fromkeys(range(self.entrants), 0.0)
        met: set[frozenset[int]] = set()
        had_bye: set[int] = set()
        out: list[Pairing] = []
        for r in range(1, self.total_rounds + 1):
            order = sorted(range(self.entrants), key=lambda p: (-points[p], position[p]))
            pairs, bye = pair_round(order, met, had_bye)
            this_round: list[Pairing] = []
            for board, (a, b) in enumerate(pairs, start=1):
                met.add(frozenset((a, b)))
                for m in range(self.maps):
                    seed = game_seed(self.seed, "swiss", r, a, b, m)
                    for g, (x, y) in enumerate(((a, b), (b, a)), start=1):
                        this_round.append(
                            Pairing(
                                f"s{r:02d}-b{board:02d}-m{m:02d}-g{g}",
                                r,
                                (x, y),
                                m,
                                seed,
                                f"round {r}, board {board}",
                            )
                        )
            if bye is not None:
                had_bye.add(bye)
                this_round.append(Pairing(f"s{r:02d}-bye", r, (bye,), 0, 0, f"round {r}, bye"))
            out += this_round
            if any(p.key not in results for p in this_round):
                return Schedule(out, final=r == self.total_rounds)
            for p in this_round:
                for entrant, pts in points_of(p, results[p.key], self.bye_points).items():
                    points[entrant] += pts
        return Schedule(out, final=True)

    def ranking(self, results: Results) -> list[list[int]] | None:
        return None

"""Schedules: which entrants meet, in which seats, on which map, with which seed.

A format is a pure function from the results so far to the schedule so far. Round robin
and gauntlet know their whole schedule before the first game; Swiss pairs a round only
once the previous one is finished, and the elimination of the 3D course regroups after
every heat. So every format answers the same question, `Format.schedule(results)`: given
the ranks of the matches finished so far, every match that can be scheduled now, earlier
rounds first and always listed identically. The runner inserts what is new, plays what is
missing, and asks again; a resumed run asks the same questions with the same stored
results and gets the same answers, which is what makes resuming safe.

Every match has a stable key (``r01-m00-000v001``) that names it in the store, where a
unique constraint keeps a match from being recorded twice. Entrants are numbered in the
order of the tournament file; fillers (``dummy`` bots that complete short groups) come
after the bots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from lightcycle.core.rng import Rng

Results = Mapping[str, tuple[int, ...]]
"""The ranks of every finished match by key, one per seat (1 is best; a bye: ``(1,)``)."""


@dataclass(frozen=True)
class Pairing:
    """One scheduled match.

    Attributes:
        key: the stable key that names the match in the store.
        round: the round it belongs to (1-based).
        seats: entrant numbers in seat order; a single seat is a bye (no game).
        map: the index of the map in the tournament's map list.
        seed: the game seed.
        label: a short description for people (``round 2, table 3``).
    """

    key: str
    round: int
    seats: tuple[int, ...]
    map: int
    seed: int
    label: str = ""

    @property
    def bye(self) -> bool:
        """Whether this is a bye: one entrant, no game, the points of a win."""
        return len(self.seats) == 1


@dataclass(frozen=True)
class Schedule:
    """What a format can schedule now.

    Attributes:
        pairings: every match schedulable with the results given, in playing order.
        final: whether no match will be added once these are finished.
    """

    pairings: list[Pairing]
    final: bool


class Format(Protocol):
    """A tournament format (round robin, gauntlet, Swiss, elimination, tables)."""

    @property
    def name(self) -> str:
        """The format's name in tournament files."""
        ...

    @property
    def seats(self) -> int:
        """Seats per match."""
        ...

    @property
    def fillers(self) -> int:
        """Filler entrants the format may need (numbered after the bots)."""
        ...

    def schedule(self, results: Results) -> Schedule:
        """Every match schedulable given ``results`` (see the module docstring)."""
        ...

    def ranking(self, results: Results) -> list[list[int]] | None:
        """The format's own final order, best tier first (``None``: rank by points)."""
        ...


def game_seed(seed: int, *parts: object) -> int:
    """A game seed derived from the tournament seed and what identifies the game.

    Games that should be played alike (the two seat orders of one pairing on one map)
    pass the same parts and get the same seed.
    """
    return Rng(seed, 0, "tournament:" + ":".join(str(p) for p in parts)).below(1 << 31)


def shuffled(seed: int, stream: str, items: Sequence[int]) -> list[int]:
    """``items`` in an order drawn from the seed (the same seed, the same order)."""
    out = list(items)
    Rng(seed, 0, stream).shuffle(out)
    return out


def split_even(items: Sequence[int], size: int) -> list[list[int]]:
    """Split into the fewest groups of at most ``size``, as equal as possible.

    Seven players in groups of four make groups of four and three (each then filled to
    four), not four and one: a lone player against three fillers learns nothing.
    """
    if not items:
        return []
    count = -(-len(items) // size)
    base, extra = divmod(len(items), count)
    groups: list[list[int]] = []
    i = 0
    for g in range(count):
        n = base + (1 if g < extra else 0)
        groups.append(list(items[i : i + n]))
        i += n
    return groups


def _both_orders(r: int, m: int, a: int, b: int, seed: int) -> list[Pairing]:
    """The two games of ``a`` against ``b`` in round ``r`` on map ``m``, one per seat order,
    with the same seed (so the seat is the only difference)."""
    return [
        Pairing(f"r{r:02d}-m{m:02d}-{x:03d}v{y:03d}", r, (x, y), m, seed, f"round {r}")
        for x, y in ((a, b), (b, a))
    ]


@dataclass(frozen=True)
class RoundRobin:
    """Every ordered pair of entrants on every map, for a number of rounds.

    The Marlboro engine's format. Both seat orders of a pair play one map with the same
    seed, so no bot keeps the better start.
    """

    entrants: int
    maps: int
    rounds: int = 1
    seed: int = 0
    name: str = "round-robin"
    seats: int = 2
    fillers: int = 0

    def schedule(self, results: Results) -> Schedule:
        out: list[Pairing] = []
        for r in range(1, self.rounds + 1):
            for m in range(self.maps):
                for a in range(self.entrants):
                    for b in range(a + 1, self.entrants):
                        out += _both_orders(r, m, a, b, game_seed(self.seed, "rr", r, m, a, b))
        return Schedule(out, final=True)

    def ranking(self, results: Results) -> list[list[int]] | None:
        return None


@dataclass(frozen=True)
class Gauntlet:
    """One entrant (the challenger) against each of the others, both seat orders, every map.

    For measuring one bot against the reference bots or its own earlier versions: the
    others never play each other.
    """

    entrants: int
    maps: int
    challenger: int = 0
    rounds: int = 1
    seed: int = 0
    name: str = "gauntlet"
    seats: int = 2
    fillers: int = 0

    def schedule(self, results: Results) -> Schedule:
        c = self.challenger
        out: list[Pairing] = []
        for r in range(1, self.rounds + 1):
            for m in range(self.maps):
                for o in range(self.entrants):
                    if o == c:
                        continue
                    out += _both_orders(r, m, c, o, game_seed(self.seed, "gauntlet", r, m, o))
        return Schedule(out, final=True)

    def ranking(self, results: Results) -> list[list[int]] | None:
        return None


@dataclass(frozen=True)
class Tables:
    """Free-for-all tables: each round the entrants are drawn into tables of ``seats``.

    For ``ffa`` and ``tron3d``, where several players share a board. Each round the
    entrants are shuffled from the seed and split into as few tables as possible, as
    equal as possible; a table short of ``seats`` is filled with filler bots. Every table
    plays every map, with the seats rotated from map to map so no entrant keeps a start.
    """

    entrants: int
    maps: int
    seats: int = 4
    rounds: int = 1
    seed: int = 0
    name: str = "ffa"

    @property
    def fillers(self) -> int:
        """Fillers a table may need."""
        tables = split_even(list(range(self.entrants)), self.seats)
        return max(self.seats - min(len(t) for t in tables), 0)

    def schedule(self, results: Results) -> Schedule:
        out: list[Pairing] = []
        for r in range(1, self.rounds + 1):
            order = shuffled(self.seed, f"tables:{r}", range(self.entrants))
            for t, table in enumerate(split_even(order, self.seats), start=1):
                full = table + [self.entrants + i for i in range(self.seats - len(table))]
                for m in range(self.maps):
                    k = m % len(full)
                    seats = tuple(full[k:] + full[:k])
                    out.append(
                        Pairing(
                            f"r{r:02d}-t{t:02d}-m{m:02d}",
                            r,
                            seats,
                            m,
                            game_seed(self.seed, "tables", r, t, m),
                            f"round {r}, table {t}",
                        )
                    )
        return Schedule(out, final=True)

    def ranking(self, results: Results) -> list[list[int]] | None:
        return None

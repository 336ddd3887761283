"""A duel's results map by map: where a bot wins and where it loses.

A duel's total can hide a map lost nearly every time behind maps won nearly every time;
a student comparing two versions, or a maintainer hunting a search's systematic losses,
needs to see the map. Each row counts the map's side-swapped pairs the way the whole duel
is counted (pentanomial Elo, pairs as samples), with both sides' time per move, so a
map where a bot thinks too little or too long shows up beside its score, and that time
by the phase of the game (`lightcycle.rules.phases`: the first move, the opening, the
middle game, separated), so a bot that stops early where the game is decided shows too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lightcycle.rules.phases import PHASES
from lightcycle.tournament.pairs import GameResult, PairResult
from lightcycle.tournament.stats import EloEstimate, Pentanomial, Trinomial


@dataclass(frozen=True)
class PhaseTime:
    """One side's timed moves in one phase of the game.

    Attributes:
        moves: the moves timed.
        seconds: their total time.
    """

    moves: int
    seconds: float

    @property
    def ms(self) -> float:
        """Mean milliseconds a move (0 with no move)."""
        return 1000 * self.seconds / self.moves if self.moves else 0.0

    def to_dict(self) -> dict[str, float]:
        """Plain data for ``results.json``."""
        return {"moves": self.moves, "ms": round(self.ms, 3)}


def by_phase(games: Iterable[GameResult]) -> tuple[dict[str, PhaseTime], dict[str, PhaseTime]]:
    """Each side's time per move by phase over ``games``, in `PHASES` order."""
    sums: list[dict[str, list[float]]] = [{}, {}]
    for g in games:
        for side in (0, 1):
            for phase, (moves, secs) in g.phase_time[side].items():
                entry = sums[side].setdefault(phase, [0, 0.0])
                entry[0] += moves
                entry[1] += secs
    out = tuple(
        {p: PhaseTime(int(side[p][0]), side[p][1]) for p in PHASES if p in side} for side in sums
    )
    return out[0], out[1]


@dataclass(frozen=True)
class MapLine:
    """One map's share of a duel, from bot A's side.

    Attributes:
        map: the map id.
        games: games played on it.
        trinomial: A's wins, draws and losses.
        pentanomial: A's pairs by points.
        ms: ``(A's, B's)`` mean milliseconds per move.
        failures: ``(A's, B's)`` games lost to a verdict other than ok (time-out,
            crash...).
        turns: mean turns a game.
        phases: ``(A's, B's)`` `PhaseTime` by phase (phases with no timed move left out).
    """

    map: str
    games: int
    trinomial: Trinomial
    pentanomial: Pentanomial
    ms: tuple[float, float]
    failures: tuple[int, int]
    turns: float
    phases: tuple[dict[str, PhaseTime], dict[str, PhaseTime]] = ({}, {})

    @property
    def score(self) -> float:
        """A's score on the map (a draw counts half)."""
        t = self.trinomial
        return (t.wins + 0.5 * t.draws) / t.games if t.games else 0.5

    def estimate(self, confidence: float = 0.95) -> EloEstimate:
        """A's Elo on the map with its interval (pairs as samples)."""
        return self.pentanomial.estimate(confidence)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``results.json``."""
        t = self.trinomial
        est = self.estimate()
        return {
            "map": self.map,
            "games": self.games,
            "wins": t.wins,
            "draws": t.draws,
            "losses": t.losses,
            "score": round(self.score, 6),
            "elo": _finite(est.elo),
            "elo_low": _finite(est.elo_low),
            "elo_high": _finite(est.elo_high),
            "a_ms": round(self.ms[0], 3),
            "b_ms": round(self.ms[1], 3),
            "a_failures": self.failures[0],
            "b_failures": self.failures[1],
            "turns": round(self.turns, 2),
            "a_phases": {k: v.to_dict() for k, v in self.phases[0].items()},
            "b_phases": {k: v.to_dict() for k, v in self.phases[1].items()},
        }


def _finite(x: float) -> float | str:
    """JSON has no infinity: an unbounded side is written ``"inf"`` or ``"-inf"``."""
    if x == float("inf"):
        return "inf"
    if x == float("-inf"):
        return "-inf"
    return round(x, 3)


def by_map(pairs: Iterable[PairResult]) -> list[MapLine]:
    """The duel's pairs grouped by map, worst score for A first.

    Args:
        pairs: the duel's finished pairs (`DuelResult.pairs`).
    """
    groups: dict[str, list[PairResult]] = {}
    for pair in pairs:
        groups.setdefault(pair.map, []).append(pair)
    lines = []
    for name, group in groups.items():
        tri = Trinomial()
        pent = Pentanomial()
        moves = [0, 0]
        secs = [0.0, 0.0]
        failed = [0, 0]
        turns = 0
        games = 0
        for pair in group:
            pent = pent.add(pair.points)
            for g in pair.games:
                games += 1
                turns += g.turns
                tri = tri.add(g.score)
                for side in (0, 1):
                    moves[side] += g.moves[side]
                    secs[side] += g.move_time[side]
                    if not g.verdicts[side].startswith("ok"):
                        failed[side] += 1
        ms = tuple(1000 * s / m if m else 0.0 for s, m in zip(secs, moves, strict=True))
        lines.append(
            MapLine(
                map=name,
                games=games,
                trinomial=tri,
                pentanomial=pent,
                ms=(ms[0], ms[1]),
                failures=(failed[0], failed[1]),
                turns=turns / games if games else 0.0,
                phases=by_phase(g for pair in group for g in pair.games),
            )
        )
    lines.sort(key=lambda line: (line.score, line.map))
    return lines

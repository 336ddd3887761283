"""A duel's running statistics: the tallies after each pair and the SPRT that stops it.

Pairs finish in any order; `DuelTally` counts each one whole (games, pairs by points, each
bot's side) and runs the SPRT (`SprtConfig`) until it decides, so the duel stops
submitting pairs as soon as the test accepts a hypothesis. `DuelProgress` is the snapshot
handed to a live display after each pair. The statistics themselves (Elo, pentanomial,
LLR) are `lightcycle.tournament.stats`; this module is the duel's bookkeeping of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from lightcycle.tournament.duelresult import BotSummary
from lightcycle.tournament.pairs import PairResult
from lightcycle.tournament.stats import (
    Pentanomial,
    SprtResult,
    Trinomial,
    sprt_bounds,
    sprt_pentanomial,
)


@dataclass(frozen=True)
class SprtConfig:
    """An SPRT to run: H0 ``elo0`` against H1 ``elo1`` with error rates alpha and beta.

    Attributes:
        elo0: the Elo difference of H0 ("no better than this").
        elo1: the Elo difference of H1 ("at least this much better").
        alpha: the tolerated rate of accepting H1 when H0 holds.
        beta: the tolerated rate of accepting H0 when H1 holds.
        min_pairs: pairs to play before the test may decide. The normal approximation
            estimates the variance from the pairs themselves, and a handful of pairs
            that happen to agree (or the 0.001-game regularization of the empty classes)
            give a variance near zero and an LLR of hundreds after one pair. Fishtest
            avoids this by evaluating only after batches of games; this is the same
            guard for a duel that may be a few dozen games long.

    Raises:
        ValueError: unless ``elo0 < elo1`` and the rates are usable (checked at once, so
            a typo fails before the first game rather than after it).
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    min_pairs: int = 10

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs elo0 < elo1, got {self.elo0:g} and {self.elo1:g}")
        if self.min_pairs < 1:
            raise ValueError(f"SPRT min_pairs must be >= 1, got {self.min_pairs}")
        sprt_bounds(self.alpha, self.beta)

    def test(self, tally: Pentanomial) -> SprtResult:
        """Where the test stands after ``tally`` (``continue`` before `min_pairs`)."""
        result = sprt_pentanomial(tally.counts, self.elo0, self.elo1, self.alpha, self.beta)
        if tally.pairs < self.min_pairs and result.decided:
            return replace(result, state="continue")
        return result


@dataclass(frozen=True)
class DuelProgress:
    """The running totals handed to ``on_pair`` after each pair (live displays).

    Attributes:
        pairs_done: pairs finished so far.
        pairs_total: pairs planned (the cap when an SPRT may stop earlier).
        trinomial: A's wins, draws and losses so far.
        pentanomial: A's pairs by points so far.
        sprt: the SPRT so far (``None`` without one).
        elapsed: wall seconds since the duel began.
    """

    pairs_done: int
    pairs_total: int
    trinomial: Trinomial
    pentanomial: Pentanomial
    sprt: SprtResult | None
    elapsed: float


@dataclass
class DuelTally:
    """The finished pairs of a duel and everything counted from them.

    Attributes:
        bots: A's and B's summaries.
        sprt: the test to run (``None``: none).
        pairs: the finished pairs, in the order they finished.
        trinomial: A's wins, draws and losses.
        pentanomial: A's pairs by points.
        sprt_state: the SPRT so far (``None`` without one); once decided, kept as it was.
        sprt_pairs: pairs counted when the SPRT last ran (``None`` without one).
    """

    bots: tuple[BotSummary, BotSummary]
    sprt: SprtConfig | None = None
    pairs: list[PairResult] = field(default_factory=list)
    trinomial: Trinomial = field(default_factory=Trinomial)
    pentanomial: Pentanomial = field(default_factory=Pentanomial)
    sprt_state: SprtResult | None = None
    sprt_pairs: int | None = None

    def add(self, result: PairResult) -> bool:
        """Count a finished pair; whether the SPRT has just decided (stop submitting).

        The caller makes this one step under `interrupts_deferred`, so a pair is counted
        whole or not at all.
        """
        self.pairs.append(result)
        for g in result.games:
            self.trinomial = self.trinomial.add(g.score)
            self.bots[0].add(g, 0)
            self.bots[1].add(g, 1)
        self.bots[0].process_starts += result.process_starts[0]
        self.bots[1].process_starts += result.process_starts[1]
        self.pentanomial = self.pentanomial.add(result.points)
        if self.sprt is not None and not (self.sprt_state is not None and self.sprt_state.decided):
            self.sprt_state = self.sprt.test(self.pentanomial)
            self.sprt_pairs = self.pentanomial.pairs
            return self.sprt_state.decided
        return False

    def progress(self, pairs_total: int, elapsed: float) -> DuelProgress:
        """The running totals for ``on_pair``."""
        return DuelProgress(
            len(self.pairs),
            pairs_total,
            self.trinomial,
            self.pentanomial,
            self.sprt_state,
            elapsed,
        )

"""How much stronger is one bot than another, and are we sure yet?

Pure arithmetic on game counts (standard library only), so every figure the duel prints
can be checked by hand against the test vectors in ``tests/tournament/vectors/``.

Three questions, the way chess engine testers (cutechess, fishtest) answer them:

- **How big is the difference?** The score ``s`` (wins plus half the draws, per game)
  turns into a logistic Elo difference ``-400 * log10(1/s - 1)``: 75 % is +190.85 Elo.
- **How sure is that number?** A 95 % confidence interval from the variance of the
  score. Games played one at a time give a *trinomial* (loss, draw, win) sample. Games
  played as side-swapped pairs (the same map and seed, seats swapped) are not
  independent: a map that favours one seat gives one win to each bot, which cancels
  inside the pair. Scoring each pair as one sample (0, 1/4, 1/2, 3/4 or 1 per game: the
  *pentanomial* model) keeps that cancellation and gives the honest, usually narrower,
  interval; treating the games of a pair as independent overstates the noise.
- **Can we stop?** A sequential probability ratio test (SPRT) between two hypotheses,
  "the difference is ``elo0``" and "it is ``elo1``", with error rates ``alpha`` and
  ``beta``. It is the generalized SPRT fishtest uses, in the normal approximation: it
  stops as soon as the evidence is strong enough, which on a lopsided pairing is after a
  few dozen games rather than the few hundred a fixed-length run would play.

Scores of exactly 0 % or 100 % have an infinite Elo difference. They are reported as
``-inf``/``+inf`` with a finite one-sided 95 % bound from the exact binomial tail (the
normal approximation has no width there), so a short, perfect run still says how strong
it proves the winner to be.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Literal

TRINOMIAL_VALUES: tuple[float, ...] = (0.0, 0.5, 1.0)
"""Per-game score of a loss, a draw and a win."""

PENTANOMIAL_VALUES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Per-game score of a pair worth 0, 1/2, 1, 3/2 and 2 points."""

REGULARIZE = 1e-3
"""What the SPRT puts in place of an empty result class (fishtest's ``regularize``).

Without it ten straight wins have zero variance and the log-likelihood ratio divides by
zero; a thousandth of a game changes nothing else measurably.
"""

MIN_SAMPLES = 5
"""Fewer samples (pairs, or games taken one by one) than this give no interval.

The interval comes from the samples' spread; two or three of them can agree by chance
(two pairs of 1-1 give a spread of 0 and an interval of ``+0.0 .. +0.0``), so below this
a report says the difference is not yet measured instead of claiming a certainty it does
not have."""

Model = Literal["trinomial", "pentanomial"]
SprtState = Literal["continue", "H0", "H1"]

_NORMAL = NormalDist()


def expected_score(elo: float) -> float:
    """The logistic expected score of a player ``elo`` points stronger: 1/(1+10^(-elo/400)).

    This is the model the Elo difference is defined by, so `elo_from_score` inverts it.
    """
    if elo == math.inf:
        return 1.0
    if elo == -math.inf:
        return 0.0
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_from_score(score: float) -> float:
    """The Elo difference that predicts ``score``: ``-400*log10(1/score - 1)``.

    Args:
        score: the mean score per game, from 0 to 1; values a hair outside (from
            floating-point sums) are clamped, because a confidence bound may cross 0 or 1
            and then simply means "unbounded".

    Returns:
        ``-inf`` at 0 and ``+inf`` at 1, never an exception, so reports of perfect runs
        still print.

    Raises:
        ValueError: for NaN, which would mean a bug upstream (a score of no games).
    """
    if math.isnan(score):
        raise ValueError("elo_from_score needs a score, got NaN (no games?)")
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: no "-0.0" at 50 %


def mean_variance(values: Sequence[float], counts: Sequence[float]) -> tuple[float, float]:
    """Mean and (population) variance of a sample given as counts per value.

    The population variance (dividing by N, not N-1) is what cutechess and fishtest use;
    the difference vanishes at the sample sizes where intervals mean anything.

    Raises:
        ValueError: when the lengths differ, a count is negative, or there is no sample.
    """
    if len(values) != len(counts):
        raise ValueError(f"{len(values)} values but {len(counts)} counts")
    if any(c < 0 for c in counts):
        raise ValueError(f"counts must be >= 0, got {list(counts)}")
    n = float(sum(counts))
    if n <= 0:
        raise ValueError("no results: play at least one game")
    mean = sum(v * c for v, c in zip(values, counts, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for v, c in zip(values, counts, strict=True)) / n
    return mean, max(var, 0.0)


def z_value(confidence: float) -> float:
    """The two-sided normal quantile of ``confidence`` (1.959964 for 0.95).

    Raises:
        ValueError: unless 0 < confidence < 1.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return _NORMAL.inv_cdf(0.5 + confidence / 2.0)


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its confidence interval and likelihood of superiority.

    Attributes:
        model: ``trinomial`` (games as samples) or ``pentanomial`` (pairs as samples).
        samples: how many samples the variance came from (games or pairs).
        score: mean score per game, 0 to 1.
        stdev: standard error of ``score`` (the sample's stdev over sqrt(samples)).
        score_low: lower confidence bound of the score.
        score_high: upper confidence bound of the score.
        elo: the Elo difference of ``score``.
        elo_low: the Elo difference of ``score_low`` (may be ``-inf``).
        elo_high: the Elo difference of ``score_high`` (may be ``+inf``).
        margin: half the interval's width in Elo, the ``±`` figure testers quote
            (``inf`` when a bound is infinite).
        los: likelihood of superiority, the probability that the first player is the
            stronger one (0 to 1).
        confidence: the interval's confidence level.
    """

    model: Model
    samples: int
    score: float
    stdev: float
    score_low: float
    score_high: float
    elo: float
    elo_low: float
    elo_high: float
    margin: float
    los: float
    confidence: float = 0.95

    @property
    def enough(self) -> bool:
        """Whether there are samples enough (`MIN_SAMPLES`) for the interval to mean
        something."""
        return self.samples >= MIN_SAMPLES

    def to_dict(self) -> dict[str, Any]:
        """Plain, strictly valid JSON data (infinities as the strings ``"inf"``/``"-inf"``)."""
        return {
            "model": self.model,
            "samples": self.samples,
            "enough_samples": self.enough,
            "confidence": self.confidence,
            "score": json_number(self.score),
            "stdev": json_number(self.stdev),
            "score_low": json_number(self.score_low),
            "score_high": json_number(self.score_high),
            "elo": json_number(self.elo),
            "elo_low": json_number(self.elo_low),
            "elo_high": json_number(self.elo_high),
            "margin": json_number(self.margin),
            "los": json_number(self.los),
        }

    def __str__(self) -> str:
        return f"{format_elo(self.elo)} ± {format_margin(self.margin)} (LOS {self.los:.1%})"


def json_number(x: float) -> float | str:
    """``x`` for JSON: finite floats as they are, infinities as ``"inf"``/``"-inf"``.

    JSON has no infinity (Python writes a non-standard ``Infinity``), and a perfect score
    must not make ``results.json`` unreadable elsewhere.
    """
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if math.isnan(x):
        return "nan"
    return x


def format_elo(elo: float, digits: int = 1) -> str:
    """``+190.8``, ``-12.0``, ``+inf``: always signed, because the sign is the result."""
    if math.isinf(elo):
        return "+inf" if elo > 0 else "-inf"
    return f"{elo:+.{digits}f}"


def format_margin(margin: float, digits: int = 1) -> str:
    """``35.2`` or ``inf``."""
    return "inf" if math.isinf(margin) else f"{margin:.{digits}f}"


def _estimate(
    model: Model,
    values: Sequence[float],
    counts: Sequence[int],
    confidence: float,
    los: float | None,
) -> EloEstimate:
    n = sum(counts)
    mean, var = mean_variance(values, counts)
    stdev = math.sqrt(var / n)
    z = z_value(confidence)
    if mean >= 1.0 or mean <= 0.0:
        # Every sample at an extreme: the normal interval has no width. The exact
        # one-sided bound: the smallest per-sample score p with p**n >= (1-confidence)/2.
        tail = ((1.0 - confidence) / 2.0) ** (1.0 / n)
        low, high = (tail, 1.0) if mean >= 1.0 else (0.0, 1.0 - tail)
    else:
        low = max(0.0, mean - z * stdev)
        high = min(1.0, mean + z * stdev)
    elo_low, elo_high = elo_from_score(low), elo_from_score(high)
    margin = (elo_high - elo_low) / 2.0
    if los is None:
        los = _normal_los(mean, stdev)
    return EloEstimate(
        model=model,
        samples=n,
        score=mean,
        stdev=stdev,
        score_low=low,
        score_high=high,
        elo=elo_from_score(mean),
        elo_low=elo_low,
        elo_high=elo_high,
        margin=margin,
        los=los,
        confidence=confidence,
    )


def _normal_los(mean: float, stdev: float) -> float:
    """P(true score > 1/2) under the normal approximation; a step when there is no spread."""
    if stdev == 0.0:
        return 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    return _NORMAL.cdf((mean - 0.5) / stdev)


def los_trinomial(wins: int, losses: int) -> float:
    """Likelihood of superiority from wins and losses: ``(1 + erf((W-L)/sqrt(2(W+L))))/2``.

    The classic formula (cutechess, chessprogramming wiki): draws carry no information
    about who is stronger, so only decisive games count. 0.5 when there are none.
    """
    if wins < 0 or losses < 0:
        raise ValueError("wins and losses must be >= 0")
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def elo_trinomial(wins: int, draws: int, losses: int, confidence: float = 0.95) -> EloEstimate:
    """The Elo difference of independent games, with a trinomial confidence interval.

    Use this for games that were *not* played in side-swapped pairs; for pairs use
    `elo_pentanomial`, which does not count the seat advantage as noise.

    Raises:
        ValueError: when there are no games or a count is negative.
    """
    counts = (losses, draws, wins)
    mean_variance(TRINOMIAL_VALUES, counts)  # validates
    return _estimate("trinomial", TRINOMIAL_VALUES, counts, confidence, los_trinomial(wins, losses))


def elo_pentanomial(counts: Sequence[int], confidence: float = 0.95) -> EloEstimate:
    """The Elo difference of side-swapped game pairs, with a pentanomial interval.

    Args:
        counts: how many pairs scored 0, 1/2, 1, 3/2 and 2 points for the first player
            (see `Pentanomial`).
        confidence: the interval's confidence level.

    Raises:
        ValueError: when there is not exactly one count per pair score, or no pairs.
    """
    if len(counts) != 5:
        raise ValueError(f"a pentanomial has 5 counts (pair scores 0..2), got {len(counts)}")
    return _estimate("pentanomial", PENTANOMIAL_VALUES, counts, confidence, None)


@dataclass(frozen=True)
class Trinomial:
    """Losses, draws and wins of the first player, game by game."""

    losses: int = 0
    draws: int = 0
    wins: int = 0

    @property
    def games(self) -> int:
        """How many games."""
        return self.losses + self.draws + self.wins

    @property
    def counts(self) -> tuple[int, int, int]:
        """``(losses, draws, wins)``, in the order of `TRINOMIAL_VALUES`."""
        return (self.losses, self.draws, self.wins)

    def add(self, score: float) -> Trinomial:
        """This tally with one more game scoring ``score`` (0, 0.5 or 1)."""
        k = _index(score, TRINOMIAL_VALUES)
        c = list(self.counts)
        c[k] += 1
        return Trinomial(*c)

    def estimate(self, confidence: float = 0.95) -> EloEstimate:
        """`elo_trinomial` of this tally."""
        return elo_trinomial(self.wins, self.draws, self.losses, confidence)


@dataclass(frozen=True)
class Pentanomial:
    """Side-swapped pairs by the first player's points in the pair.

    Attributes:
        counts: pairs scoring 0 (LL), 1/2 (LD), 1 (WL or DD), 3/2 (WD) and 2 (WW) points.
    """

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    @property
    def pairs(self) -> int:
        """How many pairs."""
        return sum(self.counts)

    def add(self, points: float) -> Pentanomial:
        """This tally with one more pair worth ``points`` (0, 0.5, 1, 1.5 or 2)."""
        k = _index(points / 2.0, PENTANOMIAL_VALUES)
        c = list(self.counts)
        c[k] += 1
        return Pentanomial((c[0], c[1], c[2], c[3], c[4]))

    def estimate(self, confidence: float = 0.95) -> EloEstimate:
        """`elo_pentanomial` of this tally."""
        return elo_pentanomial(self.counts, confidence)


def _index(score: float, values: Sequence[float]) -> int:
    for k, v in enumerate(values):
        if abs(score - v) < 1e-9:
            return k
    raise ValueError(f"score {score} is not one of {', '.join(f'{v:g}' for v in values)}")


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's stopping bounds on the LLR: ``(log(beta/(1-alpha)), log((1-beta)/alpha))``.

    Crossing the upper bound accepts H1 with a false-positive rate of at most about
    ``alpha``; crossing the lower accepts H0 with a false-negative rate of about ``beta``.

    Raises:
        ValueError: unless 0 < rate < 1 for both and alpha + beta < 1 (otherwise the
            bounds cross and nothing could ever be decided).
    """
    for name, v in (("alpha", alpha), ("beta", beta)):
        if not 0.0 < v < 1.0:
            raise ValueError(f"SPRT {name} must be between 0 and 1, got {v}")
    if alpha + beta >= 1.0:
        raise ValueError(f"SPRT alpha + beta must be < 1, got {alpha} + {beta}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def llr_logistic(
    values: Sequence[float], counts: Sequence[float], elo0: float, elo1: float
) -> float:
    """The generalized log-likelihood ratio of H1 (``elo1``) over H0 (``elo0``).

    The normal approximation fishtest uses (M. Van den Bergh, "A practical introduction
    to the GSPRT"): with ``s0``, ``s1`` the expected scores of the two Elo values and the
    sample's mean and variance,
    ``LLR = N * (s1 - s0) * (2*mean - s0 - s1) / (2*var)``.
    Empty result classes are replaced by `REGULARIZE` first, so a perfect run has a
    finite, growing LLR rather than a division by zero. No samples: 0.

    Args:
        values: the score of each result class (`TRINOMIAL_VALUES` or
            `PENTANOMIAL_VALUES`).
        counts: samples per class.
        elo0: the Elo difference of H0.
        elo1: the Elo difference of H1.
    """
    if sum(counts) <= 0:
        return 0.0
    reg = [c if c > 0 else REGULARIZE for c in counts]
    n = sum(reg)
    mean, var = mean_variance(values, reg)
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


@dataclass(frozen=True)
class SprtResult:
    """Where a sequential test stands.

    Attributes:
        model: ``trinomial`` or ``pentanomial`` (what the LLR was computed from).
        elo0: H0, the Elo difference the test accepts when the new bot is no better.
        elo1: H1, the Elo difference it accepts when the new bot is better.
        alpha: the tolerated rate of accepting H1 when H0 is true.
        beta: the tolerated rate of accepting H0 when H1 is true.
        llr: the log-likelihood ratio so far.
        lower: the bound that accepts H0.
        upper: the bound that accepts H1.
        state: ``continue``, ``H0`` or ``H1``.
        samples: games or pairs the LLR was computed from.
    """

    model: Model
    elo0: float
    elo1: float
    alpha: float
    beta: float
    llr: float
    lower: float
    upper: float
    state: SprtState
    samples: int

    @property
    def decided(self) -> bool:
        """Whether the test has stopped (accepted H0 or H1)."""
        return self.state != "continue"

    def describe(self) -> str:
        """``H1 accepted (LLR 2.98 >= 2.94)``, the one line the duel report prints."""
        bounds = f"[{self.lower:.2f}, {self.upper:.2f}]"
        what = f"elo0={self.elo0:g} elo1={self.elo1:g}"
        if self.state == "H1":
            return f"H1 accepted ({what}): LLR {self.llr:.2f} >= {self.upper:.2f}"
        if self.state == "H0":
            return f"H0 accepted ({what}): LLR {self.llr:.2f} <= {self.lower:.2f}"
        return f"undecided ({what}): LLR {self.llr:.2f} within {bounds}"

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``results.json``."""
        return {
            "model": self.model,
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "llr": json_number(self.llr),
            "lower": self.lower,
            "upper": self.upper,
            "state": self.state,
            "samples": self.samples,
        }


def _sprt(
    model: Model,
    values: Sequence[float],
    counts: Sequence[int],
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
) -> SprtResult:
    if not elo0 < elo1:
        raise ValueError(f"SPRT needs elo0 < elo1, got elo0={elo0} elo1={elo1}")
    lower, upper = sprt_bounds(alpha, beta)
    llr = llr_logistic(values, counts, elo0, elo1)
    state: SprtState = "H1" if llr >= upper else "H0" if llr <= lower else "continue"
    return SprtResult(model, elo0, elo1, alpha, beta, llr, lower, upper, state, sum(counts))


def sprt_trinomial(
    wins: int,
    draws: int,
    losses: int,
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
) -> SprtResult:
    """The SPRT of independent games (see `llr_logistic`).

    Raises:
        ValueError: unless ``elo0 < elo1`` and the error rates are usable.
    """
    return _sprt("trinomial", TRINOMIAL_VALUES, (losses, draws, wins), elo0, elo1, alpha, beta)


def sprt_pentanomial(
    counts: Sequence[int],
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
) -> SprtResult:
    """The SPRT of side-swapped pairs (see `llr_logistic`); what the duel uses.

    Raises:
        ValueError: unless there are 5 counts, ``elo0 < elo1`` and the rates are usable.
    """
    if len(counts) != 5:
        raise ValueError(f"a pentanomial has 5 counts (pair scores 0..2), got {len(counts)}")
    return _sprt("pentanomial", PENTANOMIAL_VALUES, counts, elo0, elo1, alpha, beta)

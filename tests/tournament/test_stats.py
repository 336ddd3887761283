"""The duel's statistics against hand-checked vectors, and their edge cases."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from lightcycle.tournament.stats import (
    Pentanomial,
    Trinomial,
    elo_from_score,
    elo_pentanomial,
    elo_trinomial,
    expected_score,
    llr_logistic,
    los_trinomial,
    mean_variance,
    sprt_bounds,
    sprt_pentanomial,
    sprt_trinomial,
    z_value,
)

VECTORS = Path(__file__).with_name("vectors")


def _lines(name: str) -> list[tuple[list[str], dict[str, str]]]:
    """``(left tokens, {key: value})`` per non-comment line of a vector file."""
    out = []
    for line in (VECTORS / name).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        left, _, right = line.partition("|")
        fields = dict(item.split("=", 1) for item in right.split())
        out.append((left.split(), fields))
    return out


def _close(got: float, want: str) -> bool:
    if want in ("inf", "-inf"):
        return got == float(want)
    return math.isclose(got, float(want), rel_tol=1e-6, abs_tol=1e-9)


ELO = _lines("elo.txt")
SPRT = _lines("sprt.txt")


def test_vector_files_are_read() -> None:
    assert len(ELO) >= 10 and len(SPRT) >= 10


@pytest.mark.parametrize(("left", "want"), ELO, ids=[" ".join(x[0]) for x in ELO])
def test_elo_vectors(left: list[str], want: dict[str, str]) -> None:
    model, counts = left[0], [int(x) for x in left[1:]]
    est = elo_trinomial(*counts) if model == "trinomial" else elo_pentanomial(counts)
    assert est.model == model
    for key, value in want.items():
        assert _close(getattr(est, key), value), (key, getattr(est, key), value)


@pytest.mark.parametrize(("left", "want"), SPRT, ids=[" ".join(x[0]) for x in SPRT])
def test_sprt_vectors(left: list[str], want: dict[str, str]) -> None:
    model = left[0]
    elo0, elo1, alpha, beta = (float(x) for x in left[1:5])
    counts = [int(x) for x in left[5:]]
    if model == "trinomial":
        result = sprt_trinomial(*counts, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
    else:
        result = sprt_pentanomial(counts, elo0, elo1, alpha, beta)
    assert _close(result.llr, want["llr"]), (result.llr, want["llr"])
    assert _close(result.lower, want["lower"])
    assert _close(result.upper, want["upper"])
    assert result.state == want["state"]
    assert result.decided == (want["state"] != "continue")


def test_elo_of_a_score_by_hand() -> None:
    assert elo_from_score(0.75) == pytest.approx(190.848501887865, rel=1e-9)
    assert elo_from_score(0.5) == 0.0 and str(elo_from_score(0.5)) == "0.0"  # no "-0.0"
    assert elo_from_score(0.25) == pytest.approx(-190.848501887865, rel=1e-9)
    assert elo_from_score(0.0) == -math.inf and elo_from_score(1.0) == math.inf
    assert elo_from_score(1.0000000001) == math.inf  # a bound past 1 means unbounded
    with pytest.raises(ValueError, match="NaN"):
        elo_from_score(math.nan)


def test_expected_score_inverts_elo() -> None:
    for elo in (-400.0, -50.0, 0.0, 5.0, 100.0, 190.848501887865, 800.0):
        assert elo_from_score(expected_score(elo)) == pytest.approx(elo, abs=1e-9)
    assert expected_score(100) == pytest.approx(0.640064999802885, rel=1e-12)
    assert expected_score(math.inf) == 1.0 and expected_score(-math.inf) == 0.0


def test_z_and_bounds() -> None:
    assert z_value(0.95) == pytest.approx(1.959963984540054, rel=1e-12)
    lower, upper = sprt_bounds()
    assert upper == pytest.approx(math.log(19)) and lower == pytest.approx(-math.log(19))
    for bad in ((0.0, 0.05), (0.05, 1.0), (0.6, 0.5)):
        with pytest.raises(ValueError):
            sprt_bounds(*bad)
    with pytest.raises(ValueError):
        z_value(1.0)


def test_perfect_runs_never_crash_and_give_a_bound() -> None:
    est = elo_pentanomial([0, 0, 0, 0, 12])
    assert est.elo == math.inf and est.elo_high == math.inf and est.margin == math.inf
    assert 0 < est.elo_low < math.inf
    assert json.dumps(est.to_dict(), allow_nan=False)  # strictly valid JSON
    assert est.to_dict()["elo"] == "inf"
    assert "+inf" in str(est)
    zero = elo_trinomial(0, 0, 10)  # upper bound 1 - 0.025**(1/10) = 0.3085
    assert zero.elo == -math.inf and zero.elo_high < 0 and zero.los < 0.05
    assert zero.to_dict()["elo_low"] == "-inf"


def test_a_bound_crossing_one_is_unbounded() -> None:
    est = elo_pentanomial([0, 1, 0, 1, 8])  # mean .875, but the upper bound passes 1
    assert est.score_high == 1.0 and est.elo_high == math.inf and math.isfinite(est.elo)


def test_pairs_that_cancel_the_seat_are_tighter_than_independent_games() -> None:
    # 40 pairs, most split 1-1 by the seat: seen as 80 games, the seat luck looks like noise.
    pairs = Pentanomial((2, 4, 28, 4, 2))  # LL, LD, WL, WD, WW
    games = Trinomial(losses=2 * 2 + 4 + 28, draws=4 + 4, wins=28 + 4 + 2 * 2)
    assert pairs.pairs == 40 and games.games == 80
    assert pairs.estimate().score == games.estimate().score == pytest.approx(0.5)
    assert pairs.estimate().margin < 0.6 * games.estimate().margin  # 41.9 vs 73.3


def test_tallies_add_results() -> None:
    t = Trinomial().add(1).add(0.5).add(0).add(1)
    assert (t.wins, t.draws, t.losses, t.games) == (2, 1, 1, 4)
    p = Pentanomial().add(2).add(1.5).add(1).add(0.5).add(0).add(2)
    assert p.counts == (1, 1, 1, 1, 2) and p.pairs == 6
    with pytest.raises(ValueError, match="not one of"):
        t.add(0.25)
    with pytest.raises(ValueError, match="not one of"):
        p.add(3)


def test_bad_inputs_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="no results"):
        elo_trinomial(0, 0, 0)
    with pytest.raises(ValueError, match="5 counts"):
        elo_pentanomial([1, 2, 3])
    with pytest.raises(ValueError, match=">= 0"):
        mean_variance([0, 1], [1, -1])
    with pytest.raises(ValueError, match="elo0 < elo1"):
        sprt_pentanomial([1, 1, 1, 1, 1], 10, 0)
    with pytest.raises(ValueError, match="5 counts"):
        sprt_pentanomial([1, 1, 1], 0, 10)


def test_los_from_wins_and_losses() -> None:
    assert los_trinomial(0, 0) == 0.5
    assert los_trinomial(10, 10) == 0.5
    assert los_trinomial(60, 40) == pytest.approx(0.5 * (1 + math.erf(20 / math.sqrt(200))))
    assert los_trinomial(0, 3) == pytest.approx(0.5 * (1 + math.erf(-3 / math.sqrt(6))))


def test_llr_grows_with_evidence_and_is_zero_without_data() -> None:
    assert llr_logistic((0, 0.5, 1), (0, 0, 0), 0, 10) == 0.0
    small = sprt_pentanomial([1, 2, 5, 3, 2], 0, 20).llr
    big = sprt_pentanomial([10, 20, 50, 30, 20], 0, 20).llr
    assert big == pytest.approx(10 * small, rel=1e-12)  # same distribution, 10x the pairs


def test_describe_names_the_decision() -> None:
    h1 = sprt_trinomial(60, 20, 20, 0, 100)
    assert h1.describe().startswith("H1 accepted") and "11.38" in h1.describe()
    h0 = sprt_pentanomial([30, 60, 100, 10, 0], 0, 50)
    assert h0.describe().startswith("H0 accepted")
    assert sprt_trinomial(1, 0, 1, 0, 10).describe().startswith("undecided")
    assert json.dumps(h1.to_dict(), allow_nan=False)

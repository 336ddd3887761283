"""Elo as the contest defines it and OpenSkill, against values worked by hand."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from lightcycle.tournament import elo, skill
from lightcycle.tournament.ratings import ELO, OPENSKILL, RatingBook, recompute

VECTORS = Path(__file__).with_name("vectors")


def _elo_cases() -> list[tuple[str, list[str]]]:
    text = (VECTORS / "multi_elo.txt").read_text(encoding="utf-8")
    cases: list[tuple[str, list[str]]] = []
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("#"):
            continue
        if line.strip():
            block.append(line.strip())
        elif block:
            cases.append((" / ".join(block), block))
            block = []
    return cases


def _pairs(tokens: list[str], sep: str) -> list[tuple[str, str]]:
    return [tuple(t.split(sep, 1)) for t in tokens]  # type: ignore[misc]


ELO_CASES = _elo_cases()


@pytest.mark.parametrize("lines", [lines for _, lines in ELO_CASES], ids=[c for c, _ in ELO_CASES])
def test_elo_vectors(lines: list[str]) -> None:
    ratings: dict[str, float] = {}
    expected: dict[str, float] = {}
    for line in lines:
        kind, *rest = line.split()
        if kind == "rating":
            ratings.update({n: float(v) for n, v in _pairs(rest, "=")})
        elif kind == "match":
            ratings.update(elo.update(ratings, [(n, int(r)) for n, r in _pairs(rest, ":")]))
        else:
            assert kind == "expect", line
            expected = {n: float(v) for n, v in _pairs(rest, "=")}
    assert expected
    for name, value in expected.items():
        assert ratings[name] == pytest.approx(value, abs=1e-9), name


def test_the_vectors_are_all_read() -> None:
    assert len(ELO_CASES) == 8


def test_elo_constants_and_two_player_formula() -> None:
    assert elo.INITIAL == 2000 and elo.K == 24
    assert elo.expected(2000, 2000) == 0.5
    # the familiar two-player form: 400 points is a factor of ten in the odds
    assert elo.expected(2400, 2000) == pytest.approx(10 / 11)
    assert elo.deltas([2000, 2000], [1, 2]) == [12.0, -12.0]


def test_elo_is_zero_sum_and_ignores_seat_order() -> None:
    rng = random.Random(4)
    for _ in range(200):
        n = rng.randint(2, 6)
        ratings = [rng.uniform(1500, 2500) for _ in range(n)]
        ranks = [rng.randint(1, n) for _ in range(n)]
        d = elo.deltas(ratings, ranks)
        assert math.fsum(d) == pytest.approx(0.0, abs=1e-9)
        order = list(range(n))
        rng.shuffle(order)
        d2 = elo.deltas([ratings[i] for i in order], [ranks[i] for i in order])
        assert [d[i] for i in order] == pytest.approx(d2)


def test_elo_refuses_bad_matches() -> None:
    with pytest.raises(ValueError, match="at least two"):
        elo.deltas([2000], [1])
    with pytest.raises(ValueError, match="ranks"):
        elo.deltas([2000, 2000], [1])
    with pytest.raises(ValueError, match="twice"):
        elo.update({}, [("a", 1), ("a", 2)])


def _skill_lines() -> list[tuple[list[int], list[float], list[float]]]:
    out = []
    for line in (VECTORS / "openskill.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        left, _, right = line.partition("|")
        fields = dict(item.split("=", 1) for item in right.split())
        out.append(
            (
                [int(x) for x in left.split()],
                [float(x) for x in fields["mu"].split(",")],
                [float(x) for x in fields["sigma"].split(",")],
            )
        )
    return out


@pytest.mark.parametrize(("ranks", "mus", "sigmas"), _skill_lines())
def test_openskill_vectors(ranks: list[int], mus: list[float], sigmas: list[float]) -> None:
    names = [f"p{i}" for i in range(len(ranks))]
    after = skill.rate({}, [([n], r) for n, r in zip(names, ranks, strict=True)])
    assert [after[n].mu for n in names] == pytest.approx(mus, abs=1e-9)
    assert [after[n].sigma for n in names] == pytest.approx(sigmas, abs=1e-9)


def test_openskill_defaults_ordinal_and_teams() -> None:
    new = skill.Skill()
    assert (new.mu, new.sigma) == (25.0, 25.0 / 3.0)
    assert new.ordinal == pytest.approx(0.0)  # mu - 3 sigma of a newcomer
    after = skill.rate({}, [(["a", "b"], 1), (["c", "d"], 2)])
    assert after["a"] == after["b"] and after["c"] == after["d"]
    assert after["a"].mu > 25 > after["c"].mu
    with pytest.raises(ValueError, match="twice"):
        skill.rate({}, [(["a"], 1), (["a"], 2)])
    with pytest.raises(ValueError, match="two teams"):
        skill.rate({}, [(["a"], 1)])


def test_a_lucky_newcomer_does_not_top_the_conservative_rating() -> None:
    book = RatingBook()
    for _ in range(30):
        book.rate([("veteran", 1), ("weak", 2)])
    book.rate([("newcomer", 1), ("weak", 2)])
    assert book.skill_of("newcomer").mu < book.skill_of("veteran").mu
    assert book.skill_of("newcomer").ordinal < book.skill_of("veteran").ordinal


def test_the_book_records_before_and_after_and_recomputes_exactly() -> None:
    rng = random.Random(9)
    players = [f"bot{i}" for i in range(6)]
    matches = []
    for _ in range(60):
        seated = rng.sample(players, rng.choice([2, 2, 3, 4]))
        matches.append([(p, rng.randint(1, len(seated))) for p in seated])
    book = RatingBook()
    stored = [book.rate(m) for m in matches]
    first = stored[0]
    assert [u.system for u in first] == [ELO] * len(matches[0]) + [OPENSKILL] * len(matches[0])
    assert first[0].before == 2000 and first[0].sigma_before is None
    assert recompute(matches) == stored  # float for float
    replayed = RatingBook()
    for ups in stored:
        replayed.apply(ups)
    assert replayed == book
    # a different order gives different ratings: the order is part of the record
    assert recompute(list(reversed(matches)))[-1] != stored[0]

"""The elimination's rules against hand-worked rounds (data/elimination/*.txt), and the
shuffle, the seeds and whole simulated rounds."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from lightcycle.judge.service.elimination import (
    FAILED_LIMIT,
    STALL_LIMIT,
    Decision,
    Progress,
    Ranks,
    decide,
    make_groups,
    match_seed,
    next_round_seed,
    run_round,
    stage_result,
    stage_rng,
)

DATA = Path(__file__).parent / "data" / "elimination"


@dataclass
class Stage:
    """A stage of a vector: its groups, results and the expectations written."""

    line: int
    groups: list[tuple[str | None, ...]] = field(default_factory=list)
    ranks: list[Ranks] = field(default_factory=list)
    expect: dict[str, str] = field(default_factory=dict)


@dataclass
class Round:
    """A round of a vector file."""

    where: str
    seed: int = 0
    stages: list[Stage] = field(default_factory=list)


def vectors() -> list[Round]:
    """Every round of every file under data/elimination (format: its README.txt)."""
    rounds: list[Round] = []
    for path in sorted(DATA.glob("*.txt")):
        if path.name == "README.txt":
            continue
        for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            word, _, rest = line.partition(" ")
            if word == "round":
                rounds.append(Round(f"{path.name}:{number} {rest}"))
            elif word == "seed":
                rounds[-1].seed = int(rest)
            elif word == "stage":
                rounds[-1].stages.append(Stage(number))
            elif "=" in line:
                seats, _, result = line.partition("=")
                group = tuple(None if s == "." else s for s in seats.split())
                stage = rounds[-1].stages[-1]
                stage.groups.append(group)
                stage.ranks.append(
                    None if result.strip() == "failed" else [int(r) for r in result.split()]
                )
            else:
                rounds[-1].stages[-1].expect[word] = rest.strip()
    return rounds


ROUNDS = vectors()


def _players(text: str) -> list[str]:
    return sorted(() if text == "-" else text.split())


def _check(stage: Stage, decision: Decision[str]) -> None:
    got = {
        "safe": _players(" ".join(decision.safe) or "-"),
        "remaining": _players(" ".join(decision.remaining) or "-"),
        "out": decision.out or "-",
        "stalled": str(decision.progress.stalled),
        "failed": str(decision.progress.failed),
        "cancelled": "yes" if decision.cancelled else "no",
        "rule": decision.rule,
    }
    for key, wanted in stage.expect.items():
        expected = _players(wanted) if key in ("safe", "remaining") else wanted
        assert got[key] == expected, f"line {stage.line}: {key}"


def test_the_vectors_cover_every_rule() -> None:
    rules = {s.expect.get("rule") for r in ROUNDS for s in r.stages}
    assert rules >= {
        "course",
        "dummies ignored",
        "no progress",
        "by lot",
        "failed match",
        "cancelled",
    }
    assert len(ROUNDS) >= 12


@pytest.mark.parametrize("rnd", ROUNDS, ids=[r.where for r in ROUNDS])
def test_hand_worked_rounds(rnd: Round) -> None:
    progress = Progress()
    for i, stage in enumerate(rnd.stages, start=1):
        decision = decide(stage.groups, stage.ranks, progress, seed=rnd.seed, stage=i)
        _check(stage, decision)
        ended = decision.out is not None or decision.cancelled
        assert not ended or i == len(rnd.stages), f"line {stage.line}: the round ended here"
        if not ended:  # the next stage is played by the players that remain
            following = rnd.stages[i] if i < len(rnd.stages) else None
            if following is not None:
                seated = sorted(p for g in following.groups for p in g if p is not None)
                assert seated == sorted(decision.remaining), f"line {following.line}"
        progress = decision.progress


def test_stage_result_refuses_results_that_do_not_fit() -> None:
    with pytest.raises(ValueError, match="2 groups but 1 results"):
        stage_result([("A", "B"), ("C", "D")], [[1, 2]])
    with pytest.raises(ValueError, match="a group of 2 seats has 3 ranks"):
        stage_result([("A", "B")], [[1, 2, 3]])


def test_a_seat_without_a_rank_is_beaten_by_every_ranked_one() -> None:
    result = stage_result([("A", "B", "C", "D")], [[1, None, 2, None]])
    assert (result.safe, result.remaining) == (("A", "C"), ("B", "D"))


def test_groups_are_a_seeded_shuffle_filled_with_dummies() -> None:
    players = [f"p{i}" for i in range(10)]
    groups = make_groups(players, 4, stage_rng(5, 1))
    assert [len(g) for g in groups] == [4, 4, 4]
    seated = [p for g in groups for p in g]
    assert seated.count(None) == 2 and seated[-2:] == [None, None]
    assert sorted(p for p in seated if p is not None) == players
    assert make_groups(players, 4, stage_rng(5, 1)) == groups  # the same stage: the same
    assert make_groups(players, 4, stage_rng(5, 2)) != groups  # the next stage: regrouped
    assert make_groups(players, 4, stage_rng(6, 1)) != groups
    assert make_groups(["a", "b", "c", "d"], 2, random.Random(0)) != [("a", "b"), ("c", "d")] or (
        make_groups(["a", "b", "c", "d"], 2, random.Random(1)) != [("a", "b"), ("c", "d")]
    )
    with pytest.raises(ValueError, match="at least 2 seats"):
        make_groups(players, 1, random.Random(0))
    with pytest.raises(ValueError, match="no players"):
        make_groups([], 4, random.Random(0))


def test_the_shuffle_is_fair() -> None:
    """Each player lands in the short group about as often as any other."""
    players = list(range(5))
    alone = Counter(make_groups(players, 4, stage_rng(seed, 1))[1][0] for seed in range(2000))
    assert set(alone) == set(players)
    assert all(300 < n < 500 for n in alone.values()), alone


def test_seeds_are_stable_and_fit_the_database() -> None:
    # fixed values: a round's groups and games must be the same on every machine and
    # Python version, or a restarted judge would regroup a stage differently
    assert match_seed(1, 1, 0) == 1202154249 != match_seed(1, 1, 1)
    assert make_groups(["A", "B", "C", "D", "E"], 4, stage_rng(1, 1)) == [
        ("E", "D", "C", "B"),
        ("A", None, None, None),
    ]
    for seed in range(50):
        assert 0 <= match_seed(seed, 3, 2) < 2**31
        assert 0 <= next_round_seed(seed) < 2**31


def _by_strength(stage: int, grp: int, seats: tuple[int | None, ...]) -> list[int]:
    """A lower number is a stronger player; Dummies are the weakest."""
    order = sorted(range(len(seats)), key=lambda i: 10**6 if seats[i] is None else seats[i])
    ranks = [0] * len(seats)
    for rank, i in enumerate(order, start=1):
        ranks[i] = rank
    return ranks


def test_a_round_of_strict_strengths_puts_the_weakest_out() -> None:
    # 16 players: full groups down to the last two, so the weakest never goes on
    result = run_round(list(range(16)), _by_strength, seed=3)
    assert result.out == 15 and len(result.stages) == 4
    first = result.stages[0]
    best_two = {
        p for g in first.groups for p in sorted(g, key=lambda p: -1 if p is None else p)[:2]
    }
    assert set(first.decision.safe) == best_two  # every group's best two go on
    again = run_round(list(range(16)), _by_strength, seed=3)
    assert again == result
    duel = run_round([1, 2], _by_strength, seed=0, group_size=2)
    assert duel.out == 2 and len(duel.stages) == 1


def test_every_stage_plays_the_players_left_by_the_one_before() -> None:
    for seed in range(40):
        rng = random.Random(seed)

        def play(
            stage: int, grp: int, seats: tuple[int | None, ...], rng: random.Random = rng
        ) -> list[int]:
            return [rng.randint(1, 3) for _ in seats]  # many ties

        players = list(range(2 + seed % 11))
        result = run_round(players, play, seed=seed, group_size=2 + seed % 3)
        assert result.out in players
        before = set(players)
        for record in result.stages:
            seated = {p for g in record.groups for p in g if p is not None}
            assert seated == before
            d = record.decision
            assert set(d.safe) | set(d.remaining) == seated and not set(d.safe) & set(d.remaining)
            before = set(d.remaining)


def test_draws_forever_end_by_lot_after_the_stall_limit() -> None:
    result = run_round(list("ABCDEF"), lambda s, g, seats: [1] * len(seats), seed=9)
    assert len(result.stages) == STALL_LIMIT
    assert result.stages[-1].decision.rule == "by lot" and result.out in "ABCDEF"
    # another seed may draw another player, but always the same for the same seed
    outs = {
        run_round(list("ABCDEF"), lambda s, g, seats: [1] * len(seats), seed=k).out
        for k in range(30)
    }
    assert len(outs) > 1


def test_a_judge_that_always_fails_cancels_the_round() -> None:
    result = run_round(list(range(4)), lambda s, g, seats: None, seed=1)
    assert result.out is None and len(result.stages) == FAILED_LIMIT
    assert result.stages[-1].decision.cancelled
    with pytest.raises(ValueError, match="at least 2 distinct players"):
        run_round([1], _by_strength, seed=0)

"""The course's elimination round, made exact: pure functions, no database, no clock.

A round puts exactly one player out of the competition. The course's procedure
(seeds/004, 4.3): random groups of 4, Dummies filling a short group; each group plays a
match; a player that did better than 2 of its 3 rivals goes on; the rest are regrouped
and play again, until one is left: that player is out.

The rules, exact (each has a hand-worked example in
``tests/judge/service/data/elimination/``):

1. **Groups.** A stage shuffles the players still in play with the stage's own random
   generator (`stage_rng`: the round's seed and the stage number, so a stage's groups
   are the same however often they are recomputed) and cuts them into groups of
   ``group_size`` in that order; a short last group is filled with filler bots
   (Dummies, ``None`` here). Dummies are seats, never players: they never go on and
   are never out.
2. **Going on.** A player goes on (is safe for this round) when its rank is strictly
   better (a smaller number) than the ranks of MORE than half of its rivals in the match,
   Dummies included: 2 of 3 in a group of 4, 1 of 1 in a duel, 2 of 2 in a group of 3.
   A tie beats nobody. The others remain and play the next stage.
3. **Everyone went on.** In a full group the worst-ranked player never goes on, so this
   happens only when every group is short, i.e. the stage's few players share one group
   with Dummies and all beat them. Then that stage is decided among the players alone,
   the Dummies ignored: a player goes on when it beat more than half of the OTHER
   PLAYERS. The worst of them then stays, so the stage still leaves someone.
4. **Nobody went on** (draws everywhere): the same players play the next stage,
   regrouped by that stage's generator. After `STALL_LIMIT` (3) such stages in a row
   the round ends by lot: the lot (`lot_rng`, from the round's seed and the stage)
   picks who is out among the remaining players, who showed no difference in three
   stages. A stage in which anyone went on starts the count again.
5. **A match that failed** (``internal_error``: the judge failed on it after its
   retries, never the players' fault) makes its whole stage void: nobody goes on, all of
   the stage's players play the next stage, regrouped, and the stage does not count
   towards the lot. (Voiding only the failed group could leave its players alone in the
   stage, or put one out because the judge failed.) After `FAILED_LIMIT` (3) failed
   matches in a round the round is cancelled at the end of the stage: nobody is out,
   and the admin starts a new round once the judge is fixed.
6. **The end.** When a stage leaves exactly one player remaining, that player is out
   and the round is over.

`decide` applies these to one stage; `run_round` plays a whole round with a given
``play`` function (what `lightcycle.judge.service.rounds` does with real matches, one
stage at a time in the database).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

P = TypeVar("P", bound=Hashable)

STALL_LIMIT = 3
"""Stages in a row in which nobody went on before the lot decides who is out."""

FAILED_LIMIT = 3
"""Failed matches in one round before the round is cancelled."""

MAX_SEED = 2**31 - 1
"""Seeds fit a signed 32-bit database column."""


def _derive(*parts: object) -> int:
    """A seed derived from ``parts`` (stable across runs and Python versions)."""
    text = ":".join(str(p) for p in ("lightcycle-round", *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") & MAX_SEED


def stage_rng(seed: int, stage: int) -> random.Random:
    """The generator that draws the groups of ``stage`` of the round seeded ``seed``."""
    return random.Random(_derive(seed, stage, "groups"))


def lot_rng(seed: int, stage: int) -> random.Random:
    """The generator of the lot that ends a loop of draws at ``stage``."""
    return random.Random(_derive(seed, stage, "lot"))


def match_seed(seed: int, stage: int, grp: int) -> int:
    """The game seed of group ``grp`` (from 0) of ``stage``: each match its own."""
    return _derive(seed, stage, grp, "match")


def next_round_seed(seed: int) -> int:
    """The seed of the round a round starts after itself (``rounds_per_start``), so a
    chain of rounds is as reproducible as its first round."""
    return _derive(seed, "next")


def make_groups(players: Sequence[P], size: int, rng: random.Random) -> list[tuple[P | None, ...]]:
    """Shuffle ``players`` with ``rng`` and cut them into groups of ``size``; a short
    last group is filled with ``None`` (a filler seat, a Dummy).

    Raises:
        ValueError: ``size`` below 2, or no players.
    """
    if size < 2:
        raise ValueError(f"a group has at least 2 seats, not {size}")
    if not players:
        raise ValueError("no players to group")
    order: list[P | None] = list(players)
    rng.shuffle(order)
    short = -len(order) % size
    order.extend([None] * short)
    return [tuple(order[i : i + size]) for i in range(0, len(order), size)]


Ranks = Sequence[int | None] | None
"""A group's match result: each seat's rank (1 best, ties share a rank; ``None`` for a
seat: worse than every ranked one), or ``None`` for a match that failed."""


@dataclass(frozen=True)
class StageResult(Generic[P]):
    """Who of a stage's players goes on (`stage_result`).

    Attributes:
        safe: the players that go on, in seat order.
        remaining: the others, in seat order: they play the next stage.
        rule: ``course`` (rule 2) or ``dummies ignored`` (rule 3).
    """

    safe: tuple[P, ...]
    remaining: tuple[P, ...]
    rule: str


def _key(rank: int | None) -> float:
    return float("inf") if rank is None else float(rank)


def _goes_on(group: Sequence[P | None], ranks: Sequence[int | None], i: int, dummies: bool) -> bool:
    """Whether seat ``i`` beat more than half of its rivals (Dummies counted or not)."""
    rivals = [j for j in range(len(group)) if j != i and (dummies or group[j] is not None)]
    beaten = sum(1 for j in rivals if _key(ranks[i]) < _key(ranks[j]))
    return 2 * beaten > len(rivals)


def stage_result(groups: Sequence[Sequence[P | None]], ranks: Sequence[Ranks]) -> StageResult[P]:
    """Apply rules 2 and 3 of the module docstring to one stage (a failed match's
    players remain; `decide` voids such a stage).

    Args:
        groups: each group's seats (``None``: a Dummy).
        ranks: each group's ranks by seat, or ``None`` for a failed match.

    Raises:
        ValueError: ranks that do not match the groups.
    """
    if len(groups) != len(ranks):
        raise ValueError(f"{len(groups)} groups but {len(ranks)} results")
    for group, rs in zip(groups, ranks, strict=True):
        if rs is not None and len(rs) != len(group):
            raise ValueError(f"a group of {len(group)} seats has {len(rs)} ranks")

    def split(dummies: bool) -> tuple[tuple[P, ...], tuple[P, ...]]:
        safe: list[P] = []
        remaining: list[P] = []
        for group, rs in zip(groups, ranks, strict=True):
            for i, player in enumerate(group):
                if player is None:
                    continue
                if rs is not None and _goes_on(group, rs, i, dummies):
                    safe.append(player)
                else:
                    remaining.append(player)
        return tuple(safe), tuple(remaining)

    safe, remaining = split(dummies=True)
    if safe and not remaining:
        safe, remaining = split(dummies=False)
        return StageResult(safe, remaining, "dummies ignored")
    return StageResult(safe, remaining, "course")


@dataclass(frozen=True)
class Progress:
    """What a round carries from stage to stage besides its players.

    Attributes:
        stalled: stages in a row in which nobody went on (rule 4).
        failed: failed matches so far in the round (rule 5).
    """

    stalled: int = 0
    failed: int = 0


@dataclass(frozen=True)
class Decision(Generic[P]):
    """What a finished stage decides (`decide`).

    Attributes:
        safe: players that went on in this stage.
        remaining: players of the next stage (when ``out`` is ``None`` and the round is
            not cancelled).
        out: the player out of the competition: the round is over.
        cancelled: too many failed matches: the round ends with nobody out.
        progress: the round's counters after this stage.
        rule: which rule decided: ``course``, ``dummies ignored``, ``no progress``,
            ``failed match``, ``by lot`` or ``cancelled``.
    """

    safe: tuple[P, ...]
    remaining: tuple[P, ...]
    out: P | None
    cancelled: bool
    progress: Progress
    rule: str


def decide(
    groups: Sequence[Sequence[P | None]],
    ranks: Sequence[Ranks],
    progress: Progress,
    *,
    seed: int,
    stage: int,
) -> Decision[P]:
    """Decide a finished stage by every rule of the module docstring.

    Args:
        groups: the stage's groups (``None``: a Dummy).
        ranks: each group's ranks, or ``None`` for a failed match.
        progress: the round's counters before this stage.
        seed: the round's seed (for the lot).
        stage: the stage's number (for the lot).
    """
    result = stage_result(groups, ranks)
    failed_now = sum(1 for rs in ranks if rs is None)
    if failed_now:
        everyone = tuple(p for group in groups for p in group if p is not None)
        failed = Progress(progress.stalled, progress.failed + failed_now)
        if failed.failed >= FAILED_LIMIT:
            return Decision((), everyone, None, True, failed, "cancelled")
        return Decision((), everyone, None, False, failed, "failed match")
    if len(result.remaining) == 1:
        out = result.remaining[0]
        return Decision(
            result.safe, result.remaining, out, False, Progress(0, progress.failed), result.rule
        )
    if result.safe:
        return Decision(
            result.safe, result.remaining, None, False, Progress(0, progress.failed), result.rule
        )
    stalled = progress.stalled + 1
    if stalled >= STALL_LIMIT:
        out = lot_rng(seed, stage).choice(result.remaining)
        return Decision(
            (), result.remaining, out, False, Progress(stalled, progress.failed), "by lot"
        )
    return Decision(
        (), result.remaining, None, False, Progress(stalled, progress.failed), "no progress"
    )


Play = Callable[[int, int, tuple[P | None, ...]], Ranks]
"""Plays group ``grp`` (from 0) of ``stage`` (from 1): its seats -> its ranks (or
``None``: the match failed)."""


@dataclass(frozen=True)
class StageRecord(Generic[P]):
    """One stage of a simulated round: its number, groups, results and decision."""

    stage: int
    groups: tuple[tuple[P | None, ...], ...]
    ranks: tuple[Ranks, ...]
    decision: Decision[P]


@dataclass(frozen=True)
class RoundResult(Generic[P]):
    """A simulated round: who is out (``None``: cancelled) and every stage."""

    out: P | None
    stages: tuple[StageRecord[P], ...]


def run_round(
    players: Sequence[P],
    play: Play[P],
    seed: int,
    *,
    group_size: int = 4,
    max_stages: int = 10_000,
) -> RoundResult[P]:
    """Play a whole round with ``play`` (see the module docstring), deterministic from
    ``seed``: the same players, seed and results give the same groups and the same out.

    Raises:
        ValueError: fewer than 2 players, or a round that does not end in
            ``max_stages`` stages (cannot happen with these rules unless ``play`` fails
            forever, and then the round is cancelled first).
    """
    if len(set(players)) != len(players) or len(players) < 2:
        raise ValueError("a round needs at least 2 distinct players")
    current: tuple[P, ...] = tuple(players)
    progress = Progress()
    stages: list[StageRecord[P]] = []
    for stage in range(1, max_stages + 1):
        groups = make_groups(current, group_size, stage_rng(seed, stage))
        ranks = tuple(play(stage, g, group) for g, group in enumerate(groups))
        decision = decide(groups, ranks, progress, seed=seed, stage=stage)
        stages.append(StageRecord(stage, tuple(groups), ranks, decision))
        if decision.cancelled or decision.out is not None:
            return RoundResult(decision.out, tuple(stages))
        progress = decision.progress
        current = decision.remaining
    raise ValueError(f"the round did not end in {max_stages} stages")

"""Matches between accepted programs: created, queued, recorded once.

A match is one game of a few seats (`tables.MatchRow`), for one of three purposes: a
**friendly** match a user starts (`create_friendly`; its results count for nothing), a
game of an **official** elimination round (`lightcycle.judge.service.rounds`), or a
**ladder** game (`lightcycle.judge.service.ladder`). All three are created the same way
(`create_match`, inside the caller's transaction: the match, its seats and its job, so a
round's stage is created whole or not at all) and played the same way, by a worker
claiming the match's job (`lightcycle.judge.service.matchplay`).

Recording (`record_match`) runs inside the transaction of ``queue.complete``, which
first checks that the job is still the calling worker's: a worker killed in the middle
of a game leaves its job to be replayed from the start by another, and only one result
is ever written. In that same transaction the match's kind gets its say through a
**hook** (``on_match_done``; ``on_match_failed`` when the judge gave up on the match):
rounds start their next stage, the ladder rates the players. The hooks are looked up by
module name when first needed (`HOOK_MODULES`), because rounds and the ladder import
this module to create their matches, and a judge built without one of them still
records the other kinds.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from lightcycle.judge.service import social
from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.jobs import enqueue_match
from lightcycle.judge.service.tables import (
    DONE,
    INTERNAL_ERROR,
    MATCH_KINDS,
    QUEUED,
    MatchRow,
    SeatRow,
    inserted_id,
    match_row,
    match_seats,
    matches,
    now,
    seat_row,
    submission_row,
    submissions,
)
from lightcycle.storage import begin_write

if TYPE_CHECKING:
    from lightcycle.maps.spec import MapSpec

MatchHook = Callable[[Connection, MatchRow, "Contest | None"], None]
"""A kind's hook: called inside the transaction that ends a match (see the module
docstring). ``contest`` is the worker's contest; ``None`` only when the queue was driven
without one (tests of the queue alone)."""

HOOK_MODULES: dict[str, str] = {
    "official": "lightcycle.judge.service.rounds",
    "ladder": "lightcycle.judge.service.ladder",
}
"""The module whose ``on_match_done`` and ``on_match_failed`` a kind's matches call; a
kind not named here (``friendly``) has no hooks."""


class MatchError(ValueError):
    """A match that cannot be created as asked; the message is one line."""


@dataclass(frozen=True)
class Entrant:
    """Who sits in one seat of a match to be created.

    Attributes:
        submission_id: the accepted program; ``None``: the contest's filler bot (a Dummy).
        user_id: its owner (``None`` for a Dummy).
        name: the player name shown (a Dummy: ``dummy 1``, ...).
    """

    submission_id: int | None
    user_id: int | None
    name: str


@dataclass(frozen=True)
class SeatResult:
    """How one seat did in a played match (`tables.SeatRow`'s result columns).

    Attributes:
        rank: 1 for the best; seats that tied share a rank.
        score: the final score of the seat's team where the ruleset scores (tron3d),
            else ``None``.
        verdict: ``ok`` or how the seat left the game (``crashed``, ``timeout``, ...).
        detail: the verdict's one-line detail.
        turn: the turn (from 1) of the verdict other than ``ok``, if any.
        cpu_used: CPU seconds the seat's bot used.
        cpu_limit: the game's CPU budget in seconds (``None``: none).
        stderr_tail: the end of the bot's stderr (a submission's seat only; the web
            shows it to that submission's owner only).
    """

    rank: int
    score: float | None
    verdict: str
    detail: str
    turn: int | None
    cpu_used: float
    cpu_limit: float | None
    stderr_tail: str


@dataclass(frozen=True)
class MatchResult:
    """What playing a match produced (`lightcycle.judge.service.matchplay.play_match`).

    Attributes:
        reason: why the game ended, one line (the referee's).
        replay: the replay, as JSON text.
        map: the id of the map played (``name@version``).
        seats: per seat, in seat order.
    """

    reason: str
    replay: str
    map: str
    seats: tuple[SeatResult, ...]


# -- creating -------------------------------------------------------------------------


def create_match(
    conn: Connection,
    contest: Contest,
    *,
    kind: str,
    entrants: Sequence[Entrant],
    seed: int,
    created_by: int | None = None,
    round_id: int | None = None,
    stage: int | None = None,
    grp: int | None = None,
) -> int:
    """Create a queued match, its seats and its job inside the caller's transaction.

    The map is drawn from the contest's pool for that many seats by the seed, so a
    match is the same game whoever plays it and however often its job is replayed.

    Args:
        conn: a connection inside a write transaction (`lightcycle.storage.begin_write`).
        contest: the contest (its map pool).
        kind: ``friendly``, ``official`` or ``ladder``.
        entrants: the seats, in order (seat 0 first).
        seed: the game's seed.
        created_by: the user who asked for it (a friendly match).
        round_id, stage, grp: where an official match sits in its round.

    Returns:
        The match's id.

    Raises:
        MatchError: an unknown kind, fewer than 2 seats, or no map for that many.
    """
    if kind not in MATCH_KINDS:
        raise MatchError(f"unknown match kind {kind!r}; use one of {', '.join(MATCH_KINDS)}")
    if len(entrants) < 2:
        raise MatchError(f"a match needs 2 or more players, not {len(entrants)}")
    pool = map_pool(contest, len(entrants))
    spec = pool[seed % len(pool)]
    mid = inserted_id(
        conn.execute(
            sa.insert(matches).values(
                kind=kind,
                state=QUEUED,
                created_by=created_by,
                round_id=round_id,
                stage=stage,
                grp=grp,
                map=spec.id,
                seed=seed,
                reason="",
                replay=None,
                created_at=now(),
                finished_at=None,
            )
        )
    )
    conn.execute(
        sa.insert(match_seats),
        [
            {
                "match_id": mid,
                "seat": seat,
                "submission_id": e.submission_id,
                "user_id": e.user_id,
                "name": e.name,
                "rank": None,
                "score": None,
                "verdict": None,
                "detail": "",
                "turn": None,
                "cpu_used": None,
                "cpu_limit": None,
                "stderr_tail": "",
            }
            for seat, e in enumerate(entrants)
        ],
    )
    enqueue_match(conn, mid)
    return mid


def create_friendly(
    engine: Engine, contest: Contest, user_id: int, submission_ids: Sequence[int | None]
) -> int:
    """Start a friendly match of ``user_id`` with these programs (``None``: a Dummy).

    Who may use which program is `lightcycle.judge.service.social.check_friendly`'s
    rule, checked in the same transaction that creates the match, so a program made
    unusable meanwhile (a friendship ended) cannot slip in. The seed is drawn at random:
    a friendly match is a new game each time.

    Returns:
        The match's id.

    Raises:
        lightcycle.judge.service.social.SocialError: a match the user may not start
            (one line saying why and what to do).
    """
    with begin_write(engine) as conn:
        social.check_friendly(conn, contest, user_id, submission_ids)
        wanted = sorted({s for s in submission_ids if s is not None})
        subs = {
            r.id: submission_row(r)
            for r in conn.execute(sa.select(submissions).where(submissions.c.id.in_(wanted)))
        }
        entrants: list[Entrant] = []
        dummies = 0
        for sid in submission_ids:
            if sid is None:
                dummies += 1
                entrants.append(Entrant(None, None, f"dummy {dummies}"))
            else:
                entrants.append(Entrant(sid, subs[sid].user_id, subs[sid].name))
        return create_match(
            conn,
            contest,
            kind="friendly",
            entrants=entrants,
            seed=secrets.randbelow(2**31),
            created_by=user_id,
        )


def map_pool(contest: Contest, players: int) -> tuple[MapSpec, ...]:
    """The contest's maps playable with ``players`` seats (a friendly duel in a contest
    of 4-player games plays the pool's 2-player starts).

    Raises:
        MatchError: no map of the pool can seat that many.
    """
    return _pool(contest.ruleset, contest.maps, players)


@functools.lru_cache(maxsize=32)
def _pool(ruleset: str, maps: tuple[str, ...], players: int) -> tuple[MapSpec, ...]:
    """Cached: setting a pool up plays each map's first turn, and a round creates many
    matches at once."""
    from lightcycle.maps.spec import MapError

    probe = Contest(name="pool", title="pool", ruleset=ruleset, maps=maps, players=players)
    try:
        return tuple(probe.pool())
    except MapError as exc:
        raise MatchError(f"no map for a match of {players} players: {exc}") from None


# -- reading --------------------------------------------------------------------------


def load_match(conn: Connection, match_id: int, *, replay: bool = False) -> MatchRow | None:
    """A match with its seats (and its replay's JSON text with ``replay``)."""
    cols = [c for c in matches.c if replay or c.name != "replay"]
    r = conn.execute(sa.select(*cols).where(matches.c.id == match_id)).first()
    if r is None:
        return None
    seats = conn.execute(
        sa.select(match_seats)
        .where(match_seats.c.match_id == match_id)
        .order_by(match_seats.c.seat)
    ).all()
    return match_row(r, tuple(seat_row(s) for s in seats), r.replay if replay else None)


def load_matches(conn: Connection, where: Any, limit: int | None = None) -> list[MatchRow]:
    """The matches a condition on ``judge_matches`` selects, newest first (the newest
    ``limit`` of them), with their seats (two queries, whatever their number) and without
    replays: for lists."""
    cols = [c for c in matches.c if c.name != "replay"]
    rows = conn.execute(
        sa.select(*cols).where(where).order_by(matches.c.id.desc()).limit(limit)
    ).all()
    if not rows:
        return []
    seats: dict[int, list[SeatRow]] = {r.id: [] for r in rows}
    for s in conn.execute(
        sa.select(match_seats)
        .where(match_seats.c.match_id.in_(list(seats)))
        .order_by(match_seats.c.match_id, match_seats.c.seat)
    ):
        seats[s.match_id].append(seat_row(s))
    return [match_row(r, tuple(seats[r.id])) for r in rows]


def matches_of_user(conn: Connection, user_id: int) -> list[MatchRow]:
    """The friendly matches with a program of ``user_id`` in them, newest first (without
    replays): the matches that user may see on their own page."""
    seated = (
        sa.select(match_seats.c.match_id).where(match_seats.c.user_id == user_id).scalar_subquery()
    )
    return load_matches(conn, sa.and_(matches.c.kind == "friendly", matches.c.id.in_(seated)))


# -- recording ------------------------------------------------------------------------


def record_match(
    conn: Connection, match_id: int, result: MatchResult, contest: Contest | None
) -> MatchRow:
    """Write a played match's results, then call its kind's ``on_match_done`` hook,
    inside the caller's transaction (``queue.complete``'s, after it checked the job is
    still the worker's).

    Raises:
        RuntimeError: the match is missing, already ended, or the result does not fit
            its seats: the judge's fault (the job is retried, then ends an internal error).
    """
    seats = sorted(
        conn.execute(
            sa.select(match_seats.c.seat).where(match_seats.c.match_id == match_id)
        ).scalars()
    )
    if seats != list(range(len(result.seats))):
        raise RuntimeError(
            f"match {match_id}: the result has {len(result.seats)} seats, the match has "
            f"{len(seats)}"
        )
    ended = conn.execute(
        sa.update(matches)
        .where(matches.c.id == match_id, matches.c.state.not_in((DONE, INTERNAL_ERROR)))
        .values(
            state=DONE,
            reason=" ".join(result.reason.split()),
            replay=result.replay,
            map=result.map,
            finished_at=now(),
        )
    )
    if ended.rowcount != 1:
        raise RuntimeError(f"match {match_id} is missing or already ended; recorded nothing")
    for seat, s in enumerate(result.seats):
        conn.execute(
            sa.update(match_seats)
            .where(match_seats.c.match_id == match_id, match_seats.c.seat == seat)
            .values(
                rank=s.rank,
                score=s.score,
                verdict=s.verdict,
                detail=s.detail,
                turn=s.turn,
                cpu_used=s.cpu_used,
                cpu_limit=s.cpu_limit,
                stderr_tail=s.stderr_tail,
            )
        )
    match = load_match(conn, match_id)
    assert match is not None  # updated just above, in this transaction
    hook = match_hook(match.kind, "on_match_done")
    if hook is not None:
        hook(conn, match, contest)
    return match


def fail_match(conn: Connection, match_id: int, reason: str, contest: Contest | None) -> None:
    """End a match the judge gave up on (``internal_error``, with ``reason``), then call
    its kind's ``on_match_failed`` hook, inside the caller's transaction."""
    conn.execute(
        sa.update(matches)
        .where(matches.c.id == match_id, matches.c.state.not_in((DONE, INTERNAL_ERROR)))
        .values(state=INTERNAL_ERROR, reason=" ".join(reason.split()), finished_at=now())
    )
    match = load_match(conn, match_id)
    if match is None or match.state != INTERNAL_ERROR:
        return
    hook = match_hook(match.kind, "on_match_failed")
    if hook is not None:
        hook(conn, match, contest)


def match_hook(kind: str, which: str) -> MatchHook | None:
    """A kind's hook (``on_match_done`` or ``on_match_failed``), ``None`` for a kind
    without hooks or whose module is not part of this judge.

    Raises:
        RuntimeError: the kind's module exists but lacks the hook (a judge bug).
    """
    name = HOOK_MODULES.get(kind)
    if name is None or importlib.util.find_spec(name) is None:
        return None
    hook: Any = getattr(importlib.import_module(name), which, None)
    if not callable(hook):
        raise RuntimeError(f"{name} has no {which}(conn, match, contest)")
    return cast(MatchHook, hook)

"""Official rounds as the pages read them: standings, rounds, a round's stages, the hall
of fame, and a fingerprint that changes with any of them.

Kept apart from `lightcycle.judge.service.rounds` (which starts and advances rounds and
re-exports these) so each stays small. Nothing here writes. A stage's decision is not
stored: `decisions` recomputes it from the stage's matches with
`lightcycle.judge.service.elimination.decide`, as the round itself did.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from lightcycle.judge.service import elimination, social
from lightcycle.judge.service.matches import load_matches
from lightcycle.judge.service.tables import (
    DONE,
    INTERNAL_ERROR,
    MatchRow,
    matches,
    round_entries,
    rounds,
    settings,
    submissions,
    users,
)

RUNNING, FINISHED, CANCELLED = "running", "done", "cancelled"
"""A round's states."""

ROUNDS_LEFT = "official.rounds_left"
"""The ``judge_settings`` key: rounds still to start after the running one in this start
(``-1``: until the finalists remain)."""

FINALISTS = "official.finalists"
"""The ``judge_settings`` key: ``[official] finalists`` as the last round started saw it
(the read models, which have no contest, need it to tell finalists)."""

SCHEDULE_DONE = "official.schedule_done"
"""The ``judge_settings`` key: the last scheduled time handled (``YYYY-MM-DD HH:MM``)."""

RULES = {
    "course": "a player who beat more than half of its group's rivals goes on; the rest "
    "play the next stage",
    "dummies ignored": "everyone beat the Dummies: decided among the players alone",
    "no progress": "nobody went on: the same players play again",
    "failed match": "a match failed (the judge's fault): the stage is played again",
    "by lot": f"nobody went on in {elimination.STALL_LIMIT} stages in a row: out by lot",
    "cancelled": f"{elimination.FAILED_LIMIT} matches failed: the round is cancelled",
}
"""What each rule of `elimination.decide` means, as the pages say it."""


@dataclass(frozen=True)
class RoundSummary:
    """A round as the lists show it.

    Attributes:
        entrants: how many players it started with.
        matches_done: its matches that have ended (played or failed) ...
        matches_total: ... of all it has created so far.
    """

    id: int
    number: int
    state: str
    seed: int
    stage: int
    started_by: int | None
    started_at: str
    finished_at: str | None
    out_user_id: int | None
    out_submission_id: int | None
    out_name: str | None
    note: str
    entrants: int
    matches_done: int
    matches_total: int


@dataclass(frozen=True)
class EntryView:
    """A round's entrant: its program, and how it fares in the round.

    Attributes:
        status: ``playing`` (still in play), ``safe`` (went on at ``safe_stage``) or
            ``out`` (the round's loser).
    """

    user_id: int
    submission_id: int
    name: str
    safe_stage: int | None
    status: str


@dataclass(frozen=True)
class StageView:
    """One stage of a round: its matches (a group each, in group order) and, once all
    ended, what it decided.

    Attributes:
        matches: the stage's matches with their seats and results.
        decided: whether every match ended and the stage was decided.
        safe: names of the players that went on in this stage.
        remaining: names of those that play the next stage (or the one out).
        rule: the `RULES` key that decided (``None`` until decided).
    """

    stage: int
    matches: tuple[MatchRow, ...]
    decided: bool
    safe: tuple[str, ...]
    remaining: tuple[str, ...]
    rule: str | None


@dataclass(frozen=True)
class RoundDetail:
    """A round's page: the round, its entrants (playing first) and its stages."""

    round: RoundSummary
    entries: tuple[EntryView, ...]
    stages: tuple[StageView, ...]


@dataclass(frozen=True)
class Standing:
    """A player of the competition (every official player and everyone who entered).

    Attributes:
        status: ``in``, ``out``, ``finalist`` (the rounds are over: ``finalists`` or
            fewer remain) or ``champion`` (the last one, when ``finalists`` is 1).
        out_round: the number of the round that put the player out.
        place: for a player out, the place it ended in (the number of players its round
            started with); for the champion, 1.
        in_round: in the running round: ``playing``, ``safe``, or ``None`` (no round
            runs, or the player is not in it).
    """

    user_id: int
    name: str
    submission_id: int | None
    status: str
    out_round: int | None
    place: int | None
    in_round: str | None


@dataclass(frozen=True)
class HallOfFame:
    """The competition's end, as far as reached.

    Attributes:
        champion: the last player, once only one remains (``finalists = 1``).
        finalists: the players left once the rounds are over (empty before).
        eliminated: the players put out, in the order they went out.
    """

    champion: Standing | None
    finalists: tuple[Standing, ...]
    eliminated: tuple[Standing, ...]


def get_setting(conn: Connection, key: str, *, lock: bool = False) -> str | None:
    """A ``judge_settings`` value (``lock``: the row locked for this transaction)."""
    query = sa.select(settings.c.value).where(settings.c.key == key)
    value = conn.execute(query.with_for_update() if lock else query).scalar()
    return None if value is None else str(value)


Decided = tuple[int, elimination.Decision[int]]


def stage_matches(conn: Connection, rid: int) -> dict[int, list[MatchRow]]:
    """The round's matches with their seats, by stage, each stage in group order.

    Two queries whatever the round's size (`load_matches`): the round's page and every
    recorded match read this, and a round of 200 players has over a hundred matches.
    """
    out: dict[int, list[MatchRow]] = {}
    for m in load_matches(conn, matches.c.round_id == rid):
        out.setdefault(int(m.stage or 0), []).append(m)
    for ms in out.values():
        ms.sort(key=lambda m: (m.grp if m.grp is not None else -1, m.id))
    return dict(sorted(out.items()))


def decisions(
    conn: Connection, rid: int, seed: int, by_stage: dict[int, list[MatchRow]] | None = None
) -> list[Decided]:
    """Replay the round's complete stages with `elimination.decide`, in order."""
    by_stage = stage_matches(conn, rid) if by_stage is None else by_stage
    progress = elimination.Progress()
    out: list[Decided] = []
    for stage in sorted(by_stage):
        ms = by_stage[stage]
        if any(m.state not in (DONE, INTERNAL_ERROR) for m in ms):
            break
        groups = [tuple(s.user_id for s in m.seats) for m in ms]
        ranks: list[elimination.Ranks] = [
            None if m.state == INTERNAL_ERROR else [s.rank for s in m.seats] for m in ms
        ]
        decision = elimination.decide(groups, ranks, progress, seed=seed, stage=stage)
        out.append((stage, decision))
        progress = decision.progress
    return out


# -- reading (the pages) --------------------------------------------------------------


def current_round(conn: Connection) -> RoundSummary | None:
    """The running round, if any."""
    rid = conn.execute(sa.select(rounds.c.id).where(rounds.c.state == RUNNING)).scalar()
    return None if rid is None else _summaries(conn, rid)[0]


def rounds_list(conn: Connection) -> list[RoundSummary]:
    """Every round, the newest first."""
    return _summaries(conn)


def _summaries(conn: Connection, rid: int | None = None) -> list[RoundSummary]:
    entrants = (
        sa.select(sa.func.count()).where(round_entries.c.round_id == rounds.c.id).scalar_subquery()
    )
    total = sa.select(sa.func.count()).where(matches.c.round_id == rounds.c.id)
    ended = total.where(matches.c.state.in_((DONE, INTERNAL_ERROR)))
    query = sa.select(
        rounds,
        entrants.label("n_entrants"),
        ended.scalar_subquery().label("n_done"),
        total.scalar_subquery().label("n_total"),
    ).order_by(rounds.c.number.desc())
    if rid is not None:
        query = query.where(rounds.c.id == rid)
    return [
        RoundSummary(
            r.id,
            r.number,
            r.state,
            r.seed,
            r.stage,
            r.started_by,
            r.started_at,
            r.finished_at,
            r.out_user_id,
            r.out_submission_id,
            r.out_name,
            r.note,
            r.n_entrants,
            r.n_done,
            r.n_total,
        )
        for r in conn.execute(query)
    ]


def round_detail(conn: Connection, round_id: int) -> RoundDetail | None:
    """A round with its entrants and every stage's matches and decisions."""
    found = _summaries(conn, round_id)
    if not found:
        return None
    summary = found[0]
    rows = conn.execute(sa.select(round_entries).where(round_entries.c.round_id == round_id)).all()
    names = {r.user_id: r.name for r in rows}
    by_stage = stage_matches(conn, round_id)
    decided = dict(decisions(conn, round_id, summary.seed, by_stage))
    stages = []
    for stage in sorted(by_stage):
        d = decided.get(stage)
        stages.append(
            StageView(
                stage,
                tuple(by_stage[stage]),
                d is not None,
                tuple(names[u] for u in d.safe) if d else (),
                tuple(names[u] for u in d.remaining) if d else (),
                d.rule if d else None,
            )
        )
    entries = [
        EntryView(
            r.user_id,
            r.submission_id,
            r.name,
            r.safe_stage,
            "out" if r.out else "safe" if r.safe_stage is not None else "playing",
        )
        for r in rows
    ]
    order = {"playing": 0, "out": 1, "safe": 2}
    entries.sort(key=lambda e: (order[e.status], -(e.safe_stage or 0), e.name.casefold()))
    return RoundDetail(summary, tuple(entries), tuple(stages))


def standings(conn: Connection) -> list[Standing]:
    """Every official player and everyone who entered a round: the champion and the
    finalists first, then those in (by name), then those out (the last out first)."""
    finished = {r.id: r for r in conn.execute(sa.select(rounds).where(rounds.c.state == FINISHED))}
    sizes: dict[int, int] = dict(
        conn.execute(
            sa.select(round_entries.c.round_id, sa.func.count()).group_by(round_entries.c.round_id)
        ).all()
    )
    players: dict[int, Standing] = {}
    out_of: dict[int, int] = {}
    for e in conn.execute(sa.select(round_entries).order_by(round_entries.c.round_id)):
        players[e.user_id] = Standing(e.user_id, e.name, e.submission_id, "in", None, None, None)
        if e.out and e.round_id in finished:
            out_of[e.user_id] = e.round_id
    for uid, sub in social.official_players(conn):
        players[uid] = Standing(uid, sub.name, sub.id, "in", None, None, None)
    running = current_round(conn)
    in_round: dict[int, str] = {}
    if running is not None:
        for e in conn.execute(
            sa.select(round_entries).where(round_entries.c.round_id == running.id)
        ):
            in_round[e.user_id] = "safe" if e.safe_stage is not None else "playing"
    remaining = [uid for uid in players if uid not in out_of]
    finalists = _finalists(conn)
    over = bool(finished) and running is None and len(remaining) <= finalists
    out: list[Standing] = []
    for uid, s in players.items():
        if uid in out_of:
            rid = out_of[uid]
            status, number, place = "out", finished[rid].number, sizes.get(rid)
        elif over:
            status = "champion" if len(remaining) == 1 else "finalist"
            number, place = None, 1 if len(remaining) == 1 else None
        else:
            status, number, place = "in", None, None
        out.append(Standing(uid, s.name, s.submission_id, status, number, place, in_round.get(uid)))
    rank = {"champion": 0, "finalist": 1, "in": 2, "out": 3}
    out.sort(key=lambda s: (rank[s.status], -(s.out_round or 0), s.name.casefold()))
    return out


def _finalists(conn: Connection) -> int:
    """How many players the rounds stop at, as the last round's start saw it (else 1):
    the read models have no contest."""
    value = get_setting(conn, FINALISTS)
    return int(value) if value is not None else 1


def hall_of_fame(conn: Connection, table: list[Standing] | None = None) -> HallOfFame:
    """The champion and the finalists once reached, and the order players went out
    (from ``table``, the `standings` when the caller has them already)."""
    table = standings(conn) if table is None else table
    champion = next((s for s in table if s.status == "champion"), None)
    finalists = tuple(s for s in table if s.status in ("champion", "finalist"))
    eliminated = tuple(
        sorted((s for s in table if s.status == "out"), key=lambda s: s.out_round or 0)
    )
    return HallOfFame(champion, finalists, eliminated)


def official_version(conn: Connection) -> str:
    """A cheap fingerprint of everything official: it changes whenever a round starts,
    advances or ends, an official match is queued, starts or ends, or a program becomes
    someone's official one (the web's live pages compare it)."""
    r = conn.execute(
        sa.select(
            sa.func.count(),
            sa.func.max(rounds.c.id),
            sa.func.sum(rounds.c.stage),
            sa.func.max(rounds.c.finished_at),
        )
    ).one()
    m = conn.execute(
        sa.select(matches.c.state, sa.func.count(), sa.func.max(matches.c.id))
        .where(matches.c.kind == "official")
        .group_by(matches.c.state)
        .order_by(matches.c.state)
    ).all()
    s = conn.execute(
        sa.select(sa.func.count(), sa.func.max(submissions.c.accepted_at)).where(
            submissions.c.state == "accepted"
        )
    ).one()
    u = conn.execute(sa.select(sa.func.sum(users.c.official_submission_id))).scalar()
    states = ",".join(f"{state}={n}/{top}" for state, n, top in m)
    return f"r{r[0]}:{r[1]}:{r[2]}:{r[3]}|m{states}|s{s[0]}:{s[1]}:{u}"

"""The ladder: official play for a contest that runs continuously, rated by OpenSkill.

A contest whose ``[official] mode = "ladder"`` has no rounds: while the ladder is on
(`set_ladder`, kept in ``judge_settings``), the judge keeps ``ladder_parallel`` ladder
matches queued or running, as the Halite contests did. Each time one ends (`on_match_done`,
inside the transaction that records it) the players are rated from the seats' ranks with
`lightcycle.tournament.skill` (OpenSkill, Plackett-Luce) and the next match is created in
the same transaction, so a worker killed between the two leaves nothing half done.

Who plays (`pick_group`, pure): a *seed* player first, the one with the fewest ladder
games (games rated plus matches it already sits in, so the matches created in one go do
not all start from the same player); ties by lot. Then the ``group_size - 1`` players
nearest to it by the conservative rating ``mu - 3 sigma``, each distance blurred by a
random amount up to `JITTER`: players that close are treated as interchangeable, so the
same neighbours do not meet in every match while a far weaker or stronger player is still
never picked over a near one (the bound makes that a guarantee a test can check). Idle
players are preferred when there are enough of them.

The players are the users' official programs (`lightcycle.judge.service.social`), and a
rating belongs to a program (``judge_ratings`` is keyed by submission): a user's new
accepted program, or a newly chosen one, starts afresh at ``mu`` 25, ``sigma`` 25/3, as
in the Halite ladders. Reference bots (Dummies filling a group when fewer players than
seats exist) play but are not rated: the players are rated by their ranks among
themselves.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import sqlalchemy as sa

from lightcycle.judge.service.tables import match_seats, matches, now, ratings, settings
from lightcycle.storage import begin_write
from lightcycle.tournament.skill import SIGMA, Skill, rate

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

    from lightcycle.judge.service.contest import Contest
    from lightcycle.judge.service.tables import MatchRow

SETTING = "ladder"
"""The ``judge_settings`` key: ``on`` or ``off``."""

JITTER = SIGMA / 2
"""The most a distance between ordinals is blurred by when choosing a seed's rivals:
half a newcomer's uncertainty (about 4.2 points of ``mu - 3 sigma``), so players that
close are interchangeable and groups vary, while a player farther away than the nearest
ones by more than this is never picked before them."""

IN_FLIGHT = ("queued", "running")
"""Match states that count as in flight."""


class LadderError(ValueError):
    """A ladder that cannot be switched on; the message is one line."""


@dataclass(frozen=True)
class Candidate:
    """A player the ladder may seat.

    Attributes:
        submission_id: the program that plays (the rating's key).
        user_id: its owner.
        name: the player name shown.
        skill: its rating (a fresh one when it has not played yet).
        games: ladder games it was rated in.
        busy: ladder matches queued or running it already sits in.
    """

    submission_id: int
    user_id: int
    name: str
    skill: Skill = field(default_factory=Skill)
    games: int = 0
    busy: int = 0


@dataclass(frozen=True)
class LeaderRow:
    """One line of the ladder's table.

    Attributes:
        rank: 1 is best; equal ordinals share a rank.
        submission_id: the program.
        user_id: its owner.
        name: the player name.
        mu: estimated skill.
        sigma: its uncertainty.
        ordinal: ``mu - 3 sigma``, what the table is ranked by.
        games: ladder games rated.
    """

    rank: int
    submission_id: int
    user_id: int
    name: str
    mu: float
    sigma: float
    ordinal: float
    games: int


@dataclass(frozen=True)
class LadderStatus:
    """What ``lightcycle judge ladder status`` shows.

    Attributes:
        on: whether the ladder is switched on.
        mode: the contest's ``[official] mode``.
        parallel: ladder matches kept in flight while on.
        in_flight: ladder matches queued or running now.
        done: ladder matches played.
        failed: ladder matches that ended ``internal_error``.
    """

    on: bool
    mode: str
    parallel: int
    in_flight: int
    done: int
    failed: int


# -- choosing who plays (pure) -------------------------------------------------------------


def pick_group(
    candidates: Sequence[Candidate], size: int, rng: random.Random, jitter: float = JITTER
) -> list[Candidate]:
    """The players of the next ladder match (see the module docstring), seed first.

    Args:
        candidates: every player that may play (each program once).
        size: seats of a match; fewer players than that: all of them.
        rng: the lot (a seeded `random.Random`: the same state, the same group).
        jitter: the most a distance is blurred by (0: exactly the nearest).

    Returns:
        The seed, then its rivals nearest first; empty with fewer than two candidates.
    """
    if len(candidates) < 2 or size < 2:
        return []
    ordered = sorted(candidates, key=lambda c: c.submission_id)
    idle = [c for c in ordered if c.busy == 0]
    pool = idle if len(idle) >= size else ordered
    fewest = min(c.games + c.busy for c in pool)
    seed = rng.choice([c for c in pool if c.games + c.busy == fewest])
    target = seed.skill.ordinal
    rivals = [c for c in pool if c is not seed]
    blurred = {
        c.submission_id: abs(c.skill.ordinal - target) + rng.uniform(0.0, jitter) for c in rivals
    }
    rivals.sort(key=lambda c: (blurred[c.submission_id], c.submission_id))
    return [seed, *rivals[: size - 1]]


def ranked(rows: Sequence[Candidate]) -> list[LeaderRow]:
    """Rows of the ladder's table: by ordinal, best first (ties: more games, then name)."""
    order = sorted(rows, key=lambda c: (-c.skill.ordinal, -c.games, c.name, c.submission_id))
    out: list[LeaderRow] = []
    for i, c in enumerate(order):
        rank = out[-1].rank if out and out[-1].ordinal == c.skill.ordinal else i + 1
        out.append(
            LeaderRow(
                rank,
                c.submission_id,
                c.user_id,
                c.name,
                c.skill.mu,
                c.skill.sigma,
                c.skill.ordinal,
                c.games,
            )
        )
    return out


# -- the database ------------------------------------------------------------------------


def is_on(conn: Connection) -> bool:
    """Whether the ladder is switched on."""
    value = conn.execute(sa.select(settings.c.value).where(settings.c.key == SETTING)).scalar()
    return value == "on"


def set_ladder(engine: Engine, contest: Contest, on: bool) -> list[int]:
    """Switch the ladder on (and fill it at once) or off (matches in flight still count).

    Returns:
        The ids of the matches created.

    Raises:
        LadderError: switching on a contest whose ``[official] mode`` is not ``ladder``.
    """
    if on and contest.official.mode != "ladder":
        raise LadderError(
            f'contest {contest.name} has [official] mode = "{contest.official.mode}": '
            'set mode = "ladder" in its contest file to run a ladder'
        )
    with begin_write(engine) as conn:
        _lock(conn)
        value = "on" if on else "off"
        done = conn.execute(
            sa.update(settings).where(settings.c.key == SETTING).values(value=value)
        )
        if done.rowcount == 0:
            conn.execute(sa.insert(settings).values(key=SETTING, value=value))
        return fill(conn, contest) if on else []


def fill_now(engine: Engine, contest: Contest) -> list[int]:
    """`fill` in a transaction of its own: for a scheduler that tops the ladder up now
    and then, so that players who arrive while fewer than two could play get a match."""
    with begin_write(engine) as conn:
        return fill(conn, contest)


def fill(conn: Connection, contest: Contest) -> list[int]:
    """Create ladder matches until ``ladder_parallel`` are queued or running.

    Nothing when the contest is not a ladder, the ladder is off, or fewer than two
    players have an accepted program. Call inside a write transaction.

    Returns:
        The ids of the matches created.
    """
    from lightcycle.judge.service.matches import Entrant, create_match

    spec = contest.official
    if spec.mode != "ladder" or not is_on(conn):
        return []
    _lock(conn)
    wanted = spec.ladder_parallel - _count(conn, IN_FLIGHT)
    if wanted <= 0:
        return []
    candidates = {c.submission_id: c for c in _candidates(conn)}
    rng = random.Random(f"ladder {_count(conn, None)}")
    size = spec.group_size
    created: list[int] = []
    for _ in range(wanted):
        group = pick_group(list(candidates.values()), size, rng)
        if not group:
            break
        entrants = [Entrant(c.submission_id, c.user_id, c.name) for c in group]
        entrants += [Entrant(None, None, f"dummy {i + 1}") for i in range(size - len(group))]
        rng.shuffle(entrants)
        created.append(
            create_match(conn, contest, kind="ladder", entrants=entrants, seed=rng.randrange(2**31))
        )
        for c in group:
            candidates[c.submission_id] = Candidate(
                c.submission_id, c.user_id, c.name, c.skill, c.games, c.busy + 1
            )
    return created


def on_match_done(conn: Connection, match: MatchRow, contest: Contest | None) -> None:
    """Rate a played ladder match's players by their seats' ranks, then `fill` again.

    Called by `lightcycle.judge.service.matches.record_match` inside the transaction
    that records the match, so a rating is updated exactly once per match. Without a
    contest (a queue driven without one) the players are rated and nothing is queued.
    """
    if match.kind != "ladder":
        return
    _lock(conn)
    seats = conn.execute(
        sa.select(match_seats.c.submission_id, match_seats.c.rank).where(
            match_seats.c.match_id == match.id, match_seats.c.submission_id.is_not(None)
        )
    ).all()
    teams: dict[int, int] = {}
    for s in seats:
        if s.rank is not None and s.submission_id not in teams:
            teams[int(s.submission_id)] = int(s.rank)
    if len(teams) >= 2:
        known = _ratings(conn, list(teams))
        after = rate(
            {str(sid): skill for sid, (skill, _) in known.items()},
            [([str(sid)], rank) for sid, rank in teams.items()],
        )
        stamp = now()
        for sid in teams:
            new = after[str(sid)]
            if sid in known:
                conn.execute(
                    sa.update(ratings)
                    .where(ratings.c.submission_id == sid)
                    .values(mu=new.mu, sigma=new.sigma, games=known[sid][1] + 1, updated_at=stamp)
                )
            else:
                conn.execute(
                    sa.insert(ratings).values(
                        submission_id=sid, mu=new.mu, sigma=new.sigma, games=1, updated_at=stamp
                    )
                )
    if contest is not None:
        fill(conn, contest)


def on_match_failed(conn: Connection, match: MatchRow, contest: Contest | None) -> None:
    """A ladder match the judge could not play: nobody is rated; `fill` again."""
    if match.kind == "ladder" and contest is not None:
        fill(conn, contest)


def leaderboard(conn: Connection) -> list[LeaderRow]:
    """The ladder's table: every official program, ranked by ``mu - 3 sigma``."""
    return ranked(_candidates(conn))


def status(conn: Connection, contest: Contest) -> LadderStatus:
    """The ladder's switch and its matches in numbers."""
    return LadderStatus(
        is_on(conn),
        contest.official.mode,
        contest.official.ladder_parallel,
        _count(conn, IN_FLIGHT),
        _count(conn, ("done",)),
        _count(conn, ("internal_error",)),
    )


def _lock(conn: Connection) -> None:
    """Serialise the ladder's writers: two workers recording matches at once would
    otherwise rate from the same old ratings (a lost update) or both top the ladder up
    past ``ladder_parallel``. PostgreSQL: a row lock on the switch; SQLite's write
    transaction already holds the database."""
    conn.execute(sa.select(settings.c.key).where(settings.c.key == SETTING).with_for_update())


def _count(conn: Connection, states: Sequence[str] | None) -> int:
    query = sa.select(sa.func.count()).select_from(matches).where(matches.c.kind == "ladder")
    if states is not None:
        query = query.where(matches.c.state.in_(states))
    return int(conn.execute(query).scalar_one())


def _ratings(conn: Connection, sids: Sequence[int]) -> dict[int, tuple[Skill, int]]:
    rows = conn.execute(sa.select(ratings).where(ratings.c.submission_id.in_(sids))).all()
    return {int(r.submission_id): (Skill(r.mu, r.sigma), int(r.games)) for r in rows}


def _candidates(conn: Connection) -> list[Candidate]:
    """Every official program with its rating and the ladder matches in flight it sits in."""
    from lightcycle.judge.service.social import official_players

    players = official_players(conn)
    sids = [sub.id for _, sub in players]
    known = _ratings(conn, sids)
    busy_rows = conn.execute(
        sa.select(match_seats.c.submission_id, sa.func.count())
        .select_from(match_seats.join(matches, matches.c.id == match_seats.c.match_id))
        .where(
            matches.c.kind == "ladder",
            matches.c.state.in_(IN_FLIGHT),
            match_seats.c.submission_id.in_(sids),
        )
        .group_by(match_seats.c.submission_id)
    ).all()
    busy = {int(r[0]): int(r[1]) for r in busy_rows}
    out = []
    for user_id, sub in players:
        skill, games = known.get(sub.id, (Skill(), 0))
        out.append(Candidate(sub.id, user_id, sub.name, skill, games, busy.get(sub.id, 0)))
    return out

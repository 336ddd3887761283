"""The tournament store: results, ratings and replay paths in a database.

SQLite in the output folder by default, PostgreSQL by URL; opened and migrated through
`lightcycle.storage` (the shared database layer). The schema is created and upgraded by the
alembic migrations shipped in ``lightcycle/tournament/migrations``, run when the store
opens, in one transaction.

What makes a tournament safe to kill at any moment:

- **One transaction per match.** `Store.record` writes a match's result, its seats and
  its rating updates together: after a crash a match is either wholly there or not at
  all. Rating updates reference their result (a foreign key), so an update cannot exist
  without its result; `lightcycle.tournament.check` finds the reverse (a result without
  its updates) and any rating that does not follow from the results.
- **A unique key per match.** The schedule is deterministic (`lightcycle.tournament.schedule`)
  and each match's key is unique in the tournament, as is each result per match: a
  resumed run cannot record a match twice.
- **WAL mode** with ``synchronous=NORMAL`` (`lightcycle.storage.open_engine`): readers (a
  report) never block the runner, and a killed process never corrupts the file. A power
  cut may lose the last few commits; they are missing matches, which the next run plays
  again.

On SQLite, pysqlite's own transaction handling (which does not make DDL transactional)
is replaced by an explicit ``BEGIN`` (`lightcycle.storage`), so a migration interrupted
half way leaves no half-made schema behind.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from lightcycle import storage
from lightcycle.tournament.ratings import RatingUpdate
from lightcycle.tournament.results import MatchResult, SeatResult

SCHEMA_REVISION = "0001"
"""The newest migration (a test checks it is alembic's head)."""

MIGRATIONS = Path(__file__).resolve().parent / "migrations"

VERSION_TABLE = "alembic_version"
"""The tournament's alembic version table: alembic's default name, which databases made
before other components shared the database already have (the game server's is
``lightcycle_server_version``)."""

metadata = sa.MetaData()

tournaments = sa.Table(
    "tournaments",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(200), nullable=False, unique=True),
    sa.Column("format", sa.String(40), nullable=False),
    sa.Column("config", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
)

entrants = sa.Table(
    "entrants",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column(
        "tournament_id",
        sa.Integer,
        sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("idx", sa.Integer, nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("spec", sa.Text, nullable=False),
    sa.Column("filler", sa.Boolean, nullable=False),
    sa.UniqueConstraint("tournament_id", "idx", name="uq_entrants_idx"),
    sa.UniqueConstraint("tournament_id", "name", name="uq_entrants_name"),
)

matches = sa.Table(
    "matches",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column(
        "tournament_id",
        sa.Integer,
        sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("key", sa.String(100), nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("label", sa.String(200), nullable=False),
    sa.Column("map", sa.String(200), nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("seats", sa.Text, nullable=False),
    sa.UniqueConstraint("tournament_id", "key", name="uq_matches_key"),
    sa.UniqueConstraint("tournament_id", "seq", name="uq_matches_seq"),
)

results = sa.Table(
    "results",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column(
        "match_id",
        sa.Integer,
        sa.ForeignKey("matches.id", ondelete="CASCADE"),
        nullable=False,
        unique=True,
    ),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("turns", sa.Integer, nullable=False),
    sa.Column("replay", sa.Text, nullable=True),
    sa.Column("wall_seconds", sa.Float, nullable=False),
    sa.Column("finished_at", sa.String(40), nullable=False),
)

result_seats = sa.Table(
    "result_seats",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column(
        "result_id",
        sa.Integer,
        sa.ForeignKey("results.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("entrant_id", sa.Integer, sa.ForeignKey("entrants.id"), nullable=False),
    sa.Column("rank", sa.Integer, nullable=False),
    sa.Column("score", sa.Integer, nullable=False),
    sa.Column("outcome", sa.String(10), nullable=False),
    sa.Column("forfeit", sa.Boolean, nullable=False),
    sa.Column("forfeit_win", sa.Boolean, nullable=False),
    sa.Column("forfeit_loss", sa.Boolean, nullable=False),
    sa.Column("verdict", sa.Text, nullable=False),
    sa.Column("moves", sa.Integer, nullable=False),
    sa.Column("move_time", sa.Float, nullable=False),
    sa.UniqueConstraint("result_id", "seat", name="uq_result_seats_seat"),
)

rating_updates = sa.Table(
    "rating_updates",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column(
        "result_id",
        sa.Integer,
        sa.ForeignKey("results.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    sa.Column("entrant_id", sa.Integer, sa.ForeignKey("entrants.id"), nullable=False),
    sa.Column("system", sa.String(20), nullable=False),
    sa.Column("before", sa.Float, nullable=False),
    sa.Column("after", sa.Float, nullable=False),
    sa.Column("sigma_before", sa.Float, nullable=True),
    sa.Column("sigma_after", sa.Float, nullable=True),
    sa.UniqueConstraint("result_id", "entrant_id", "system", name="uq_rating_updates"),
)


class StoreError(ValueError):
    """A database that does not hold what the tournament file describes."""


# -- what the store returns --------------------------------------------------------------


@dataclass(frozen=True)
class TournamentRow:
    """A stored tournament."""

    id: int
    name: str
    format: str
    config: str
    created_at: str


@dataclass(frozen=True)
class EntrantRow:
    """A stored entrant."""

    id: int
    index: int
    name: str
    spec: str
    filler: bool


@dataclass(frozen=True)
class EntrantIds:
    """Entrant row ids by entrant index and by name."""

    by_index: dict[int, int]
    by_name: dict[str, int]


@dataclass(frozen=True)
class MatchRow:
    """A scheduled match and whether it has a result.

    Attributes:
        id: the row id.
        key: the stable key.
        seq: its place in the playing order (ratings are applied in this order).
        round: its round.
        label: a description for people.
        map: the map id.
        seed: the game seed.
        seats: entrant indices in seat order (one seat: a bye).
        result_id: its result's row id, ``None`` while unplayed.
    """

    id: int
    key: str
    seq: int
    round: int
    label: str
    map: str
    seed: int
    seats: tuple[int, ...]
    result_id: int | None


@dataclass(frozen=True)
class StoredResult:
    """A finished match as stored, with its schedule row."""

    match: MatchRow
    result: MatchResult


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def migrate(engine: Engine) -> None:
    """Bring the schema to `SCHEMA_REVISION` with the shipped alembic migrations."""
    storage.migrate(engine, MIGRATIONS, VERSION_TABLE, head=SCHEMA_REVISION)


class Store:
    """A tournament database (see the module docstring).

    Args:
        url: an SQLAlchemy URL (``sqlite:///path/tournament.db``, ``postgresql://...``);
            a missing folder of an SQLite file is made.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        try:
            self.engine = storage.open_engine(url, make_folder=True)
        except storage.StorageError as exc:
            raise StoreError(str(exc)) from None
        try:
            migrate(self.engine)
        except storage.StorageError as exc:
            self.engine.dispose()
            raise StoreError(str(exc)) from None

    def close(self) -> None:
        """Release the connections."""
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- tournaments and entrants --------------------------------------------------------
    def tournaments(self) -> list[TournamentRow]:
        """Every tournament in the database, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(tournaments).order_by(tournaments.c.id)).all()
        return [TournamentRow(r.id, r.name, r.format, r.config, r.created_at) for r in rows]

    def tournament(self, name: str | None = None) -> TournamentRow | None:
        """The tournament called ``name`` (``None``: the only one), if stored.

        Raises:
            StoreError: with no name given and several tournaments stored.
        """
        rows = self.tournaments()
        if name is None:
            if len(rows) > 1:
                names = ", ".join(r.name for r in rows)
                raise StoreError(f"{self.url} holds several tournaments ({names}); name one")
            return rows[0] if rows else None
        for r in rows:
            if r.name == name:
                return r
        return None

    def create_tournament(
        self, name: str, format: str, config: str, entrant_rows: Sequence[tuple[str, str, bool]]
    ) -> int:
        """Store a new tournament with its entrants ``(name, spec, filler)`` in one go."""
        with self.engine.begin() as conn:
            tid = _inserted_id(
                conn.execute(
                    sa.insert(tournaments).values(
                        name=name, format=format, config=config, created_at=_now()
                    )
                )
            )
            conn.execute(
                sa.insert(entrants),
                [
                    {"tournament_id": tid, "idx": i, "name": n, "spec": s, "filler": f}
                    for i, (n, s, f) in enumerate(entrant_rows)
                ],
            )
        return tid

    def replace_tournament(
        self, tid: int, format: str, config: str, entrant_rows: Sequence[tuple[str, str, bool]]
    ) -> None:
        """Give a tournament that has no result yet a new configuration and entrants.

        Its scheduled matches are deleted (the next run schedules them from the new
        file), all in one transaction. A tournament with a result is refused: its results
        and ratings belong to the configuration that produced them.

        Raises:
            StoreError: the tournament has a result.
        """
        played = (
            sa.select(sa.func.count())
            .select_from(results.join(matches, matches.c.id == results.c.match_id))
            .where(matches.c.tournament_id == tid)
        )
        with self.engine.begin() as conn:
            if conn.execute(played).scalar():
                raise StoreError("a tournament with results cannot change its configuration")
            conn.execute(sa.delete(matches).where(matches.c.tournament_id == tid))
            conn.execute(sa.delete(entrants).where(entrants.c.tournament_id == tid))
            conn.execute(
                sa.update(tournaments)
                .where(tournaments.c.id == tid)
                .values(format=format, config=config)
            )
            conn.execute(
                sa.insert(entrants),
                [
                    {"tournament_id": tid, "idx": i, "name": n, "spec": s, "filler": f}
                    for i, (n, s, f) in enumerate(entrant_rows)
                ],
            )

    def entrants(self, tid: int) -> list[EntrantRow]:
        """The tournament's entrants by index."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(entrants).where(entrants.c.tournament_id == tid).order_by(entrants.c.idx)
            ).all()
        return [EntrantRow(r.id, r.idx, r.name, r.spec, bool(r.filler)) for r in rows]

    def entrant_ids(self, tid: int) -> EntrantIds:
        """The entrants' row ids by index and by name (for `record`)."""
        rows = self.entrants(tid)
        return EntrantIds({e.index: e.id for e in rows}, {e.name: e.id for e in rows})

    # -- the schedule --------------------------------------------------------------------
    def matches(self, tid: int) -> list[MatchRow]:
        """Every scheduled match in playing order, with its result's id if played."""
        q = (
            sa.select(matches, results.c.id.label("result_id"))
            .select_from(matches.outerjoin(results, results.c.match_id == matches.c.id))
            .where(matches.c.tournament_id == tid)
            .order_by(matches.c.seq)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(q).all()
        return [_match_row(r) for r in rows]

    def add_matches(self, tid: int, rows: Iterable[dict[str, Any]]) -> None:
        """Schedule matches (``key``, ``seq``, ``round``, ``label``, ``map``, ``seed``,
        ``seats``), all in one transaction."""
        values = [{**r, "tournament_id": tid, "seats": json.dumps(list(r["seats"]))} for r in rows]
        if values:
            with self.engine.begin() as conn:
                conn.execute(sa.insert(matches), values)

    # -- results -------------------------------------------------------------------------
    def record(
        self,
        tid: int,
        match: MatchRow,
        result: MatchResult,
        updates: Sequence[RatingUpdate],
        ids: EntrantIds,
    ) -> None:
        """Store a match's result, its seats and its rating updates in ONE transaction.

        Args:
            tid: the tournament.
            match: the scheduled match.
            result: what happened.
            updates: the rating updates the result caused (none for a bye).
            ids: the entrants' row ids (`Store.entrant_ids`).

        Raises:
            sqlalchemy.exc.IntegrityError: if the match already has a result.
        """
        self.record_many(tid, [(match, result, updates)], ids)

    def record_many(
        self,
        tid: int,
        finished: Sequence[tuple[MatchRow, MatchResult, Sequence[RatingUpdate]]],
        ids: EntrantIds,
    ) -> None:
        """Store several finished matches, each with its seats and rating updates, in ONE
        transaction.

        A transaction's own cost (begin, commit, the WAL append) is a large part of what
        storing one match costs, so a runner with several consecutive matches ready
        commits them together. Each match still goes in whole with its rating updates:
        the transaction holds all of them or none, so a kill leaves a prefix of whole
        matches either way.

        Args:
            tid: the tournament (kept for symmetry with the other writers).
            finished: ``(match, result, updates)`` in schedule order.
            ids: the entrants' row ids (`Store.entrant_ids`).

        Raises:
            sqlalchemy.exc.IntegrityError: if a match already has a result (nothing of the
                batch is then stored).
        """
        del tid  # the match rows identify the tournament
        if not finished:
            return
        now = _now()
        with self.engine.begin() as conn:
            for match, result, updates in finished:
                rid = _inserted_id(
                    conn.execute(
                        sa.insert(results).values(
                            match_id=match.id,
                            reason=result.reason,
                            turns=result.turns,
                            replay=result.replay,
                            wall_seconds=result.wall_seconds,
                            finished_at=now,
                        )
                    )
                )
                conn.execute(
                    sa.insert(result_seats),
                    [
                        {
                            "result_id": rid,
                            "seat": s.seat,
                            "entrant_id": ids.by_index[s.entrant],
                            "rank": s.rank,
                            "score": s.score,
                            "outcome": s.outcome,
                            "forfeit": s.forfeit,
                            "forfeit_win": s.forfeit_win,
                            "forfeit_loss": s.forfeit_loss,
                            "verdict": s.verdict,
                            "moves": s.moves,
                            "move_time": s.move_time,
                        }
                        for s in result.seats
                    ],
                )
                if updates:
                    conn.execute(
                        sa.insert(rating_updates),
                        [
                            {
                                "result_id": rid,
                                "entrant_id": ids.by_name[u.entrant],
                                "system": u.system,
                                "before": u.before,
                                "after": u.after,
                                "sigma_before": u.sigma_before,
                                "sigma_after": u.sigma_after,
                            }
                            for u in updates
                        ],
                    )

    def results(self, tid: int) -> list[StoredResult]:
        """Every finished match in playing order, with its seats."""
        by_row = {e.id: e.index for e in self.entrants(tid)}
        played = [m for m in self.matches(tid) if m.result_id is not None]
        with self.engine.connect() as conn:
            res = {
                r.id: r
                for r in conn.execute(
                    sa.select(results)
                    .join(matches, matches.c.id == results.c.match_id)
                    .where(matches.c.tournament_id == tid)
                ).all()
            }
            seats: dict[int, list[SeatResult]] = {}
            for s in conn.execute(
                sa.select(result_seats)
                .join(results, results.c.id == result_seats.c.result_id)
                .join(matches, matches.c.id == results.c.match_id)
                .where(matches.c.tournament_id == tid)
                .order_by(result_seats.c.result_id, result_seats.c.seat)
            ).all():
                seats.setdefault(s.result_id, []).append(
                    SeatResult(
                        seat=s.seat,
                        entrant=by_row[s.entrant_id],
                        rank=s.rank,
                        score=s.score,
                        outcome=s.outcome,
                        forfeit=bool(s.forfeit),
                        forfeit_win=bool(s.forfeit_win),
                        forfeit_loss=bool(s.forfeit_loss),
                        verdict=s.verdict,
                        moves=s.moves,
                        move_time=float(s.move_time),
                    )
                )
        out: list[StoredResult] = []
        for m in played:
            assert m.result_id is not None
            r = res[m.result_id]
            out.append(
                StoredResult(
                    m,
                    MatchResult(
                        key=m.key,
                        reason=r.reason,
                        turns=r.turns,
                        seats=tuple(seats.get(r.id, [])),
                        replay=r.replay,
                        wall_seconds=float(r.wall_seconds),
                    ),
                )
            )
        return out

    def rating_updates(self, tid: int) -> dict[int, list[RatingUpdate]]:
        """Every stored rating update by result id, in the order they were written."""
        names = {e.id: e.name for e in self.entrants(tid)}
        q = (
            sa.select(rating_updates)
            .join(results, results.c.id == rating_updates.c.result_id)
            .join(matches, matches.c.id == results.c.match_id)
            .where(matches.c.tournament_id == tid)
            .order_by(rating_updates.c.id)
        )
        out: dict[int, list[RatingUpdate]] = {}
        with self.engine.connect() as conn:
            for u in conn.execute(q).all():
                out.setdefault(u.result_id, []).append(
                    RatingUpdate(
                        names[u.entrant_id],
                        u.system,
                        float(u.before),
                        float(u.after),
                        None if u.sigma_before is None else float(u.sigma_before),
                        None if u.sigma_after is None else float(u.sigma_after),
                    )
                )
        return out

    def delete_results(self, tid: int, from_seq: int) -> int:
        """Delete the results (with seats and updates) of matches at ``from_seq`` and later.

        Returns:
            How many results were deleted (their matches are played again on resume).
        """
        ids = sa.select(matches.c.id).where(
            matches.c.tournament_id == tid, matches.c.seq >= from_seq
        )
        with self.engine.begin() as conn:
            rids = sa.select(results.c.id).where(results.c.match_id.in_(ids))
            conn.execute(sa.delete(rating_updates).where(rating_updates.c.result_id.in_(rids)))
            conn.execute(sa.delete(result_seats).where(result_seats.c.result_id.in_(rids)))
            deleted = conn.execute(sa.delete(results).where(results.c.match_id.in_(ids)))
        return int(deleted.rowcount)


def _inserted_id(cursor: sa.CursorResult[Any]) -> int:
    key = cursor.inserted_primary_key
    assert key is not None
    return int(key[0])


def _match_row(r: Any) -> MatchRow:
    return MatchRow(
        id=r.id,
        key=r.key,
        seq=r.seq,
        round=r.round,
        label=r.label,
        map=r.map,
        seed=int(r.seed),
        seats=tuple(int(x) for x in json.loads(r.seats)),
        result_id=r.result_id,
    )

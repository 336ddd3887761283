"""The game server's database: accounts, games with their seats and replays, ladders.

Opened with `lightcycle.storage` (SQLite by default, PostgreSQL by URL) and brought up to
date by the alembic migrations in ``lightcycle/server/migrations``, under the server's own
version table ``lightcycle_server_version``, so it can share a database with tournaments.
Its tables are prefixed ``server_`` for the same reason.

What makes a server safe to kill at any moment:

- **A game row is written when the game starts** (status ``running``, its seats without
  results) and **completed in ONE transaction** with its seats' results, its replay and
  its rating changes when it ends (`ServerStore.finish_game`): after a crash a game is
  either whole or still ``running``, never half-written.
- **On open, rows left ``running``** (by a server that died or was killed) **are marked
  ``aborted``**: no result, no rating change. So one database serves one server process
  at a time.
- The ratings of a game are read and written inside that same transaction (SQLite's
  write lock taken at its start), so two games ending together cannot lose an update.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from lightcycle.server.accounts import name_key
from lightcycle.server.ladder import START
from lightcycle.storage import begin_write, migrate, open_engine

SCHEMA_REVISION = "s0002"
"""The newest migration (a test checks it is alembic's head)."""

MIGRATIONS = Path(__file__).resolve().parent / "migrations"

VERSION_TABLE = "lightcycle_server_version"
"""The server's own alembic version table."""

ABORTED_ON_OPEN = "the server stopped during the game"
"""The reason recorded for games a previous server process left running."""

metadata = sa.MetaData()

accounts = sa.Table(
    "server_accounts",
    metadata,
    sa.Column("name_key", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("secret_hash", sa.String(200), nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("last_login", sa.String(40), nullable=True),
)

games = sa.Table(
    "server_games",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("queue", sa.String(32), nullable=False, index=True),
    sa.Column("ruleset", sa.String(40), nullable=False),
    sa.Column("map", sa.String(200), nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("status", sa.String(10), nullable=False, index=True),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("turns", sa.Integer, nullable=False),
    sa.Column("started_at", sa.String(40), nullable=False, index=True),
    sa.Column("finished_at", sa.String(40), nullable=True),
    sa.Column("replay", sa.Text, nullable=True),
)

game_seats = sa.Table(
    "server_game_seats",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column(
        "game_id",
        sa.String(32),
        sa.ForeignKey("server_games.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    sa.Column("idx", sa.Integer, nullable=False),
    sa.Column("name", sa.String(64), nullable=False, index=True),
    sa.Column("account", sa.String(64), nullable=True),
    sa.Column("kind", sa.String(10), nullable=False),
    sa.Column("rank", sa.Integer, nullable=True),
    sa.Column("result", sa.String(10), nullable=True),
    sa.Column("verdict", sa.String(40), nullable=True),
    sa.Column("detail", sa.Text, nullable=False),
    sa.Column("rtt_ms", sa.Float, nullable=True),
    sa.Column("think_ms", sa.Float, nullable=True),
    sa.Column("rating_before", sa.Float, nullable=True),
    sa.Column("rating_after", sa.Float, nullable=True),
    sa.UniqueConstraint("game_id", "idx", name="uq_server_game_seats_idx"),
)

ratings = sa.Table(
    "server_ratings",
    metadata,
    sa.Column("queue", sa.String(32), primary_key=True),
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("wins", sa.Integer, nullable=False),
    sa.Column("draws", sa.Integer, nullable=False),
    sa.Column("losses", sa.Integer, nullable=False),
)

RUNNING, FINISHED, ABORTED = "running", "finished", "aborted"
"""A game's status."""


# -- what the store returns --------------------------------------------------------------


@dataclass(frozen=True)
class SeatRow:
    """One seat of a stored game (the results are ``None`` while it runs, or if aborted).

    Attributes:
        idx: the seat's place in the game (0-based, the replay's player order).
        name: the name shown in the game.
        account: the account that played it (``None``: anonymous or a built-in bot).
        kind: ``remote`` or ``builtin``.
        rank: 1 is best; equal ranks share.
        result: ``win``, ``loss`` or ``draw``.
        verdict: the referee's verdict (``ok``, ``timeout``, ``disconnected``...).
        detail: why, one line.
        rtt_ms: median TCP round trip (remote seats).
        think_ms: median reply time measured at the server.
        rating_before: the ladder rating before the game (``None``: not rated).
        rating_after: the ladder rating after it.
    """

    idx: int
    name: str
    account: str | None
    kind: str
    rank: int | None = None
    result: str | None = None
    verdict: str | None = None
    detail: str = ""
    rtt_ms: float | None = None
    think_ms: float | None = None
    rating_before: float | None = None
    rating_after: float | None = None


@dataclass(frozen=True)
class GameRow:
    """A stored game. ``replay`` (the replay's JSON text) is only loaded by
    `ServerStore.game`; lists leave it ``None``."""

    id: str
    queue: str
    ruleset: str
    map: str
    seed: int
    status: str
    reason: str
    turns: int
    started_at: str
    finished_at: str | None
    replay: str | None = None
    seats: tuple[SeatRow, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class LadderRow:
    """One player's standing in one queue."""

    name: str
    rating: float
    games: int
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True)
class AccountRow:
    """A stored account (the secret only as its hash)."""

    name: str
    secret_hash: str
    created_at: str
    last_login: str | None


Rater = Callable[[Mapping[str, float]], Mapping[str, float]]
"""Turns the ratings before a game (players not yet rated are left out) into the ratings
after it, for the rated players (`lightcycle.server.ladder.rater`)."""


def now() -> str:
    """The time as stored: UTC, ISO 8601 with microseconds (sorts as text)."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1e6):06d}Z"


class ServerStore:
    """The server's database (see the module docstring).

    Args:
        url: an SQLAlchemy URL (``sqlite:///server.db``, ``postgresql://...``).

    Raises:
        lightcycle.storage.StorageError: a database that cannot be opened or migrated
            (one line).

    Attributes:
        aborted_on_open: how many games a previous server left running (now aborted).
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = open_engine(url)
        try:
            migrate(self.engine, MIGRATIONS, VERSION_TABLE, head=SCHEMA_REVISION)
            self.aborted_on_open = self.abort_running()
        except BaseException:
            self.engine.dispose()
            raise

    @property
    def in_memory(self) -> bool:
        """Whether the database lives in this process's memory (``sqlite://``): each
        thread would see a database of its own, so it is written from one thread only."""
        return self.engine.dialect.name == "sqlite" and self.engine.url.database in (
            None,
            "",
            ":memory:",
        )

    def close(self) -> None:
        """Release the connections."""
        self.engine.dispose()

    def __enter__(self) -> ServerStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- accounts ------------------------------------------------------------------------
    def account(self, name: str) -> AccountRow | None:
        """The account called ``name`` (any case), if there is one."""
        with self.engine.connect() as conn:
            r = conn.execute(
                sa.select(accounts).where(accounts.c.name_key == name_key(name))
            ).first()
        return None if r is None else AccountRow(r.name, r.secret_hash, r.created_at, r.last_login)

    def create_account(self, name: str, secret_hash: str) -> bool:
        """Register ``name`` with a secret's hash; ``False`` if the name (any case) is taken."""
        try:
            with begin_write(self.engine) as conn:
                conn.execute(
                    sa.insert(accounts).values(
                        name_key=name_key(name),
                        name=name,
                        secret_hash=secret_hash,
                        created_at=now(),
                        last_login=now(),
                    )
                )
        except sa.exc.IntegrityError:
            return False
        return True

    def touch_account(self, name: str, secret_hash: str | None = None) -> None:
        """Note a login; with ``secret_hash``, store a stronger hash of the same secret."""
        values: dict[str, Any] = {"last_login": now()}
        if secret_hash is not None:
            values["secret_hash"] = secret_hash
        with begin_write(self.engine) as conn:
            conn.execute(
                sa.update(accounts).where(accounts.c.name_key == name_key(name)).values(**values)
            )

    # -- games ---------------------------------------------------------------------------
    def start_game(
        self,
        game_id: str,
        *,
        queue: str,
        ruleset: str,
        map: str,
        seed: int,
        seats: Sequence[SeatRow],
    ) -> None:
        """Write a game that starts: status ``running``, its seats without results."""
        with begin_write(self.engine) as conn:
            conn.execute(
                sa.insert(games).values(
                    id=game_id,
                    queue=queue,
                    ruleset=ruleset,
                    map=map,
                    seed=seed,
                    status=RUNNING,
                    reason="",
                    turns=0,
                    started_at=now(),
                )
            )
            _insert_seats(conn, game_id, seats)

    def finish_game(
        self,
        game_id: str,
        *,
        status: str,
        reason: str,
        turns: int,
        replay: str | None,
        seats: Sequence[SeatRow] | None,
        rated: Mapping[int, str] | None = None,
        rate: Rater | None = None,
    ) -> GameRow:
        """Complete a game in ONE transaction: status, seats' results, replay, ratings.

        Args:
            game_id: a game written by `start_game`.
            status: ``finished`` or ``aborted`` (an aborted game changes no rating).
            reason: why it ended, one line.
            turns: turns played.
            replay: the replay's JSON text (``None``: none).
            seats: the seats with their results (``None``: keep those written at the
                start, without results).
            rated: the rated seats: seat index -> ladder name.
            rate: the ratings after the game from those before (`Rater`); applied to the
                game's queue only when ``status`` is ``finished``.

        Returns:
            The game as stored (without its replay).

        Raises:
            KeyError: no running game ``game_id`` (already finished, or never started).
        """
        self.record_finish(
            game_id,
            status=status,
            reason=reason,
            turns=turns,
            replay=replay,
            seats=seats,
            rated=rated,
            rate=rate,
        )
        found = self.game(game_id, replay=False)
        assert found is not None
        return found

    def record_finish(
        self,
        game_id: str,
        *,
        status: str,
        reason: str,
        turns: int,
        replay: str | None,
        seats: Sequence[SeatRow] | None,
        rated: Mapping[int, str] | None = None,
        rate: Rater | None = None,
    ) -> None:
        """`finish_game`'s transaction without reading the game back: the lobby's, which
        needs nothing back and writes hundreds of games a minute.

        Raises:
            KeyError: no running game ``game_id``.
        """
        if status not in (FINISHED, ABORTED):
            raise ValueError(f"a game ends finished or aborted, not {status!r}")
        with begin_write(self.engine) as conn:
            row = conn.execute(sa.select(games).where(games.c.id == game_id)).first()
            if row is None or row.status != RUNNING:
                raise KeyError(f"no running game {game_id}")
            rows = list(seats) if seats is not None else _seats_of(conn, [game_id])[game_id]
            if status == FINISHED and rated and rate is not None and seats is not None:
                rows = _apply_ratings(conn, row.queue, rows, rated, rate)
            conn.execute(
                sa.update(games)
                .where(games.c.id == game_id)
                .values(
                    status=status,
                    reason=reason,
                    turns=turns,
                    replay=replay,
                    finished_at=now(),
                )
            )
            if seats is not None:
                conn.execute(sa.delete(game_seats).where(game_seats.c.game_id == game_id))
                _insert_seats(conn, game_id, rows)

    def abort_running(self, reason: str = ABORTED_ON_OPEN) -> int:
        """Mark every game still ``running`` as ``aborted``; return how many there were."""
        with begin_write(self.engine) as conn:
            done = conn.execute(
                sa.update(games)
                .where(games.c.status == RUNNING)
                .values(status=ABORTED, reason=reason, finished_at=now())
            )
        return int(done.rowcount)

    # -- reading, for the web pages and the API --------------------------------------------
    def recent_games(self, limit: int = 50, queue: str | None = None) -> list[GameRow]:
        """The newest games first (running ones included), without replays."""
        q = sa.select(*_GAME_COLUMNS).order_by(games.c.started_at.desc(), games.c.id).limit(limit)
        if queue is not None:
            q = q.where(games.c.queue == queue)
        return self._games(q)

    def game(self, game_id: str, *, replay: bool = True) -> GameRow | None:
        """One game with its seats and (``replay``) its replay's JSON text."""
        cols = [*_GAME_COLUMNS, games.c.replay] if replay else _GAME_COLUMNS
        found = self._games(sa.select(*cols).where(games.c.id == game_id))
        return found[0] if found else None

    def player_games(self, name: str, limit: int = 50) -> list[GameRow]:
        """The newest games with a seat named ``name`` (any case), without replays."""
        ids = sa.select(game_seats.c.game_id).where(
            sa.func.lower(game_seats.c.name) == name.lower()
        )
        q = (
            sa.select(*_GAME_COLUMNS)
            .where(games.c.id.in_(ids))
            .order_by(games.c.started_at.desc(), games.c.id)
            .limit(limit)
        )
        return self._games(q)

    def ladder(self, queue: str) -> list[LadderRow]:
        """The queue's rated players, best first."""
        q = (
            sa.select(ratings)
            .where(ratings.c.queue == queue)
            .order_by(ratings.c.rating.desc(), ratings.c.name)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(q).all()
        return [
            LadderRow(r.name, float(r.rating), r.games, r.wins, r.draws, r.losses) for r in rows
        ]

    def _games(self, q: sa.Select[Any]) -> list[GameRow]:
        with self.engine.connect() as conn:
            rows = conn.execute(q).all()
            seats = _seats_of(conn, [r.id for r in rows])
        return [
            GameRow(
                id=r.id,
                queue=r.queue,
                ruleset=r.ruleset,
                map=r.map,
                seed=int(r.seed),
                status=r.status,
                reason=r.reason,
                turns=r.turns,
                started_at=r.started_at,
                finished_at=r.finished_at,
                replay=getattr(r, "replay", None),
                seats=tuple(seats.get(r.id, [])),
            )
            for r in rows
        ]


_GAME_COLUMNS = [c for c in games.c if c.name != "replay"]


def _insert_seats(conn: Connection, game_id: str, seats: Sequence[SeatRow]) -> None:
    if not seats:
        return
    conn.execute(
        sa.insert(game_seats),
        [
            {
                "game_id": game_id,
                "idx": s.idx,
                "name": s.name,
                "account": s.account,
                "kind": s.kind,
                "rank": s.rank,
                "result": s.result,
                "verdict": s.verdict,
                "detail": s.detail,
                "rtt_ms": s.rtt_ms,
                "think_ms": s.think_ms,
                "rating_before": s.rating_before,
                "rating_after": s.rating_after,
            }
            for s in seats
        ],
    )


def _seats_of(conn: Connection, ids: Sequence[str]) -> dict[str, list[SeatRow]]:
    out: dict[str, list[SeatRow]] = {i: [] for i in ids}
    if not ids:
        return out
    q = (
        sa.select(game_seats)
        .where(game_seats.c.game_id.in_(list(ids)))
        .order_by(game_seats.c.game_id, game_seats.c.idx)
    )
    for s in conn.execute(q).all():
        out[s.game_id].append(
            SeatRow(
                idx=s.idx,
                name=s.name,
                account=s.account,
                kind=s.kind,
                rank=s.rank,
                result=s.result,
                verdict=s.verdict,
                detail=s.detail,
                rtt_ms=s.rtt_ms,
                think_ms=s.think_ms,
                rating_before=s.rating_before,
                rating_after=s.rating_after,
            )
        )
    return out


def _apply_ratings(
    conn: Connection,
    queue: str,
    seats: list[SeatRow],
    rated: Mapping[int, str],
    rate: Rater,
) -> list[SeatRow]:
    """Read the rated players' ratings, rate the game, write them back with the tallies;
    return the seats with their ratings before and after."""
    names = sorted(set(rated.values()))
    found = {
        r.name: r
        for r in conn.execute(
            sa.select(ratings).where(ratings.c.queue == queue, ratings.c.name.in_(names))
        ).all()
    }
    before = {n: float(r.rating) for n, r in found.items()}
    after = rate(before)
    out: list[SeatRow] = []
    for s in seats:
        name = rated.get(s.idx)
        if name is None or name not in after:
            out.append(s)
            continue
        old = found.get(name)
        tally = {
            "games": (old.games if old else 0) + 1,
            "wins": (old.wins if old else 0) + (s.result == "win"),
            "draws": (old.draws if old else 0) + (s.result == "draw"),
            "losses": (old.losses if old else 0) + (s.result == "loss"),
        }
        new = float(after[name])
        if old is None:
            conn.execute(sa.insert(ratings).values(queue=queue, name=name, rating=new, **tally))
        else:
            conn.execute(
                sa.update(ratings)
                .where(ratings.c.queue == queue, ratings.c.name == name)
                .values(rating=new, **tally)
            )
        start = before.get(name)
        out.append(
            SeatRow(
                **{
                    **s.__dict__,
                    "rating_before": start if start is not None else START,
                    "rating_after": new,
                }
            )
        )
    return out

"""Opening a database: SQLite set up for safe concurrent use, PostgreSQL by URL.

Why SQLite is set up the way it is:

- **WAL mode** with ``synchronous=NORMAL``: readers (a report, a web page) never block a
  writer, and a killed process never corrupts the file. A power cut may lose the last few
  commits, never leave a half-written one.
- **Foreign keys on**: SQLite ignores them unless asked, per connection.
- **A busy timeout**: a writer waits up to 30 s for another process's write to finish
  instead of failing at once with "database is locked".
- **Transactions that really begin.** pysqlite's own transaction handling begins a
  transaction only before a data change, so DDL (a migration) runs outside any
  transaction and a migration interrupted half way leaves a half-made schema. As the
  SQLAlchemy documentation recommends, the driver's handling is switched off and an
  explicit ``BEGIN`` is emitted instead. `begin_write` emits ``BEGIN IMMEDIATE``: a
  transaction that reads and then writes (claim a job, run a migration) takes the write
  lock first, so it waits for another writer rather than failing half way with
  ``SQLITE_BUSY`` when its snapshot went stale.

PostgreSQL connections are checked before use (``pool_pre_ping``), so a server restart
costs a reconnect, not an error, and ``postgresql://`` means the psycopg (3) driver that the
``postgres`` extra installs.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, Engine

EXAMPLES = "e.g. sqlite:///results/lightcycle.db or postgresql://user@host/dbname"
"""The URLs a message shows when it refuses one."""

BUSY_TIMEOUT_MS = 30_000
"""How long an SQLite writer waits for another one before giving up."""

CONNECT_TIMEOUT_S = 10
"""How long a PostgreSQL connection attempt may take (libpq waits forever by default)."""

_WRITE = "lightcycle_write"
"""The execution option that makes SQLite's ``BEGIN`` an ``BEGIN IMMEDIATE``."""


class StorageError(Exception):
    """A database that cannot be opened or brought up to date; the message is one line
    that names the database (never its password) and what to do."""


def display_url(url: str | URL) -> str:
    """``url`` as it may be shown to people: the password, if any, replaced by ``***``."""
    if isinstance(url, URL):
        return url.render_as_string(hide_password=True)
    return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", url)


def open_engine(url: str, *, make_folder: bool = False) -> Engine:
    """An engine for ``url``, set up as the module docstring says, checked by connecting.

    Args:
        url: ``sqlite:///relative/path.db``, ``sqlite:////absolute/path.db``,
            ``sqlite://`` (in memory), ``postgresql://user:password@host:port/dbname``
            (``postgresql+psycopg://`` is the same).
        make_folder: create the SQLite file's folder when it is missing (a tournament's
            output folder); otherwise a missing folder is an error.

    Returns:
        An engine that has connected once (so a wrong URL fails here, not later).

    Raises:
        StorageError: a URL that is not a database URL or names another kind of database,
            a driver that is not installed, a missing folder, a database that cannot be
            reached or opened.
    """
    parsed = _parse(url)
    shown = display_url(parsed)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        _check_folder(parsed, shown, make_folder)
    kwargs: dict[str, Any] = {}
    if backend == "postgresql":
        kwargs["pool_pre_ping"] = True
        if "connect_timeout" not in parsed.query:
            kwargs["connect_args"] = {"connect_timeout": CONNECT_TIMEOUT_S}
    try:
        engine = sa.create_engine(parsed, **kwargs)
    except ModuleNotFoundError as exc:
        extra = "pip install 'lightcycle[postgres]'" if backend == "postgresql" else None
        hint = extra or f"pip install {exc.name}"
        raise StorageError(f"no database driver for {shown} ({exc.name} missing): {hint}") from None
    except (sa.exc.ArgumentError, TypeError, ValueError) as exc:
        raise StorageError(f"bad database URL {shown!r}: {_one_line(exc)}; {EXAMPLES}") from None
    if backend == "sqlite":
        _sqlite_setup(engine)
    try:
        with engine.connect():
            pass
    except sa.exc.DBAPIError as exc:
        engine.dispose()
        raise StorageError(f"cannot open the database {shown}: {_one_line(exc.orig)}") from None
    except (TypeError, ValueError) as exc:  # query arguments the driver does not take
        engine.dispose()
        raise StorageError(f"bad database URL {shown!r}: {_one_line(exc)}; {EXAMPLES}") from None
    return engine


@contextmanager
def begin_write(engine: Engine) -> Iterator[Connection]:
    """A transaction that will write: on SQLite it holds the write lock from its start.

    Use it for a transaction that reads and then writes what it read (claim a job, bump a
    counter, migrate): a plain SQLite transaction that reads first fails with "database is
    locked" when another process committed in between, whatever the busy timeout; this
    one waits for the other writer instead. On PostgreSQL it is a plain transaction (lock
    rows with ``FOR UPDATE`` there). Commits on leaving, rolls back on an exception.
    """
    with engine.connect() as conn:
        conn.execution_options(**{_WRITE: True})
        with conn.begin():
            yield conn


def _parse(url: str) -> URL:
    try:
        parsed = sa.engine.make_url(url)
    except (sa.exc.ArgumentError, ValueError) as exc:
        raise StorageError(
            f"bad database URL {display_url(url)!r}: {_one_line(exc)}; {EXAMPLES}"
        ) from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    backend = parsed.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise StorageError(
            f"bad database URL {display_url(parsed)!r}: lightcycle stores its data in SQLite "
            f"or PostgreSQL; {EXAMPLES}"
        )
    return parsed


def _check_folder(parsed: URL, shown: str, make_folder: bool) -> None:
    database = parsed.database
    if database in (None, "", ":memory:") or database.startswith("file:"):
        return
    folder = Path(database).parent
    if folder.is_dir():
        return
    if not make_folder:
        raise StorageError(
            f"cannot open the database {shown}: its folder {folder} does not exist; create it "
            "or give another path"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot make the database's folder for {shown}: {exc}") from None


def _sqlite_setup(engine: Engine) -> None:
    """WAL, foreign keys, a busy timeout, and transactions that SQLite really begins."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
        cur = dbapi_connection.cursor()
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        _wal(cur)
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get(_WRITE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _wal(cur: Any) -> None:
    """Switch the file to WAL (kept in the file: a no-op once done).

    The switch needs the file to itself and SQLite does not wait for it (no busy
    handler), so processes opening a fresh file together retry for a while.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _one_line(exc: BaseException | None) -> str:
    """An exception's message on one line (drivers' messages span several)."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__

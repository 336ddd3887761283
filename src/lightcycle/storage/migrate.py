"""Bringing a component's tables up to date: alembic, in one transaction, on open.

Each component that keeps data ships its migrations as a folder (an alembic script
directory with an ``env.py`` that calls `run_migrations`, and ``versions/``; no
``alembic.ini``) and records how far its tables are in its own version table, so several
components share one database without seeing each other's revisions: the tournament
store keeps alembic's default ``alembic_version`` (databases made before this layer
existed have it), the game server ``lightcycle_server_version``.

Why one transaction: SQLite (with the explicit ``BEGIN`` of `open_engine`) and PostgreSQL
both make DDL transactional, so a migration killed half way leaves the database exactly
as it was, and the next open runs it again from the start.

Why a lock: many processes (or threads) may open a fresh database at the same moment (the
judge's workers). On PostgreSQL the migration holds a transaction-scoped advisory lock named after
the version table; on SQLite it begins with ``BEGIN IMMEDIATE``. Either way the others wait,
then find the tables at the newest revision and do nothing.
"""

from __future__ import annotations

import threading
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from lightcycle.storage.engine import StorageError, begin_write, display_url

if TYPE_CHECKING:
    from alembic.config import Config

_ALEMBIC = threading.Lock()
"""Alembic's ``context`` is one global per process: threads migrate one at a time (taken
before the database's lock, so two threads never wait for each other in a circle)."""


def migrate(
    engine: Engine, migrations_dir: Path, version_table: str, *, head: str | None = None
) -> None:
    """Upgrade the tables of the component whose migrations are in ``migrations_dir``.

    Args:
        engine: from `open_engine`.
        migrations_dir: the component's alembic script directory.
        version_table: the component's own version table (``lightcycle_NAME_version``).
        head: the newest revision, when the caller knows it: a database already there is
            then checked without loading alembic (opening stays fast).

    Raises:
        StorageError: the database is at a revision these migrations do not know (a newer
            lightcycle made it), or cannot be read or written.
    """
    if head is not None and _current(engine, version_table) == {head}:
        return
    from alembic import command
    from alembic.util import CommandError

    cfg = _config(migrations_dir, version_table)
    shown = display_url(engine.url)
    try:
        with _ALEMBIC, begin_write(engine) as conn:
            if conn.dialect.name == "postgresql":
                key = zlib.crc32(version_table.encode()) - 2**31  # a signed 32-bit number
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "heads")
    except CommandError as exc:
        known = _current(engine, version_table)
        raise StorageError(
            f"cannot migrate the database {shown} ({version_table} at {sorted(known)}): "
            f"{exc}; is it from a newer lightcycle? Upgrade lightcycle"
        ) from None
    except sa.exc.DBAPIError as exc:
        text = " ".join(str(exc.orig).split())
        raise StorageError(
            f"cannot migrate the database {shown} ({version_table}): {text}"
        ) from None


def run_migrations() -> None:
    """The whole of a component's alembic ``env.py``: run on the connection `migrate` gives.

    It never connects anywhere itself, so alembic's command line cannot point it at a
    database by mistake; `migrate` hands over its connection (inside its transaction) and
    the version table in ``config.attributes``.
    """
    from alembic import context

    connection = context.config.attributes.get("connection")
    version_table = context.config.attributes.get("version_table")
    if not isinstance(connection, Connection) or not isinstance(version_table, str):
        raise RuntimeError("run migrations through lightcycle.storage.migrate")
    context.configure(
        connection=connection,
        target_metadata=None,
        transactional_ddl=True,
        version_table=version_table,
    )
    with context.begin_transaction():
        context.run_migrations()


def current_revisions(engine: Engine, version_table: str) -> set[str]:
    """The revisions ``version_table`` records (empty: the component has no tables yet)."""
    return _current(engine, version_table)


def _current(engine: Engine, version_table: str) -> set[str]:
    with engine.connect() as conn:
        if not sa.inspect(conn).has_table(version_table):
            return set()
        table = sa.table(version_table, sa.column("version_num"))
        return {str(v) for v in conn.execute(sa.select(table.c.version_num)).scalars()}


def _config(migrations_dir: Path, version_table: str) -> Config:
    from alembic.config import Config

    if not (migrations_dir / "env.py").is_file():
        raise StorageError(f"{migrations_dir} holds no alembic env.py: not a migrations folder")
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir))
    cfg.attributes["version_table"] = version_table
    return cfg

"""The one database layer: engines for SQLite and PostgreSQL, and alembic migrations.

Every component that keeps data (the tournament store, the game server, the judge) opens
its database with `open_engine` and brings its own tables up to date with `migrate`, each
under its own alembic version table, so several components can share one database. The
layer knows databases, not games: it imports nothing else of lightcycle.

- `open_engine(url)`: SQLite (WAL, ``synchronous=NORMAL``, foreign keys, a busy timeout,
  transactions that really begin, DDL included) or PostgreSQL (``postgresql://`` or
  ``postgresql+psycopg://``, connections checked before use).
- `begin_write(engine)`: a transaction that takes SQLite's write lock at once, for the
  read-then-write transactions that must not fail half way when another process writes.
- `migrate(engine, migrations_dir, version_table)`: alembic upgrade to the newest
  revision in one transaction; concurrent openers wait for each other.
- `run_migrations()`: the whole body of a component's alembic ``env.py``.
- `current_revisions(engine, version_table)`, `display_url(url)` (password hidden).
- `StorageError`: the one-line message a user sees (bad URL, missing driver, unreachable
  server), never with a password in it.
"""

from __future__ import annotations

from lightcycle.storage.engine import StorageError, begin_write, display_url, open_engine
from lightcycle.storage.migrate import current_revisions, migrate, run_migrations

__all__ = [
    "StorageError",
    "begin_write",
    "current_revisions",
    "display_url",
    "migrate",
    "open_engine",
    "run_migrations",
]

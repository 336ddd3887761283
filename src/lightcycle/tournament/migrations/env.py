"""Alembic's entry point: migrate the connection the store hands over.

The store (`lightcycle.tournament.store`) runs migrations itself when it opens a
database, inside its own transaction, so this file never connects anywhere: it takes the
connection from ``config.attributes["connection"]``. There is no ``alembic.ini``; to write
a new revision, add a module to ``versions/`` by hand (and a test in
``tests/tournament/test_store.py`` checks the models and the migrations agree).
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):  # pragma: no cover -- only the store runs this
    raise RuntimeError("run migrations through lightcycle.tournament.store.open_store")
context.configure(connection=connection, target_metadata=None, transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()

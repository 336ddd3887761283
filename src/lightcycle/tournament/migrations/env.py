"""Alembic's entry point: migrate the connection `lightcycle.storage.migrate` hands over.

The store (`lightcycle.tournament.store`) runs migrations itself when it opens a
database, inside its own transaction, so this file never connects anywhere (see
`lightcycle.storage.run_migrations`). There is no ``alembic.ini``; to write a new revision,
add a module to ``versions/`` by hand (and a test in ``tests/tournament/test_store.py``
checks the models and the migrations agree).
"""

from __future__ import annotations

from lightcycle.storage import run_migrations

run_migrations()

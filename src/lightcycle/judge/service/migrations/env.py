"""Alembic's entry point: migrate the connection `lightcycle.storage.migrate` hands over.

There is no ``alembic.ini``; to write a new revision, add a module to ``versions/`` by hand
(a test in ``tests/judge/service/test_store.py`` checks the models and the migrations agree).
"""

from __future__ import annotations

from lightcycle.storage import run_migrations

run_migrations()

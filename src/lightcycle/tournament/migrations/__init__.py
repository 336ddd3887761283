"""The tournament store's schema history (alembic), run by the store when it opens."""

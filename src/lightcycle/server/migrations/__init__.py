"""The game server store's schema history (alembic), run by the store when it opens.

The server keeps its revisions in its own version table, ``lightcycle_server_version``, so
it can share one database with the tournament store.
"""

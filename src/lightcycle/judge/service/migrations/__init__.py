"""The judge's alembic migrations (version table ``lightcycle_judge_version``)."""

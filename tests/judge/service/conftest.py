"""The judge's queue tests run on SQLite always, and on PostgreSQL where it can be had."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh judge database URL: an SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'judge.db'}"
    url: str = request.getfixturevalue("postgres_url")
    return url

"""Longer player names: account names up to 64 characters (the rule allows 40).

The Scheme course's clients send any printable name (``Scheme Test Client``), and an
account is such a name with a secret; the first schema held account names in 16
characters. SQLite does not enforce a string's length but alembic's batch mode rebuilds
its tables all the same, so both engines end with the same declared types.

Revision ID: s0002
Revises: s0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "s0002"
down_revision: str | None = "s0001"
branch_labels: str | None = None
depends_on: str | None = None

_COLUMNS = (
    ("server_accounts", "name_key"),
    ("server_accounts", "name"),
    ("server_game_seats", "account"),
)


def upgrade() -> None:
    """Widen the account name columns from 16 to 64 characters."""
    for table, column in _COLUMNS:
        with op.batch_alter_table(table) as batch:
            batch.alter_column(column, type_=sa.String(64), existing_type=sa.String(16))


def downgrade() -> None:
    """Narrow them again (names longer than 16 characters must be gone first)."""
    for table, column in _COLUMNS:
        with op.batch_alter_table(table) as batch:
            batch.alter_column(column, type_=sa.String(16), existing_type=sa.String(64))

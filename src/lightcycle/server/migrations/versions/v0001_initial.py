"""The first schema: accounts, games, their seats, per-queue ratings.

Revision ID: s0001
Revises: none
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "s0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create every table."""
    op.create_table(
        "server_accounts",
        sa.Column("name_key", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(16), nullable=False),
        sa.Column("secret_hash", sa.String(200), nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("last_login", sa.String(40), nullable=True),
    )
    op.create_table(
        "server_games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("queue", sa.String(32), nullable=False, index=True),
        sa.Column("ruleset", sa.String(40), nullable=False),
        sa.Column("map", sa.String(200), nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(10), nullable=False, index=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("turns", sa.Integer, nullable=False),
        sa.Column("started_at", sa.String(40), nullable=False, index=True),
        sa.Column("finished_at", sa.String(40), nullable=True),
        sa.Column("replay", sa.Text, nullable=True),
    )
    op.create_table(
        "server_game_seats",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "game_id",
            sa.String(32),
            sa.ForeignKey("server_games.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("idx", sa.Integer, nullable=False),
        sa.Column("name", sa.String(64), nullable=False, index=True),
        sa.Column("account", sa.String(16), nullable=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("rank", sa.Integer, nullable=True),
        sa.Column("result", sa.String(10), nullable=True),
        sa.Column("verdict", sa.String(40), nullable=True),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("rtt_ms", sa.Float, nullable=True),
        sa.Column("think_ms", sa.Float, nullable=True),
        sa.Column("rating_before", sa.Float, nullable=True),
        sa.Column("rating_after", sa.Float, nullable=True),
        sa.UniqueConstraint("game_id", "idx", name="uq_server_game_seats_idx"),
    )
    op.create_table(
        "server_ratings",
        sa.Column("queue", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("draws", sa.Integer, nullable=False),
        sa.Column("losses", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    """Drop every table."""
    for table in ("server_ratings", "server_game_seats", "server_games", "server_accounts"):
        op.drop_table(table)

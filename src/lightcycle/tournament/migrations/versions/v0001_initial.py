"""The first schema: tournaments, entrants, scheduled matches, results, rating updates.

Revision ID: 0001
Revises: none
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create every table."""
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("format", sa.String(40), nullable=False),
        sa.Column("config", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "entrants",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "tournament_id",
            sa.Integer,
            sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("idx", sa.Integer, nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("spec", sa.Text, nullable=False),
        sa.Column("filler", sa.Boolean, nullable=False),
        sa.UniqueConstraint("tournament_id", "idx", name="uq_entrants_idx"),
        sa.UniqueConstraint("tournament_id", "name", name="uq_entrants_name"),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "tournament_id",
            sa.Integer,
            sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("key", sa.String(100), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("label", sa.String(200), nullable=False),
        sa.Column("map", sa.String(200), nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.UniqueConstraint("tournament_id", "key", name="uq_matches_key"),
        sa.UniqueConstraint("tournament_id", "seq", name="uq_matches_seq"),
    )
    op.create_table(
        "results",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "match_id",
            sa.Integer,
            sa.ForeignKey("matches.id", ondelete="CASCADE"),
            nullable=False,
            unique=True,
        ),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("turns", sa.Integer, nullable=False),
        sa.Column("replay", sa.Text, nullable=True),
        sa.Column("wall_seconds", sa.Float, nullable=False),
        sa.Column("finished_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "result_seats",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "result_id",
            sa.Integer,
            sa.ForeignKey("results.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("entrant_id", sa.Integer, sa.ForeignKey("entrants.id"), nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("outcome", sa.String(10), nullable=False),
        sa.Column("forfeit", sa.Boolean, nullable=False),
        sa.Column("forfeit_win", sa.Boolean, nullable=False),
        sa.Column("forfeit_loss", sa.Boolean, nullable=False),
        sa.Column("verdict", sa.Text, nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("move_time", sa.Float, nullable=False),
        sa.UniqueConstraint("result_id", "seat", name="uq_result_seats_seat"),
    )
    op.create_table(
        "rating_updates",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "result_id",
            sa.Integer,
            sa.ForeignKey("results.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("entrant_id", sa.Integer, sa.ForeignKey("entrants.id"), nullable=False),
        sa.Column("system", sa.String(20), nullable=False),
        sa.Column("before", sa.Float, nullable=False),
        sa.Column("after", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=True),
        sa.Column("sigma_after", sa.Float, nullable=True),
        sa.UniqueConstraint("result_id", "entrant_id", "system", name="uq_rating_updates"),
    )


def downgrade() -> None:
    """Drop every table."""
    for table in ("rating_updates", "result_seats", "results", "matches", "entrants"):
        op.drop_table(table)
    op.drop_table("tournaments")

"""The first schema: users, names, blobs, submissions, steps, games and the job queue.

Revision ID: j0001
Revises: none
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "j0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create every table."""
    op.create_table(
        "judge_users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("email", sa.String(254), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("is_admin", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "judge_names",
        sa.Column("key", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(16), nullable=False),
        sa.Column(
            "user_id", sa.Integer, sa.ForeignKey("judge_users.id"), nullable=False, index=True
        ),
        sa.Column("reserved_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "judge_blobs",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("content", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "judge_submissions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "user_id", sa.Integer, sa.ForeignKey("judge_users.id"), nullable=False, index=True
        ),
        sa.Column("name", sa.String(16), nullable=False),
        sa.Column("language", sa.String(32), nullable=False),
        sa.Column("filename", sa.String(200), nullable=False),
        sa.Column(
            "source_sha256", sa.String(64), sa.ForeignKey("judge_blobs.sha256"), nullable=False
        ),
        sa.Column("state", sa.String(20), nullable=False, index=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("updated_at", sa.String(40), nullable=False),
        sa.Column("accepted_at", sa.String(40), nullable=True),
        sa.Column(
            "artifact_sha256", sa.String(64), sa.ForeignKey("judge_blobs.sha256"), nullable=True
        ),
    )
    op.create_table(
        "judge_steps",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "submission_id",
            sa.Integer,
            sa.ForeignKey("judge_submissions.id"),
            nullable=False,
            index=True,
        ),
        sa.Column("job_id", sa.Integer, nullable=False, unique=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("ok", sa.Boolean, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("log", sa.Text, nullable=False),
        sa.Column("cpu_seconds", sa.Float, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "judge_games",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "submission_id",
            sa.Integer,
            sa.ForeignKey("judge_submissions.id"),
            nullable=False,
            index=True,
        ),
        sa.Column(
            "step_id", sa.Integer, sa.ForeignKey("judge_steps.id"), nullable=False, index=True
        ),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("idx", sa.Integer, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("result", sa.String(10), nullable=False),
        sa.Column("replay", sa.Text, nullable=False),
    )
    op.create_table(
        "judge_jobs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column(
            "submission_id",
            sa.Integer,
            sa.ForeignKey("judge_submissions.id"),
            nullable=False,
            index=True,
        ),
        sa.Column("state", sa.String(16), nullable=False, index=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("worker", sa.String(100), nullable=True),
        sa.Column("heartbeat_at", sa.Float, nullable=True),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("started_at", sa.String(40), nullable=True),
        sa.Column("finished_at", sa.String(40), nullable=True),
        sa.Column("error", sa.Text, nullable=False),
        sa.Column("key", sa.String(100), nullable=False, unique=True),
    )


def downgrade() -> None:
    """Drop every table."""
    for table in (
        "judge_jobs",
        "judge_games",
        "judge_steps",
        "judge_submissions",
        "judge_blobs",
        "judge_names",
        "judge_users",
    ):
        op.drop_table(table)

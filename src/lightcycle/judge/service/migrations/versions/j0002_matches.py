"""Part 2 of the judge: matches and their seats, official rounds, friends, ratings.

Adds the tables of friendly matches, official elimination rounds (with the programs each
round snapshotted at its start) and the ladder's ratings; a user's chosen official
program; a submission's one-way public flag; and match jobs in the queue (a job is for a
submission or for a match, so ``submission_id`` may be empty).

Revision ID: j0002
Revises: j0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "j0002"
down_revision: str | None = "j0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create the new tables and columns."""
    op.create_table(
        "judge_rounds",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("number", sa.Integer, nullable=False, unique=True),
        sa.Column("state", sa.String(16), nullable=False, index=True),
        sa.Column("seed", sa.Integer, nullable=False),
        sa.Column("stage", sa.Integer, nullable=False),
        sa.Column("started_by", sa.Integer, sa.ForeignKey("judge_users.id"), nullable=True),
        sa.Column("started_at", sa.String(40), nullable=False),
        sa.Column("finished_at", sa.String(40), nullable=True),
        sa.Column("out_user_id", sa.Integer, sa.ForeignKey("judge_users.id"), nullable=True),
        sa.Column("out_submission_id", sa.Integer, nullable=True),
        sa.Column("out_name", sa.String(16), nullable=True),
        sa.Column("note", sa.Text, nullable=False),
    )
    op.create_table(
        "judge_round_entries",
        sa.Column("round_id", sa.Integer, sa.ForeignKey("judge_rounds.id"), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("judge_users.id"), primary_key=True),
        sa.Column(
            "submission_id", sa.Integer, sa.ForeignKey("judge_submissions.id"), nullable=False
        ),
        sa.Column("name", sa.String(16), nullable=False),
        sa.Column("safe_stage", sa.Integer, nullable=True),
        sa.Column("out", sa.Boolean, nullable=False),
    )
    op.create_table(
        "judge_matches",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(10), nullable=False, index=True),
        sa.Column("state", sa.String(16), nullable=False, index=True),
        sa.Column("created_by", sa.Integer, sa.ForeignKey("judge_users.id"), nullable=True),
        sa.Column(
            "round_id", sa.Integer, sa.ForeignKey("judge_rounds.id"), nullable=True, index=True
        ),
        sa.Column("stage", sa.Integer, nullable=True),
        sa.Column("grp", sa.Integer, nullable=True),
        sa.Column("map", sa.String(200), nullable=False),
        sa.Column("seed", sa.Integer, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("replay", sa.Text, nullable=True),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("finished_at", sa.String(40), nullable=True),
    )
    op.create_table(
        "judge_match_seats",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("judge_matches.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column(
            "submission_id",
            sa.Integer,
            sa.ForeignKey("judge_submissions.id"),
            nullable=True,
            index=True,
        ),
        sa.Column(
            "user_id", sa.Integer, sa.ForeignKey("judge_users.id"), nullable=True, index=True
        ),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("rank", sa.Integer, nullable=True),
        sa.Column("score", sa.Float, nullable=True),
        sa.Column("verdict", sa.String(20), nullable=True),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("turn", sa.Integer, nullable=True),
        sa.Column("cpu_used", sa.Float, nullable=True),
        sa.Column("cpu_limit", sa.Float, nullable=True),
        sa.Column("stderr_tail", sa.Text, nullable=False),
    )
    op.create_table(
        "judge_friends",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("judge_users.id"), primary_key=True),
        sa.Column("friend_id", sa.Integer, sa.ForeignKey("judge_users.id"), primary_key=True),
        sa.Column("created_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "judge_ratings",
        sa.Column(
            "submission_id", sa.Integer, sa.ForeignKey("judge_submissions.id"), primary_key=True
        ),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "judge_settings",
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    with op.batch_alter_table("judge_users") as batch:
        batch.add_column(sa.Column("official_submission_id", sa.Integer, nullable=True))
    with op.batch_alter_table("judge_submissions") as batch:
        batch.add_column(sa.Column("public", sa.Boolean, nullable=False, server_default=sa.false()))
    with op.batch_alter_table("judge_jobs") as batch:
        batch.alter_column("submission_id", existing_type=sa.Integer, nullable=True)
        batch.add_column(sa.Column("match_id", sa.Integer, nullable=True))
        batch.create_foreign_key("fk_judge_jobs_match_id", "judge_matches", ["match_id"], ["id"])
        batch.create_index("ix_judge_jobs_match_id", ["match_id"])


def downgrade() -> None:
    """Drop what `upgrade` added."""
    with op.batch_alter_table("judge_jobs") as batch:
        batch.drop_index("ix_judge_jobs_match_id")
        batch.drop_constraint("fk_judge_jobs_match_id", type_="foreignkey")
        batch.drop_column("match_id")
        batch.alter_column("submission_id", existing_type=sa.Integer, nullable=False)
    with op.batch_alter_table("judge_submissions") as batch:
        batch.drop_column("public")
    with op.batch_alter_table("judge_users") as batch:
        batch.drop_column("official_submission_id")
    for table in (
        "judge_settings",
        "judge_ratings",
        "judge_friends",
        "judge_match_seats",
        "judge_matches",
        "judge_round_entries",
        "judge_rounds",
    ):
        op.drop_table(table)

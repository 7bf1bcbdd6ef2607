"""reviews: the editors' decisions on checked claims, an append-only audit log.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("reviews"):
        return
    op.create_table(
        "reviews",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "investigation_id",
            sa.String(64),
            sa.ForeignKey("investigations.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("fact_check_id", sa.String(64), nullable=False),
        sa.Column("claim_id", sa.String(64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reviewer", sa.Text(), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("verdict_before", sa.String(32), nullable=False),
        sa.Column("verdict_after", sa.String(32), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
    )
    op.create_index("ix_reviews_investigation_id", "reviews", ["investigation_id"])


def downgrade() -> None:
    op.drop_index("ix_reviews_investigation_id", table_name="reviews")
    op.drop_table("reviews")

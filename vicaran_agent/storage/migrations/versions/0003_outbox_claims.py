"""callback_outbox.claimed_by/claimed_until: the lease a delivering replica holds on a row.

Several replicas deliver the outbox: each claims due rows (FOR UPDATE SKIP LOCKED on
PostgreSQL) for a lease, sends them, and clears the claim with the outcome.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A file an unreleased build made may have them already (nullable columns added in place).
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("callback_outbox")}
    if "claimed_by" not in have:
        op.add_column("callback_outbox", sa.Column("claimed_by", sa.String(64), nullable=True))
    if "claimed_until" not in have:
        op.add_column(
            "callback_outbox",
            sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        )


def downgrade() -> None:
    with op.batch_alter_table("callback_outbox") as batch:
        batch.drop_column("claimed_until")
        batch.drop_column("claimed_by")

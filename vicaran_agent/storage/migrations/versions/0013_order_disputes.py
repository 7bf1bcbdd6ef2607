"""timeline_events.order_disputes: claims whose order of events the sources' dates contradict.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    present = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("timeline_events")}
    if "order_disputes" not in present:
        op.add_column("timeline_events", sa.Column("order_disputes", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("timeline_events") as batch:
        batch.drop_column("order_disputes")

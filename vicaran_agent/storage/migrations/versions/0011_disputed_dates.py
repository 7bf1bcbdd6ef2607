"""timeline_events.disputed_dates: other dates the sources give the same happening.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    present = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("timeline_events")}
    if "disputed_dates" not in present:
        op.add_column("timeline_events", sa.Column("disputed_dates", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("timeline_events") as batch:
        batch.drop_column("disputed_dates")

"""documents.reliability: a chat attachment's own reliability.

A `Reliability: high` line in the message a file was attached with rates that file; NULL (every
file before this revision, and every file `vicaran docs add` indexes) reads its collection's.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    present = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("documents")}
    if "reliability" not in present:
        op.add_column("documents", sa.Column("reliability", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("documents") as batch:
        batch.drop_column("reliability")

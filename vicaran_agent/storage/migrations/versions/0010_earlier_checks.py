"""claims.earlier_checks: the same claim checked by earlier investigations of this store.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    present = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("claims")}
    if "earlier_checks" not in present:
        op.add_column("claims", sa.Column("earlier_checks", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("claims") as batch:
        batch.drop_column("earlier_checks")

"""investigations.tokens: model tokens and estimated cost of an investigation.

Databases made by the code between the baseline and migrations may have it already (the
repository added missing nullable columns in place): it is added only when absent.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _has_tokens() -> bool:
    columns = sa.inspect(op.get_bind()).get_columns("investigations")
    return any(column["name"] == "tokens" for column in columns)


def upgrade() -> None:
    if not _has_tokens():
        op.add_column("investigations", sa.Column("tokens", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("investigations") as batch:
        batch.drop_column("tokens")

"""claims.kind/attributed_to and evidence.primary_record: what a claim is about, who is quoted,
and which evidence item is the quoted party's own record.

`kind` is `attribution` (that someone said, found, decided or did something) or `fact`; rows
saved before this revision read as facts with nobody quoted, and their evidence as no one's own
record.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

COLUMNS = {
    "claims": (
        sa.Column("kind", sa.String(16), nullable=True),
        sa.Column("attributed_to", sa.Text(), nullable=True),
    ),
    "evidence": (sa.Column("primary_record", sa.Boolean(), nullable=True),),
}


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    for table, columns in COLUMNS.items():
        # A file an unreleased build made may have them already (added in place).
        have = {c["name"] for c in inspector.get_columns(table)}
        for column in columns:
            if column.name not in have:
                op.add_column(table, column)


def downgrade() -> None:
    for table, columns in COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.drop_column(column.name)

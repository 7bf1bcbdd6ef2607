"""page_captures: the web archive (WARC records) of each page Vicaran read.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("page_captures"):
        return
    op.create_table(
        "page_captures",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("investigation_id", sa.String(64), nullable=False),
        sa.Column("url_key", sa.Text(), nullable=False),
        sa.Column("via", sa.String(16), nullable=False),
        sa.Column("captured_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("records", sa.LargeBinary(), nullable=False),
    )
    op.create_index("ix_page_captures_investigation_id", "page_captures", ["investigation_id"])


def downgrade() -> None:
    op.drop_index("ix_page_captures_investigation_id", table_name="page_captures")
    op.drop_table("page_captures")

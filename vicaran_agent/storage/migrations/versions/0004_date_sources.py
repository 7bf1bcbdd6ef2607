"""sources/evidence.published_at_source: who states each publication date.

`metadata` (the page's own), `search` (Tavily's news date), `review` (a fact-check), `document`
or `gazette`. Rows saved before this revision keep their date with the source unknown.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TABLES = ("sources", "evidence")


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    for table in TABLES:
        # A file an unreleased build made may have it already (added in place).
        if not any(c["name"] == "published_at_source" for c in inspector.get_columns(table)):
            op.add_column(table, sa.Column("published_at_source", sa.String(16), nullable=True))


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("published_at_source")

"""sources.unreachable_detail: the technical reason a page could not be read.

`unreachable_reason` says it in the journalist's words ("the site could not be found"); the
detail (each step's answer: Jina Reader's status, the direct fetch's DNS error) is kept beside it
for the dashboard's "details" and `vicaran investigate --verbose`. Rows read before this revision
keep their reason as it was and no detail.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    present = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("sources")}
    if "unreachable_detail" not in present:
        op.add_column("sources", sa.Column("unreachable_detail", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("sources") as batch:
        batch.drop_column("unreachable_detail")

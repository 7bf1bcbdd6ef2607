"""collections.owner and collections.investigation_id: whose chat attachments a collection holds.

A collection made with `vicaran docs add` stays the operator's and shared (both NULL). A
collection made from chat attachments before this revision was named `investigation-` and the
first 8 hex digits of its investigation's id, and kept no owner: anyone who wrote that name in a
brief read it. Such a collection is given the full id of the one investigation whose id starts
with those digits, so that only a conversation of that very investigation (a full id nobody can
guess) reads it; when no record or several match, it keeps the 8 digits, which no conversation's
id equals: only the operator (`vicaran docs`) reads it then. Its owner stays unknown (NULL).

Numbered 0006: another branch's 0005 may come first; this one needs only 0004.

Revision ID: 0006
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

COLUMNS = (("owner", sa.String(255)), ("investigation_id", sa.String(64)))
OLD_PREFIX = "investigation-"
OLD_DIGITS = 8
HEX = frozenset("0123456789abcdef")


def upgrade() -> None:
    bind = op.get_bind()
    present = {c["name"] for c in sa.inspect(bind).get_columns("collections")}
    for name, kind in COLUMNS:
        if name not in present:  # a file an unreleased build made may have it already
            op.add_column("collections", sa.Column(name, kind, nullable=True))
    collections = sa.table(
        "collections",
        sa.column("name", sa.String),
        sa.column("owner", sa.String),
        sa.column("investigation_id", sa.String),
    )
    investigations = sa.table("investigations", sa.column("id", sa.String))
    rows = bind.execute(
        sa.select(collections.c.name).where(
            collections.c.name.like(OLD_PREFIX + "%"),
            collections.c.investigation_id.is_(None),
            collections.c.owner.is_(None),
        )
    ).scalars()
    for name in list(rows):
        digits = _old_digits(name)
        if digits is None:
            continue  # an operator's collection that happens to start like one
        ids = bind.execute(
            sa.select(investigations.c.id).where(investigations.c.id.like(digits + "-%")).limit(2)
        ).scalars()
        matches = list(ids)
        bind.execute(
            collections.update()
            .where(collections.c.name == name)
            .values(investigation_id=matches[0] if len(matches) == 1 else digits)
        )


def _old_digits(name: str) -> str | None:
    """The 8 hex digits of an old attachment collection's name, else None."""
    digits = name[len(OLD_PREFIX) :]
    if len(digits) == OLD_DIGITS and set(digits) <= HEX:
        return digits
    return None


def downgrade() -> None:
    with op.batch_alter_table("collections") as batch:
        for name, _ in COLUMNS:
            batch.drop_column(name)

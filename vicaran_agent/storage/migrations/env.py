"""Alembic's entry point: runs on the connection `vicaran_agent.storage.migrate` hands over."""

from __future__ import annotations

from alembic import context

from vicaran_agent.storage.migrate import include_object
from vicaran_agent.storage.tables import metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    # SQLite alters a table by copying it: future revisions use op.batch_alter_table.
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
    include_object=include_object,
)
with context.begin_transaction():
    context.run_migrations()

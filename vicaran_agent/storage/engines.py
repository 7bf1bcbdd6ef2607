"""The records store's SQLAlchemy engines: SQLite configured as the repository needs it (foreign
keys, busy timeout, WAL, BEGIN IMMEDIATE for writes); PostgreSQL as SQLAlchemy makes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool

SQLITE_BUSY_TIMEOUT_SECONDS = 30


def create_engine_for(database_url: str) -> tuple[Engine, bool]:
    """The engine for `database_url` and whether it is an in-memory SQLite database."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite":
        return create_engine(url), False
    database = url.database or ""
    memory = database in ("", ":memory:") or url.query.get("mode") == "memory"
    kwargs: dict[str, Any] = {
        "connect_args": {"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_SECONDS}
    }
    if memory:
        kwargs["poolclass"] = StaticPool
    elif not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, **kwargs)
    _configure_sqlite(engine, wal=not memory)
    return engine, memory


def sqlite_engine(database_url: str) -> Engine:
    """A SQLite engine configured as the repository's, writing with BEGIN IMMEDIATE."""
    return create_engine_for(database_url)[0].execution_options(vicaran_write=True)


def _configure_sqlite(engine: Engine, *, wal: bool) -> None:
    """Foreign keys, busy timeout, WAL, and BEGIN IMMEDIATE for writes (no upgrade deadlocks)."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (below)
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_SECONDS * 1000}")
        cursor.execute("PRAGMA foreign_keys = ON")
        if wal:
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        write = connection.get_execution_options().get("vicaran_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

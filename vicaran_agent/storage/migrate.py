"""Schema migrations of the records store (Alembic, configured here: no alembic.ini).

SQLite databases are upgraded when a Repository opens them; PostgreSQL only by
`vicaran db upgrade`. A database made before migrations existed (tables, no `alembic_version`)
has the baseline schema: it is stamped with the baseline, then upgraded.

Alembic is imported only to migrate: a database already at head is told so by its
`alembic_version` row and the revision files' names (`NNNN_*.py`, one line of history), so
opening a store (and every `vicaran` command) starts without it.
"""

from __future__ import annotations

import functools
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from sqlalchemy import Connection, Engine, create_engine, inspect, text
from sqlalchemy.engine import make_url

from vicaran_agent.i18n import message
from vicaran_agent.storage.engines import sqlite_engine
from vicaran_agent.storage.tables import metadata

if TYPE_CHECKING:
    from alembic.config import Config

logger = logging.getLogger(__name__)

SCRIPT_LOCATION = Path(__file__).with_name("migrations")
BASELINE = "0001"  # the schema of commit 6b66a77, the last one made without migrations
UPGRADE_COMMAND = "vicaran db upgrade"
_LEGACY_MARK = "investigations"  # a table every pre-migration database has
_FULL_TEXT = ("passages_fts", "ix_passages_text")  # SQLite FTS5 tables, PostgreSQL GIN index

# Alembic's `context` and `op` are module-wide proxies: one migration at a time per process.
_ALEMBIC = threading.RLock()
_PG_LOCK = 0x76_69_63_61  # pg_advisory_xact_lock key of Vicaran's migrations ("vica")

State = Literal["current", "empty", "unversioned", "behind", "unknown"]


class SchemaOutdated(RuntimeError):
    """The database's schema is not the one this Vicaran needs (PostgreSQL is never migrated
    implicitly); `str()` names the command that upgrades it."""

    def __init__(self, state: State, revision: str | None, needed: str) -> None:
        self.state = state
        self.revision = revision
        self.needed = needed
        super().__init__(outdated_message(state, revision, needed, "en"))


def outdated_message(state: State, revision: str | None, needed: str, language: str) -> str:
    """What is wrong with the schema and what to run, in `language`."""
    key = {"empty": "db_empty", "unknown": "db_unknown"}.get(state, "db_outdated")
    return message(key, language, revision=revision or "-", head=needed, command=UPGRADE_COMMAND)


@functools.cache
def _revisions() -> tuple[str, ...]:
    """Every revision, oldest first, from the files' names (`0006_collection_owners.py`)."""
    names = (p.name.split("_", 1)[0] for p in (SCRIPT_LOCATION / "versions").glob("*.py"))
    return tuple(sorted(name for name in names if name.isdigit()))


def head() -> str:
    """The revision this code's tables need."""
    return _revisions()[-1]


def _config(connection: Connection) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    config.attributes["connection"] = connection
    return config


def _engine(target: str | Engine) -> tuple[Engine, bool]:
    """(engine, whether it was made here and must be disposed)."""
    if isinstance(target, Engine):
        return target, False
    url = make_url(target)
    if url.get_backend_name() == "sqlite":
        # The repository's own engine: foreign keys, busy timeout, transactional DDL.
        return sqlite_engine(target), True
    return create_engine(url), True


def _revision(connection: Connection) -> str | None:
    if not inspect(connection).has_table("alembic_version"):
        return None
    rows = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    if len(rows) > 1:
        raise RuntimeError(f"alembic_version holds several revisions: {', '.join(rows)}")
    return rows[0] if rows else None


def _state(connection: Connection) -> tuple[State, str | None]:
    revision = _revision(connection)
    if revision is None:
        legacy = inspect(connection).has_table(_LEGACY_MARK)
        return ("unversioned" if legacy else "empty"), None
    if revision == head():
        return "current", revision
    return ("behind" if revision in _revisions() else "unknown"), revision


def status(target: str | Engine) -> tuple[State, str | None]:
    """(state, current revision) of the database at `target` (a URL or an engine)."""
    engine, own = _engine(target)
    try:
        with engine.connect() as connection:
            return _state(connection)
    finally:
        if own:
            engine.dispose()


def current(target: str | Engine) -> str | None:
    """The database's revision (None: never migrated)."""
    return status(target)[1]


def is_current(target: str | Engine) -> bool:
    """Whether the database has exactly the schema this code needs."""
    return status(target)[0] == "current"


def require_current(target: str | Engine) -> None:
    """Raise SchemaOutdated unless the database is at head."""
    state, revision = status(target)
    if state != "current":
        raise SchemaOutdated(state, revision, head())


def upgrade(target: str | Engine, revision: str = "head") -> tuple[str | None, str | None]:
    """Upgrade the database to `revision` in one transaction; (revision before, after).

    A database from before migrations (tables, no version) is stamped with the baseline first.
    """
    engine, own = _engine(target)
    try:
        state, before = status(engine)
        if state == "current" and revision == "head":
            return before, before
        if state == "unknown":
            raise SchemaOutdated(state, before, head())
        from alembic import command

        with _ALEMBIC, engine.begin() as connection:
            if connection.dialect.name == "postgresql":  # one migrating process at a time
                connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_PG_LOCK})")
            config = _config(connection)
            # Re-read under the lock: another process may have migrated meanwhile.
            state, before = _state(connection)
            if state == "unversioned":
                _adopt(connection)
                command.stamp(config, BASELINE)
            command.upgrade(config, revision)
            return before, _revision(connection)
    finally:
        if own:
            engine.dispose()


@functools.cache
def _baseline_columns() -> dict[str, dict[str, bool]]:
    """{table: {column: nullable}} of the baseline, as revision 0001 creates it."""
    from alembic import command

    engine = create_engine("sqlite://")
    with _ALEMBIC, engine.begin() as connection:
        command.upgrade(_config(connection), BASELINE)
        found = inspect(connection)
        tables = {
            table: {column["name"]: column["nullable"] for column in found.get_columns(table)}
            for table in found.get_table_names()
            if table != "alembic_version"
        }
    engine.dispose()
    return tables


def _adopt(connection: Connection) -> None:
    """Bring a database older than the baseline to it: its nullable columns added in place."""
    found = inspect(connection)
    have = set(found.get_table_names())
    for table, columns in _baseline_columns().items():
        model = metadata.tables.get(table)
        if table not in have or model is None:
            continue  # a table the baseline creates anew is not the upgrade's to add here
        present = {column["name"] for column in found.get_columns(table)}
        for name, nullable in columns.items():
            if name in present or not nullable or name not in model.columns:
                continue
            kind = model.columns[name].type.compile(dialect=connection.dialect)
            connection.exec_driver_sql(f'ALTER TABLE {table} ADD COLUMN "{name}" {kind}')
            logger.info("added column %s.%s of the baseline schema", table, name)


def include_object(
    item: object, name: str | None, kind: str, reflected: bool, compare_to: object
) -> bool:
    """What migrations manage: not the documents' full-text index (documents.store makes it)."""
    del item, kind, compare_to
    return not (reflected and name is not None and name.startswith(_FULL_TEXT))

"""The records-store matrix: SQLite always, PostgreSQL when VICARAN_TEST_POSTGRES_URL names a server.

Each PostgreSQL test gets its own schema (dropped afterwards), selected through the URL's
`search_path`, so a test sees empty tables and its URL (the repository cache key) is its own.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from graphlib import TopologicalSorter
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from sqlalchemy.engine import make_url

if TYPE_CHECKING:
    import psycopg

# Read once at import: the `env` fixture clears every VICARAN_* variable for the test itself.
POSTGRES_URL = os.environ.get("VICARAN_TEST_POSTGRES_URL", "")
BACKENDS = ("sqlite", "postgresql")
SKIP_REASON = (
    "PostgreSQL side of the records matrix: set VICARAN_TEST_POSTGRES_URL "
    "(e.g. postgresql+psycopg://vicaran:vicaran@127.0.0.1:5432/vicaran_test; .ci/run does)"
)


_SQLITE_TEMPLATE: Path | None = None


def migrated_sqlite(path: Path) -> str:
    """The URL of an empty records store at `path`, at the current revision: a copy of one this
    process migrated once (the migrations cost 55 ms of CPU a store, and most tests want one).
    Tests of the migrations themselves open stores of their own."""
    global _SQLITE_TEMPLATE
    if _SQLITE_TEMPLATE is None or not _SQLITE_TEMPLATE.exists():
        from vicaran_agent.storage.repository import get_repository

        template = Path(tempfile.mkdtemp(prefix="vicaran-template-")) / "vicaran.db"
        get_repository(f"sqlite:///{template}").close()  # closed: the WAL folded in
        _SQLITE_TEMPLATE = template
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_SQLITE_TEMPLATE, path)
    return f"sqlite:///{path}"


@contextmanager
def postgres_schema(
    server_url: str, prefix: str, drivername: str | None = None
) -> Iterator[tuple[str, str]]:
    """(schema, URL) of a fresh schema on `server_url`, selected by the URL's `search_path`;
    dropped (with everything in it) after the block."""
    import psycopg  # the `postgres` extra

    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    base = make_url(server_url)
    admin = _admin_url(server_url)
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    url = base.set(drivername=drivername or base.drivername)
    url = url.update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield schema, url.render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


@contextmanager
def records_database(backend: str, tmp_path: Path, *, migrated: bool = True) -> Iterator[str]:
    """A URL of an empty records database on `backend`, gone after the block.

    A PostgreSQL schema is upgraded to the current revision first (`vicaran db upgrade`), unless
    `migrated` is false (an empty schema); SQLite upgrades itself when a Repository opens it.
    """
    if backend == "sqlite":
        path = tmp_path / "records" / "vicaran.db"
        yield migrated_sqlite(path) if migrated else f"sqlite:///{path}"
        return
    if not POSTGRES_URL:
        pytest.skip(SKIP_REASON)
    if migrated:
        with _migrated_postgres_schema() as url:
            yield url
        return
    with postgres_schema(POSTGRES_URL, "t") as (schema, url):
        try:
            yield url
        finally:
            _close_repositories_of(schema)


def _close_repositories_of(schema: str) -> None:
    from vicaran_agent import services

    for key, repository in list(services.current().repositories.items()):
        if schema in key:
            repository.close()


# Migrated schemas this process emptied and may hand out again, with their shape when new.
_SCHEMA_POOL: list[tuple[str, str]] = []
_SCHEMA_SHAPE: dict[str, tuple[int, str]] = {}
_SHAPE = (
    "SELECT count(*) FROM pg_attribute JOIN pg_class ON pg_class.oid = attrelid "
    "WHERE relnamespace = %s::regnamespace AND attnum > 0 AND NOT attisdropped"
)


def _admin_url(server_url: str = "") -> str:
    """`server_url` (the tests' server by default) for psycopg itself."""
    url = make_url(server_url or POSTGRES_URL).set(drivername="postgresql")
    return url.render_as_string(hide_password=False)


@contextmanager
def _migrated_postgres_schema() -> Iterator[str]:
    """A URL of an empty schema at the current revision. Migrating a new schema costs 0.2 s, so
    a schema is emptied (TRUNCATE) after its test and handed to the next one, unless the test
    changed its shape or left it locked (then it is dropped). Each URL is the test's own (the
    stores are cached by URL): `application_name` differs."""
    import psycopg

    if _SCHEMA_POOL:
        schema, base = _SCHEMA_POOL.pop()
    else:
        schema = f"t_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(_admin_url(), autocommit=True) as connection:
            connection.execute(f"CREATE SCHEMA {schema}")
        base = make_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schema}"})
        base = base.render_as_string(hide_password=False)
        from vicaran_agent.storage import migrate

        migrate.upgrade(base)
        with psycopg.connect(_admin_url(), autocommit=True) as connection:
            shape = connection.execute(_SHAPE, (schema,)).fetchone()[0]
            _SCHEMA_SHAPE[schema] = shape, _emptying(connection, schema)
    url = make_url(base).update_query_dict({"application_name": f"test-{uuid.uuid4().hex[:8]}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        _close_repositories_of(schema)
        if _emptied(schema):
            _SCHEMA_POOL.append((schema, base))
        else:
            with psycopg.connect(_admin_url(), autocommit=True) as connection:
                connection.execute(f"DROP SCHEMA {schema} CASCADE")


def _emptied(schema: str) -> bool:
    """Whether `schema` is now empty (its sequences restarted) and still of its migrated shape.

    DELETE, not TRUNCATE: on tables this small TRUNCATE's new files cost 50 ms a test (150 ms
    beside other work), DELETE 2 ms; all of it is one round trip."""
    import psycopg

    shape, emptying = _SCHEMA_SHAPE[schema]
    try:
        with psycopg.connect(_admin_url(), autocommit=True) as connection:
            cursor = connection.execute(emptying)
            while cursor.nextset():
                pass
            return cursor.fetchone() == (shape,)
    except psycopg.Error:
        return False


def _emptying(connection: psycopg.Connection, schema: str) -> str:
    """The statements that empty `schema` (referencing tables first) and restart its sequences,
    then count its columns (`_SHAPE`)."""
    order = TopologicalSorter[str]()
    for (name,) in connection.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = %s AND tablename <> 'alembic_version'",
        (schema,),
    ).fetchall():
        order.add(name)
    for child, parent in connection.execute(
        "SELECT c.relname, p.relname FROM pg_constraint f JOIN pg_class c ON c.oid = f.conrelid "
        "JOIN pg_class p ON p.oid = f.confrelid WHERE f.contype = 'f' "
        "AND f.connamespace = %s::regnamespace AND c.oid <> p.oid",
        (schema,),
    ).fetchall():
        order.add(parent, child)
    sequences = connection.execute(
        "SELECT relname FROM pg_class WHERE relkind = 'S' AND relnamespace = %s::regnamespace",
        (schema,),
    ).fetchall()
    return "; ".join(
        [
            "SET lock_timeout = '2s'",
            "SET synchronous_commit = off",
            "BEGIN",
            *(f"DELETE FROM {schema}.{table}" for table in order.static_order()),
            *(f"ALTER SEQUENCE {schema}.{name} RESTART" for (name,) in sequences),
            "COMMIT",
            _SHAPE.replace("%s", f"'{schema}'"),
        ]
    )


@atexit.register
def _drop_pooled_schemas() -> None:
    if not _SCHEMA_POOL:
        return
    import psycopg

    with psycopg.connect(_admin_url(), autocommit=True) as connection:
        for schema, _ in _SCHEMA_POOL:
            connection.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@contextmanager
def sessions_database(backend: str, tmp_path: Path) -> Iterator[str]:
    """A URL of an empty ADK session store on `backend` (`--session_service_uri`), gone after.

    PostgreSQL: a schema of its own through the async psycopg driver, which (unlike asyncpg)
    takes `options=-csearch_path=...` from the URL.
    """
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'sessions.db'}"
        return
    if not POSTGRES_URL:
        pytest.skip(SKIP_REASON)
    with postgres_schema(POSTGRES_URL, "s", drivername="postgresql+psycopg") as (_, url):
        yield url

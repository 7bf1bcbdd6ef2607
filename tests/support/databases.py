"""The records-store matrix: SQLite always, PostgreSQL when VICARAN_TEST_POSTGRES_URL names a server.

Each PostgreSQL test gets its own schema (dropped afterwards), selected through the URL's
`search_path`, so a test sees empty tables and its URL (the repository cache key) is its own.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

# Read once at import: the `env` fixture clears every VICARAN_* variable for the test itself.
POSTGRES_URL = os.environ.get("VICARAN_TEST_POSTGRES_URL", "")
BACKENDS = ("sqlite", "postgresql")
SKIP_REASON = (
    "PostgreSQL side of the records matrix: set VICARAN_TEST_POSTGRES_URL "
    "(e.g. postgresql+psycopg://vicaran:vicaran@127.0.0.1:5432/vicaran_test; .ci/run does)"
)


@contextmanager
def postgres_schema(
    server_url: str, prefix: str, drivername: str | None = None
) -> Iterator[tuple[str, str]]:
    """(schema, URL) of a fresh schema on `server_url`, selected by the URL's `search_path`;
    dropped (with everything in it) after the block."""
    import psycopg  # the `postgres` extra

    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    base = make_url(server_url)
    admin = base.set(drivername="postgresql").render_as_string(hide_password=False)
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
        yield f"sqlite:///{tmp_path / 'records' / 'vicaran.db'}"
        return
    if not POSTGRES_URL:
        pytest.skip(SKIP_REASON)
    with postgres_schema(POSTGRES_URL, "t") as (schema, url):
        try:
            if migrated:
                from vicaran_agent.storage import migrate

                migrate.upgrade(url)
            yield url
        finally:
            from vicaran_agent.storage.repository import _REPOSITORIES

            for key, repository in list(_REPOSITORIES.items()):
                if schema in key:
                    repository.close()


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

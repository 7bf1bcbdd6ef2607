"""The records database every part of the repository writes and reads through: one
transaction per call, safe from several threads; the status rules of a run (`effective_status`).

Writers work through ORM sessions (`_write`, `_read`); readers through Core connections
(`_query`), so what only reads (the `vicaran` commands, the read API) never loads the ORM."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError

from vicaran_agent.config import get_settings
from vicaran_agent.storage import migrate
from vicaran_agent.storage.engines import create_engine_for

if TYPE_CHECKING:
    from sqlalchemy.engine import Row
    from sqlalchemy.orm import Session

    from vicaran_agent.storage.rows import InvestigationRow

logger = logging.getLogger(__name__)

FinalStatus = Literal["completed", "partial", "failed"]
FINISHED = ("completed", "partial", "failed", "interrupted")
T = TypeVar("T")

_WRITE_ATTEMPTS = 3  # an IntegrityError from a concurrent insert is retried as an update

STOPPED = "The process running this investigation stopped before it finished."


class UnknownInvestigationError(KeyError):
    """A save named an investigation that was never started."""


class InvestigationFinishedError(Exception):
    """A finished investigation is never reopened."""

    def __init__(self, investigation_id: str, status: str) -> None:
        super().__init__(investigation_id)
        self.investigation_id = investigation_id
        self.status = status


class InvestigationTakenError(Exception):
    """The investigation id belongs to another conversation."""

    def __init__(self, investigation_id: str, status: str) -> None:
        super().__init__(investigation_id)
        self.investigation_id = investigation_id
        self.status = status


class RecordsDatabase:
    """The engine and its transactions (one per database URL: see `repository`)."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self._sqlite = make_url(database_url).get_backend_name() == "sqlite"
        self._lock: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
        self._engine, memory = create_engine_for(database_url)
        if memory:  # one shared connection: every call is serialized by a lock
            self._lock = threading.RLock()
        self._writer: Engine = self._engine
        if self._sqlite:
            self._writer = self._engine.execution_options(vicaran_write=True)
            migrate.upgrade(self._writer)  # SQLite: always at the schema this code needs
        else:
            try:  # PostgreSQL: only `vicaran db upgrade` migrates
                migrate.require_current(self._engine)
            except BaseException:
                self._engine.dispose()
                raise

    def dispose(self) -> None:
        """Close the database connections."""
        self._engine.dispose()

    # --- transactions ----------------------------------------------------------------------

    def _write(self, operation: Callable[[Session], T]) -> T:
        """Run `operation` in one write transaction (retried if a concurrent insert won)."""
        from sqlalchemy.orm import Session

        attempt = 0
        while True:
            try:
                with self._lock, Session(self._writer) as session, session.begin():
                    return operation(session)
            except IntegrityError:
                attempt += 1
                if attempt >= _WRITE_ATTEMPTS:
                    raise
                logger.info("retrying a store write after a concurrent insert")

    def _read(self, operation: Callable[[Session], T]) -> T:
        """Run `operation` in one read transaction (a consistent snapshot)."""
        from sqlalchemy.orm import Session

        with self._lock, Session(self._engine) as session, session.begin():
            return operation(session)

    def _query(self, operation: Callable[[Connection], T]) -> T:
        """`_read` without the ORM: `operation` gets a Core connection (tables.py)."""
        with self._lock, self._engine.connect() as connection, connection.begin():
            return operation(connection)

    def query(self, operation: Callable[[Connection], T]) -> T:
        """`_query` for other stores that keep their tables in this database (documents)."""
        return self._query(operation)

    def change(self, operation: Callable[[Connection], T]) -> T:
        """One write transaction without the ORM, for other stores that keep their tables in
        this database (documents)."""
        with self._lock, self._writer.connect() as connection, connection.begin():
            return operation(connection)

    def write(self, operation: Callable[[Session], T]) -> T:
        """`_write` for other stores that keep their tables in this database (documents)."""
        return self._write(operation)

    def read(self, operation: Callable[[Session], T]) -> T:
        """`_read` for other stores that keep their tables in this database (documents)."""
        return self._read(operation)

    @property
    def dialect(self) -> str:
        """The database's SQLAlchemy dialect name ("sqlite", "postgresql", ...)."""
        return self._engine.dialect.name


def aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def is_stale(
    row: InvestigationRow | Row[Any], now: datetime, stale_seconds: float | None = None
) -> bool:
    """A run of this deployment (it has a conversation) that has shown no sign of life.

    Investigations another agent reports through the callback API have no conversation here:
    their liveness is not this store's to judge.
    """
    if row.session_id is None:
        return False
    limit = get_settings().stale_seconds if stale_seconds is None else stale_seconds
    seen = [aware(t) for t in (row.heartbeat_at, row.updated_at) if t is not None]
    return not seen or (now - max(seen)).total_seconds() > limit


def effective_status(row: InvestigationRow | Row[Any], now: datetime) -> str:
    """The status as readers should see it: a run nobody is running is not live."""
    if row.status == "in_progress" and is_stale(row, now):
        return "interrupted"
    return row.status

"""The records store: one small synchronous repository over SQLAlchemy 2, made of its parts
(one module each): `records` (the investigation and its records), `heartbeats` (liveness),
`idempotency` (callback replies), `snapshots` (the texts read), `deliveries` (the outbox),
`reads` (what readers get), `reviews` (the editors' decisions, an audit log), `memory`
(earlier checks of the same claims) and `archives` (the web archive of the pages read), over
`base.RecordsDatabase` (the engine and its transactions).

Every save method is one transaction (a batch) and is safe to call from several threads
(callers run it through `asyncio.to_thread`). SQLite is the default; PostgreSQL works too.
"""

from __future__ import annotations

from vicaran_agent import services
from vicaran_agent.storage.archives import Archives
from vicaran_agent.storage.base import (
    FINISHED,
    STOPPED,
    FinalStatus,
    InvestigationFinishedError,
    InvestigationTakenError,
    UnknownInvestigationError,
)
from vicaran_agent.storage.deliveries import Deliveries
from vicaran_agent.storage.heartbeats import Heartbeats
from vicaran_agent.storage.idempotency import IDEMPOTENCY_PENDING, Idempotency
from vicaran_agent.storage.memory import Memory
from vicaran_agent.storage.reads import Reads
from vicaran_agent.storage.records import Records
from vicaran_agent.storage.reviews import Reviews
from vicaran_agent.storage.snapshots import Snapshots

__all__ = [
    "FINISHED",
    "IDEMPOTENCY_PENDING",
    "STOPPED",
    "FinalStatus",
    "InvestigationFinishedError",
    "InvestigationTakenError",
    "Repository",
    "UnknownInvestigationError",
    "get_repository",
]


class Repository(
    Records, Heartbeats, Idempotency, Snapshots, Deliveries, Reads, Reviews, Memory, Archives
):
    """Saves and reads investigation records; one instance per database URL."""

    def close(self) -> None:
        """Release the connections (and forget this instance in the per-URL cache)."""
        shared = services.current()
        with shared.lock:
            if shared.repositories.get(self.database_url) is self:
                del shared.repositories[self.database_url]
        self.dispose()


def get_repository(database_url: str) -> Repository:
    """The Repository for `database_url` the process shares (created on first use)."""
    shared = services.current()
    with shared.lock:
        repository = shared.repositories.get(database_url)
        if repository is None:
            repository = shared.repositories[database_url] = Repository(database_url)
        return repository

"""What one Vicaran process shares, in one container.

The settings, the records stores (one per database URL) and their readers, the document stores, the per-service request
budgets, the running investigations' runtimes, Querido Diário's city lists, the runs detached
from their requests, the investigations this process runs, the outbox's deliverer of each event
loop, the model clients of each loop, the parse pools, and whether the start-up warning was
given: each used to be a global of its own module. They are the fields of one `Services`.

A server is handed its container (`build_server(services=...)`) and runs every request, its
lifespan and the tasks they start (detached runs, the outbox's deliverer) with it: `serving(services)`
makes it current for that context only, so two servers in one process keep apart. Outside any
server, `current()` is the process's container; `use(services)` puts another in its place for a
block (a test's own, so that nothing one test opens or counts is seen by the next; threads see it
too) and puts the previous one back. A `Services` is plain state with a lock: it imports nothing
of Vicaran's, so every module can ask it without an import cycle.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from google.adk.models import BaseLlm

    from .clients.gazette_data import City
    from .clients.ratelimit import RateLimiter
    from .clock import Clock
    from .config import Settings
    from .delivery import Background
    from .documents.store import DocumentStore
    from .runtime import InvestigationRuntime
    from .storage.reads import Reads
    from .storage.repository import Repository
    from .workers.pool import WorkerPool


@dataclass
class Services:
    """Everything one process (or one test) shares; see the module's docstring."""

    repositories: dict[str, Repository] = field(default_factory=dict)
    readers: dict[str, Reads] = field(default_factory=dict)  # where no repository is open
    document_stores: dict[str, DocumentStore] = field(default_factory=dict)
    limiters: dict[tuple[str, int, float, int | None, Clock], RateLimiter] = field(
        default_factory=dict
    )
    runtimes: dict[str, InvestigationRuntime] = field(default_factory=dict)
    city_lists: dict[str, tuple[City, ...]] = field(default_factory=dict)
    detached_runs: set[asyncio.Task[None]] = field(default_factory=set)  # kept from collection
    running: set[str] = field(default_factory=set)  # investigations this process runs now
    last_sweep: dict[Clock, float] = field(default_factory=dict)  # by each clock
    deliverers: dict[asyncio.AbstractEventLoop, Background] = field(default_factory=dict)
    llms: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, BaseLlm]] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    parse_pools: dict[tuple[int, int], WorkerPool] = field(default_factory=dict)
    start_warned: bool = False
    dashboard_served: bool = False  # a Vicaran server (`vicaran serve`) was built with it
    sample_data: bool = False  # `vicaran demo`: every page says it shows sample data
    settings: Settings | None = None  # read from the environment when first asked for
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def close(self) -> None:
        """Release the database connections this container opened."""
        with self.lock:
            repositories = list(self.repositories.values())
            readers = list(self.readers.values())
            self.repositories.clear()
            self.readers.clear()
            self.document_stores.clear()
        for repository in repositories:
            repository.close()
        for reader in readers:
            reader.dispose()


_current = Services()
_served: ContextVar[Services | None] = ContextVar("vicaran_services", default=None)


def current() -> Services:
    """The container of the work running now: its server's, else the process's."""
    return _served.get() or _current


@contextmanager
def serving(services: Services) -> Iterator[Services]:
    """`services` for this context (and the tasks and `to_thread` calls started from it)."""
    token = _served.set(services)
    try:
        yield services
    finally:
        _served.reset(token)


@contextmanager
def use(services: Services) -> Iterator[Services]:
    """`services` in place of the current container for the block; the previous one after."""
    global _current
    previous, _current = _current, services
    try:
        yield services
    finally:
        _current = previous

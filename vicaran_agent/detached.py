"""A run that belongs to the server, not to the request that started it.

ADK drives an agent from the request's generator: when an SSE client disconnects (a closed
tab, a network blip) the request is cancelled and so is everything it iterates. A `DetachedRun`
iterates the investigation's events in its own task instead, and hands them to the request in
order. An event that changes state is handed over and waited for (the request has taken it, so
every stage still sees the state the previous ones wrote); a plain progress line is queued and
the run goes on. When the request goes away, the run goes on and appends its events
to the session itself; reopening the session shows its progress and report.

Why not ADK resumability: resuming needs the client to come back and ask (with the invocation
id), and the tools run again on resume. Here nothing is asked of the client.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field

from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event
from google.adk.sessions import BaseSessionService, Session
from google.adk.sessions.base_session_service import GetSessionConfig

from . import services

logger = logging.getLogger(__name__)


@dataclass
class _Item:
    event: Event
    taken: asyncio.Event = field(default_factory=asyncio.Event)
    orphaned: bool = False  # the request went away before it had taken the event


_DONE = object()


class DetachedRun:
    """Runs `source` in its own task; `events()` relays it while someone listens."""

    def __init__(self, source: AsyncGenerator[Event, None], ctx: InvocationContext) -> None:
        self._source = source
        self._ctx = ctx
        self._queue: asyncio.Queue[_Item | object] = asyncio.Queue()
        self._listening = True
        self._left: list[_Item] = []  # events the request did not take, for the run
        self._task = asyncio.create_task(self._pump())
        runs = services.current().detached_runs  # strong references: never collected mid-run
        runs.add(self._task)
        self._task.add_done_callback(runs.discard)

    @property
    def task(self) -> asyncio.Task[None]:
        return self._task

    async def events(self) -> AsyncIterator[Event]:
        """The run's events, for as long as the caller keeps asking."""
        item: _Item | None = None
        try:
            while True:
                got = await self._queue.get()
                if got is _DONE:
                    break
                assert isinstance(got, _Item)
                item = got
                yield item.event
                item.taken.set()  # the caller asked for the next one: it took this one
                item = None
            await self._task  # the run's own error, if it ended with one
        finally:
            if not self._task.done():
                self._listening = False  # from now on the run writes its events itself
                # What was handed over (perhaps never appended) and what was still queued go
                # back to the run, in order; a run waiting for one of them is released.
                left = [item] if item is not None else []
                while not self._queue.empty():
                    queued = self._queue.get_nowait()
                    if isinstance(queued, _Item):
                        left.append(queued)
                self._left = left
                for orphan in left:
                    orphan.orphaned = True
                    orphan.taken.set()
                logger.info("the client left: investigation continues detached")

    async def _pump(self) -> None:
        try:
            async for event in self._source:
                await self._deliver(event)
        except Exception:
            logger.exception("a detached run could not write its events; it ends here")
            raise
        finally:
            # An append that failed leaves the source at a yield: closing it lets the pipeline
            # mark the investigation interrupted now, not leave it in progress.
            await self._source.aclose()
            if self._listening:
                self._queue.put_nowait(_DONE)
            else:
                await self._append_left()

    async def _deliver(self, event: Event) -> None:
        if self._listening:
            item = _Item(event)
            self._queue.put_nowait(item)
            if not _changes_state(event):
                return  # a progress line: no stage waits for it to be appended
            await item.taken.wait()
            if not item.orphaned:
                return
        await self._append_left()  # what the request left behind, in order, then this
        await self._append(event)

    async def _append_left(self) -> None:
        """Once the request has gone, the events it had not taken are the run's to append."""
        left, self._left = self._left, []
        for item in left:
            await self._append(item.event)  # skipped if the request did append it

    async def _append(self, event: Event) -> None:
        """Append an event to the session, as the runner would have (once, in order)."""
        if event.partial:
            return
        session = self._ctx.session
        if any(existing.id == event.id for existing in session.events):
            return
        await append_despite_staleness(self._ctx.session_service, session, event)


async def append_despite_staleness(
    service: BaseSessionService, session: Session, event: Event, attempts: int = 5
) -> None:
    """Append `event` once; when another writer (a newer turn, another replica) has touched the
    session since it was read, take the stored revision and append again.

    ADK's stores reject a stale writer: SQLite compares `last_update_time`, the database store
    (PostgreSQL) an exact revision marker; both are taken from the stored session. A request
    cancelled while the store committed `event` (a closed tab) leaves it stored but unknown to
    `session`: then it is taken from the store, not inserted twice.
    """
    for attempt in range(attempts):
        try:
            await service.append_event(session=session, event=event)
            return
        except Exception:  # stale, or the key the cancelled append already stored
            fresh = await service.get_session(
                app_name=session.app_name,
                user_id=session.user_id,
                session_id=session.id,
                config=GetSessionConfig(after_timestamp=event.timestamp),
            )
            if fresh is None:
                raise
            session.last_update_time = fresh.last_update_time
            session._storage_update_marker = fresh._storage_update_marker
            if any(stored.id == event.id for stored in fresh.events):
                # stored already: only this copy of the session has to hear of it
                await BaseSessionService.append_event(service, session, event)
                return
            if attempt == attempts - 1:
                raise


def _changes_state(event: Event) -> bool:
    actions = event.actions
    return bool(
        actions and (actions.state_delta or actions.artifact_delta or actions.transfer_to_agent)
    )


async def wait_for_detached_runs() -> None:
    """Let every detached run of this process finish (tests, and a graceful exit)."""
    runs = services.current().detached_runs
    while runs:
        await asyncio.gather(*list(runs), return_exceptions=True)

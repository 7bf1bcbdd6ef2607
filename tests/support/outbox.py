"""A test's flush of the callback outbox: it drains, it does not make one pass."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import func, select

from tests.support import wait
from vicaran_agent import delivery
from vicaran_agent.delivery import Deliverer
from vicaran_agent.storage import Repository
from vicaran_agent.storage.rows import OutboxRow
from vicaran_agent.storage.tables import utcnow


def leased(repository: Repository) -> list[dict[str, Any]]:
    """Pending rows a deliverer holds now (it is sending them)."""

    def op(session: Any) -> list[dict[str, Any]]:
        now = utcnow()
        rows = session.scalars(
            select(OutboxRow).where(
                OutboxRow.status == "pending", OutboxRow.claimed_until.is_not(None)
            )
        )
        return [
            {"id": r.id, "type": r.type, "claimed_by": r.claimed_by}
            for r in rows
            if r.claimed_until.replace(tzinfo=r.claimed_until.tzinfo or now.tzinfo) > now
        ]

    return repository.read(op)


def _state(repository: Repository) -> tuple[Any, ...]:
    """What another deliverer changes: who holds which pending row, and what has settled."""

    def op(session: Any) -> tuple[Any, ...]:
        pending = session.execute(
            select(OutboxRow.id, OutboxRow.claimed_by).where(OutboxRow.status == "pending")
        )
        settled = session.execute(
            select(OutboxRow.status, func.count())
            .where(OutboxRow.status != "pending")
            .group_by(OutboxRow.status)
        )
        return frozenset(pending), frozenset(settled)

    return repository.read(op)


async def drain(deliverer: Deliverer | None = None, seconds: float = 60.0) -> int:
    """Deliver everything the outbox can deliver now; returns how many records this flush sent.

    This loop's background deliverer is stopped (again before every pass: a late `kick` starts
    it anew), then flushes are made until one sends nothing while nobody else changed the
    outbox; rows another deliverer holds are waited for. What still fails (a server that is
    down) stays pending, as after `vicaran outbox flush`.
    """
    deliverer = deliverer or Deliverer(backoff_base=0.01)
    repository = deliverer.repository
    landed = 0

    async def released() -> bool:
        return not await asyncio.to_thread(leased, repository)

    try:
        async with asyncio.timeout(seconds):
            while True:
                await delivery.stop_delivery()
                before = await asyncio.to_thread(_state, repository)
                sent = await deliverer.deliver_due(now_only=False)
                landed += sent
                held = await asyncio.to_thread(leased, repository)
                if held:
                    await wait.until(released, f"rows still leased: {held}", seconds)
                    continue
                if not sent and await asyncio.to_thread(_state, repository) == before:
                    return landed
    except TimeoutError:
        summary = await asyncio.to_thread(repository.outbox_summary)
        raise wait.NotInTime(f"the outbox did not drain in {seconds:g} s: {summary}") from None

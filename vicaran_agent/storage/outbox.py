"""The callback outbox: the queue of saved records waiting for the newsroom's callback API.

Rows are written in the same transaction as the records (see Repository), carry *local* ids,
and are translated to the remote ids the callback API returned at delivery time. What each
record becomes is `payloads.py`'s.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from ..i18n import message
from .payloads import payload
from .rows import ClaimRow, FactCheckRow, InvestigationRow, OutboxRow, SourceRow
from .tables import utcnow

# Saves made while this is true also queue their records for the callback API. A context
# variable, not a flag on the shared repository: the agent's saves queue, while records the
# callback API itself receives never do (they would bounce back and forth otherwise).
_QUEUE: ContextVar[bool] = ContextVar("vicaran_queue_for_callback", default=False)


@contextmanager
def queue_for_callback(enabled: bool = True) -> Iterator[None]:
    """Within this block (and threads started from it), saves queue for the callback API."""
    token = _QUEUE.set(enabled)
    try:
        yield
    finally:
        _QUEUE.reset(token)


def queueing() -> bool:
    return _QUEUE.get()


def idempotency_key(investigation_id: str, kind: str, local_id: str | None) -> str:
    return f"vicaran:{investigation_id}:{kind}:{local_id or 'investigation'}"


def enqueue(
    session: Session, investigation_id: str, kind: str, local_id: str | None, data: dict[str, Any]
) -> None:
    """Add one delivery unless the same record was already queued."""
    enqueue_all(session, investigation_id, kind, [(local_id, data)])


def enqueue_all(
    session: Session,
    investigation_id: str,
    kind: str,
    records: Iterable[tuple[str | None, dict[str, Any]]],
) -> None:
    """Add a delivery for each (local id, data) not already queued, in order; one lookup for
    the whole batch (a save of thirty sources asks once, not thirty times)."""
    batch: dict[str, tuple[str | None, dict[str, Any]]] = {}
    for local_id, data in records:  # the first of a repeated record, as one at a time did
        batch.setdefault(idempotency_key(investigation_id, kind, local_id), (local_id, data))
    if not batch:
        return
    queued = set(
        session.scalars(
            select(OutboxRow.idempotency_key).where(OutboxRow.idempotency_key.in_(list(batch)))
        )
    )
    for key, (local_id, data) in batch.items():
        if key not in queued:
            session.add(
                OutboxRow(
                    investigation_id=investigation_id,
                    type=kind,
                    local_id=local_id,
                    idempotency_key=key,
                    data=data,
                )
            )


INTERRUPTED = "interrupted"  # local ids of the records an interrupted run is delivered as


def enqueue_interrupted(session: Session, row: InvestigationRow) -> None:
    """A run marked `interrupted` goes to the receiver as INVESTIGATION_PARTIAL, once.

    A receiver has no `interrupted` status (it would keep the run `in_progress` forever). Each
    interruption is its own record (`interrupted-1`, `-2`, ...), so a later run of the same
    investigation still delivers its own final record.
    """
    kind = "INVESTIGATION_PARTIAL"
    earlier = session.scalar(
        select(func.count(OutboxRow.id)).where(
            OutboxRow.investigation_id == row.id,
            OutboxRow.type == kind,
            OutboxRow.local_id.startswith(INTERRUPTED),
        )
    )
    _, data = payload(kind, row)
    saved = {
        name: session.scalar(select(func.count(model.id)).where(model.investigation_id == row.id))
        or 0
        for name, model in (("sources", SourceRow), ("claims", ClaimRow), ("checks", FactCheckRow))
    }
    data["summary"] = row.summary or message("interrupted_summary", row.language, **saved)
    data["partial_reason"] = message("interrupted_reason", row.language)
    enqueue(session, row.id, kind, f"{INTERRUPTED}-{(earlier or 0) + 1}", data)


@dataclass(frozen=True)
class Delivery:
    """One outbox row, as the deliverer needs it."""

    id: int
    investigation_id: str
    type: str
    local_id: str | None
    idempotency_key: str
    data: dict[str, Any]
    attempts: int


def claim(
    session: Session,
    owner: str,
    now: datetime | None,
    lease: timedelta,
    *,
    exclude: Collection[int] = (),
    limit: int = 32,
    run: int = 64,
    at: datetime | None = None,
) -> list[Delivery]:
    """Claim, for `owner`, per investigation its leading pending deliveries of one type, when due.

    Everything queued before them is settled, so they may go together (sources among
    sources, claims among claims) while a claim still never goes before its sources. Rows
    another deliverer holds (an unexpired lease) are left to it, and still end the run. The
    chosen rows are locked with `FOR UPDATE SKIP LOCKED` and their lease re-checked on the
    locked version (PostgreSQL; SQLite's one writer serializes claims anyway), so two
    deliverers never claim the same row. `now=None`: due now whatever their backoff;
    `exclude`: never these (already tried by the caller); `at`: the time of the claim, by the
    deliverer's clock (leases are read and written in it; default: now).
    """
    clock = at or utcnow()
    rows = session.execute(
        select(
            OutboxRow.id,
            OutboxRow.investigation_id,
            OutboxRow.type,
            OutboxRow.next_attempt_at,
            OutboxRow.claimed_until,
        )
        .where(OutboxRow.status == "pending")
        .order_by(OutboxRow.investigation_id, OutboxRow.id)
    )
    candidates: list[int] = []
    leading: dict[str, str] = {}  # investigation -> the type of its first pending row
    taken: dict[str, int] = {}
    for row_id, investigation_id, kind, next_attempt_at, claimed_until in rows:
        first = leading.setdefault(investigation_id, kind)
        if kind != first or taken.get(investigation_id, 0) >= run:
            leading[investigation_id] = ""  # the run ended: nothing later goes this round
            continue
        taken[investigation_id] = taken.get(investigation_id, 0) + 1
        claimed = claimed_until is not None and _aware(claimed_until) > clock
        due = now is None or _aware(next_attempt_at) <= now
        if not claimed and due and row_id not in exclude and len(candidates) < limit:
            candidates.append(row_id)
    if not candidates:
        return []
    chosen: list[Delivery] = []
    for r in session.scalars(
        select(OutboxRow)
        .where(
            OutboxRow.id.in_(candidates),
            OutboxRow.status == "pending",
            or_(OutboxRow.claimed_until.is_(None), OutboxRow.claimed_until <= clock),
        )
        .order_by(OutboxRow.id)
        .with_for_update(skip_locked=True)
    ):
        r.claimed_by, r.claimed_until = owner, clock + lease
        chosen.append(
            Delivery(
                r.id, r.investigation_id, r.type, r.local_id, r.idempotency_key,
                dict(r.data), r.attempts,
            )
        )  # fmt: skip
    return chosen


def remote_ids(session: Session, local_ids: set[str]) -> dict[str, str]:
    """Remote ids the callback API returned for already delivered records."""
    if not local_ids:
        return {}
    rows = session.execute(
        select(OutboxRow.local_id, OutboxRow.remote_id).where(
            OutboxRow.local_id.in_(local_ids), OutboxRow.remote_id.is_not(None)
        )
    )
    return {local: remote for local, remote in rows if local and remote}


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=utcnow().tzinfo)

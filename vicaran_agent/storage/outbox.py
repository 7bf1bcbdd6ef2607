"""The callback outbox: what each saved record becomes for the newsroom's callback API.

Rows are written in the same transaction as the records (see Repository), carry *local* ids,
and are translated to the remote ids the callback API returned at delivery time.

The final records' `overall_bias_score` is on the receiver's scale (`VICARAN_CALLBACK_BIAS_SCALE`:
0-5 by default, as seed 001's receiver takes it; `BIAS_ANALYZED` stays 0-10).

What of the journalist's documents goes (`VICARAN_CALLBACK_DOCUMENT_TEXT`): with "quotes", a
passage's quote and snippet and a document's summary, as for any source; with "none", only the
reference (title, document id, page, the passage's address and SHA-256), and no reasoning log
(it names what following read in the documents).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from ..config import get_settings
from ..i18n import message
from ..urls import is_document_url
from .tables import (
    BiasRow,
    ClaimRow,
    FactCheckRow,
    InvestigationRow,
    OutboxRow,
    SourceRow,
    TimelineEventRow,
    utcnow,
)

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
    key = idempotency_key(investigation_id, kind, local_id)
    if session.scalar(select(OutboxRow.id).where(OutboxRow.idempotency_key == key)) is None:
        session.add(
            OutboxRow(
                investigation_id=investigation_id,
                type=kind,
                local_id=local_id,
                idempotency_key=key,
                data=data,
            )
        )


def payload(kind: str, row: Any) -> tuple[str | None, dict[str, Any]]:
    """(local id, contract `data`) for a saved row."""
    local_id, data = _payload(kind, row)
    if get_settings().vicaran_callback_document_text == "none":
        data = _references_only(data)
    return local_id, data


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


def _references_only(data: dict[str, Any]) -> dict[str, Any]:
    """`data` without any text of the journalist's documents: their references stay."""
    if _is_document(data):  # SOURCE_FOUND
        return {**data, "content_snippet": ""}
    if "evidence" not in data:
        return data
    evidence = [
        {k: v for k, v in item.items() if k != "quote"} | {"snippet": ""}
        if _is_document(item)
        else item
        for item in data["evidence"]
    ]
    return {k: v for k, v in data.items() if k != "reasoning_log"} | {"evidence": evidence}


def _is_document(item: dict[str, Any]) -> bool:
    return item.get("origin") == "document" or is_document_url(str(item.get("url") or ""))


def _payload(kind: str, row: Any) -> tuple[str | None, dict[str, Any]]:
    if isinstance(row, InvestigationRow):
        if kind == "INVESTIGATION_STARTED":
            return None, {"mode": row.mode, "title": row.title, "brief": row.brief}
        if kind == "INVESTIGATION_FAILED":
            return None, {"error": row.error or "unknown error"}
        data: dict[str, Any] = {"summary": row.summary or ""}
        if row.overall_bias_score is not None:
            scale = get_settings().vicaran_callback_bias_scale
            data["overall_bias_score"] = on_scale(row.overall_bias_score, scale)
            data["bias_scale"] = scale
        if row.quality:
            data["quality"] = dict(row.quality)
        if row.tokens:
            data["tokens"] = dict(row.tokens)
        if kind == "INVESTIGATION_PARTIAL":
            data["partial_reason"] = row.partial_reason or "partial"
        return None, data
    if isinstance(row, SourceRow):
        return row.id, {
            "url": row.url,
            "title": row.title,
            "domain": row.domain,
            "content_snippet": row.content_summary,
            "credibility_score": row.credibility_score,
            "is_user_provided": row.is_user_provided,
            "published_at": row.published_at,
            "origin": row.origin,
            **_present(
                published_at_source=row.published_at_source,
                display_url=row.display_url,
                publisher=row.publisher,
                retrieved_at=row.retrieved_at,
                content_sha256=row.content_sha256,
                relevant=row.relevant,
                relevance_reason=row.relevance_reason,
                document_id=row.document_id,
                page=row.page,
                territory_id=row.territory_id,
                gazette_date=row.gazette_date,
                txt_url=row.txt_url,
            ),
        }
    if isinstance(row, ClaimRow):
        return row.id, {
            "claim_text": row.claim_text,
            "importance": row.importance,
            "source_ids": [s.id for s in row.sources],
            "origin": row.origin or "source",
            "entities": list(row.entities or []),
            **_present(kind=row.kind, attributed_to=row.attributed_to),
        }
    if isinstance(row, FactCheckRow):
        return row.id, {
            "claim_id": row.claim_id,
            "verdict": row.verdict,
            "confidence": row.confidence,
            "explanation": row.explanation,
            "evidence": [
                {
                    "url": e.display_url or e.url,
                    "title": e.title,
                    "reliability": e.reliability,
                    "stance": e.stance,
                    "snippet": e.snippet,
                    **_present(
                        publisher=e.publisher,
                        quote=e.quote,
                        query=e.query,
                        retrieved_at=e.retrieved_at,
                        published_at=e.published_at,
                        published_at_source=e.published_at_source,
                        content_sha256=e.content_sha256,
                        origin=e.origin,
                        independent=e.independent,
                        primary_record=e.primary_record or None,
                        document_id=e.document_id,
                        page=e.page,
                        territory_id=e.territory_id,
                    ),
                }
                for e in row.evidence
            ],
            "source_ids": [s.id for s in row.sources],
            **_present(as_of=row.as_of, reasoning_log=row.reasoning or None),
        }
    if isinstance(row, BiasRow):
        return row.id, {
            "overall_bias_score": row.overall_bias_score,
            "coverage": dict(row.coverage),
            "recommendation": row.recommendation,
            "per_source": [
                {k: item.get(k) for k in ("source_id", "bias_score", "stance", "indicators")}
                for item in row.per_source
                if item.get("source_id")
            ],
        }
    if isinstance(row, TimelineEventRow):
        return row.id, {
            "event_date": row.event_date,
            "date_precision": row.date_precision,
            "event_text": row.event_text,
            "source_id": row.source_ids[0] if row.source_ids else None,
        }
    raise TypeError(f"no callback payload for {type(row).__name__}")


def on_scale(score: float, scale: int) -> float:
    """Vicaran's 0-10 bias score on the receiver's 0-`scale` scale (two decimals)."""
    return round(score * scale / 10, 2)


def _present(**fields: Any) -> dict[str, Any]:
    """The optional contract fields that have a value (older receivers ignore them anyway)."""
    return {name: value for name, value in fields.items() if value not in (None, "")}


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

"""The ORM classes the writers use, each mapped onto its table in `tables.py` (Core).

Importing this module loads SQLAlchemy's ORM: readers that need none of it (the `vicaran`
commands, the read API) use the tables directly."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import DeclarativeBase, Mapped, relationship

from vicaran_agent.storage import tables


class Base(DeclarativeBase):
    """Declarative base of every Vicaran row class (the tables' metadata)."""

    metadata = tables.metadata


class InvestigationRow(Base):
    """A row of `tables.investigations`."""

    __table__ = tables.investigations

    id: Mapped[str]
    title: Mapped[str]
    brief: Mapped[str]
    mode: Mapped[str]
    language: Mapped[str]
    status: Mapped[str]
    partial_reason: Mapped[str | None]
    error: Mapped[str | None]
    summary: Mapped[str | None]
    overall_bias_score: Mapped[float | None]
    quality: Mapped[dict[str, Any] | None]
    tokens: Mapped[dict[str, Any] | None]
    session_id: Mapped[str | None]
    heartbeat_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    completed_at: Mapped[datetime | None]


class SourceRow(Base):
    """A row of `tables.sources`."""

    __table__ = tables.sources

    id: Mapped[str]
    investigation_id: Mapped[str]
    position: Mapped[int]
    url: Mapped[str]
    title: Mapped[str]
    domain: Mapped[str]
    credibility_score: Mapped[int]
    content_summary: Mapped[str]
    key_claims: Mapped[list[str]]
    published_at: Mapped[str | None]
    is_user_provided: Mapped[bool]
    is_reachable: Mapped[bool]
    unreachable_reason: Mapped[str | None]
    unreachable_detail: Mapped[str | None]
    origin: Mapped[str]
    display_url: Mapped[str | None]
    publisher: Mapped[str | None]
    retrieved_at: Mapped[str | None]
    content_sha256: Mapped[str | None]
    relevant: Mapped[bool | None]
    relevance: Mapped[float | None]
    relevance_reason: Mapped[str | None]
    document_id: Mapped[str | None]
    page: Mapped[int | None]
    territory_id: Mapped[str | None]
    gazette_date: Mapped[str | None]
    txt_url: Mapped[str | None]
    published_at_source: Mapped[str | None]
    created_at: Mapped[datetime]


class ClaimRow(Base):
    """A row of `tables.claims`."""

    __table__ = tables.claims

    id: Mapped[str]
    investigation_id: Mapped[str]
    position: Mapped[int]
    key: Mapped[str]
    claim_text: Mapped[str]
    importance: Mapped[float]
    entities: Mapped[list[str]]
    origin: Mapped[str | None]
    kind: Mapped[str | None]
    attributed_to: Mapped[str | None]
    city: Mapped[str | None]
    state: Mapped[str | None]
    period_start: Mapped[str | None]
    period_end: Mapped[str | None]
    earlier_checks: Mapped[list[dict[str, Any]] | None]

    sources: Mapped[list[SourceRow]] = relationship(
        secondary=tables.claim_sources, order_by=SourceRow.position
    )


class EvidenceRow(Base):
    """A row of `tables.evidence`."""

    __table__ = tables.evidence

    id: Mapped[str]
    fact_check_id: Mapped[str]
    position: Mapped[int]
    url: Mapped[str]
    title: Mapped[str]
    publisher: Mapped[str]
    reliability: Mapped[str]
    stance: Mapped[str]
    snippet: Mapped[str]
    origin: Mapped[str | None]
    rating: Mapped[str | None]
    display_url: Mapped[str | None]
    quote: Mapped[str | None]
    query: Mapped[str | None]
    retrieved_at: Mapped[str | None]
    published_at: Mapped[str | None]
    content_sha256: Mapped[str | None]
    independent: Mapped[bool | None]
    independence_note: Mapped[str | None]
    primary_record: Mapped[bool | None]
    stance_note: Mapped[str | None]
    document_id: Mapped[str | None]
    page: Mapped[int | None]
    territory_id: Mapped[str | None]
    published_at_source: Mapped[str | None]


class ReviewRow(Base):
    """A row of `tables.reviews`."""

    __table__ = tables.reviews

    id: Mapped[int]
    investigation_id: Mapped[str]
    fact_check_id: Mapped[str]
    claim_id: Mapped[str]
    at: Mapped[datetime]
    reviewer: Mapped[str]
    action: Mapped[str]
    verdict_before: Mapped[str]
    verdict_after: Mapped[str]
    note: Mapped[str]


class FactCheckRow(Base):
    """A row of `tables.fact_checks`."""

    __table__ = tables.fact_checks

    id: Mapped[str]
    investigation_id: Mapped[str]
    claim_id: Mapped[str]
    verdict: Mapped[str]
    confidence: Mapped[float]
    explanation: Mapped[str]
    sufficient: Mapped[bool]
    queries: Mapped[list[str]]
    iterations: Mapped[int]
    stop_reason: Mapped[str]
    as_of: Mapped[str | None]
    reasoning: Mapped[list[str] | None]

    claim: Mapped[ClaimRow] = relationship()
    evidence: Mapped[list[EvidenceRow]] = relationship(
        order_by=EvidenceRow.position, cascade="all, delete-orphan"
    )
    sources: Mapped[list[SourceRow]] = relationship(
        secondary=tables.fact_check_sources, order_by=SourceRow.position
    )


class BiasRow(Base):
    """A row of `tables.bias_assessments`."""

    __table__ = tables.bias_assessments

    id: Mapped[str]
    investigation_id: Mapped[str]
    overall_bias_score: Mapped[float]
    coverage: Mapped[dict[str, int]]
    coverage_pct: Mapped[dict[str, float]]
    recommendation: Mapped[str]
    per_source: Mapped[list[dict[str, Any]]]
    unrated: Mapped[int | None]


class TimelineEventRow(Base):
    """A row of `tables.timeline_events`."""

    __table__ = tables.timeline_events

    id: Mapped[str]
    investigation_id: Mapped[str]
    position: Mapped[int]
    event_date: Mapped[str]
    date_precision: Mapped[str]
    event_text: Mapped[str]
    source_ids: Mapped[list[str]]
    disputed_dates: Mapped[list[str] | None]
    order_disputes: Mapped[list[dict[str, str]] | None]


class SnapshotRow(Base):
    """A row of `tables.snapshots`."""

    __table__ = tables.snapshots

    sha256: Mapped[str]
    size: Mapped[int]
    compressed: Mapped[bytes]
    created_at: Mapped[datetime]


class PageCaptureRow(Base):
    """A row of `tables.page_captures`."""

    __table__ = tables.page_captures

    id: Mapped[int]
    investigation_id: Mapped[str]
    url_key: Mapped[str]
    via: Mapped[str]
    captured_at: Mapped[datetime]
    records: Mapped[bytes]


class InvestigationSnapshotRow(Base):
    """A row of `tables.investigation_snapshots`."""

    __table__ = tables.investigation_snapshots

    investigation_id: Mapped[str]
    sha256: Mapped[str]


class OutboxRow(Base):
    """A row of `tables.callback_outbox`."""

    __table__ = tables.callback_outbox

    id: Mapped[int]
    investigation_id: Mapped[str]
    type: Mapped[str]
    local_id: Mapped[str | None]
    idempotency_key: Mapped[str]
    data: Mapped[dict[str, Any]]
    status: Mapped[str]
    attempts: Mapped[int]
    next_attempt_at: Mapped[datetime]
    last_error: Mapped[str | None]
    response_status: Mapped[int | None]
    response_body: Mapped[str | None]
    remote_id: Mapped[str | None]
    created_at: Mapped[datetime]
    delivered_at: Mapped[datetime | None]
    claimed_by: Mapped[str | None]
    claimed_until: Mapped[datetime | None]


class IdempotencyRow(Base):
    """A row of `tables.callback_idempotency`."""

    __table__ = tables.callback_idempotency

    key: Mapped[str]
    request_hash: Mapped[str]
    status_code: Mapped[int]
    response: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]


class CollectionRow(Base):
    """A row of `tables.collections`."""

    __table__ = tables.collections

    name: Mapped[str]
    reliability: Mapped[str]
    created_at: Mapped[datetime]
    owner: Mapped[str | None]
    investigation_id: Mapped[str | None]


class DocumentRow(Base):
    """A row of `tables.documents`."""

    __table__ = tables.documents

    id: Mapped[str]
    collection: Mapped[str]
    file_key: Mapped[str]
    file_name: Mapped[str]
    path: Mapped[str]
    sha256: Mapped[str]
    kind: Mapped[str]
    title: Mapped[str]
    metadata_title: Mapped[str]
    first_heading: Mapped[str]
    synonyms: Mapped[list[str]]
    language: Mapped[str]
    page_count: Mapped[int]
    unreadable: Mapped[list[dict[str, Any]]]
    ocr_pages: Mapped[list[int]]
    reliability: Mapped[str | None]
    size: Mapped[int]
    added_at: Mapped[datetime]


class PassageRow(Base):
    """A row of `tables.passages`."""

    __table__ = tables.passages

    id: Mapped[int]
    document_id: Mapped[str]
    ordinal: Mapped[int]
    page: Mapped[int]
    start: Mapped[int]
    end: Mapped[int]
    text: Mapped[str]

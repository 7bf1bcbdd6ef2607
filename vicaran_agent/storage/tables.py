"""SQLAlchemy 2 declarative tables of the records store (portable: SQLite and PostgreSQL)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

ID = String(64)
URL = String(2048)  # the callback API's limit too
# What pages and the model write (publisher, dates as written, claim keys, cities) is Text: SQLite
# ignores VARCHAR lengths, PostgreSQL refuses the whole save past one.


def new_id() -> str:
    """A fresh record id chosen by the store."""
    return uuid.uuid4().hex


def utcnow() -> datetime:
    """The current time in UTC (timezone-aware)."""
    return datetime.now(UTC)


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:  # SQLite keeps no offset; the store only writes UTC
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


class Base(DeclarativeBase):
    """Declarative base of every Vicaran table."""


def _fk(target: str) -> Any:
    return ForeignKey(target, ondelete="CASCADE")


claim_sources = Table(
    "claim_sources",
    Base.metadata,
    Column("claim_id", ID, _fk("claims.id"), primary_key=True),
    Column("source_id", ID, _fk("sources.id"), primary_key=True),
)

fact_check_sources = Table(
    "fact_check_sources",
    Base.metadata,
    Column("fact_check_id", ID, _fk("fact_checks.id"), primary_key=True),
    Column("source_id", ID, _fk("sources.id"), primary_key=True),
)


class InvestigationRow(Base):
    """One investigation; its id is the UUID the agent gives it."""

    __tablename__ = "investigations"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    title: Mapped[str] = mapped_column(Text, default="")
    brief: Mapped[str] = mapped_column(Text, default="")
    mode: Mapped[str] = mapped_column(String(16))
    language: Mapped[str] = mapped_column(String(16), default="en")
    status: Mapped[str] = mapped_column(String(16), default="in_progress")
    partial_reason: Mapped[str | None] = mapped_column(Text)
    error: Mapped[str | None] = mapped_column(Text)
    summary: Mapped[str | None] = mapped_column(Text)
    overall_bias_score: Mapped[float | None] = mapped_column(Float)
    quality: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # Model tokens and estimated cost: {input, output, cached, cost_usd, per_stage: {...}}.
    tokens: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # The conversation that owns the investigation, and the last sign of life of its run.
    session_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class SourceRow(Base):
    """A page the investigation read (or tried to read); unique per (investigation, url)."""

    __tablename__ = "sources"
    __table_args__ = (UniqueConstraint("investigation_id", "url"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    investigation_id: Mapped[str] = mapped_column(ID, _fk("investigations.id"), index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)
    url: Mapped[str] = mapped_column(URL)
    title: Mapped[str] = mapped_column(Text, default="")
    domain: Mapped[str] = mapped_column(String(255), default="")
    credibility_score: Mapped[int] = mapped_column(Integer)
    content_summary: Mapped[str] = mapped_column(Text, default="")
    key_claims: Mapped[list[str]] = mapped_column(JSON, default=list)
    published_at: Mapped[str | None] = mapped_column(Text)
    is_user_provided: Mapped[bool] = mapped_column(Boolean, default=False)
    is_reachable: Mapped[bool] = mapped_column(Boolean, default=True)
    unreachable_reason: Mapped[str | None] = mapped_column(Text)
    unreachable_detail: Mapped[str | None] = mapped_column(Text, nullable=True)
    origin: Mapped[str] = mapped_column(String(32), default="web")
    # Added with the trust work: nullable, so older databases gain them in place.
    display_url: Mapped[str | None] = mapped_column(URL, nullable=True)
    publisher: Mapped[str | None] = mapped_column(Text, nullable=True)
    retrieved_at: Mapped[str | None] = mapped_column(String(64), nullable=True)
    content_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    relevant: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    relevance: Mapped[float | None] = mapped_column(Float, nullable=True)
    relevance_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    document_id: Mapped[str | None] = mapped_column(ID, nullable=True)
    page: Mapped[int | None] = mapped_column(Integer, nullable=True)
    territory_id: Mapped[str | None] = mapped_column(String(16), nullable=True)
    gazette_date: Mapped[str | None] = mapped_column(String(32), nullable=True)
    txt_url: Mapped[str | None] = mapped_column(URL, nullable=True)
    # Who states `published_at` (schemas.DateSource); unknown for rows older than 0004.
    published_at_source: Mapped[str | None] = mapped_column(String(16), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ClaimRow(Base):
    """A checkable claim, keyed by the agent's stable key ("C1")."""

    __tablename__ = "claims"
    __table_args__ = (UniqueConstraint("investigation_id", "key"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    investigation_id: Mapped[str] = mapped_column(ID, _fk("investigations.id"), index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)
    key: Mapped[str] = mapped_column(Text)
    claim_text: Mapped[str] = mapped_column(Text)
    importance: Mapped[float] = mapped_column(Float, default=0.0)
    entities: Mapped[list[str]] = mapped_column(JSON, default=list)
    origin: Mapped[str | None] = mapped_column(String(16), nullable=True)
    # attribution | fact, and who is quoted (0005)
    kind: Mapped[str | None] = mapped_column(String(16), nullable=True)
    attributed_to: Mapped[str | None] = mapped_column(Text, nullable=True)
    # A claim about a Brazilian city's act: where and when (its gazettes are searched).
    city: Mapped[str | None] = mapped_column(Text, nullable=True)
    state: Mapped[str | None] = mapped_column(String(2), nullable=True)
    period_start: Mapped[str | None] = mapped_column(String(10), nullable=True)
    period_end: Mapped[str | None] = mapped_column(String(10), nullable=True)
    # the same claim checked by earlier investigations of this store (memory.EarlierCheck)
    earlier_checks: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, nullable=True)

    sources: Mapped[list[SourceRow]] = relationship(
        secondary=claim_sources, order_by=SourceRow.position
    )


class EvidenceRow(Base):
    """One piece of evidence behind a fact-check, in the checker's order."""

    __tablename__ = "evidence"

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    fact_check_id: Mapped[str] = mapped_column(ID, _fk("fact_checks.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    url: Mapped[str] = mapped_column(URL)
    title: Mapped[str] = mapped_column(Text, default="")
    publisher: Mapped[str] = mapped_column(Text, default="")
    reliability: Mapped[str] = mapped_column(String(16))
    stance: Mapped[str] = mapped_column(String(16))
    snippet: Mapped[str] = mapped_column(Text, default="")
    origin: Mapped[str | None] = mapped_column(String(16), nullable=True)
    rating: Mapped[str | None] = mapped_column(Text, nullable=True)
    display_url: Mapped[str | None] = mapped_column(URL, nullable=True)
    quote: Mapped[str | None] = mapped_column(Text, nullable=True)
    query: Mapped[str | None] = mapped_column(Text, nullable=True)
    retrieved_at: Mapped[str | None] = mapped_column(String(64), nullable=True)
    published_at: Mapped[str | None] = mapped_column(Text, nullable=True)
    content_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    independent: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    independence_note: Mapped[str | None] = mapped_column(Text, nullable=True)
    # the claim's attributed party's own record (0005)
    primary_record: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    stance_note: Mapped[str | None] = mapped_column(Text, nullable=True)
    document_id: Mapped[str | None] = mapped_column(ID, nullable=True)
    page: Mapped[int | None] = mapped_column(Integer, nullable=True)
    territory_id: Mapped[str | None] = mapped_column(String(16), nullable=True)
    published_at_source: Mapped[str | None] = mapped_column(String(16), nullable=True)


class ReviewRow(Base):
    """One editor's decision on a checked claim: an entry of an append-only audit log. No code
    edits or deletes one; a review never changes the evidence records it is about."""

    __tablename__ = "reviews"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    investigation_id: Mapped[str] = mapped_column(ID, _fk("investigations.id"), index=True)
    fact_check_id: Mapped[str] = mapped_column(ID)
    claim_id: Mapped[str] = mapped_column(ID)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    reviewer: Mapped[str] = mapped_column(Text)
    action: Mapped[str] = mapped_column(String(16))  # approve | change | note
    verdict_before: Mapped[str] = mapped_column(String(32))
    verdict_after: Mapped[str] = mapped_column(String(32))
    note: Mapped[str] = mapped_column(Text, default="")


class FactCheckRow(Base):
    """The verdict on one claim; unique per (investigation, claim)."""

    __tablename__ = "fact_checks"
    __table_args__ = (UniqueConstraint("investigation_id", "claim_id"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    investigation_id: Mapped[str] = mapped_column(ID, _fk("investigations.id"), index=True)
    claim_id: Mapped[str] = mapped_column(ID, _fk("claims.id"))
    verdict: Mapped[str] = mapped_column(String(32))
    confidence: Mapped[float] = mapped_column(Float)
    explanation: Mapped[str] = mapped_column(Text, default="")
    sufficient: Mapped[bool] = mapped_column(Boolean, default=False)
    queries: Mapped[list[str]] = mapped_column(JSON, default=list)
    iterations: Mapped[int] = mapped_column(Integer, default=0)
    stop_reason: Mapped[str] = mapped_column(Text, default="")
    as_of: Mapped[str | None] = mapped_column(Text, nullable=True)
    reasoning: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)

    claim: Mapped[ClaimRow] = relationship()
    evidence: Mapped[list[EvidenceRow]] = relationship(
        order_by=EvidenceRow.position, cascade="all, delete-orphan"
    )
    sources: Mapped[list[SourceRow]] = relationship(
        secondary=fact_check_sources, order_by=SourceRow.position
    )


class BiasRow(Base):
    """The bias assessment of an investigation (one per investigation)."""

    __tablename__ = "bias_assessments"

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    investigation_id: Mapped[str] = mapped_column(
        ID, _fk("investigations.id"), unique=True, index=True
    )
    overall_bias_score: Mapped[float] = mapped_column(Float)
    coverage: Mapped[dict[str, int]] = mapped_column(JSON, default=dict)
    coverage_pct: Mapped[dict[str, float]] = mapped_column(JSON, default=dict)
    recommendation: Mapped[str] = mapped_column(Text, default="")
    per_source: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    unrated: Mapped[int | None] = mapped_column(Integer, nullable=True)


class TimelineEventRow(Base):
    """A dated event of the story."""

    __tablename__ = "timeline_events"

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    investigation_id: Mapped[str] = mapped_column(ID, _fk("investigations.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    event_date: Mapped[str] = mapped_column(Text)
    date_precision: Mapped[str] = mapped_column(String(8), default="day")
    event_text: Mapped[str] = mapped_column(Text)
    source_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    # other dates the sources give the same happening (timeline_builder.flag_disputed)
    disputed_dates: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    # claims whose order of events the dates contradict (timeline_builder.flag_stated_orders)
    order_disputes: Mapped[list[dict[str, str]] | None] = mapped_column(JSON, nullable=True)


class SnapshotRow(Base):
    """A text Vicaran read, stored once by its SHA-256 (zlib-compressed UTF-8)."""

    __tablename__ = "snapshots"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int] = mapped_column(Integer)  # characters
    compressed: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PageCaptureRow(Base):
    """The WARC records of one page read (request, response as received, and what page it stands
    for), gzipped as written; `url_key` is the page's normalized address. No foreign key: the
    journalist's pages are read while the plan is written, before the investigation is saved."""

    __tablename__ = "page_captures"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    investigation_id: Mapped[str] = mapped_column(ID, index=True)
    url_key: Mapped[str] = mapped_column(Text)
    via: Mapped[str] = mapped_column(String(16))  # jina | direct
    captured_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    records: Mapped[bytes] = mapped_column(LargeBinary)


class InvestigationSnapshotRow(Base):
    """Which snapshots an investigation's records rest on (its readers may see exactly those)."""

    __tablename__ = "investigation_snapshots"

    investigation_id: Mapped[str] = mapped_column(ID, _fk("investigations.id"), primary_key=True)
    sha256: Mapped[str] = mapped_column(String(64), _fk("snapshots.sha256"), primary_key=True)


class OutboxRow(Base):
    """A record waiting for (or done with) delivery to the newsroom's callback API.

    Written in the same transaction as the record itself, so nothing saved is ever lost;
    delivered in `id` order per investigation; `idempotency_key` makes it unique and stable.
    """

    __tablename__ = "callback_outbox"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    investigation_id: Mapped[str] = mapped_column(ID, index=True)
    type: Mapped[str] = mapped_column(String(32))
    local_id: Mapped[str | None] = mapped_column(ID, nullable=True)
    idempotency_key: Mapped[str] = mapped_column(String(255), unique=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), default="pending", index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    response_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    response_body: Mapped[str | None] = mapped_column(Text, nullable=True)
    remote_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # The deliverer (one per process) sending this row, until when: a lease, so rows a dead
    # replica claimed are taken up again once it runs out.
    claimed_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class IdempotencyRow(Base):
    """A callback request already answered by this server (`Idempotency-Key` replay)."""

    __tablename__ = "callback_idempotency"

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer)
    response: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CollectionRow(Base):
    """A named set of the journalist's documents, with how far its documents are trusted.

    A collection made with `vicaran docs add` is the operator's and shared: no investigation,
    no owner. One made from chat attachments holds an investigation's files and belongs to the
    ADK user of that conversation (`owner`); one made before owners were kept has none, and its
    `investigation_id` is what its name told (see migration 0006).
    """

    __tablename__ = "collections"

    name: Mapped[str] = mapped_column(String(255), primary_key=True)
    reliability: Mapped[str] = mapped_column(String(16), default="neutral")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    owner: Mapped[str | None] = mapped_column(String(255), nullable=True)
    investigation_id: Mapped[str | None] = mapped_column(ID, nullable=True)


class DocumentRow(Base):
    """One file of a collection; `file_key` (its path, else its name) is unique per collection."""

    __tablename__ = "documents"
    __table_args__ = (UniqueConstraint("collection", "file_key"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    collection: Mapped[str] = mapped_column(String(255), _fk("collections.name"), index=True)
    file_key: Mapped[str] = mapped_column(Text)
    file_name: Mapped[str] = mapped_column(Text)
    path: Mapped[str] = mapped_column(Text, default="")
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    title: Mapped[str] = mapped_column(Text, default="")
    metadata_title: Mapped[str] = mapped_column(Text, default="")
    first_heading: Mapped[str] = mapped_column(Text, default="")
    synonyms: Mapped[list[str]] = mapped_column(JSON, default=list)
    language: Mapped[str] = mapped_column(String(16), default="en")
    page_count: Mapped[int] = mapped_column(Integer, default=0)
    unreadable: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    ocr_pages: Mapped[list[int]] = mapped_column(JSON, default=list)
    # a chat attachment's own reliability (a `Reliability:` line sent with it); None: its
    # collection's
    reliability: Mapped[str | None] = mapped_column(String(16), nullable=True)
    size: Mapped[int] = mapped_column(Integer, default=0)
    added_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PassageRow(Base):
    """About 1,000 characters of one page of a document (full-text indexed, see documents.store)."""

    __tablename__ = "passages"
    # AUTOINCREMENT on SQLite: a passage id (cited in doc:// URLs) is never reused after a removal.
    __table_args__ = (
        Index("ix_passages_document_ordinal", "document_id", "ordinal"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    document_id: Mapped[str] = mapped_column(ID, _fk("documents.id"))
    ordinal: Mapped[int] = mapped_column(Integer)
    page: Mapped[int] = mapped_column(Integer)  # 1-based
    start: Mapped[int] = mapped_column(Integer)
    end: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)

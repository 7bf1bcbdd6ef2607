"""The tables of the records store (SQLAlchemy Core; portable: SQLite and PostgreSQL).

Core only, so reading (the `vicaran` commands, the read API) needs no ORM; the ORM classes the
writers use are mapped onto these tables in `rows.py`."""

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
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

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


metadata = MetaData()


def _fk(target: str) -> Any:
    return ForeignKey(target, ondelete="CASCADE")


claim_sources = Table(
    "claim_sources",
    metadata,
    Column("claim_id", ID, _fk("claims.id"), primary_key=True),
    Column("source_id", ID, _fk("sources.id"), primary_key=True),
)

fact_check_sources = Table(
    "fact_check_sources",
    metadata,
    Column("fact_check_id", ID, _fk("fact_checks.id"), primary_key=True),
    Column("source_id", ID, _fk("sources.id"), primary_key=True),
)

# One investigation; its id is the UUID the agent gives it.
investigations = Table(
    "investigations",
    metadata,
    Column("id", ID, primary_key=True),
    Column("title", Text, nullable=False, default=""),
    Column("brief", Text, nullable=False, default=""),
    Column("mode", String(16), nullable=False),
    Column("language", String(16), nullable=False, default="en"),
    Column("status", String(16), nullable=False, default="in_progress"),
    Column("partial_reason", Text),
    Column("error", Text),
    Column("summary", Text),
    Column("overall_bias_score", Float),
    Column("quality", JSON),
    # Model tokens and estimated cost: {input, output, cached, cost_usd, per_stage: {...}}.
    Column("tokens", JSON),
    # The conversation that owns the investigation, and the last sign of life of its run.
    Column("session_id", String(128)),
    Column("heartbeat_at", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False, default=utcnow),
    Column("updated_at", DateTime(timezone=True), nullable=False, default=utcnow),
    Column("completed_at", DateTime(timezone=True)),
)

# A page the investigation read (or tried to read); unique per (investigation, url).
sources = Table(
    "sources",
    metadata,
    Column("id", ID, primary_key=True, default=new_id),
    Column("investigation_id", ID, _fk("investigations.id"), nullable=False, index=True),
    Column("position", Integer, nullable=False, default=0),
    Column("url", URL, nullable=False),
    Column("title", Text, nullable=False, default=""),
    Column("domain", String(255), nullable=False, default=""),
    Column("credibility_score", Integer, nullable=False),
    Column("content_summary", Text, nullable=False, default=""),
    Column("key_claims", JSON, nullable=False, default=list),
    Column("published_at", Text),
    Column("is_user_provided", Boolean, nullable=False, default=False),
    Column("is_reachable", Boolean, nullable=False, default=True),
    Column("unreachable_reason", Text),
    Column("unreachable_detail", Text),
    Column("origin", String(32), nullable=False, default="web"),
    # Added with the trust work: nullable, so older databases gain them in place.
    Column("display_url", URL),
    Column("publisher", Text),
    Column("retrieved_at", ID),
    Column("content_sha256", ID),
    Column("relevant", Boolean),
    Column("relevance", Float),
    Column("relevance_reason", Text),
    Column("document_id", ID),
    Column("page", Integer),
    Column("territory_id", String(16)),
    Column("gazette_date", String(32)),
    Column("txt_url", URL),
    # Who states `published_at` (schemas.DateSource); unknown for rows older than 0004.
    Column("published_at_source", String(16)),
    Column("created_at", DateTime(timezone=True), nullable=False, default=utcnow),
    UniqueConstraint("investigation_id", "url"),
)

# A checkable claim, keyed by the agent's stable key ("C1").
claims = Table(
    "claims",
    metadata,
    Column("id", ID, primary_key=True, default=new_id),
    Column("investigation_id", ID, _fk("investigations.id"), nullable=False, index=True),
    Column("position", Integer, nullable=False, default=0),
    Column("key", Text, nullable=False),
    Column("claim_text", Text, nullable=False),
    Column("importance", Float, nullable=False, default=0.0),
    Column("entities", JSON, nullable=False, default=list),
    Column("origin", String(16)),
    # attribution | fact, and who is quoted (0005)
    Column("kind", String(16)),
    Column("attributed_to", Text),
    # A claim about a Brazilian city's act: where and when (its gazettes are searched).
    Column("city", Text),
    Column("state", String(2)),
    Column("period_start", String(10)),
    Column("period_end", String(10)),
    # the same claim checked by earlier investigations of this store (memory.EarlierCheck)
    Column("earlier_checks", JSON),
    UniqueConstraint("investigation_id", "key"),
)

# One piece of evidence behind a fact-check, in the checker's order.
evidence = Table(
    "evidence",
    metadata,
    Column("id", ID, primary_key=True, default=new_id),
    Column("fact_check_id", ID, _fk("fact_checks.id"), nullable=False, index=True),
    Column("position", Integer, nullable=False),
    Column("url", URL, nullable=False),
    Column("title", Text, nullable=False, default=""),
    Column("publisher", Text, nullable=False, default=""),
    Column("reliability", String(16), nullable=False),
    Column("stance", String(16), nullable=False),
    Column("snippet", Text, nullable=False, default=""),
    Column("origin", String(16)),
    Column("rating", Text),
    Column("display_url", URL),
    Column("quote", Text),
    Column("query", Text),
    Column("retrieved_at", ID),
    Column("published_at", Text),
    Column("content_sha256", ID),
    Column("independent", Boolean),
    Column("independence_note", Text),
    # the claim's attributed party's own record (0005)
    Column("primary_record", Boolean),
    Column("stance_note", Text),
    Column("document_id", ID),
    Column("page", Integer),
    Column("territory_id", String(16)),
    Column("published_at_source", String(16)),
)

# One editor's decision on a checked claim: an entry of an append-only audit log. No code
# edits or deletes one; a review never changes the evidence records it is about.
reviews = Table(
    "reviews",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("investigation_id", ID, _fk("investigations.id"), nullable=False, index=True),
    Column("fact_check_id", ID, nullable=False),
    Column("claim_id", ID, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False, default=utcnow),
    Column("reviewer", Text, nullable=False),
    # approve | change | note
    Column("action", String(16), nullable=False),
    Column("verdict_before", String(32), nullable=False),
    Column("verdict_after", String(32), nullable=False),
    Column("note", Text, nullable=False, default=""),
)

# The verdict on one claim; unique per (investigation, claim).
fact_checks = Table(
    "fact_checks",
    metadata,
    Column("id", ID, primary_key=True, default=new_id),
    Column("investigation_id", ID, _fk("investigations.id"), nullable=False, index=True),
    Column("claim_id", ID, _fk("claims.id"), nullable=False),
    Column("verdict", String(32), nullable=False),
    Column("confidence", Float, nullable=False),
    Column("explanation", Text, nullable=False, default=""),
    Column("sufficient", Boolean, nullable=False, default=False),
    Column("queries", JSON, nullable=False, default=list),
    Column("iterations", Integer, nullable=False, default=0),
    Column("stop_reason", Text, nullable=False, default=""),
    Column("as_of", Text),
    Column("reasoning", JSON),
    UniqueConstraint("investigation_id", "claim_id"),
)

# The bias assessment of an investigation (one per investigation).
bias_assessments = Table(
    "bias_assessments",
    metadata,
    Column("id", ID, primary_key=True, default=new_id),
    Column(
        "investigation_id", ID, _fk("investigations.id"), nullable=False, index=True, unique=True
    ),
    Column("overall_bias_score", Float, nullable=False),
    Column("coverage", JSON, nullable=False, default=dict),
    Column("coverage_pct", JSON, nullable=False, default=dict),
    Column("recommendation", Text, nullable=False, default=""),
    Column("per_source", JSON, nullable=False, default=list),
    Column("unrated", Integer),
)

# A dated event of the story.
timeline_events = Table(
    "timeline_events",
    metadata,
    Column("id", ID, primary_key=True, default=new_id),
    Column("investigation_id", ID, _fk("investigations.id"), nullable=False, index=True),
    Column("position", Integer, nullable=False),
    Column("event_date", Text, nullable=False),
    Column("date_precision", String(8), nullable=False, default="day"),
    Column("event_text", Text, nullable=False),
    Column("source_ids", JSON, nullable=False, default=list),
    # other dates the sources give the same happening (timeline_builder.flag_disputed)
    Column("disputed_dates", JSON),
    # claims whose order of events the dates contradict (timeline_builder.flag_stated_orders)
    Column("order_disputes", JSON),
)

# A text Vicaran read, stored once by its SHA-256 (zlib-compressed UTF-8).
snapshots = Table(
    "snapshots",
    metadata,
    Column("sha256", ID, primary_key=True),
    # characters
    Column("size", Integer, nullable=False),
    Column("compressed", LargeBinary, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, default=utcnow),
)

# The WARC records of one page read (request, response as received, and what page it stands
# for), gzipped as written; `url_key` is the page's normalized address. No foreign key: the
# journalist's pages are read while the plan is written, before the investigation is saved.
page_captures = Table(
    "page_captures",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("investigation_id", ID, nullable=False, index=True),
    Column("url_key", Text, nullable=False),
    # jina | direct
    Column("via", String(16), nullable=False),
    Column("captured_at", DateTime(timezone=True), nullable=False, default=utcnow),
    Column("records", LargeBinary, nullable=False),
)

# Which snapshots an investigation's records rest on (its readers may see exactly those).
investigation_snapshots = Table(
    "investigation_snapshots",
    metadata,
    Column("investigation_id", ID, _fk("investigations.id"), primary_key=True),
    Column("sha256", ID, _fk("snapshots.sha256"), primary_key=True),
)

# A record waiting for (or done with) delivery to the newsroom's callback API.
#
# Written in the same transaction as the record itself, so nothing saved is ever lost;
# delivered in `id` order per investigation; `idempotency_key` makes it unique and stable.
#
callback_outbox = Table(
    "callback_outbox",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("investigation_id", ID, nullable=False, index=True),
    Column("type", String(32), nullable=False),
    Column("local_id", ID),
    Column("idempotency_key", String(255), nullable=False, unique=True),
    Column("data", JSON, nullable=False),
    Column("status", String(16), nullable=False, default="pending", index=True),
    Column("attempts", Integer, nullable=False, default=0),
    Column("next_attempt_at", DateTime(timezone=True), nullable=False, default=utcnow),
    Column("last_error", Text),
    Column("response_status", Integer),
    Column("response_body", Text),
    Column("remote_id", String(255)),
    Column("created_at", DateTime(timezone=True), nullable=False, default=utcnow),
    Column("delivered_at", DateTime(timezone=True)),
    # The deliverer (one per process) sending this row, until when: a lease, so rows a dead
    # replica claimed are taken up again once it runs out.
    Column("claimed_by", ID),
    Column("claimed_until", DateTime(timezone=True)),
)

# A callback request already answered by this server (`Idempotency-Key` replay).
callback_idempotency = Table(
    "callback_idempotency",
    metadata,
    Column("key", String(255), primary_key=True),
    Column("request_hash", ID, nullable=False),
    Column("status_code", Integer, nullable=False),
    Column("response", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, default=utcnow),
)

# A named set of the journalist's documents, with how far its documents are trusted.
#
# A collection made with `vicaran docs add` is the operator's and shared: no investigation,
# no owner. One made from chat attachments holds an investigation's files and belongs to the
# ADK user of that conversation (`owner`); one made before owners were kept has none, and its
# `investigation_id` is what its name told (see migration 0006).
#
collections = Table(
    "collections",
    metadata,
    Column("name", String(255), primary_key=True),
    Column("reliability", String(16), nullable=False, default="neutral"),
    Column("created_at", DateTime(timezone=True), nullable=False, default=utcnow),
    Column("owner", String(255)),
    Column("investigation_id", ID),
)

# One file of a collection; `file_key` (its path, else its name) is unique per collection.
documents = Table(
    "documents",
    metadata,
    Column("id", ID, primary_key=True, default=new_id),
    Column("collection", String(255), _fk("collections.name"), nullable=False, index=True),
    Column("file_key", Text, nullable=False),
    Column("file_name", Text, nullable=False),
    Column("path", Text, nullable=False, default=""),
    Column("sha256", ID, nullable=False, index=True),
    Column("kind", String(16), nullable=False),
    Column("title", Text, nullable=False, default=""),
    Column("metadata_title", Text, nullable=False, default=""),
    Column("first_heading", Text, nullable=False, default=""),
    Column("synonyms", JSON, nullable=False, default=list),
    Column("language", String(16), nullable=False, default="en"),
    Column("page_count", Integer, nullable=False, default=0),
    Column("unreadable", JSON, nullable=False, default=list),
    Column("ocr_pages", JSON, nullable=False, default=list),
    # a chat attachment's own reliability (a `Reliability:` line sent with it); None: its
    # collection's
    Column("reliability", String(16)),
    Column("size", Integer, nullable=False, default=0),
    Column("added_at", DateTime(timezone=True), nullable=False, default=utcnow),
    UniqueConstraint("collection", "file_key"),
)

# About 1,000 characters of one page of a document (full-text indexed, see documents.store).
passages = Table(
    "passages",
    metadata,
    # AUTOINCREMENT on SQLite: a passage id (cited in doc:// URLs) is never reused after a removal.
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("document_id", ID, _fk("documents.id"), nullable=False),
    Column("ordinal", Integer, nullable=False),
    # 1-based
    Column("page", Integer, nullable=False),
    Column("start", Integer, nullable=False),
    Column("end", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Index("ix_passages_document_ordinal", "document_id", "ordinal"),
    sqlite_autoincrement=True,
)

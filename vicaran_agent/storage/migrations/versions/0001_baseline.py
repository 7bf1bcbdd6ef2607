"""Baseline: the records schema of commit 6b66a77, the last one made without migrations.

Databases made before migrations have exactly these tables (created by `create_all`, with the
nullable columns added in place since); they are stamped with this revision, not re-created.
The documents' full-text index (SQLite FTS5 table and triggers, PostgreSQL GIN index) is not
here: documents.store creates it (IF NOT EXISTS) and rebuilds it from the passages.

Revision ID: 0001
Revises:
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "callback_idempotency",
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=False),
        sa.Column("response", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "callback_outbox",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("investigation_id", sa.String(length=64), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=False),
        sa.Column("local_id", sa.String(length=64), nullable=True),
        sa.Column("idempotency_key", sa.String(length=255), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("response_status", sa.Integer(), nullable=True),
        sa.Column("response_body", sa.Text(), nullable=True),
        sa.Column("remote_id", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("idempotency_key"),
    )
    op.create_index(
        op.f("ix_callback_outbox_investigation_id"),
        "callback_outbox",
        ["investigation_id"],
        unique=False,
    )
    op.create_index(op.f("ix_callback_outbox_status"), "callback_outbox", ["status"], unique=False)
    op.create_table(
        "collections",
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("reliability", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    op.create_table(
        "investigations",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("brief", sa.Text(), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("language", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("partial_reason", sa.Text(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("summary", sa.Text(), nullable=True),
        sa.Column("overall_bias_score", sa.Float(), nullable=True),
        sa.Column("quality", sa.JSON(), nullable=True),
        sa.Column("session_id", sa.String(length=128), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "snapshots",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("compressed", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("sha256"),
    )
    op.create_table(
        "bias_assessments",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("investigation_id", sa.String(length=64), nullable=False),
        sa.Column("overall_bias_score", sa.Float(), nullable=False),
        sa.Column("coverage", sa.JSON(), nullable=False),
        sa.Column("coverage_pct", sa.JSON(), nullable=False),
        sa.Column("recommendation", sa.Text(), nullable=False),
        sa.Column("per_source", sa.JSON(), nullable=False),
        sa.Column("unrated", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["investigation_id"], ["investigations.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        op.f("ix_bias_assessments_investigation_id"),
        "bias_assessments",
        ["investigation_id"],
        unique=True,
    )
    op.create_table(
        "claims",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("investigation_id", sa.String(length=64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("claim_text", sa.Text(), nullable=False),
        sa.Column("importance", sa.Float(), nullable=False),
        sa.Column("entities", sa.JSON(), nullable=False),
        sa.Column("origin", sa.String(length=16), nullable=True),
        sa.Column("city", sa.Text(), nullable=True),
        sa.Column("state", sa.String(length=2), nullable=True),
        sa.Column("period_start", sa.String(length=10), nullable=True),
        sa.Column("period_end", sa.String(length=10), nullable=True),
        sa.ForeignKeyConstraint(["investigation_id"], ["investigations.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("investigation_id", "key"),
    )
    op.create_index(
        op.f("ix_claims_investigation_id"), "claims", ["investigation_id"], unique=False
    )
    op.create_table(
        "documents",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("collection", sa.String(length=255), nullable=False),
        sa.Column("file_key", sa.Text(), nullable=False),
        sa.Column("file_name", sa.Text(), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("metadata_title", sa.Text(), nullable=False),
        sa.Column("first_heading", sa.Text(), nullable=False),
        sa.Column("synonyms", sa.JSON(), nullable=False),
        sa.Column("language", sa.String(length=16), nullable=False),
        sa.Column("page_count", sa.Integer(), nullable=False),
        sa.Column("unreadable", sa.JSON(), nullable=False),
        sa.Column("ocr_pages", sa.JSON(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["collection"], ["collections.name"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("collection", "file_key"),
    )
    op.create_index(op.f("ix_documents_collection"), "documents", ["collection"], unique=False)
    op.create_index(op.f("ix_documents_sha256"), "documents", ["sha256"], unique=False)
    op.create_table(
        "investigation_snapshots",
        sa.Column("investigation_id", sa.String(length=64), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["investigation_id"], ["investigations.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["sha256"], ["snapshots.sha256"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("investigation_id", "sha256"),
    )
    op.create_table(
        "sources",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("investigation_id", sa.String(length=64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("domain", sa.String(length=255), nullable=False),
        sa.Column("credibility_score", sa.Integer(), nullable=False),
        sa.Column("content_summary", sa.Text(), nullable=False),
        sa.Column("key_claims", sa.JSON(), nullable=False),
        sa.Column("published_at", sa.Text(), nullable=True),
        sa.Column("is_user_provided", sa.Boolean(), nullable=False),
        sa.Column("is_reachable", sa.Boolean(), nullable=False),
        sa.Column("unreachable_reason", sa.Text(), nullable=True),
        sa.Column("origin", sa.String(length=32), nullable=False),
        sa.Column("display_url", sa.String(length=2048), nullable=True),
        sa.Column("publisher", sa.Text(), nullable=True),
        sa.Column("retrieved_at", sa.String(length=64), nullable=True),
        sa.Column("content_sha256", sa.String(length=64), nullable=True),
        sa.Column("relevant", sa.Boolean(), nullable=True),
        sa.Column("relevance", sa.Float(), nullable=True),
        sa.Column("relevance_reason", sa.Text(), nullable=True),
        sa.Column("document_id", sa.String(length=64), nullable=True),
        sa.Column("page", sa.Integer(), nullable=True),
        sa.Column("territory_id", sa.String(length=16), nullable=True),
        sa.Column("gazette_date", sa.String(length=32), nullable=True),
        sa.Column("txt_url", sa.String(length=2048), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["investigation_id"], ["investigations.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("investigation_id", "url"),
    )
    op.create_index(
        op.f("ix_sources_investigation_id"), "sources", ["investigation_id"], unique=False
    )
    op.create_table(
        "timeline_events",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("investigation_id", sa.String(length=64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("event_date", sa.Text(), nullable=False),
        sa.Column("date_precision", sa.String(length=8), nullable=False),
        sa.Column("event_text", sa.Text(), nullable=False),
        sa.Column("source_ids", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["investigation_id"], ["investigations.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        op.f("ix_timeline_events_investigation_id"),
        "timeline_events",
        ["investigation_id"],
        unique=False,
    )
    op.create_table(
        "claim_sources",
        sa.Column("claim_id", sa.String(length=64), nullable=False),
        sa.Column("source_id", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["claim_id"], ["claims.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["source_id"], ["sources.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("claim_id", "source_id"),
    )
    op.create_table(
        "fact_checks",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("investigation_id", sa.String(length=64), nullable=False),
        sa.Column("claim_id", sa.String(length=64), nullable=False),
        sa.Column("verdict", sa.String(length=32), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("explanation", sa.Text(), nullable=False),
        sa.Column("sufficient", sa.Boolean(), nullable=False),
        sa.Column("queries", sa.JSON(), nullable=False),
        sa.Column("iterations", sa.Integer(), nullable=False),
        sa.Column("stop_reason", sa.Text(), nullable=False),
        sa.Column("as_of", sa.Text(), nullable=True),
        sa.Column("reasoning", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["claim_id"], ["claims.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["investigation_id"], ["investigations.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("investigation_id", "claim_id"),
    )
    op.create_index(
        op.f("ix_fact_checks_investigation_id"), "fact_checks", ["investigation_id"], unique=False
    )
    op.create_table(
        "passages",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("document_id", sa.String(length=64), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("page", sa.Integer(), nullable=False),
        sa.Column("start", sa.Integer(), nullable=False),
        sa.Column("end", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["document_id"], ["documents.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "ix_passages_document_ordinal", "passages", ["document_id", "ordinal"], unique=False
    )
    op.create_table(
        "evidence",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("fact_check_id", sa.String(length=64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("publisher", sa.Text(), nullable=False),
        sa.Column("reliability", sa.String(length=16), nullable=False),
        sa.Column("stance", sa.String(length=16), nullable=False),
        sa.Column("snippet", sa.Text(), nullable=False),
        sa.Column("origin", sa.String(length=16), nullable=True),
        sa.Column("rating", sa.Text(), nullable=True),
        sa.Column("display_url", sa.String(length=2048), nullable=True),
        sa.Column("quote", sa.Text(), nullable=True),
        sa.Column("query", sa.Text(), nullable=True),
        sa.Column("retrieved_at", sa.String(length=64), nullable=True),
        sa.Column("published_at", sa.Text(), nullable=True),
        sa.Column("content_sha256", sa.String(length=64), nullable=True),
        sa.Column("independent", sa.Boolean(), nullable=True),
        sa.Column("independence_note", sa.Text(), nullable=True),
        sa.Column("stance_note", sa.Text(), nullable=True),
        sa.Column("document_id", sa.String(length=64), nullable=True),
        sa.Column("page", sa.Integer(), nullable=True),
        sa.Column("territory_id", sa.String(length=16), nullable=True),
        sa.ForeignKeyConstraint(["fact_check_id"], ["fact_checks.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_evidence_fact_check_id"), "evidence", ["fact_check_id"], unique=False)
    op.create_table(
        "fact_check_sources",
        sa.Column("fact_check_id", sa.String(length=64), nullable=False),
        sa.Column("source_id", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["fact_check_id"], ["fact_checks.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["source_id"], ["sources.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("fact_check_id", "source_id"),
    )


def downgrade() -> None:
    op.drop_table("fact_check_sources")
    op.drop_index(op.f("ix_evidence_fact_check_id"), table_name="evidence")
    op.drop_table("evidence")
    op.drop_index("ix_passages_document_ordinal", table_name="passages")
    op.drop_table("passages")
    op.drop_index(op.f("ix_fact_checks_investigation_id"), table_name="fact_checks")
    op.drop_table("fact_checks")
    op.drop_table("claim_sources")
    op.drop_index(op.f("ix_timeline_events_investigation_id"), table_name="timeline_events")
    op.drop_table("timeline_events")
    op.drop_index(op.f("ix_sources_investigation_id"), table_name="sources")
    op.drop_table("sources")
    op.drop_table("investigation_snapshots")
    op.drop_index(op.f("ix_documents_sha256"), table_name="documents")
    op.drop_index(op.f("ix_documents_collection"), table_name="documents")
    op.drop_table("documents")
    op.drop_index(op.f("ix_claims_investigation_id"), table_name="claims")
    op.drop_table("claims")
    op.drop_index(op.f("ix_bias_assessments_investigation_id"), table_name="bias_assessments")
    op.drop_table("bias_assessments")
    op.drop_table("snapshots")
    op.drop_table("investigations")
    op.drop_table("collections")
    op.drop_index(op.f("ix_callback_outbox_status"), table_name="callback_outbox")
    op.drop_index(op.f("ix_callback_outbox_investigation_id"), table_name="callback_outbox")
    op.drop_table("callback_outbox")
    op.drop_table("callback_idempotency")

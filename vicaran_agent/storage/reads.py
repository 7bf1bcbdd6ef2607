"""Reading investigations back: their status, one with all its records, the list (typed views:
`read_model.py`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from vicaran_agent.read_model import InvestigationListItem, InvestigationView
from vicaran_agent.storage.base import (
    SOURCE_FIELDS,
    STOPPED,
    RecordsDatabase,
    all_rows,
    effective_status,
    iso,
)
from vicaran_agent.storage.tables import (
    BiasRow,
    ClaimRow,
    EvidenceRow,
    FactCheckRow,
    InvestigationRow,
    SourceRow,
    TimelineEventRow,
    utcnow,
)


class Reads(RecordsDatabase):
    """What readers (the API, the dashboard, exports) get."""

    def get_status(self, investigation_id: str) -> str | None:
        """The investigation's status, or None when it is unknown."""

        def op(session: Session) -> str | None:
            row = session.get(InvestigationRow, investigation_id)
            return None if row is None else effective_status(row, utcnow())

        return self._read(op)

    def get_investigation(self, investigation_id: str) -> InvestigationView | None:
        """Everything about one investigation, or None when it is unknown."""
        return self._read(lambda session: _investigation_view(session, investigation_id))

    def list_investigations(self) -> list[InvestigationListItem]:
        """Every investigation, newest first, with record counts."""

        def count(model: Any) -> Any:
            return (
                select(func.count())
                .select_from(model)
                .where(model.investigation_id == InvestigationRow.id)
                .scalar_subquery()
            )

        statement = select(
            InvestigationRow,
            count(SourceRow),
            count(ClaimRow),
            count(FactCheckRow),
        ).order_by(InvestigationRow.created_at.desc(), InvestigationRow.id)

        def op(session: Session) -> list[InvestigationListItem]:
            now = utcnow()
            return [
                InvestigationListItem(
                    id=row.id,
                    title=row.title,
                    mode=row.mode,
                    status=effective_status(row, now),
                    source_count=sources,
                    claim_count=claims,
                    fact_check_count=fact_checks,
                    created_at=iso(row.created_at),
                    updated_at=iso(row.updated_at),
                )
                for row, sources, claims, fact_checks in session.execute(statement)
            ]

        return self._read(op)


def _evidence_dict(item: EvidenceRow) -> dict[str, Any]:
    return {
        "url": item.url,
        "display_url": item.display_url or item.url,
        "title": item.title,
        "publisher": item.publisher,
        "reliability": item.reliability,
        "stance": item.stance,
        "snippet": item.snippet,
        "quote": item.quote or "",
        "query": item.query or "",
        "origin": item.origin or "web",
        "rating": item.rating,
        "retrieved_at": item.retrieved_at,
        "published_at": item.published_at,
        "published_at_source": item.published_at_source,
        "content_sha256": item.content_sha256,
        "independent": item.independent is not False,
        "independence_note": item.independence_note or "",
        "primary_record": bool(item.primary_record),
        "stance_note": item.stance_note or "",
        "document_id": item.document_id,
        "page": item.page,
        "territory_id": item.territory_id,
    }


def _investigation_view(session: Session, investigation_id: str) -> InvestigationView | None:
    row = session.get(InvestigationRow, investigation_id)
    if row is None:
        return None
    status = effective_status(row, utcnow())
    sources = sorted(all_rows(session, SourceRow, investigation_id), key=lambda r: r.position)
    url_of = {source.id: source.url for source in sources}
    claims = list(
        session.scalars(
            select(ClaimRow)
            .where(ClaimRow.investigation_id == investigation_id)
            .options(selectinload(ClaimRow.sources))
            .order_by(ClaimRow.position)
        )
    )
    fact_checks = list(
        session.scalars(
            select(FactCheckRow)
            .join(FactCheckRow.claim)
            .where(FactCheckRow.investigation_id == investigation_id)
            .options(selectinload(FactCheckRow.evidence), selectinload(FactCheckRow.sources))
            .order_by(ClaimRow.position)
        )
    )
    bias = session.scalars(
        select(BiasRow).where(BiasRow.investigation_id == investigation_id)
    ).one_or_none()
    events = sorted(
        all_rows(session, TimelineEventRow, investigation_id),
        key=lambda r: (r.event_date, r.position),
    )
    return InvestigationView.model_validate(
        {
            "id": row.id,
            "title": row.title,
            "brief": row.brief,
            "mode": row.mode,
            "language": row.language,
            "status": status,
            "partial_reason": row.partial_reason,
            "error": row.error or (STOPPED if status != row.status else None),
            "summary": row.summary,
            "overall_bias_score": row.overall_bias_score,
            "quality": dict(row.quality) if row.quality else None,
            "tokens": dict(row.tokens) if row.tokens else None,
            "created_at": iso(row.created_at),
            "updated_at": iso(row.updated_at),
            "completed_at": iso(row.completed_at),
            "sources": [
                {
                    "id": source.id,
                    "source_id": source.id,
                    "url": source.url,
                    **{field: getattr(source, field) for field in SOURCE_FIELDS},
                    "display_url": source.display_url or source.url,
                    "publisher": source.publisher or source.domain,
                    "relevant": source.relevant is not False,
                    "key_claims": list(source.key_claims or []),
                    "created_at": iso(source.created_at),
                }
                for source in sources
            ],
            "claims": [
                {
                    "id": claim.id,
                    "claim_id": claim.id,
                    "key": claim.key,
                    "claim_text": claim.claim_text,
                    "importance": claim.importance,
                    "entities": list(claim.entities or []),
                    "origin": claim.origin or "source",
                    "kind": claim.kind or "fact",
                    "attributed_to": claim.attributed_to or "",
                    "city": claim.city,
                    "state": claim.state,
                    "period_start": claim.period_start,
                    "period_end": claim.period_end,
                    "source_ids": [source.id for source in claim.sources],
                    "source_urls": [source.url for source in claim.sources],
                }
                for claim in claims
            ],
            "fact_checks": [
                {
                    "id": check.id,
                    "fact_check_id": check.id,
                    "claim_id": check.claim_id,
                    "claim_key": check.claim.key,
                    "claim_text": check.claim.claim_text,
                    "verdict": check.verdict,
                    "confidence": check.confidence,
                    "explanation": check.explanation,
                    "sufficient": check.sufficient,
                    "queries": list(check.queries or []),
                    "iterations": check.iterations,
                    "stop_reason": check.stop_reason,
                    "as_of": check.as_of,
                    "evidence": [_evidence_dict(item) for item in check.evidence],
                    "source_ids": [source.id for source in check.sources],
                    "reasoning": list(check.reasoning or []),
                }
                for check in fact_checks
            ],
            "bias": None
            if bias is None
            else {
                "overall_bias_score": bias.overall_bias_score,
                "coverage": dict(bias.coverage or {}),
                "coverage_pct": dict(bias.coverage_pct or {}),
                "recommendation": bias.recommendation,
                "per_source": list(bias.per_source or []),
                "unrated": bias.unrated or 0,
            },
            "timeline": [
                {
                    "id": item.id,
                    "event_id": item.id,
                    "event_date": item.event_date,
                    "date_precision": item.date_precision,
                    "event_text": item.event_text,
                    "source_ids": list(item.source_ids or []),
                    "source_urls": [url_of[i] for i in item.source_ids or [] if i in url_of],
                }
                for item in events
            ],
        }
    )

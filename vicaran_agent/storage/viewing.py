"""Stored rows as readers see them: one function per record, each building its typed view
(`read_model.py`) in one pass. The read API, the dashboard, the exports and the callback
payloads (`storage/payloads.py`) all start from these.

A row is a Core row (`reads.py`) or an ORM object (the writers' `payloads.py`): both name their
columns as attributes; what a record links to (a claim's sources, a check's evidence) is given
beside it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vicaran_agent.memory import EarlierCheck
from vicaran_agent.read_model import (
    BiasView,
    ClaimView,
    EvidenceView,
    FactCheckView,
    InvestigationView,
    ReviewView,
    SourceView,
    TimelineEventView,
)
from vicaran_agent.schemas import OrderDispute
from vicaran_agent.storage.tables import iso
from vicaran_agent.urls import normalize_url


def archived(url: str, archives: Mapping[str, int] | None) -> int | None:
    """The id of the latest archived copy of the page at `url`, if any."""
    return archives.get(normalize_url(url)) if archives else None


def source_view(row: Any, archives: Mapping[str, int] | None = None) -> SourceView:
    return SourceView(
        id=row.id,
        source_id=row.id,
        url=row.url,
        title=row.title or "",
        domain=row.domain or "",
        credibility_score=row.credibility_score or 0,
        content_summary=row.content_summary or "",
        key_claims=list(row.key_claims or []),
        published_at=row.published_at,
        published_at_source=row.published_at_source,
        is_user_provided=bool(row.is_user_provided),
        is_reachable=row.is_reachable is not False,
        unreachable_reason=row.unreachable_reason,
        unreachable_detail=row.unreachable_detail,
        origin=row.origin or "web",
        display_url=row.display_url or row.url,
        publisher=row.publisher or row.domain or "",
        retrieved_at=row.retrieved_at,
        content_sha256=row.content_sha256,
        relevant=row.relevant is not False,
        relevance=row.relevance,
        relevance_reason=row.relevance_reason,
        document_id=row.document_id,
        page=row.page,
        territory_id=row.territory_id,
        gazette_date=row.gazette_date,
        txt_url=row.txt_url,
        created_at=iso(row.created_at),
        archive_id=archived(row.url, archives),
    )


def claim_view(row: Any, sources: Sequence[Any]) -> ClaimView:
    """A claim; `sources`: the saved sources it names (each with its `id` and `url`)."""
    return ClaimView(
        id=row.id,
        claim_id=row.id,
        key=row.key or "",
        claim_text=row.claim_text,
        importance=row.importance or 0.0,
        entities=list(row.entities or []),
        origin=row.origin or "source",
        kind=row.kind or "fact",
        attributed_to=row.attributed_to or "",
        city=row.city,
        state=row.state,
        period_start=row.period_start,
        period_end=row.period_end,
        source_ids=[source.id for source in sources],
        source_urls=[source.url for source in sources],
        earlier_checks=[EarlierCheck.model_validate(c) for c in row.earlier_checks or []],
    )


def evidence_view(row: Any, archives: Mapping[str, int] | None = None) -> EvidenceView:
    return EvidenceView(
        url=row.url,
        display_url=row.display_url or row.url,
        title=row.title or "",
        publisher=row.publisher or "",
        reliability=row.reliability or "neutral",
        stance=row.stance or "context",
        snippet=row.snippet or "",
        quote=row.quote or "",
        query=row.query or "",
        origin=row.origin or "web",
        rating=row.rating,
        retrieved_at=row.retrieved_at,
        published_at=row.published_at,
        published_at_source=row.published_at_source,
        content_sha256=row.content_sha256,
        independent=row.independent is not False,
        independence_note=row.independence_note or "",
        primary_record=bool(row.primary_record),
        stance_note=row.stance_note or "",
        document_id=row.document_id,
        page=row.page,
        territory_id=row.territory_id,
        archive_id=archived(row.url, archives),
    )


def fact_check_view(
    row: Any,
    *,
    claim_key: str | None,
    claim_text: str | None,
    evidence: Sequence[Any],
    sources: Sequence[Any],
    review: ReviewView | None = None,
    archives: Mapping[str, int] | None = None,
) -> FactCheckView:
    """A check of the claim `claim_key` says, with its `evidence` (in order) and the saved
    `sources` it cites; `review`: the editor's decision on it as it stands (none: unreviewed)."""
    return FactCheckView(
        id=row.id,
        fact_check_id=row.id,
        claim_id=row.claim_id,
        claim_key=claim_key or "",
        claim_text=claim_text or "",
        verdict=row.verdict,
        confidence=row.confidence or 0.0,
        explanation=row.explanation or "",
        sufficient=bool(row.sufficient),
        queries=list(row.queries or []),
        iterations=row.iterations or 0,
        stop_reason=row.stop_reason or "",
        as_of=row.as_of,
        evidence=[evidence_view(item, archives) for item in evidence],
        source_ids=[source.id for source in sources],
        reasoning=list(row.reasoning or []),
        review=review or ReviewView(),
    )


def bias_view(row: Any) -> BiasView:
    return BiasView(
        overall_bias_score=row.overall_bias_score,
        coverage=dict(row.coverage or {}),
        coverage_pct=dict(row.coverage_pct or {}),
        recommendation=row.recommendation or "",
        per_source=list(row.per_source or []),
        unrated=row.unrated or 0,
    )


def timeline_view(row: Any, url_of: Mapping[str, str]) -> TimelineEventView:
    """An event; `url_of` gives the saved sources' addresses by id (the links it may show)."""
    source_ids = list(row.source_ids or [])
    return TimelineEventView(
        id=row.id,
        event_id=row.id,
        event_date=row.event_date,
        date_precision=row.date_precision or "day",
        event_text=row.event_text,
        source_ids=source_ids,
        source_urls=[url_of[i] for i in source_ids if i in url_of],
        disputed_dates=list(row.disputed_dates or []),
        order_disputes=[OrderDispute.model_validate(d) for d in row.order_disputes or []],
    )


def investigation_view(
    row: Any,
    *,
    status: str,
    error: str | None,
    sources: Sequence[Any] = (),
    claims: Sequence[Any] = (),
    claim_sources: Mapping[str, Sequence[Any]] | None = None,
    fact_checks: Sequence[Any] = (),
    evidence: Mapping[str, Sequence[Any]] | None = None,
    check_sources: Mapping[str, Sequence[Any]] | None = None,
    bias: Any | None = None,
    events: Sequence[Any] = (),
    reviews: Mapping[str, ReviewView] | None = None,
    archives: Mapping[str, int] | None = None,
) -> InvestigationView:
    """The investigation with the records given (none: its header only): `fact_checks` name
    their claim's `claim_key` and `claim_text`; `claim_sources`, `evidence` and
    `check_sources` are by claim or check id; `reviews`: the editors' decisions by fact-check
    id; `archives`: {normalized page address: id of its latest archived copy}."""
    url_of = {source.id: source.url for source in sources}
    return InvestigationView(
        id=row.id,
        title=row.title or "",
        brief=row.brief or "",
        mode=row.mode or "quick",
        language=row.language or "en",
        status=status,
        partial_reason=row.partial_reason,
        error=error,
        summary=row.summary,
        overall_bias_score=row.overall_bias_score,
        quality=dict(row.quality) if row.quality else None,
        tokens=dict(row.tokens) if row.tokens else None,
        created_at=iso(row.created_at),
        updated_at=iso(row.updated_at),
        completed_at=iso(row.completed_at),
        sources=[source_view(source, archives) for source in sources],
        claims=[claim_view(claim, (claim_sources or {}).get(claim.id, ())) for claim in claims],
        fact_checks=[
            fact_check_view(
                check,
                claim_key=check.claim_key,
                claim_text=check.claim_text,
                evidence=(evidence or {}).get(check.id, ()),
                sources=(check_sources or {}).get(check.id, ()),
                review=(reviews or {}).get(check.id),
                archives=archives,
            )
            for check in fact_checks
        ],
        bias=None if bias is None else bias_view(bias),
        timeline=[timeline_view(event, url_of) for event in events],
    )

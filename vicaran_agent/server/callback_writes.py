"""The callback API's writes, one per record type, into Vicaran's own store (`callback_api` parses,
authenticates and replays; this writes what it accepted).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, get_args

from ..read_model import InvestigationView, SourceView
from ..schemas import (
    BiasAssessment,
    Claim,
    EvidenceOrigin,
    InvestigationConfig,
    ReportQuality,
    Source,
    SourceBias,
    TimelineEvent,
    Verdict,
)
from ..storage.repository import (
    InvestigationFinishedError,
    Repository,
    UnknownInvestigationError,
)
from ..urls import domain_of, is_document_url, normalize_url
from .callback_data import (
    COVERAGE_STANCES,
    NOT_FOUND,
    BiasData,
    CallbackError,
    ClaimData,
    CompleteData,
    FactCheckData,
    FailedData,
    PartialData,
    SourceData,
    StartedData,
    TimelineData,
    Tokens,
    date_precision_of,
    reopen_refused,
    unknown,
)

T = TypeVar("T")


class Writer:
    """Validated data → one store write; returns the success body."""

    def __init__(self, repo: Repository, investigation_id: str) -> None:
        self.repo = repo
        self.id = investigation_id
        self._snapshot: InvestigationView | None = None

    async def call(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            return await asyncio.to_thread(function, *args, **kwargs)
        except UnknownInvestigationError:
            raise CallbackError(404, NOT_FOUND) from None

    async def snapshot(self) -> InvestigationView:
        """The investigation as stored (to check the ids a record refers to)."""
        if self._snapshot is None:
            found = await self.call(self.repo.get_investigation, self.id)
            if found is None:
                raise CallbackError(404, NOT_FOUND)
            self._snapshot = found
        return self._snapshot

    async def sources_by_id(self, wanted: list[str], field: str) -> dict[str, SourceView]:
        sources = {s.id: s for s in (await self.snapshot()).sources}
        missing = [i for i in dict.fromkeys(wanted) if i not in sources]
        if missing:
            raise unknown(f"{field}", missing)
        return sources

    async def started(self, data: StartedData) -> dict[str, Any]:
        config = InvestigationConfig.for_mode(
            data.mode,
            investigation_id=self.id,
            title=data.title or "",
            brief=data.brief or "",
            language=data.language or "en",
        )
        try:  # refused in the store's own transaction: no race with a finishing callback
            await self.call(self.repo.start_investigation, config, reopen=False)
        except InvestigationFinishedError as finished:
            raise reopen_refused(finished.status) from None
        return {"success": True}

    async def source(self, data: SourceData) -> dict[str, Any]:
        source = Source(
            url=data.url,
            title=data.title or "",
            domain=data.domain or domain_of(data.url),
            credibility_score=data.credibility_score,
            content_summary=data.content_snippet or "",
            published_at=data.published_at or None,
            published_at_source=data.published_at_source,
            is_user_provided=data.is_user_provided,
            origin=data.origin or "web",
            display_url=data.display_url or "",
            publisher=data.publisher or "",
            retrieved_at=data.retrieved_at,
            content_sha256=data.content_sha256,
            relevant=data.relevant is not False,
            relevance_reason=data.relevance_reason,
            document_id=data.document_id,
            page=data.page,
            territory_id=data.territory_id,
            gazette_date=data.gazette_date,
            txt_url=data.txt_url,
        )
        # A snapshot is linked only when the record carries its text (never by its name alone).
        ids = await self.call(self.repo.save_sources, self.id, [source], foreign=True)
        return {"success": True, "source_id": str(ids[source.url])}

    async def claim(self, data: ClaimData) -> dict[str, Any]:
        await self.sources_by_id(data.source_ids, "source_ids")
        taken = {c.key for c in (await self.snapshot()).claims}
        key = _fresh_key(taken)
        claim = Claim(
            key=key,
            claim_text=data.claim_text,
            importance=0.5 if data.importance is None else data.importance,
            source_ids=list(dict.fromkeys(data.source_ids)),
            origin=data.origin or "source",
            entities=[e.strip() for e in data.entities or [] if e.strip()],
            kind=data.kind or "fact",
            attributed_to=" ".join((data.attributed_to or "").split()),
        )
        ids = await self.call(self.repo.save_claims, self.id, [claim])
        return {"success": True, "claim_id": str(ids[key])}

    async def fact_check(self, data: FactCheckData) -> dict[str, Any]:
        claims = {c.id: c for c in (await self.snapshot()).claims}
        claim = claims.get(data.claim_id)
        if claim is None:
            raise unknown("claim_id", [data.claim_id])
        await self.sources_by_id(data.source_ids, "source_ids")
        verdict = Verdict(
            claim_key=claim.key,
            claim_text=claim.claim_text,
            claim_id=claim.id,
            verdict=data.verdict,
            confidence=data.confidence,
            explanation=data.explanation,
            evidence=[
                {
                    "url": item.url if is_document_url(item.url) else normalize_url(item.url),
                    "display_url": item.url,
                    "title": item.title or "",
                    "publisher": item.publisher or domain_of(item.url),
                    "reliability": item.reliability,
                    "stance": item.stance,
                    "snippet": item.snippet or "",
                    "quote": item.quote or "",
                    "query": item.query or "",
                    "retrieved_at": item.retrieved_at,
                    "published_at": item.published_at,
                    "published_at_source": item.published_at_source,
                    "content_sha256": item.content_sha256,
                    "origin": _evidence_origin(item.origin),
                    "independent": item.independent is not False,
                    "primary_record": item.primary_record is True,
                    "document_id": item.document_id,
                    "page": item.page,
                    "territory_id": item.territory_id,
                }
                for item in data.evidence
            ],
            source_ids=list(dict.fromkeys(data.source_ids)),
            as_of=data.as_of,
            reasoning=data.reasoning_log or [],
        )
        ids = await self.call(self.repo.save_verdicts, self.id, [verdict], foreign=True)
        if claim.key not in ids:  # the store skips a verdict whose claim is not there
            raise unknown("claim_id", [data.claim_id])
        return {"success": True, "fact_check_id": str(ids[claim.key])}

    async def bias(self, data: BiasData) -> dict[str, Any]:
        per_source = data.per_source or []
        sources = await self.sources_by_id(
            [item.source_id for item in per_source], "per_source.source_id"
        )
        coverage = {stance: data.coverage.get(stance, 0) for stance in COVERAGE_STANCES}
        total = sum(coverage.values())
        assessment = BiasAssessment(
            overall_bias_score=data.overall_bias_score,
            coverage=coverage,
            coverage_pct={
                stance: round(100 * count / total, 1) if total else 0.0
                for stance, count in coverage.items()
            },
            per_source=[
                SourceBias(
                    url=sources[item.source_id].url,
                    source_id=item.source_id,
                    bias_score=item.bias_score,
                    stance=item.stance or "neutral",
                    indicators=[i for i in item.indicators or [] if i.strip()],
                )
                for item in per_source
            ],
            recommendation=data.recommendation or "",
        )
        await self.call(self.repo.save_bias, self.id, assessment)
        return {"success": True}

    async def timeline(self, data: TimelineData) -> dict[str, Any]:
        if data.source_id is not None:
            await self.sources_by_id([data.source_id], "source_id")
        event = TimelineEvent(
            event_date=data.event_date,
            date_precision=data.date_precision or date_precision_of(data.event_date),
            event_text=data.event_text,
            source_ids=[data.source_id] if data.source_id else [],
        )
        event_id = await self.call(self.repo.add_timeline_event, self.id, event)
        return {"success": True, "event_id": str(event_id)}

    async def complete(self, data: CompleteData) -> dict[str, Any]:
        await self.call(
            self.repo.finish_investigation,
            self.id,
            "completed",
            summary=data.summary,
            overall_bias_score=data.bias_score,
            quality=_quality(data.quality),
            tokens=_tokens(data.tokens),
        )
        return {"success": True}

    async def partial(self, data: PartialData) -> dict[str, Any]:
        await self.call(
            self.repo.finish_investigation,
            self.id,
            "partial",
            summary=data.summary,
            partial_reason=data.partial_reason,
            overall_bias_score=data.bias_score,
            quality=_quality(data.quality),
            tokens=_tokens(data.tokens),
        )
        return {"success": True}

    async def failed(self, data: FailedData) -> dict[str, Any]:
        await self.call(self.repo.finish_investigation, self.id, "failed", error=data.error)
        return {"success": True}

    def handler(self, type_: str) -> Callable[[Any], Awaitable[dict[str, Any]]]:
        return {
            "INVESTIGATION_STARTED": self.started,
            "SOURCE_FOUND": self.source,
            "CLAIM_EXTRACTED": self.claim,
            "FACT_CHECKED": self.fact_check,
            "BIAS_ANALYZED": self.bias,
            "TIMELINE_EVENT": self.timeline,
            "INVESTIGATION_COMPLETE": self.complete,
            "INVESTIGATION_PARTIAL": self.partial,
            "INVESTIGATION_FAILED": self.failed,
        }[type_]


def _evidence_origin(value: str | None) -> str:
    """The sender's evidence origin when Vicaran knows it, else "web"."""
    known = get_args(EvidenceOrigin)
    return value if value in known else "web"


def _quality(quality: ReportQuality | None) -> dict[str, Any] | None:
    return quality.model_dump(mode="json") if quality is not None else None


def _tokens(tokens: Tokens | None) -> dict[str, Any] | None:
    return tokens.model_dump(mode="json", exclude_defaults=False) if tokens is not None else None


def _fresh_key(taken: set[str]) -> str:
    """A claim key no claim of the investigation uses ("X" + 8 hex; remote claims have none)."""
    while True:
        key = "X" + secrets.token_hex(4)
        if key not in taken:
            return key

"""What each saved record becomes for the newsroom's callback API (`docs/callback-api.md`).

Built from the same typed views the read API, the dashboard and the exports read
(`storage/viewing.py`), so a record says the same thing wherever it goes.

The final records' `overall_bias_score` is on the receiver's scale (`VICARAN_CALLBACK_BIAS_SCALE`:
0-5 by default, as seed 001's receiver takes it; `BIAS_ANALYZED` stays 0-10).

What of the journalist's documents goes (`VICARAN_CALLBACK_DOCUMENT_TEXT`): with "quotes", a
passage's quote and snippet and a document's summary, as for any source; with "none", only the
reference (title, document id, page, the passage's address and SHA-256), and no reasoning log
(it names what following read in the documents).
"""

from __future__ import annotations

from typing import Any

from vicaran_agent.config import Settings, get_settings
from vicaran_agent.read_model import (
    BiasView,
    ClaimView,
    EvidenceView,
    FactCheckView,
    InvestigationView,
    SourceView,
    TimelineEventView,
)
from vicaran_agent.storage.rows import (
    BiasRow,
    ClaimRow,
    FactCheckRow,
    InvestigationRow,
    SourceRow,
    TimelineEventRow,
)
from vicaran_agent.storage.viewing import (
    bias_view,
    claim_view,
    fact_check_view,
    investigation_view,
    source_view,
    timeline_view,
)
from vicaran_agent.urls import is_document_url

Payload = tuple[str | None, dict[str, Any]]  # (the record's local id, the contract's `data`)


def payload(kind: str, row: Any, settings: Settings | None = None) -> Payload:
    """(local id, contract `data`) for a saved row of `kind`."""
    settings = settings or get_settings()
    local_id, data = _payload(kind, row, settings)
    if settings.vicaran_callback_document_text == "none":
        data = _references_only(data)
    return local_id, data


def on_scale(score: float, scale: int) -> float:
    """Vicaran's 0-10 bias score on the receiver's 0-`scale` scale (two decimals)."""
    return round(score * scale / 10, 2)


def _payload(kind: str, row: Any, settings: Settings) -> Payload:
    if isinstance(row, InvestigationRow):
        header = investigation_view(row, status=row.status or "", error=row.error)
        return None, investigation_data(kind, header, settings.vicaran_callback_bias_scale)
    if isinstance(row, SourceRow):
        return row.id, source_data(source_view(row))
    if isinstance(row, ClaimRow):
        return row.id, claim_data(claim_view(row, row.sources))
    if isinstance(row, FactCheckRow):
        claim = row.claim
        view = fact_check_view(
            row,
            claim_key=claim.key if claim is not None else None,
            claim_text=claim.claim_text if claim is not None else None,
            evidence=row.evidence,
            sources=row.sources,
        )
        return row.id, fact_check_data(view)
    if isinstance(row, BiasRow):
        return row.id, bias_data(bias_view(row))
    if isinstance(row, TimelineEventRow):
        return row.id, timeline_data(timeline_view(row, {}))
    raise TypeError(f"no callback payload for {type(row).__name__}")


def investigation_data(kind: str, view: InvestigationView, scale: int) -> dict[str, Any]:
    if kind == "INVESTIGATION_STARTED":
        return {"mode": view.mode, "title": view.title, "brief": view.brief}
    if kind == "INVESTIGATION_FAILED":
        return {"error": view.error or "unknown error"}
    data: dict[str, Any] = {"summary": view.summary or ""}
    if view.overall_bias_score is not None:
        data["overall_bias_score"] = on_scale(view.overall_bias_score, scale)
        data["bias_scale"] = scale
    if view.quality:
        data["quality"] = dict(view.quality)
    if view.tokens:
        data["tokens"] = dict(view.tokens)
    if kind == "INVESTIGATION_PARTIAL":
        data["partial_reason"] = view.partial_reason or "partial"
    return data


def source_data(view: SourceView) -> dict[str, Any]:
    return {
        "url": view.url,
        "title": view.title,
        "domain": view.domain,
        "content_snippet": view.content_summary,
        "credibility_score": view.credibility_score,
        "is_user_provided": view.is_user_provided,
        "published_at": view.published_at,
        "origin": view.origin,
        "relevant": view.relevant,
        **_present(
            published_at_source=view.published_at_source,
            display_url=view.display_url if view.display_url != view.url else None,
            publisher=view.publisher,
            retrieved_at=view.retrieved_at,
            content_sha256=view.content_sha256,
            relevance_reason=view.relevance_reason,
            document_id=view.document_id,
            page=view.page,
            territory_id=view.territory_id,
            gazette_date=view.gazette_date,
            txt_url=view.txt_url,
        ),
    }


def claim_data(view: ClaimView) -> dict[str, Any]:
    return {
        "claim_text": view.claim_text,
        "importance": view.importance,
        "source_ids": list(view.source_ids),
        "origin": view.origin,
        "entities": list(view.entities),
        "kind": view.kind,
        **_present(attributed_to=view.attributed_to),
    }


def evidence_data(view: EvidenceView) -> dict[str, Any]:
    return {
        "url": view.display_url or view.url,
        "title": view.title,
        "reliability": view.reliability,
        "stance": view.stance,
        "snippet": view.snippet,
        "origin": view.origin,
        "independent": view.independent,
        **_present(
            publisher=view.publisher,
            quote=view.quote,
            query=view.query,
            retrieved_at=view.retrieved_at,
            published_at=view.published_at,
            published_at_source=view.published_at_source,
            content_sha256=view.content_sha256,
            primary_record=view.primary_record or None,
            document_id=view.document_id,
            page=view.page,
            territory_id=view.territory_id,
        ),
    }


def fact_check_data(view: FactCheckView) -> dict[str, Any]:
    return {
        "claim_id": view.claim_id,
        "verdict": view.verdict,
        "confidence": view.confidence,
        "explanation": view.explanation,
        "evidence": [evidence_data(item) for item in view.evidence],
        "source_ids": list(view.source_ids),
        **_present(as_of=view.as_of, reasoning_log=view.reasoning or None),
    }


def bias_data(view: BiasView) -> dict[str, Any]:
    return {
        "overall_bias_score": view.overall_bias_score,
        "coverage": dict(view.coverage),
        "recommendation": view.recommendation,
        "per_source": [
            {k: item.get(k) for k in ("source_id", "bias_score", "stance", "indicators")}
            for item in view.per_source
            if item.get("source_id")
        ],
    }


def timeline_data(view: TimelineEventView) -> dict[str, Any]:
    return {
        "event_date": view.event_date,
        "date_precision": view.date_precision,
        "event_text": view.event_text,
        "source_id": view.source_ids[0] if view.source_ids else None,
    }


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


def _present(**fields: Any) -> dict[str, Any]:
    """The optional contract fields that have a value (older receivers ignore them anyway)."""
    return {name: value for name, value in fields.items() if value not in (None, "")}

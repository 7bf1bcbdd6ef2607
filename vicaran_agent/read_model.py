"""What readers get of an investigation: typed, read-only views of its stored records.

The records database (`storage/reads.py`) builds them; the dashboard, the exports, the read API
and `vicaran export` read them; `model_dump(mode="json")` is the read API's JSON. Defaults are
decided here once (a record saved before a field existed reads as its default), so no reader
guesses what a missing key means.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .memory import EarlierCheck
from .schemas import OrderDispute


class View(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SourceView(View):
    """A source read (or not) for the investigation; `[N]` in the report is the N-th."""

    id: str
    source_id: str
    url: str
    title: str = ""
    domain: str = ""
    credibility_score: int = 0
    content_summary: str = ""
    key_claims: list[str] = Field(default_factory=list)
    published_at: str | None = None
    published_at_source: str | None = None
    is_user_provided: bool = False
    is_reachable: bool = True
    unreachable_reason: str | None = None
    unreachable_detail: str | None = None
    origin: str = "web"
    display_url: str = ""  # the address as found; `url` when none was kept
    publisher: str = ""  # the domain when none was said
    retrieved_at: str | None = None
    content_sha256: str | None = None
    relevant: bool = True
    relevance: float | None = None
    relevance_reason: str | None = None
    document_id: str | None = None
    page: int | None = None
    territory_id: str | None = None
    gazette_date: str | None = None
    txt_url: str | None = None
    created_at: str | None = None
    archive_id: int | None = None  # its page's latest archived copy (WARC records)


class ClaimView(View):
    id: str
    claim_id: str
    key: str
    claim_text: str
    importance: float = 0.0
    entities: list[str] = Field(default_factory=list)
    origin: str = "source"
    kind: str = "fact"
    attributed_to: str = ""
    city: str | None = None
    state: str | None = None
    period_start: str | None = None
    period_end: str | None = None
    source_ids: list[str] = Field(default_factory=list)
    source_urls: list[str] = Field(default_factory=list)
    earlier_checks: list[EarlierCheck] = Field(default_factory=list)  # the same claim, before


class EvidenceView(View):
    """One piece of a fact-check's evidence: a page, a passage, a gazette act, a fact-check."""

    url: str
    display_url: str = ""
    title: str = ""
    publisher: str = ""
    reliability: str = "neutral"
    stance: str = "context"
    snippet: str = ""
    quote: str = ""
    query: str = ""
    origin: str = "web"
    rating: str | None = None
    retrieved_at: str | None = None
    published_at: str | None = None
    published_at_source: str | None = None
    content_sha256: str | None = None
    independent: bool = True
    independence_note: str = ""
    primary_record: bool = False
    stance_note: str = ""
    document_id: str | None = None
    page: int | None = None
    territory_id: str | None = None
    archive_id: int | None = None  # its page's latest archived copy (WARC records)


class ReviewView(View):
    """The editor's decision on a checked claim, as it stands (the latest approve or change)."""

    status: str = "unreviewed"  # unreviewed | approved | changed
    reviewer: str = ""
    at: str | None = None
    verdict_before: str | None = None  # the verdict the editor decided on
    verdict_after: str | None = None  # what the editor's verdict is now
    note: str = ""


class AuditEntry(View):
    """One entry of an investigation's audit log (never edited, never deleted)."""

    at: str | None
    reviewer: str
    action: str  # approve | change | note
    claim: int  # the claim's 1-based place in the report
    claim_text: str
    verdict_before: str
    verdict_after: str
    note: str = ""


class FactCheckView(View):
    id: str
    fact_check_id: str
    claim_id: str
    claim_key: str
    claim_text: str
    verdict: str
    confidence: float = 0.0
    explanation: str = ""
    sufficient: bool = False
    queries: list[str] = Field(default_factory=list)
    iterations: int = 0
    stop_reason: str = ""
    as_of: str | None = None
    evidence: list[EvidenceView] = Field(default_factory=list)
    source_ids: list[str] = Field(default_factory=list)
    reasoning: list[str] = Field(default_factory=list)
    review: ReviewView = Field(default_factory=ReviewView)  # the editor's, never the machine's

    @property
    def shown_verdict(self) -> str:
        """The verdict to publish: the editor's when changed, else the machine's."""
        changed = self.review.status == "changed" and self.review.verdict_after
        return self.review.verdict_after if changed else self.verdict  # type: ignore[return-value]


class BiasView(View):
    overall_bias_score: float
    coverage: dict[str, int] = Field(default_factory=dict)
    coverage_pct: dict[str, float] = Field(default_factory=dict)
    recommendation: str = ""
    per_source: list[dict[str, Any]] = Field(default_factory=list)
    unrated: int = 0


class TimelineEventView(View):
    id: str
    event_id: str
    event_date: str
    date_precision: str = "day"
    event_text: str
    source_ids: list[str] = Field(default_factory=list)
    source_urls: list[str] = Field(default_factory=list)
    disputed_dates: list[str] = Field(default_factory=list)  # the same happening, dated otherwise
    # a claim's order of this event and another, which their dates contradict
    order_disputes: list[OrderDispute] = Field(default_factory=list)


class InvestigationView(View):
    """One investigation with all its records, as readers see it."""

    id: str
    title: str = ""
    brief: str = ""
    mode: str = "quick"
    language: str = "en"
    status: str
    partial_reason: str | None = None
    error: str | None = None
    summary: str | None = None
    overall_bias_score: float | None = None
    quality: dict[str, Any] | None = None
    tokens: dict[str, Any] | None = None
    created_at: str | None = None
    updated_at: str | None = None
    completed_at: str | None = None
    sources: list[SourceView] = Field(default_factory=list)
    claims: list[ClaimView] = Field(default_factory=list)
    fact_checks: list[FactCheckView] = Field(default_factory=list)
    bias: BiasView | None = None
    timeline: list[TimelineEventView] = Field(default_factory=list)

    def claim(self, claim_id: str) -> ClaimView | None:
        return next((claim for claim in self.claims if claim.id == claim_id), None)


class InvestigationListItem(View):
    """One line of the list of investigations."""

    id: str
    title: str = ""
    mode: str = "quick"
    status: str
    source_count: int = 0
    claim_count: int = 0
    fact_check_count: int = 0
    verdicts: dict[str, int] = Field(default_factory=dict)  # fact-checks by verdict
    created_at: str | None = None
    updated_at: str | None = None

    @property
    def short_id(self) -> str:
        """The id's first eight hex digits: enough to name it anywhere an id is asked for."""
        return self.id[:8]


Cited = SourceView | EvidenceView  # what a reader may cite: a source, or a piece of evidence


class OutboxCounts(View):
    pending: int = 0
    delivered: int = 0
    failed: int = 0


class OutboxDelivery(View):
    """One record waiting for (or refused by) the newsroom's callback API."""

    id: int
    investigation_id: str
    type: str
    attempts: int = 0
    last_error: str | None = None
    response_status: int | None = None
    response_body: str | None = None
    next_attempt_at: str | None = None


class OutboxSummary(View):
    """The outbox: counts by status, what failed for good and what is being retried."""

    counts: OutboxCounts
    failed: list[OutboxDelivery] = Field(default_factory=list)
    retrying: list[OutboxDelivery] = Field(default_factory=list)

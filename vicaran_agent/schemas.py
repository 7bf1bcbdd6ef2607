"""Typed records. The same shapes go to session state, the embedded store and the callback API."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from .catalogs import N_
from .urls import document_url

Mode = Literal["quick", "detailed"]
Origin = Literal["web", "user_url", "document", "gazette", "factcheck_api"]
VerdictLabel = Literal["verified", "partially_true", "misleading", "false", "unverified"]
Reliability = Literal["high", "neutral", "low"]
EvidenceStance = Literal["supports", "refutes", "context"]
CoverageStance = Literal["supportive", "neutral", "critical"]
DatePrecision = Literal["day", "month", "year"]
# Where a publication date comes from: the page's own metadata, the search service, a published
# fact-check, the journalist's document, an official gazette. Nothing else is a date.
DateSource = Literal["metadata", "search", "review", "document", "gazette"]
DATE_SOURCE_LABELS: dict[str, str] = {  # who states a date (the exports translate these)
    "metadata": N_("page metadata"),
    "search": N_("search service"),
    "review": N_("fact-check"),
    "document": N_("document"),
    "gazette": N_("gazette"),
}


def published_text(published_at: str | None, source: str | None) -> str:
    """`2025-01-16 (page metadata)`, a date without a recorded source as is, or `unknown`."""
    if not published_at:
        return "unknown"
    label = DATE_SOURCE_LABELS.get(source or "")
    return f"{published_at} ({label})" if label else published_at


EvidenceOrigin = Literal[
    "source", "web", "page", "factcheck_api", "live_search", "late_source", "document", "gazette"
]
ClaimOrigin = Literal["brief", "source"]
# attribution: that someone said, found, decided or did something; fact: what happened or is so.
ClaimKind = Literal["fact", "attribution"]

SUMMARY_MAX_CHARS = 500
REASONING_LINES_MAX = 100  # a verdict's reasoning log: references followed, search rounds
REASONING_LINE_MAX = 500


def _clip(text: str, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def gazette_title(city: str, date: str) -> str:
    """A gazette source's title, `Diário Oficial de <city> — <YYYY-MM-DD>` (how it is shown)."""
    title = f"Diário Oficial de {' '.join(city.split())}"
    return f"{title} — {date.strip()}" if date.strip() else title


class InvestigationConfig(BaseModel):
    """Mode-driven settings for one investigation (docs/how-vicaran-decides.md, "Quick and detailed")."""

    investigation_id: str
    mode: Mode
    source_limit: int
    claim_limit: int | None
    skip_timeline: bool
    bias_level: Literal["overall", "per_source"]
    summary_depth: Literal["brief", "comprehensive"]
    title: str
    brief: str
    language: str = "en"  # the report's: "en" or "pt-BR"
    # The brief's own language (ISO 639-1, any language; "" when it could not be told; None in
    # configs saved before it was recorded).
    text_language: str | None = None
    collections: list[str] = Field(default_factory=list)  # the journalist's documents

    @classmethod
    def for_mode(
        cls,
        mode: Mode,
        *,
        investigation_id: str,
        title: str,
        brief: str,
        language: str,
        text_language: str | None = None,
    ) -> InvestigationConfig:
        quick = mode == "quick"
        return cls(
            investigation_id=investigation_id,
            mode=mode,
            source_limit=15 if quick else 30,
            claim_limit=5 if quick else None,
            skip_timeline=quick,
            bias_level="overall" if quick else "per_source",
            summary_depth="brief" if quick else "comprehensive",
            title=title,
            brief=brief,
            language=language,
            text_language=text_language,
        )

    @property
    def search_language(self) -> str:
        """The language published fact-checks and outlets are searched in: the brief's ("": any
        language), or the report's for a config saved before the brief's was recorded."""
        return self.language if self.text_language is None else self.text_language


class Source(BaseModel):
    """A page the investigation read (or tried to read).

    `url` is the normalized identity (dedupe, links between records); `display_url` is the
    address exactly as found or given, the one reports and dashboards link to.
    """

    url: str
    display_url: str = ""
    title: str = ""
    domain: str
    publisher: str = ""
    credibility_score: int = Field(ge=1, le=5)
    content_summary: str = ""
    key_claims: list[str] = Field(default_factory=list)
    published_at: str | None = None  # only a date the source states (docs/how-vicaran-decides.md)
    published_at_source: DateSource | None = None  # who states it
    retrieved_at: str | None = None  # when Vicaran read it: never a publication date
    content_sha256: str | None = None
    relevant: bool = True
    relevance: float | None = None
    relevance_reason: str | None = None
    is_user_provided: bool = False
    is_reachable: bool = True
    unreachable_reason: str | None = None  # in the journalist's words
    unreachable_detail: str | None = None  # the technical reason (each reading step's answer)
    origin: Origin = "web"
    source_id: str | None = None
    document_id: str | None = None  # origin "document": the document in its collection
    page: int | None = None  # 1-based
    territory_id: str | None = None  # origin "gazette": the municipality's IBGE code
    gazette_date: str | None = None  # origin "gazette": the edition's publication date
    txt_url: str | None = None  # origin "gazette": the full text as Querido Diário gives it

    @property
    def link(self) -> str:
        """The address to show and link: as found, else the normalized one."""
        return self.display_url or self.url

    @property
    def usable(self) -> bool:
        """Read, digested and on topic: what claims, bias and the timeline work from."""
        return self.is_reachable and bool(self.content_summary) and self.relevant

    @field_validator("content_summary")
    @classmethod
    def _cap_summary(cls, value: str) -> str:
        return _clip(value, SUMMARY_MAX_CHARS)

    @field_validator("key_claims")
    @classmethod
    def _cap_claims(cls, value: list[str]) -> list[str]:
        return [_clip(c, 300) for c in value if c.strip()][:3]

    @model_validator(mode="after")
    def _undated(self) -> Source:
        if not self.published_at:
            self.published_at_source = None
        return self


class Claim(BaseModel):
    """A checkable statement, self-contained (who, what, when, where)."""

    key: str
    claim_text: str
    importance: float = Field(ge=0, le=1)
    entities: list[str] = Field(default_factory=list)
    source_urls: list[str] = Field(default_factory=list)
    source_ids: list[str] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)
    origin: ClaimOrigin = "source"
    # What the claim is about, and who is quoted: for an attribution, the party whose statement
    # or act it is; for a fact, whose word it rests on ("according to ..."), "" when nobody's.
    kind: ClaimKind = "fact"
    attributed_to: str = ""
    claim_id: str | None = None
    # Where and when the claim happened (gazettes are searched by city and period).
    city: str = ""
    state: str = ""  # the Brazilian state's two-letter code (UF), when the claim is in Brazil
    period_start: str = ""  # YYYY-MM-DD, YYYY-MM or YYYY
    period_end: str = ""


class Evidence(BaseModel):
    """One item a verdict rests on, with where it came from and the words it rests on."""

    url: str
    display_url: str = ""
    title: str = ""
    publisher: str = ""
    reliability: Reliability
    stance: EvidenceStance
    snippet: str = ""
    quote: str = ""  # found verbatim (after normalization) in the text read; "" for context
    query: str = ""  # what found it
    origin: EvidenceOrigin = "web"
    rating: str | None = None  # a fact-checker's published rating, when the item is a review
    retrieved_at: str | None = None
    published_at: str | None = None  # only a date the item states (docs/how-vicaran-decides.md)
    published_at_source: DateSource | None = None
    content_sha256: str | None = None  # of the text read (the snapshot's name)
    independent: bool = True
    independence_note: str = ""  # why it is not independent
    # The claim's attributed party's own publication (its notice, gazette act, filing, or a
    # document the journalist marked high): it attests what that party said or did.
    primary_record: bool = False
    stance_note: str = ""  # why the model's stance was not counted
    document_id: str | None = None  # origin "document": the passage's document
    page: int | None = None  # 1-based page of the passage
    territory_id: str | None = None  # origin "gazette": the municipality's IBGE code

    @property
    def link(self) -> str:
        return self.display_url or self.url

    @property
    def source_url(self) -> str:
        """The saved source this item belongs to: a passage its document, an act its gazette."""
        if self.document_id:
            return document_url(self.document_id)
        if self.origin == "gazette":
            return self.url.split("#", 1)[0]
        return self.url

    @model_validator(mode="after")
    def _undated(self) -> Evidence:
        if not self.published_at:
            self.published_at_source = None
        return self


class Verdict(BaseModel):
    claim_key: str
    claim_text: str
    claim_id: str | None = None
    verdict: VerdictLabel
    confidence: float = Field(ge=0, le=1)
    explanation: str
    evidence: list[Evidence] = Field(default_factory=list)
    sufficient: bool = False
    queries: list[str] = Field(default_factory=list)
    iterations: int = 0
    stop_reason: str = ""
    source_ids: list[str] = Field(default_factory=list)
    as_of: str | None = None  # the date the check was made (YYYY-MM-DD)
    fact_check_id: str | None = None
    # How the verdict was reached, one line per step: references followed, search rounds.
    reasoning: list[str] = Field(default_factory=list)

    @field_validator("reasoning")
    @classmethod
    def _cap_reasoning(cls, value: list[str]) -> list[str]:
        lines = (_clip(line, REASONING_LINE_MAX) for line in value)
        return [line for line in lines if line][:REASONING_LINES_MAX]


class SourceBias(BaseModel):
    url: str
    source_id: str | None = None
    bias_score: float = Field(ge=0, le=10)
    stance: CoverageStance = "neutral"
    indicators: list[str] = Field(default_factory=list)


class BiasAssessment(BaseModel):
    """Coverage balance over the sources that could be rated (`unrated` counts the others)."""

    overall_bias_score: float = Field(ge=0, le=10)
    coverage: dict[str, int]
    coverage_pct: dict[str, float]
    per_source: list[SourceBias] = Field(default_factory=list)
    recommendation: str = ""
    unrated: int = 0


class OrderDispute(BaseModel):
    """A claim puts this event `stated` ("before"/"after") the other one, whose dates say the
    opposite."""

    claim: str  # the claim's text
    stated: Literal["before", "after"]
    other_date: str
    other_text: str


class TimelineEvent(BaseModel):
    event_date: str
    date_precision: DatePrecision = "day"
    event_text: str
    source_urls: list[str] = Field(default_factory=list)
    source_ids: list[str] = Field(default_factory=list)
    event_id: str | None = None
    disputed_dates: list[str] = Field(default_factory=list)  # the same happening, dated otherwise
    # a claim's order of this event and another, which their dates contradict
    order_disputes: list[OrderDispute] = Field(default_factory=list)


QUALITY_DIMENSIONS = (
    "factual_accuracy",
    "citation_correctness",
    "plan_coverage",
    "structure",
    "relevance",
)


class ReportQuality(BaseModel):
    """How the report was checked: scores, the citation audit and what code found."""

    scores: dict[str, int] = Field(default_factory=dict)  # QUALITY_DIMENSIONS, 0-100 each
    overall: int | None = None  # the mean; None when the quality check could not run
    threshold: int = 70
    audited: int = 0  # sentences carrying [N] checked against the cited source's text
    unsupported: int = 0  # found unsupported in the final audit
    removed: int = 0  # of those, removed from the report
    statuses: int = 0  # statements of a claim's status, checked against the records
    rewrites: int = 0  # 0 or 1
    problems: list[str] = Field(default_factory=list)  # what the first draft was rewritten for

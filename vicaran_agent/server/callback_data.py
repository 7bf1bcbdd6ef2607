"""The callback API's request contract (docs/callback-api.md): one strict model per record
type, the length limits of its texts, and the error a refused request gets.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from ..schemas import (
    REASONING_LINE_MAX,
    REASONING_LINES_MAX,
    ClaimKind,
    ClaimOrigin,
    CoverageStance,
    DatePrecision,
    DateSource,
    EvidenceStance,
    Mode,
    Origin,
    Reliability,
    ReportQuality,
    VerdictLabel,
)
from ..urls import is_document_url, normalize_url

COVERAGE_STANCES: tuple[CoverageStance, ...] = ("supportive", "neutral", "critical")


NOT_FOUND = "investigation not found"


# Length limits, in characters (lists: items).
TITLE_MAX = 1_000


BRIEF_MAX = 20_000


SNIPPET_MAX = 5_000  # content_snippet, evidence snippet


CLAIM_MAX = 2_000  # claim_text, event_text


EXPLANATION_MAX = 10_000  # fact-check explanation, bias recommendation


SUMMARY_MAX = 200_000  # the report (Markdown)


REASON_MAX = 2_000  # relevance_reason, partial_reason, error


QUERY_MAX = 1_000


WORD_MAX = 200  # one entity, one bias indicator


URL_MAX = 2_048


IDS_MAX = 500  # source_ids, per_source


ITEMS_MAX = 100  # evidence items, entities, indicators


Title = Annotated[str, StringConstraints(strip_whitespace=True, max_length=TITLE_MAX)]


Brief = Annotated[str, StringConstraints(strip_whitespace=True, max_length=BRIEF_MAX)]


Snippet = Annotated[str, StringConstraints(max_length=SNIPPET_MAX)]


ClaimText = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=CLAIM_MAX)
]


Explanation = Annotated[str, StringConstraints(max_length=EXPLANATION_MAX)]


Summary = Annotated[str, StringConstraints(max_length=SUMMARY_MAX)]


Reason = Annotated[str, StringConstraints(max_length=REASON_MAX)]


Query = Annotated[str, StringConstraints(max_length=QUERY_MAX)]


Word = Annotated[str, StringConstraints(max_length=WORD_MAX)]


Url = Annotated[str, StringConstraints(max_length=URL_MAX)]


Id = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]


Score10 = Annotated[float, Field(ge=0, le=10)]


BiasScale = Literal[5, 10]


DEFAULT_BIAS_SCALE = 5  # the final records' scale when they name none (seed 001's receiver)


Unit = Annotated[float, Field(ge=0, le=1)]


# A BCP 47-style tag ("en", "pt-BR"); the store keeps at most 16 characters.
Language = Annotated[
    str, StringConstraints(max_length=16, pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")
]


Domain = Annotated[str, StringConstraints(strip_whitespace=True, max_length=255)]


PublishedAt = Annotated[str, StringConstraints(strip_whitespace=True, max_length=64)]


Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=32)]


Page = Annotated[int, Field(ge=1, le=1_000_000)]  # 1-based, as printed readers count pages


ReasoningLine = Annotated[str, StringConstraints(max_length=REASONING_LINE_MAX)]


ReasoningLog = Annotated[list[ReasoningLine], Field(max_length=REASONING_LINES_MAX)]


TerritoryId = Annotated[str, StringConstraints(pattern=r"^[0-9]{7}$")]  # a municipality's IBGE code


class CallbackData(BaseModel):
    # strict: JSON types as sent, never coerced ("5" is not 5, "yes" is not true)
    model_config = ConfigDict(extra="ignore", strict=True)


def _http_url(value: str, *, normalize: bool) -> str:
    """`value` (normalized when asked); raises ValueError unless it is an http(s) URL."""
    url = normalize_url(value) if normalize else value.strip()
    if not re.match(r"^https?://[^/?#\s]+", normalize_url(url), re.IGNORECASE):
        raise ValueError("must be an http(s) URL")
    if len(url) > URL_MAX:
        raise ValueError(f"must be at most {URL_MAX} characters")
    return url


def _record_url(value: str, *, normalize: bool) -> str:
    """A document's `doc://` identity as sent, else an http(s) URL (see `_http_url`)."""
    if not is_document_url(value):
        return _http_url(value, normalize=normalize)
    if value == "doc://" or any(c.isspace() or not c.isprintable() for c in value):
        raise ValueError("must be doc://<document id>[/p<page>/<passage id>]")
    return value


def _document_origin(url: str, origin: str | None) -> None:
    """A `doc://` address is a document's: its origin must say so."""
    if is_document_url(url) and origin != "document":
        raise ValueError('a doc:// url needs origin "document"')


def _calendar_day(value: str) -> str:
    """`YYYY-MM-DD`, a day of the calendar (a gazette's publication date); else ValueError."""
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        raise ValueError("must be a date, YYYY-MM-DD")
    try:
        date.fromisoformat(value)
    except ValueError:
        raise ValueError("must be a date of the calendar, YYYY-MM-DD") from None
    return value


class StartedData(CallbackData):
    mode: Mode
    title: Title | None = None
    brief: Brief | None = None
    language: Language | None = None


class SourceData(CallbackData):
    url: Url
    title: Title | None = None
    domain: Domain | None = None
    content_snippet: Snippet | None = None
    credibility_score: int = Field(ge=1, le=5)
    is_user_provided: bool
    published_at: PublishedAt | None = None
    published_at_source: DateSource | None = None  # who states the date
    origin: Origin | None = None
    # optional fields of the trust work (a receiver that does not know them ignores them)
    display_url: Url | None = None
    publisher: Domain | None = None
    retrieved_at: PublishedAt | None = None
    content_sha256: Sha256 | None = None
    relevant: bool | None = None
    relevance_reason: Reason | None = None
    # optional fields of the documents work
    document_id: Id | None = None
    page: Page | None = None
    # optional fields of the gazettes work
    territory_id: TerritoryId | None = None
    gazette_date: str | None = None
    txt_url: Url | None = None

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        return _record_url(value, normalize=True)

    @field_validator("gazette_date")
    @classmethod
    def _gazette_date(cls, value: str | None) -> str | None:
        return None if value is None else _calendar_day(value)

    @field_validator("txt_url")
    @classmethod
    def _txt_url(cls, value: str | None) -> str | None:
        return None if value is None else _http_url(value, normalize=False)

    @model_validator(mode="after")
    def _document(self) -> SourceData:
        _document_origin(self.url, self.origin)
        return self

    @field_validator("display_url")
    @classmethod
    def _display_url(cls, value: str | None) -> str | None:
        return None if value is None else _http_url(value, normalize=False)


Ids = Annotated[list[Id], Field(max_length=IDS_MAX)]


Words = Annotated[list[Word], Field(max_length=ITEMS_MAX)]


class ClaimData(CallbackData):
    claim_text: ClaimText
    importance: Unit | None = None
    source_ids: Ids
    origin: ClaimOrigin | None = None
    entities: Words | None = None
    # optional fields of the attribution work: what the claim is about, who is quoted
    kind: ClaimKind | None = None
    attributed_to: Domain | None = None


class EvidenceData(CallbackData):
    url: Url
    title: Title | None = None
    reliability: Reliability
    stance: EvidenceStance
    snippet: Snippet | None = None
    publisher: Domain | None = None
    quote: Annotated[str, StringConstraints(max_length=300)] | None = None
    query: Query | None = None
    retrieved_at: PublishedAt | None = None
    published_at: PublishedAt | None = None
    published_at_source: DateSource | None = None
    content_sha256: Sha256 | None = None
    origin: Short | None = None
    independent: bool | None = None
    primary_record: bool | None = None  # the quoted party's own record
    document_id: Id | None = None  # origin "document": the passage's document and page
    page: Page | None = None
    territory_id: TerritoryId | None = None  # origin "gazette": the municipality

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        return _record_url(value, normalize=False)

    @model_validator(mode="after")
    def _document(self) -> EvidenceData:
        _document_origin(self.url, self.origin)
        return self


class FactCheckData(CallbackData):
    claim_id: Id
    verdict: VerdictLabel
    confidence: Unit
    explanation: Explanation
    evidence: Annotated[list[EvidenceData], Field(max_length=ITEMS_MAX)]
    source_ids: Ids
    as_of: PublishedAt | None = None
    reasoning_log: ReasoningLog | None = None


class PerSourceData(CallbackData):
    source_id: Id
    bias_score: Score10
    stance: CoverageStance | None = None
    indicators: Words | None = None


class BiasData(CallbackData):
    overall_bias_score: Score10
    coverage: dict[CoverageStance, Annotated[int, Field(ge=0)]]
    recommendation: Explanation | None = None
    per_source: Annotated[list[PerSourceData], Field(max_length=IDS_MAX)] | None = None


_DATE_FORMATS: tuple[tuple[re.Pattern[str], DatePrecision], ...] = (
    (re.compile(r"^\d{4}$"), "year"),
    (re.compile(r"^\d{4}-\d{2}$"), "month"),
    (re.compile(r"^\d{4}-\d{2}-\d{2}$"), "day"),
)


_RANK: dict[DatePrecision, int] = {"year": 0, "month": 1, "day": 2}


def date_precision_of(value: str) -> DatePrecision:
    """The precision an ISO 8601 date states; raises ValueError when it is not one."""
    for pattern, precision in _DATE_FORMATS:
        if pattern.match(value):
            padded = value + {"year": "-01-01", "month": "-01", "day": ""}[precision]
            date.fromisoformat(padded)  # month and day ranges (ValueError when out of range)
            return precision
    if "T" in value or " " in value:
        datetime.fromisoformat(value)
        return "day"
    raise ValueError("must be an ISO 8601 date: YYYY, YYYY-MM, YYYY-MM-DD or a full datetime")


class TimelineData(CallbackData):
    event_date: Annotated[str, StringConstraints(strip_whitespace=True, max_length=32)]
    date_precision: DatePrecision | None = None
    event_text: ClaimText
    source_id: Id | None = None

    @field_validator("event_date")
    @classmethod
    def _iso_date(cls, value: str) -> str:
        try:
            date_precision_of(value)
        except ValueError:
            raise ValueError(
                "must be an ISO 8601 date: YYYY, YYYY-MM, YYYY-MM-DD or a full datetime"
            ) from None
        return value

    @model_validator(mode="after")
    def _precision_fits(self) -> TimelineData:
        stated = date_precision_of(self.event_date)
        if self.date_precision is None:
            self.date_precision = stated
        elif _RANK[self.date_precision] > _RANK[stated]:
            raise ValueError(
                f"date_precision {self.date_precision!r} is finer than event_date "
                f"{self.event_date!r}"
            )
        return self


TokenCount = Annotated[int, Field(ge=0, le=10**12)]


StageName = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class TokenUse(CallbackData):
    input: TokenCount = 0
    output: TokenCount = 0
    cached: TokenCount = 0
    cost_usd: Annotated[float, Field(ge=0, le=10**9)] = 0.0


class Tokens(TokenUse):
    """The run's model use: totals, `per_stage`, and models that had no price."""

    per_stage: Annotated[dict[StageName, TokenUse], Field(max_length=50)] = Field(
        default_factory=dict
    )
    unpriced_models: Annotated[list[Title], Field(max_length=20)] = Field(default_factory=list)


class CompleteData(CallbackData):
    summary: Summary
    # On the scale `bias_scale` names: 5 (seed 001's receiver, and the default) or 10.
    overall_bias_score: Score10 | None = None
    bias_scale: BiasScale | None = None
    quality: ReportQuality | None = None
    tokens: Tokens | None = None

    @model_validator(mode="after")
    def _on_its_scale(self) -> CompleteData:
        scale = self.bias_scale or DEFAULT_BIAS_SCALE
        if self.overall_bias_score is not None and self.overall_bias_score > scale:
            raise ValueError(
                f"overall_bias_score must be at most {scale} on the 0-{scale} scale "
                f"(bias_scale {'as sent' if self.bias_scale else 'not sent: 5'})"
            )
        return self

    @property
    def bias_score(self) -> float | None:
        """The score on Vicaran's own 0-10 scale."""
        if self.overall_bias_score is None:
            return None
        return round(self.overall_bias_score * 10 / (self.bias_scale or DEFAULT_BIAS_SCALE), 2)


class PartialData(CompleteData):
    partial_reason: Reason


class FailedData(CallbackData):
    error: Reason


DATA_MODELS: dict[str, type[CallbackData]] = {
    "INVESTIGATION_STARTED": StartedData,
    "SOURCE_FOUND": SourceData,
    "CLAIM_EXTRACTED": ClaimData,
    "FACT_CHECKED": FactCheckData,
    "BIAS_ANALYZED": BiasData,
    "TIMELINE_EVENT": TimelineData,
    "INVESTIGATION_COMPLETE": CompleteData,
    "INVESTIGATION_PARTIAL": PartialData,
    "INVESTIGATION_FAILED": FailedData,
}


class CallbackError(Exception):
    """An answer other than success: status code and the contract's error message."""

    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.message = message


def unknown(kind: str, ids: list[str]) -> CallbackError:
    return CallbackError(400, f"unknown {kind} in this investigation: {', '.join(ids)}")


def reopen_refused(status: str) -> CallbackError:
    return CallbackError(
        409,
        f"investigation already {status}: INVESTIGATION_STARTED cannot reopen it "
        "(start a new investigation with a new id)",
    )

"""POST /api/agent-callback: the callback API contract, served (reference/callback-api.md).

Every request is authenticated (`X-Agent-Secret`, constant time), validated per type and
written into Vicaran's own embedded store. An `Idempotency-Key` makes retries safe: the
first 2xx answer is stored and replayed. The key is claimed by inserting its row (the primary
key) before writing, so of concurrent requests with one key, on any number of replicas, one
writes and the others wait for its stored answer; a failed request releases its claim.

Validation is strict: a body over `VICARAN_CALLBACK_MAX_BODY_BYTES` is 413 (Content-Length
checked first, the body read with a cap), JSON nested deeper than `MAX_JSON_DEPTH` is 400
(checked before parsing), values must have their JSON type (no `"5"` for 5, no `"yes"` for
true) and texts have the length limits below. `INVESTIGATION_STARTED` cannot reopen an
investigation that has finished (409).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import re
import secrets
import uuid
from collections.abc import Awaitable, Callable
from datetime import date, datetime
from typing import Annotated, Any, Literal, TypeVar, get_args

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from ..config import Settings, get_settings
from ..documents.model import is_document_url
from ..schemas import (
    REASONING_LINE_MAX,
    REASONING_LINES_MAX,
    BiasAssessment,
    Claim,
    ClaimKind,
    ClaimOrigin,
    CoverageStance,
    DatePrecision,
    DateSource,
    EvidenceOrigin,
    EvidenceStance,
    InvestigationConfig,
    Mode,
    Origin,
    Reliability,
    ReportQuality,
    Source,
    SourceBias,
    TimelineEvent,
    Verdict,
    VerdictLabel,
)
from ..storage.repository import (
    IDEMPOTENCY_PENDING,
    InvestigationFinishedError,
    Repository,
    UnknownInvestigationError,
    get_repository,
)
from ..tools.urls import domain_of, normalize_url

logger = logging.getLogger(__name__)

CALLBACK_PATH = "/api/agent-callback"
SECRET_HEADER = "X-Agent-Secret"
IDEMPOTENCY_HEADER = "Idempotency-Key"
IDEMPOTENCY_KEY_MAX_CHARS = 255  # the store's key column
COVERAGE_STANCES: tuple[CoverageStance, ...] = ("supportive", "neutral", "critical")

UNAUTHORIZED = "Unauthorized"
NOT_FOUND = "investigation not found"
KEY_REUSED = "Idempotency-Key reused with a different request"
KEY_BUSY = "a request with this Idempotency-Key is still being processed: retry later"
# A replay waits this long for the original request (on any replica) to store its answer.
IDEMPOTENCY_WAIT_SECONDS = 30.0
IDEMPOTENCY_POLL_SECONDS = 0.05
# A claim without an answer this old belongs to a process that died: it is taken over.
IDEMPOTENCY_STALE_SECONDS = 120.0
INTERNAL = "internal error"
MAX_JSON_DEPTH = 32  # objects and arrays inside each other; the contract needs 5

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

T = TypeVar("T")

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


# --- request data, one model per type (extra fields are ignored for newer clients) ---------


class _Data(BaseModel):
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


class StartedData(_Data):
    mode: Mode
    title: Title | None = None
    brief: Brief | None = None
    language: Language | None = None


class SourceData(_Data):
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


class ClaimData(_Data):
    claim_text: ClaimText
    importance: Unit | None = None
    source_ids: Ids
    origin: ClaimOrigin | None = None
    entities: Words | None = None
    # optional fields of the attribution work: what the claim is about, who is quoted
    kind: ClaimKind | None = None
    attributed_to: Domain | None = None


class EvidenceData(_Data):
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


class FactCheckData(_Data):
    claim_id: Id
    verdict: VerdictLabel
    confidence: Unit
    explanation: Explanation
    evidence: Annotated[list[EvidenceData], Field(max_length=ITEMS_MAX)]
    source_ids: Ids
    as_of: PublishedAt | None = None
    reasoning_log: ReasoningLog | None = None


class PerSourceData(_Data):
    source_id: Id
    bias_score: Score10
    stance: CoverageStance | None = None
    indicators: Words | None = None


class BiasData(_Data):
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


class TimelineData(_Data):
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


class TokenUse(_Data):
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


class CompleteData(_Data):
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


class FailedData(_Data):
    error: Reason


DATA_MODELS: dict[str, type[_Data]] = {
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


# --- errors and helpers ------------------------------------------------------------------


class CallbackError(Exception):
    """An answer other than success: status code and the contract's error message."""

    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.message = message


def _reply(status_code: int, body: dict[str, Any]) -> JSONResponse:
    return JSONResponse(status_code=status_code, content=body)


def _failure(message: str) -> dict[str, Any]:
    return {"success": False, "error": message}


def _describe(type_: str, error: ValidationError) -> str:
    """`invalid data for TYPE: data.field: message; ...` (first few problems)."""
    problems = []
    for item in error.errors()[:5]:
        where = ".".join(str(part) for part in ("data", *item["loc"]))
        problems.append(f"{where}: {item['msg']}")
    more = len(error.errors()) - len(problems)
    if more > 0:
        problems.append(f"and {more} more")
    return f"invalid data for {type_}: " + "; ".join(problems)


def _authorized(settings: Settings, presented: str | None) -> bool:
    expected = settings.agent_secret.strip()
    if not expected:
        logger.warning(
            "callback refused: AGENT_SECRET must be set for the callback API to accept writes"
        )
        return False
    if presented is None:
        return False
    return hmac.compare_digest(presented.strip().encode(), expected.encode())


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_JSON_STRUCTURE = re.compile(r'[\[\]{}"\\]')  # one character class: linear time


def json_too_deep(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether arrays and objects in `text` nest deeper than `limit` (strings skipped).

    One pass over the structural characters, before any parsing: a body nested thousands deep
    would otherwise exhaust the parser's recursion.
    """
    depth = 0
    in_string = False
    escaped_at = -1
    for match in _JSON_STRUCTURE.finditer(text):
        at = match.start()
        char = text[at]
        if in_string:
            if at == escaped_at:
                continue
            if char == "\\":
                escaped_at = at + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _parse_envelope(raw: bytes) -> tuple[str, str, dict[str, Any]]:
    """(type, canonical investigation id, data) or a 400 CallbackError."""
    try:
        text = raw.decode(json.detect_encoding(raw), "surrogatepass")  # as json.loads does
        if json_too_deep(text):
            raise CallbackError(400, f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
        body = json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise CallbackError(400, f"malformed JSON body: {exc}") from None
    except RecursionError:  # not reachable within MAX_JSON_DEPTH; never a 500 all the same
        raise CallbackError(400, f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    if not isinstance(body, dict):
        raise CallbackError(400, "the body must be a JSON object with type, investigation_id, data")
    type_ = body.get("type")
    if not isinstance(type_, str) or not type_:
        hint = " (not 'callback_type')" if "callback_type" in body else ""
        raise CallbackError(400, f"field 'type' is required and must be a string{hint}")
    if type_ not in DATA_MODELS:
        raise CallbackError(
            400, f"unknown type {type_!r}; expected one of: {', '.join(DATA_MODELS)}"
        )
    investigation_id = body.get("investigation_id")
    try:
        if not isinstance(investigation_id, str):
            raise ValueError
        canonical = str(uuid.UUID(investigation_id.strip()))
    except ValueError:
        raise CallbackError(400, "field 'investigation_id' must be a UUID string") from None
    data = body.get("data")
    if not isinstance(data, dict):
        raise CallbackError(400, "field 'data' is required and must be a JSON object")
    return type_, canonical, data


def request_hash(type_: str, investigation_id: str, data: dict[str, Any]) -> str:
    """sha256 of the canonical request (sorted keys), for Idempotency-Key comparisons."""
    canonical = json.dumps(
        {"type": type_, "investigation_id": investigation_id, "data": data}, sort_keys=True
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


async def _claim_key(repo: Repository, key: str, digest: str) -> tuple[int, dict[str, Any]] | None:
    """None when this request now owns `key`; else the original answer (or a refusal).

    Waits (bounded) while another request, on any replica, is writing for the same key.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + IDEMPOTENCY_WAIT_SECONDS
    while True:
        held = await asyncio.to_thread(
            repo.claim_idempotent, key, digest, IDEMPOTENCY_STALE_SECONDS
        )
        if held is None:
            return None
        stored_hash, status_code, body = held
        if stored_hash != digest:
            raise CallbackError(409, KEY_REUSED)
        if status_code != IDEMPOTENCY_PENDING:
            return status_code, body
        if loop.time() > deadline:
            raise CallbackError(503, KEY_BUSY)
        await asyncio.sleep(IDEMPOTENCY_POLL_SECONDS)


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, or a 413 CallbackError past `limit` bytes (never read past it)."""
    too_large = CallbackError(
        413, f"request body too large: at most {limit} bytes (VICARAN_CALLBACK_MAX_BODY_BYTES)"
    )
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.strip().isdigit():
            raise CallbackError(400, "invalid Content-Length header")
        if int(declared) > limit:
            raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_large
    return bytes(body)


def _unknown(kind: str, ids: list[str]) -> CallbackError:
    return CallbackError(400, f"unknown {kind} in this investigation: {', '.join(ids)}")


# --- writes, one per type ----------------------------------------------------------------


class _Writer:
    """Validated data → one store write; returns the success body."""

    def __init__(self, repo: Repository, investigation_id: str) -> None:
        self.repo = repo
        self.id = investigation_id
        self._snapshot: dict[str, Any] | None = None

    async def call(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            return await asyncio.to_thread(function, *args, **kwargs)
        except UnknownInvestigationError:
            raise CallbackError(404, NOT_FOUND) from None

    async def snapshot(self) -> dict[str, Any]:
        """The investigation as stored (to check the ids a record refers to)."""
        if self._snapshot is None:
            found = await self.call(self.repo.get_investigation, self.id)
            if found is None:
                raise CallbackError(404, NOT_FOUND)
            self._snapshot = found
        return self._snapshot

    async def sources_by_id(self, wanted: list[str], field: str) -> dict[str, dict[str, Any]]:
        sources = {s["id"]: s for s in (await self.snapshot())["sources"]}
        missing = [i for i in dict.fromkeys(wanted) if i not in sources]
        if missing:
            raise _unknown(f"{field}", missing)
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
            raise _reopen_refused(finished.status) from None
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
        taken = {c["key"] for c in (await self.snapshot())["claims"]}
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
        claims = {c["id"]: c for c in (await self.snapshot())["claims"]}
        claim = claims.get(data.claim_id)
        if claim is None:
            raise _unknown("claim_id", [data.claim_id])
        await self.sources_by_id(data.source_ids, "source_ids")
        verdict = Verdict(
            claim_key=claim["key"],
            claim_text=claim["claim_text"],
            claim_id=claim["id"],
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
        if claim["key"] not in ids:  # the store skips a verdict whose claim is not there
            raise _unknown("claim_id", [data.claim_id])
        return {"success": True, "fact_check_id": str(ids[claim["key"]])}

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
                    url=sources[item.source_id]["url"],
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


def _reopen_refused(status: str) -> CallbackError:
    return CallbackError(
        409,
        f"investigation already {status}: INVESTIGATION_STARTED cannot reopen it "
        "(start a new investigation with a new id)",
    )


def _fresh_key(taken: set[str]) -> str:
    """A claim key no claim of the investigation uses ("X" + 8 hex; remote claims have none)."""
    while True:
        key = "X" + secrets.token_hex(4)
        if key not in taken:
            return key


# --- the endpoint --------------------------------------------------------------------------


def callback_router() -> APIRouter:
    """The router serving `POST /api/agent-callback`."""
    router = APIRouter()

    async def handle(request: Request, settings: Settings) -> tuple[int, dict[str, Any]]:
        """(status, body) of one accepted callback; raises CallbackError for refusals."""
        if not _authorized(settings, request.headers.get(SECRET_HEADER)):
            raise CallbackError(401, UNAUTHORIZED)
        raw = await read_body(request, settings.vicaran_callback_max_body_bytes)
        type_, investigation_id, raw_data = await asyncio.to_thread(_parse_envelope, raw)
        request.state.callback = (type_, investigation_id)
        key = request.headers.get(IDEMPOTENCY_HEADER)
        if key is not None and not 0 < len(key.strip()) <= IDEMPOTENCY_KEY_MAX_CHARS:
            raise CallbackError(
                400, f"{IDEMPOTENCY_HEADER} must be 1 to {IDEMPOTENCY_KEY_MAX_CHARS} characters"
            )
        key = key.strip() if key is not None else None
        try:
            data = DATA_MODELS[type_].model_validate(raw_data, strict=True)
        except ValidationError as exc:
            raise CallbackError(400, _describe(type_, exc)) from None

        repo = get_repository(settings.database_url)
        digest = request_hash(type_, investigation_id, raw_data)
        if key is not None:
            seen = await _claim_key(repo, key, digest)
            if seen is not None:
                return seen
        try:
            # A finished investigation is never reopened: the store refuses it atomically.
            if type_ != "INVESTIGATION_STARTED":
                status = await asyncio.to_thread(repo.get_status, investigation_id)
                if status is None:
                    raise CallbackError(404, NOT_FOUND)
            writer = _Writer(repo, investigation_id)
            body = await writer.handler(type_)(data)
        except BaseException:
            if key is not None:  # only a success is kept: a retry with this key may proceed
                repo.release_idempotent(key)  # sync: also runs when this task is cancelled
            raise
        if key is not None:
            try:
                await asyncio.to_thread(repo.put_idempotent, key, digest, 200, body)
            except Exception:  # logged (so not blind): the record is saved, answer success
                logger.exception("could not store the reply for Idempotency-Key %r", key)
        return 200, body

    @router.post(CALLBACK_PATH)
    async def agent_callback(request: Request) -> JSONResponse:
        """Authenticate, validate and save one record of the callback API contract."""
        settings = get_settings()
        try:
            status_code, body = await handle(request, settings)
        except CallbackError as refusal:
            status_code, body = refusal.status_code, _failure(refusal.message)
        except Exception:  # logged (so not blind): any other failure is a 500, no stack trace
            logger.exception("callback failed")
            status_code, body = 500, _failure(INTERNAL)
        if settings.debug_mode:
            type_, investigation_id = getattr(request.state, "callback", (None, None))
            logger.info(
                "callback %s investigation=%s -> %s %s",
                type_,
                investigation_id,
                status_code,
                json.dumps(body, sort_keys=True),
            )
        return _reply(status_code, body)

    return router

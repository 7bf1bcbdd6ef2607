"""Typed records. The same shapes go to session state, the embedded store and the callback API."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .documents.model import document_url

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
DATE_SOURCE_LABELS: dict[str, str] = {
    "metadata": "page metadata",
    "search": "search service",
    "review": "fact-check",
    "document": "document",
    "gazette": "gazette",
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
QUOTE_MAX_CHARS = 300

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
    unreachable_reason: str | None = None
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


class TimelineEvent(BaseModel):
    event_date: str
    date_precision: DatePrecision = "day"
    event_text: str
    source_urls: list[str] = Field(default_factory=list)
    source_ids: list[str] = Field(default_factory=list)
    event_id: str | None = None


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


# --- What the model is asked to return (one small schema per judgement) ---------------------


class _ModelOutput(BaseModel):
    model_config = ConfigDict(extra="ignore")


class SearchPlan(_ModelOutput):
    """Web search queries for the investigation."""

    queries: list[str] = Field(description="2 to 5 self-contained web search queries.")


class SourceDigest(_ModelOutput):
    """A reader's digest of one page."""

    title: str = Field(description="The page's headline or title.")
    summary: str = Field(description="At most 500 characters: what the page reports.")
    key_claims: list[str] = Field(description="1 to 3 checkable claims the page makes.")
    published_date: str | None = Field(
        default=None, description="Publication date as YYYY-MM-DD when the page states it."
    )
    relevance: float = Field(
        default=1.0, description="0 to 1: how much the page bears on the investigation's brief."
    )
    relevance_reason: str = Field(
        default="", description="One short sentence: why it is (or is not) relevant."
    )


class BriefClaim(_ModelOutput):
    """A checkable claim, with where and when it happened (Brazilian cities: its gazettes)."""

    claim_text: str = Field(description="Self-contained: who, what, when, where.")
    kind: ClaimKind = Field(
        default="fact",
        description="attribution: that a named person or body said, found, decided or did "
        "something; fact: what happened or is so.",
    )
    attributed_to: str = Field(
        default="",
        description="Who is quoted: for an attribution, the party that said or did it; for a "
        "fact, whose word it rests on; empty when nobody's.",
    )
    importance: float = Field(description="0 to 1: how much the story depends on it.")
    entities: list[str] = Field(default_factory=list)
    queries: list[str] = Field(
        default_factory=list, description="1 to 3 web search queries to check this claim."
    )
    city: str = Field(
        default="",
        description="The Brazilian municipality whose act the claim is about, as written; empty "
        "for a place outside Brazil or when none.",
    )
    state: str = Field(
        default="",
        description="For a Brazilian city: its state's two-letter code (UF), e.g. RS, RJ, SP; "
        "else empty.",
    )
    period_start: str = Field(
        default="",
        description="When the claimed facts begin: YYYY-MM-DD, YYYY-MM or YYYY; empty when the "
        "claim gives no time.",
    )
    period_end: str = Field(
        default="",
        description="When they end: YYYY-MM-DD, YYYY-MM or YYYY (the same as period_start for "
        "a single date, month or year); empty when the claim gives no time.",
    )


class DraftClaim(BriefClaim):
    """A claim found in the sources, with the sources that assert it."""

    source_numbers: list[int] = Field(description="Numbers [S#] of the sources that assert it.")


class ClaimDraft(_ModelOutput):
    """Checkable claims found in the sources."""

    claims: list[DraftClaim]
    no_claims_reason: str = Field(
        default="", description="When there are no claims: why, in one friendly sentence."
    )


class BriefClaims(_ModelOutput):
    """Checkable factual claims the journalist's brief itself states."""

    claims: list[BriefClaim] = Field(default_factory=list)


class EvidenceJudgement(_ModelOutput):
    number: int = Field(description="The evidence item's [E#] number.")
    stance: EvidenceStance
    quote: str = Field(
        default="",
        description="For supports/refutes: the exact words of the item (at most 300 "
        "characters) the stance rests on, copied verbatim. Empty for context.",
    )


class ClaimAssessment(_ModelOutput):
    """A fact-checker's judgement of one claim against numbered evidence."""

    stances: list[EvidenceJudgement]
    verdict: VerdictLabel
    confidence: float
    explanation: str = Field(description="Short explanation citing evidence as [N].")
    refined_queries: list[str] = Field(
        default_factory=list, description="Better search queries if evidence is thin."
    )
    references: list[str] = Field(
        default_factory=list,
        description="References the evidence items make that could settle the claim and are "
        "not in the evidence yet (another document, an annex, a contract, a law, a URL), "
        "exactly as written.",
    )


class SourceLean(_ModelOutput):
    number: int
    stance: CoverageStance
    bias_score: float = Field(description="0 balanced ... 10 one-sided.")
    indicators: list[str] = Field(default_factory=list)


class BiasJudgement(_ModelOutput):
    """How each source leans on the investigation's subject."""

    sources: list[SourceLean]
    recommendation: str


class DraftEvent(_ModelOutput):
    date: str = Field(description="ISO 8601: YYYY-MM-DD, YYYY-MM or YYYY.")
    text: str = Field(
        description="What happened and who did it; an allegation as who alleged what, never as "
        "the fact alleged."
    )
    source_numbers: list[int] = Field(default_factory=list)


class TimelineDraft(_ModelOutput):
    """Dated events in the story."""

    events: list[DraftEvent]


class ReportFinding(_ModelOutput):
    claim_key: str = Field(description="The claim's key, e.g. C1.")
    verdict: str = Field(
        default="", description="The claim's recorded verdict, copied from FINDINGS."
    )
    text: str = Field(description="One or two sentences on what was found, citing sources [N].")


class QuestionAnswer(_ModelOutput):
    number: int = Field(description="The question's Q# number.")
    status: Literal["answered", "open"]
    answer: str = Field(description="One sentence citing sources [N], or what remains open.")


class ReportDraft(_ModelOutput):
    """The cited investigation report, in parts that Vicaran assembles."""

    title: str = Field(description="The investigation topic, as a headline.")
    executive_summary: str = Field(description="A short paragraph citing sources as [N].")
    findings: list[ReportFinding] = Field(description="One per checked claim, by claim key.")
    bias_assessment: str = Field(default="", description="What the coverage balance means.")
    timeline: str = Field(default="", description="The chronology in prose, citing [N].")
    recommendations: list[str] = Field(default_factory=list, description="Next reporting steps.")
    questions: list[QuestionAnswer] = Field(
        default_factory=list, description="One per question in QUESTIONS, by number."
    )


StatusLabel = Literal[
    "verified",
    "partially_true",
    "misleading",
    "false",
    "unverified",
    "not_confirmed",
    "not_refuted",
]


class StatusStatement(_ModelOutput):
    claim_key: str = Field(default="", description="The claim (C1, ...); empty: the finding's.")
    status: StatusLabel = Field(
        description="The verdict the sentence states, or not_confirmed (no independent source "
        "confirmed it), not_refuted (none contradicted it)."
    )


class SentenceCheck(_ModelOutput):
    number: int = Field(description="The sentence's [A#] number.")
    supported: bool = Field(
        description="True when the cited passages state every fact the sentence attributes to "
        "them (true when it attributes none)."
    )
    reason: str = Field(default="", description="When unsupported: what the text lacks.")
    statuses: list[StatusStatement] = Field(
        default_factory=list, description="What the sentence says of a checked claim's status."
    )


class CitationAudit(_ModelOutput):
    """Whether each cited sentence says what its cited sources say."""

    sentences: list[SentenceCheck]


class ReferenceChoice(_ModelOutput):
    number: int = Field(description="The reference's [R#] number.")
    follow: bool = Field(description="True when what it points to may settle or explain the claim.")
    reason: str = Field(default="", description="One short sentence: why (or why not).")


class ReferenceGate(_ModelOutput):
    """Which references found in what was read for one claim are worth following."""

    references: list[ReferenceChoice] = Field(default_factory=list)


class QualityReview(_ModelOutput):
    """Scores of a report against the records it was written from, 0 to 100 each."""

    factual_accuracy: int = Field(description="Agrees with the recorded verdicts and evidence.")
    citation_correctness: int = Field(description="Citations point to sources that say it.")
    plan_coverage: int = Field(description="Answers the approved plan's questions.")
    structure: int = Field(description="Clear, well ordered, no repetition.")
    relevance: int = Field(description="Stays on the investigation's subject.")
    problems: list[str] = Field(default_factory=list, description="Up to 5 concrete problems.")


class GazetteSufficiency(_ModelOutput):
    """Whether the gazette excerpts found for one claim are worth reading, or how to search again."""

    sufficient: bool = Field(
        description="True when an excerpt records an act that bears directly on the claim."
    )
    reason: str = Field(default="", description="One short sentence: why.")
    refined_queries: list[str] = Field(
        default_factory=list,
        description="When not sufficient: up to 3 new gazette search strings, in Portuguese, "
        "that differ from those tried. Empty when sufficient.",
    )


class GazetteAct(_ModelOutput):
    passage: int = Field(description="The passage's [P#] number.")
    quote: str = Field(
        description="The words of the passage that record the act, copied verbatim (at most "
        "600 characters)."
    )
    act_type: str = Field(
        default="",
        description="The act, in the gazette's words: extrato de contrato, dispensa de "
        "licitação, homologação, edital, convocação, portaria de nomeação, decreto, ...",
    )
    act_date: str = Field(
        default="",
        description="The date of the act itself (YYYY-MM-DD) when the passage states it; not "
        "the gazette's publication date. Empty when not stated.",
    )
    parties: list[str] = Field(
        default_factory=list, description="Bodies, companies and people the act names."
    )
    amounts: list[str] = Field(default_factory=list, description="Amounts of money, as written.")
    relation: str = Field(
        default="",
        description="One short sentence: the act the claim describes, or a related act, and "
        "how it bears on the claim.",
    )


class GazetteReading(_ModelOutput):
    """The acts in passages of official gazettes that bear on one claim."""

    acts: list[GazetteAct] = Field(default_factory=list)

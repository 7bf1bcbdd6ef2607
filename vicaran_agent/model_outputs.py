"""What the model is asked to return: one small schema per judgement (the records Vicaran keeps
from them are in `schemas`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .schemas import ClaimKind, CoverageStance, EvidenceStance, VerdictLabel


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


class StatedOrder(_ModelOutput):
    claim_key: str = Field(description="The claim's key, e.g. C2.")
    earlier: int = Field(
        description="The number (1 = the first of `events`) of the event the claim puts first."
    )
    later: int = Field(description="The number of the event the claim puts after it.")


class TimelineDraft(_ModelOutput):
    """Dated events in the story."""

    events: list[DraftEvent]
    stated_orders: list[StatedOrder] = Field(default_factory=list)


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

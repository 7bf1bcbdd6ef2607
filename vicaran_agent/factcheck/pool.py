"""One claim's evidence: deduplicated, rated in code, numbered globally with high reliability first.

Every candidate keeps the text Vicaran read for it (a page, a search snippet, a review), so a
stance can be checked against its quote and a copy of the claim's own source recognized.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from ..clients.fact_check_api import Review
from ..credibility import credibility_score, is_official, reliability
from ..documents.model import PassageHit
from ..formatting import data_block, one_line
from ..gazettes.read import GazetteEvidence
from ..model_outputs import ClaimAssessment
from ..read_model import EvidenceView
from ..sanitize import clean
from ..schemas import (
    Claim,
    ClaimKind,
    DateSource,
    Evidence,
    EvidenceOrigin,
    Reliability,
    Source,
    published_text,
)
from ..textmatch import clip_quote, is_copy, quote_problem, shingles
from ..urls import domain_of, normalize_url
from .parties import gazette_city, is_own_record


class ReadPage(Protocol):
    """What a page read whole carries (a followed reference, a late arrival)."""

    url: str
    title: str
    published_at: str | None
    published_at_source: DateSource | None


SNIPPET_CHARS = 600
GAZETTE_ACT = "ato-"  # an act's mark in its gazette's address: <gazette>#ato-<offset>
_ORDER: dict[str, int] = {"high": 0, "neutral": 1, "low": 2}


@dataclass
class Candidate:
    """An evidence item before the model has judged its stance."""

    url: str
    title: str
    publisher: str
    reliability: Reliability
    snippet: str  # what the prompt shows: the passage of `text` that bears on the claim
    origin: EvidenceOrigin
    outlet: str = ""  # the outlet search that found it, "" for a general search
    rating: str | None = None
    rating_verdict: str | None = None
    new: bool = False  # arrived late, after the claim's loop had started
    display_url: str = ""
    query: str = ""
    published_at: str | None = None
    published_at_source: DateSource | None = None
    retrieved_at: str | None = None
    text: str = ""  # the text Vicaran read for this item (its snapshot)
    sha: str | None = None
    independent: bool = True
    independence_note: str = ""
    document_id: str | None = None  # a passage of the journalist's documents
    page: int | None = None
    territory_id: str | None = None  # a municipal gazette
    # A primary record - "official" (an official site), "gazette" (an act), "document" (a
    # collection the journalist marked high) - and who issued it as Vicaran knows it: a
    # gazette's city, a document's title and file name (parties.py matches them to a party).
    record: str = ""
    issuer: str = ""
    primary: bool = False  # the own record of the party the claim quotes
    _shingles: set[str] | None = field(default=None, repr=False)

    @property
    def shingles(self) -> set[str]:
        if self._shingles is None:
            self._shingles = shingles(self.text)
        return self._shingles

    def read(self, text: str, sha: str, claim_text: str, retrieved_at: str | None) -> None:
        """The item's page was read: its text replaces the snippet it was known by."""
        self.text, self.sha, self._shingles = text, sha, None
        self.snippet = best_passage(text, claim_text)
        self.retrieved_at = retrieved_at or self.retrieved_at

    def dated(self, published_at: str | None, source: DateSource | None) -> None:
        """A date the item states, and who states it (kept when the new one is unknown)."""
        if published_at:
            self.published_at, self.published_at_source = published_at, source

    @classmethod
    def from_url(
        cls,
        url: str,
        title: str,
        snippet: str,
        origin: EvidenceOrigin,
        outlet: str = "",
        *,
        query: str = "",
        published_at: str | None = None,
        published_at_source: DateSource | None = None,
    ) -> Candidate:
        return cls(
            url=normalize_url(url),
            display_url=url.strip(),
            title=title,
            publisher=domain_of(url),
            reliability=reliability(credibility_score(url)),
            snippet=one_line(snippet, SNIPPET_CHARS),
            origin=origin,
            outlet=outlet,
            query=query,
            published_at=published_at,
            published_at_source=published_at_source if published_at else None,
            text=" ".join(snippet.split()),
            record="official" if is_official(url) else "",
        )

    @classmethod
    def from_earlier(
        cls, item: EvidenceView, text: str | None, sha: str | None, found_by: str
    ) -> Candidate:
        """An earlier check's evidence of the same claim, offered again with its dates; the
        stance is judged anew and the rule counts it as any other item."""
        candidate = cls.from_url(
            item.display_url or item.url,
            item.title,
            item.quote or item.snippet,
            item.origin,
            query=found_by,
            published_at=item.published_at,
            published_at_source=item.published_at_source,
        )
        candidate.publisher = item.publisher or candidate.publisher
        candidate.retrieved_at = item.retrieved_at
        candidate.territory_id = item.territory_id
        if text:
            candidate.text, candidate.sha = text, sha
        return candidate

    @classmethod
    def from_page(cls, page: ReadPage, origin: EvidenceOrigin) -> Candidate:
        """A page read whole rather than found by a search: its title and dates, no snippet."""
        return cls.from_url(
            page.url,
            page.title,
            "",
            origin,
            published_at=page.published_at,
            published_at_source=page.published_at_source,
        )

    @classmethod
    def from_source(cls, source: Source, text: str | None, claim_text: str) -> Candidate:
        """A source the investigation already read; `text` is what was read (None: unknown)."""
        digest = source.content_summary + " " + " ".join(source.key_claims)
        record, issuer = "", ""
        if source.origin == "gazette":
            record, issuer = "gazette", gazette_city(source.publisher)
        elif source.origin == "document":
            if reliability(source.credibility_score) == "high":
                record, issuer = "document", f"{source.title} {source.publisher}"
        elif is_official(source.url):
            record = "official"
        return cls(
            url=source.url,
            display_url=source.link,
            title=source.title,
            publisher=source.publisher or domain_of(source.url) or source.domain,
            reliability=reliability(source.credibility_score),
            snippet=best_passage(text, claim_text) if text else one_line(digest, SNIPPET_CHARS),
            origin="source",
            published_at=source.published_at,
            published_at_source=source.published_at_source,
            retrieved_at=source.retrieved_at,
            text=text or "",
            sha=source.content_sha256 if text else None,
            record=record,
            issuer=issuer,
        )

    @classmethod
    def from_passage(cls, hit: PassageHit, reliability: Reliability, query: str) -> Candidate:
        """A passage of the journalist's documents: its own text is what Vicaran read."""
        return cls(
            url=hit.url,
            display_url=hit.url,
            title=hit.title or hit.file_name,
            publisher=hit.file_name,
            reliability=reliability,
            snippet=one_line(hit.text, SNIPPET_CHARS * 2),
            origin="document",
            query=query,
            text=hit.text,
            document_id=hit.document_id,
            page=hit.page,
            record="document" if reliability == "high" else "",
            issuer=f"{hit.title} {hit.file_name}",
        )

    @classmethod
    def from_gazette(cls, source: Source, act: GazetteEvidence, number: int) -> Candidate:
        """The `number`th act a gazette read in full records. Its text is the act as quoted
        from the gazette (a stance's quote is looked for there; two acts of one edition are not
        copies of each other), its snapshot the whole gazette read, its address the gazette's
        marked by the act."""
        return cls(
            url=f"{source.url}#{GAZETTE_ACT}{number}",
            display_url=source.link,
            title=source.title,
            publisher=source.publisher,
            reliability="high",  # official records
            snippet=act.snippet[: SNIPPET_CHARS * 2],  # its facts, then the act on a line
            origin="gazette",
            query=act.query,
            published_at=act.gazette.date or None,
            published_at_source="gazette" if act.gazette.date else None,
            text=act.quote,
            sha=source.content_sha256,
            territory_id=act.gazette.territory_id or None,
            record="gazette",
            issuer=act.gazette.territory_name,
        )

    @classmethod
    def from_review(cls, review: Review) -> Candidate:
        """An existing fact-check, as reliable as the publisher that wrote it.

        Anyone can publish ClaimReview markup: a recognised fact-checker is high, an unknown
        site neutral, a known fabricator low (the same table as every other source).
        """
        verdict = f" (= {review.verdict})" if review.verdict else " (rating not recognised)"
        said = f" made by {review.claimant}" if review.claimant else ""
        text = (
            f'{review.publisher} reviewed the claim "{review.claim_text}"{said} and rated it '
            f'"{review.rating}"{verdict}.'
        )
        return cls(
            url=normalize_url(review.url),
            display_url=review.url,
            title=review.title or f"{review.publisher} fact-check",
            publisher=review.site or domain_of(review.url),
            reliability=reliability(credibility_score(review.url)),
            snippet=one_line(text, SNIPPET_CHARS),
            origin="factcheck_api",
            rating=review.rating,
            rating_verdict=review.verdict,
            query=review.query,
            published_at=review.review_date,
            published_at_source="review" if review.review_date else None,
            text=text,
        )


@dataclass
class OwnSources:
    """The pages a claim was extracted from: evidence that cannot confirm it. And the party the
    claim quotes, whose own record attests what it said or did (an attribution) but is not
    independent of a fact resting on its word."""

    urls: set[str]
    publishers: dict[str, str]  # publisher -> url
    texts: list[tuple[str, set[str]]]  # (url, shingles)
    kind: ClaimKind = "fact"
    party: str = ""
    city: str = ""

    @classmethod
    def of(cls, sources: list[tuple[Source, str | None]], claim: Claim | None = None) -> OwnSources:
        return cls(
            urls={s.url for s, _ in sources},
            publishers={(s.publisher or domain_of(s.url)): s.url for s, _ in sources},
            texts=[(s.url, shingles(text)) for s, text in sources if text],
            kind=claim.kind if claim else "fact",
            party=one_line(claim.attributed_to, 120) if claim else "",
            city=claim.city if claim else "",
        )

    @classmethod
    def none(cls) -> OwnSources:
        return cls(set(), {}, [])

    def quoted(self, candidate: Candidate) -> bool:
        """Whether `candidate` is the own record of the party the claim quotes."""
        return is_own_record(candidate, self.party, self.city)


class EvidencePool:
    """Every candidate gathered for one claim, in prompt order."""

    def __init__(self) -> None:
        self._items: list[Candidate] = []

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, url: str) -> bool:
        key = normalize_url(url)
        return any(c.url == key for c in self._items)

    def get(self, url: str) -> Candidate | None:
        key = normalize_url(url)
        return next((c for c in self._items if c.url == key), None)

    def add(self, candidate: Candidate) -> bool:
        """Add unless the URL is already in the pool; True when added."""
        if candidate.url in self:
            return False
        self._items.append(candidate)
        return True

    @property
    def items(self) -> list[Candidate]:
        """Grouped by reliability (high first), then by outlet, then in arrival order."""
        return sorted(
            self._items,
            key=lambda c: (_ORDER[c.reliability], c.outlet == "", c.outlet),
        )

    def mark_independence(self, own: OwnSources) -> None:
        """Which items can count: not the claim's own pages, their publisher or copies of them.

        The quoted party's own record counts for an attribution (what it said or did), even
        when the claim was taken from it; for a fact resting on its word it never counts.
        Near-identical texts among the other items (syndicated wire copy) count once: the first
        in prompt order stands, the copies are marked.
        """
        standing: list[tuple[int, Candidate]] = []
        for number, c in enumerate(self.items, 1):
            c.independent, c.independence_note = True, ""
            c.primary = own.quoted(c)
            if c.primary and own.kind == "attribution":
                standing.append((number, c))
                continue
            if c.primary:
                c.independence_note = (
                    f"the own record of {own.party}, whose word this claim rests on: what it "
                    "says, not independent evidence that it is so"
                )
            elif c.url in own.urls:
                c.independence_note = "the page this claim was extracted from"
            elif c.publisher in own.publishers:
                c.independence_note = (
                    f"the same publisher ({c.publisher}) as a page this claim was extracted from"
                )
            elif c.origin != "factcheck_api" and (
                copied := next((u for u, sh in own.texts if is_copy(c.shingles, sh)), None)
            ):
                c.independence_note = (
                    f"a near-identical copy of {copied}, a page this claim was extracted from"
                )
            elif c.origin != "factcheck_api" and (
                first := next((n for n, o in standing if is_copy(c.shingles, o.shingles)), None)
            ):
                c.independence_note = (
                    f"a near-identical copy of [E{first}] (syndicated text counts once)"
                )
            else:
                standing.append((number, c))
                continue
            c.independent = False

    def prompt(self, claim: Claim, tried: list[str]) -> str:
        """The claim (what it is about, who it quotes), the queries tried and the evidence."""
        party = one_line(claim.attributed_to, 120)
        head = [f"CLAIM: {claim.claim_text}"]
        if party and claim.kind == "attribution":
            head.append(
                f"ATTRIBUTION: the claim is that {party} said, found, decided or did this: judge "
                "whether it did; items tagged OWN RECORD are its own, the best evidence of that."
            )
        elif party:
            head.append(
                f"RESTS ON: {party}'s word: judge whether the fact is so; an item that only "
                "relays that word is context."
            )
        lines = []
        for number, c in enumerate(self.items, 1):
            published = published_text(c.published_at, c.published_at_source)
            tags = [f"reliability: {c.reliability}", f"published: {published}"]
            if c.rating:
                tags.append(f'fact-check rating: "{c.rating}"')
            if c.outlet:
                tags.append(f"outlet search: {c.outlet}")
            if c.page is not None:
                tags.insert(0, f"the journalist's document, page {c.page}")
            if c.origin == "gazette":
                tags.insert(0, "official gazette (municipal record)")
            if c.primary:
                tags.append(f"OWN RECORD of {party}")
            if not c.independent:
                tags.append(f"NOT INDEPENDENT: {c.independence_note}")
            flag = " [NEW]" if c.new else ""
            lines.append(
                f"[E{number}] {c.title} - {c.publisher} ({'; '.join(tags)}){flag}\n"
                f"URL: {c.url}\n{c.snippet}"
            )
        body = "\n\n".join(lines) or "(no evidence found)"
        searched = "\n".join(f"- {q}" for q in tried) or "- (none)"
        return (
            "\n".join(head)
            + f"\n\nQUERIES ALREADY TRIED:\n{searched}\n\n"
            + data_block("EVIDENCE", body)
        )

    def evidence(self, assessment: ClaimAssessment) -> list[Evidence]:
        """The pool with the model's stances, each checked against its quote in the text read.

        A stance whose quote is not found in what Vicaran read counts as context; so does a
        fact-check whose rating Vicaran cannot map.
        """
        judged = {j.number: j for j in assessment.stances}
        result = []
        for number, c in enumerate(self.items, 1):
            judgement = judged.get(number)
            stance = judgement.stance if judgement else "context"
            quote = clip_quote(judgement.quote) if judgement else ""
            note = ""
            if c.origin == "factcheck_api" and c.rating_verdict is None and stance != "context":
                stance, note = (
                    "context",
                    "counted as context: the fact-check's rating is not one Vicaran recognises",
                )
            elif stance != "context" and (problem := quote_problem(quote, c.text)):
                shown = f' ("{one_line(quote, 120)}")' if quote else ""
                note = clean(f"counted as context, not '{stance}': {problem}{shown}")
                stance, quote = "context", ""
            # What people see is cleaned (no markers, no links); the quote was checked first.
            result.append(
                Evidence(
                    url=c.url,
                    display_url=c.display_url,
                    title=clean(c.title),
                    publisher=c.publisher,
                    reliability=c.reliability,
                    stance=stance,
                    snippet=clean(c.snippet),
                    quote=clean(quote) if stance != "context" else "",
                    query=c.query,
                    origin=c.origin,
                    rating=c.rating,
                    retrieved_at=c.retrieved_at,
                    published_at=c.published_at,
                    published_at_source=c.published_at_source,
                    content_sha256=c.sha,
                    independent=c.independent,
                    independence_note=c.independence_note,
                    primary_record=c.primary,
                    stance_note=note,
                    document_id=c.document_id,
                    page=c.page,
                    territory_id=c.territory_id,
                )
            )
        return result


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w{4,}", text.lower()))


def related_sources(claim_text: str, sources: list[Source], limit: int) -> list[Source]:
    """The sources already read that share the most words with the claim."""
    words = _words(claim_text)
    scored = sorted(
        (
            (len(words & _words(s.content_summary + " " + " ".join(s.key_claims))), s)
            for s in sources
        ),
        key=lambda pair: pair[0],
        reverse=True,
    )
    return [s for score, s in scored if score][:limit]


def best_passage(text: str, claim_text: str, limit: int = SNIPPET_CHARS) -> str:
    """The paragraphs of a page that share the most words with the claim, within `limit`."""
    words = _words(claim_text)
    paragraphs = [p.strip() for p in text.split("\n\n") if len(p.strip()) > 40]
    ranked = sorted(paragraphs, key=lambda p: len(words & _words(p)), reverse=True)
    chosen: list[str] = []
    for paragraph in ranked:
        if sum(len(p) for p in chosen) + len(paragraph) > limit and chosen:
            break
        chosen.append(paragraph)
    return one_line(" … ".join(chosen) or text, limit)

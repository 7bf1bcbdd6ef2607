"""One claim's evidence: deduplicated, rated in code, numbered globally with high reliability first."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..formatting import data_block, one_line
from ..schemas import ClaimAssessment, Evidence, EvidenceOrigin, Reliability, Source
from ..tools.credibility import credibility_score, reliability
from ..tools.fact_check_api import Review
from ..tools.urls import domain_of, normalize_url

SNIPPET_CHARS = 600
_ORDER: dict[str, int] = {"high": 0, "neutral": 1, "low": 2}


@dataclass
class Candidate:
    """An evidence item before the model has judged its stance."""

    url: str
    title: str
    publisher: str
    reliability: Reliability
    snippet: str
    origin: EvidenceOrigin
    outlet: str = ""  # the outlet search that found it, "" for a general search
    rating: str | None = None
    rating_verdict: str | None = None
    new: bool = False  # arrived late, after the claim's loop had started

    @classmethod
    def from_url(
        cls, url: str, title: str, snippet: str, origin: EvidenceOrigin, outlet: str = ""
    ) -> Candidate:
        return cls(
            url=normalize_url(url),
            title=title,
            publisher=domain_of(url),
            reliability=reliability(credibility_score(url)),
            snippet=one_line(snippet, SNIPPET_CHARS),
            origin=origin,
            outlet=outlet,
        )

    @classmethod
    def from_source(cls, source: Source) -> Candidate:
        text = source.content_summary + " " + " ".join(source.key_claims)
        return cls(
            url=source.url,
            title=source.title,
            publisher=source.domain,
            reliability=reliability(source.credibility_score),
            snippet=one_line(text, SNIPPET_CHARS),
            origin="source",
        )

    @classmethod
    def from_review(cls, review: Review) -> Candidate:
        """Existing fact-checks are high-reliability evidence."""
        verdict = f" (= {review.verdict})" if review.verdict else " (rating not recognised)"
        said = f" made by {review.claimant}" if review.claimant else ""
        text = (
            f'{review.publisher} reviewed the claim "{review.claim_text}"{said} and rated it '
            f'"{review.rating}"{verdict}.'
        )
        return cls(
            url=normalize_url(review.url),
            title=review.title or f"{review.publisher} fact-check",
            publisher=review.site or domain_of(review.url),
            reliability="high",
            snippet=one_line(text, SNIPPET_CHARS),
            origin="factcheck_api",
            rating=review.rating,
            rating_verdict=review.verdict,
        )


class EvidencePool:
    """Every candidate gathered for one claim, in prompt order."""

    def __init__(self) -> None:
        self._items: list[Candidate] = []

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, url: str) -> bool:
        key = normalize_url(url)
        return any(c.url == key for c in self._items)

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

    def prompt(self, claim_text: str, tried: list[str]) -> str:
        lines = []
        for number, c in enumerate(self.items, 1):
            tags = [f"reliability: {c.reliability}"]
            if c.rating:
                tags.append(f'fact-check rating: "{c.rating}"')
            if c.outlet:
                tags.append(f"outlet search: {c.outlet}")
            flag = " [NEW]" if c.new else ""
            lines.append(
                f"[E{number}] {c.title} - {c.publisher} ({'; '.join(tags)}){flag}\n"
                f"URL: {c.url}\n{c.snippet}"
            )
        body = "\n\n".join(lines) or "(no evidence found)"
        searched = "\n".join(f"- {q}" for q in tried) or "- (none)"
        return f"CLAIM: {claim_text}\n\nQUERIES ALREADY TRIED:\n{searched}\n\n" + data_block(
            "EVIDENCE", body
        )

    def evidence(self, assessment: ClaimAssessment) -> list[Evidence]:
        """The pool with the model's stances; a review whose rating is unknown stays context."""
        stances = {j.number: j.stance for j in assessment.stances}
        result = []
        for number, c in enumerate(self.items, 1):
            stance = stances.get(number, "context")
            if c.origin == "factcheck_api" and c.rating_verdict is None:
                stance = "context"
            result.append(
                Evidence(
                    url=c.url,
                    title=c.title,
                    publisher=c.publisher,
                    reliability=c.reliability,
                    stance=stance,
                    snippet=c.snippet,
                    origin=c.origin,
                    rating=c.rating,
                )
            )
        return result


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w{4,}", text.lower()))


def related_sources(
    claim_urls: list[str], claim_text: str, sources: list[Source], extra: int
) -> list[Source]:
    """The claim's own sources first, then the most related other sources already read."""
    linked = [s for s in sources if s.url in claim_urls]
    words = _words(claim_text)
    others = [s for s in sources if s.url not in claim_urls]
    scored = sorted(
        (
            (len(words & _words(s.content_summary + " " + " ".join(s.key_claims))), s)
            for s in others
        ),
        key=lambda pair: pair[0],
        reverse=True,
    )
    return linked + [s for score, s in scored if score][:extra]


def best_passage(text: str, claim_text: str, limit: int = SNIPPET_CHARS) -> str:
    """The paragraphs of a page that share the most words with the claim, within `limit`."""
    words = _words(claim_text)
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if len(p.strip()) > 40]
    ranked = sorted(paragraphs, key=lambda p: len(words & _words(p)), reverse=True)
    chosen: list[str] = []
    for paragraph in ranked:
        if sum(len(p) for p in chosen) + len(paragraph) > limit and chosen:
            break
        chosen.append(paragraph)
    return one_line(" … ".join(chosen) or text, limit)

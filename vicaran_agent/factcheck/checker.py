"""One claim's evidence loop: gather concurrently, judge, apply the rule, refine, adjudicate."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TypeVar

from ..citations import resolve_citations
from ..config import Settings
from ..evidence import enforce_verdict, is_sufficient
from ..formatting import one_line
from ..i18n import message
from ..llm import ModelCallError, ModelClient
from ..runtime import InvestigationRuntime
from ..schemas import Claim, ClaimAssessment, Evidence, Source, Verdict
from ..tools.fact_check_api import FactCheckApi
from ..tools.live_search import LiveSearch
from ..tools.urls import domain_matches, normalize_url
from ..tools.web_search import SearchHit
from .pool import Candidate, EvidencePool, best_passage, related_sources

T = TypeVar("T")

RESULTS_PER_SEARCH = 5
RELATED_SOURCES = 4
MAX_QUERIES = 3


@dataclass
class CheckSettings:
    """What every claim of one fact_checker run shares."""

    settings: Settings
    model: ModelClient
    instruction: str
    language: str
    cap: int
    sources: list[Source]
    runtime: InvestigationRuntime
    factcheck: FactCheckApi
    outlets: list[str]
    live: LiveSearch | None = None


@dataclass
class ClaimChecker:
    """Checks one claim; `issues` collects what failed along the way."""

    shared: CheckSettings
    claim: Claim
    pool: EvidencePool = field(default_factory=EvidencePool)
    queries: list[str] = field(default_factory=list)
    issues: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    _late_seen: set[str] = field(default_factory=set)
    _unread: list[SearchHit] = field(default_factory=list)  # found, not yet read

    async def run(self) -> Verdict:
        shared = self.shared
        for source in related_sources(
            self.claim.source_urls, self.claim.claim_text, shared.sources, RELATED_SOURCES
        ):
            self.pool.add(Candidate.from_source(source))
        queries = [one_line(q, 400) for q in self.claim.queries if q.strip()][:MAX_QUERIES]
        queries = queries or [one_line(self.claim.claim_text, 400)]
        iterations = 0
        while True:
            iterations += 1
            fresh = [q for q in queries if q not in self.queries]
            if iterations == 1:  # snippets and the sources already read often settle a claim
                await self._gather(fresh)
            else:  # evidence was thin: read the promising pages while searching again
                unread, self._unread = self._unread, []
                await asyncio.gather(
                    self._gather(fresh), self._timed("page reading", self._read_pages(unread))
                )
            self._take_late_arrivals()
            assessment = await self._judge()
            if assessment is None:
                return self._failed(iterations)
            evidence = self.pool.evidence(assessment)
            if is_sufficient(evidence):
                stop = "sufficient evidence"
                break
            if iterations >= shared.cap:
                stop = f"iteration cap reached ({shared.cap})"
                break
            queries = [one_line(q, 400) for q in assessment.refined_queries if q.strip()]
            queries = [q for q in queries if q not in self.queries][:MAX_QUERIES]
            if not queries:
                stop = "no new queries to try"
                break
        if not is_sufficient(evidence) and shared.live is not None:
            added = await self._live_search()
            if added:
                later = await self._judge()
                if later is not None:
                    assessment, evidence = later, self.pool.evidence(later)
                stop += f"; live search added {added} source(s)"
        return self._verdict(assessment, evidence, iterations, stop)

    # --- gathering -----------------------------------------------------------------------

    async def _gather(self, queries: list[str]) -> None:
        """Fact-check databases, a general search and an outlet search, concurrently."""
        if not queries:
            return
        self.queries += queries
        shared = self.shared
        language = shared.language
        search = shared.runtime.search
        reviews, general, outlets = await asyncio.gather(
            self._timed("Fact Check Tools", shared.factcheck.search(queries, language=language)),
            self._timed("web search", search.search_many(queries, max_results=RESULTS_PER_SEARCH)),
            self._timed(
                "outlet search",
                search.search_many(
                    queries, max_results=RESULTS_PER_SEARCH, include_domains=shared.outlets
                ),
            ),
        )
        if reviews is not None:
            self.issues.extend(reviews.failures)
            for review in reviews.reviews:
                self.pool.add(Candidate.from_review(review))
        read = {s.url: s for s in shared.sources}  # already read: their digest, no second read
        for outcome, outlet_search in ((outlets, True), (general, False)):
            if outcome is None:
                continue
            self.issues.extend(outcome.failures)
            for hit in outcome.hits:
                if (source := read.get(normalize_url(hit.url))) is not None:
                    self.pool.add(Candidate.from_source(source))
                    continue
                outlet = _outlet_of(hit.url, shared.outlets) if outlet_search else ""
                if self.pool.add(
                    Candidate.from_url(hit.url, hit.title, hit.snippet, "web", outlet)
                ):
                    self._unread.append(hit)

    async def _read_pages(self, hits: list[SearchHit]) -> None:
        """Read the most promising new pages (each URL once per investigation)."""
        by_url = {c.url: c for c in self.pool.items}
        rank = {"high": 0, "neutral": 1, "low": 2}
        chosen = sorted(
            (h for h in hits if normalize_url(h.url) in by_url),
            key=lambda h: (rank[by_url[normalize_url(h.url)].reliability], -h.score),
        )[: self.shared.settings.vicaran_pages_per_claim]
        pages = await asyncio.gather(*(self.shared.runtime.pages.read(h.url) for h in chosen))
        for hit, page in zip(chosen, pages, strict=True):
            if page.ok:
                candidate = by_url[normalize_url(hit.url)]
                candidate.snippet = best_passage(page.text, self.claim.claim_text)
                candidate.origin = "page"

    def _take_late_arrivals(self) -> None:
        """Pages that arrived after their first read timed out join the pool, marked new."""
        for page in self.shared.runtime.late.arrived():
            if page.url in self._late_seen:
                continue
            self._late_seen.add(page.url)
            candidate = Candidate.from_url(
                page.url, page.title, best_passage(page.text, self.claim.claim_text), "late_source"
            )
            candidate.new = True
            if not self.pool.add(candidate):  # known from a snippet: now with its content
                existing = next(c for c in self.pool.items if c.url == candidate.url)
                existing.snippet, existing.origin, existing.new = (
                    candidate.snippet,
                    "late_source",
                    True,
                )

    async def _live_search(self) -> int:
        assert self.shared.live is not None
        outcome = await self._timed(
            "live search",
            self.shared.live.search(self.claim.claim_text, language=self.shared.language),
        )
        if outcome is None:
            return 0
        # An optional extra path: what it could not do is noted, not counted against the run.
        self.notes.extend(outcome.failures)
        added = 0
        for source in outcome.sources:
            added += self.pool.add(
                Candidate.from_url(source.url, source.title, source.snippet, "live_search")
            )
        return added

    async def _timed(self, what: str, work: Awaitable[T]) -> T | None:
        """Run one gatherer within its own time budget; a failure yields nothing, recorded."""
        seconds = self.shared.settings.vicaran_gather_timeout_seconds
        try:
            return await asyncio.wait_for(work, timeout=seconds)
        except TimeoutError:
            self.issues.append(f"{what} did not answer within {seconds:g} s")
        except Exception as error:  # noqa: BLE001 - one gatherer must never sink the claim
            self.issues.append(f"{what} failed: {type(error).__name__}: {error}")
        return None

    # --- judging ---------------------------------------------------------------------------

    async def _judge(self) -> ClaimAssessment | None:
        try:
            return await self.shared.model.generate(
                instruction=self.shared.instruction,
                prompt=self.pool.prompt(self.claim.claim_text, self.queries),
                schema=ClaimAssessment,
            )
        except ModelCallError as error:
            self.issues.append(f"Claim {self.claim.key} could not be checked: {error}")
            return None

    def _failed(self, iterations: int) -> Verdict:
        return Verdict(
            claim_key=self.claim.key,
            claim_text=self.claim.claim_text,
            verdict="unverified",
            confidence=0.0,
            explanation=self.issues[-1] if self.issues else "Could not be checked.",
            queries=self.queries,
            iterations=iterations,
            stop_reason="model error",
        )

    def _verdict(
        self, assessment: ClaimAssessment, evidence: list[Evidence], iterations: int, stop: str
    ) -> Verdict:
        """Code checks the model's adjudication: citations exist, the rule holds, conflicts shown."""
        explanation, cited, _ = resolve_citations(
            assessment.explanation.strip(), range(1, len(evidence) + 1)
        )
        label, why = enforce_verdict(assessment.verdict, evidence)
        confidence = min(1.0, max(0.0, assessment.confidence))
        if label != "unverified" and not cited:
            label, why = "unverified", "the explanation cites no evidence that was found"
        if label != assessment.verdict:
            explanation += " " + message(
                "downgraded", self.shared.language, verdict=assessment.verdict, reason=why
            )
            confidence = min(confidence, 0.5)
        supports = [
            i
            for i, e in enumerate(evidence, 1)
            if e.reliability == "high" and e.stance == "supports"
        ]
        refutes = [
            i
            for i, e in enumerate(evidence, 1)
            if e.reliability == "high" and e.stance == "refutes"
        ]
        if supports and refutes:
            explanation += " " + message(
                "conflict",
                self.shared.language,
                supports="".join(f"[{n}]" for n in supports),
                refutes="".join(f"[{n}]" for n in refutes),
            )
        return Verdict(
            claim_key=self.claim.key,
            claim_text=self.claim.claim_text,
            verdict=label,
            confidence=confidence,
            explanation=explanation,
            evidence=evidence,
            sufficient=is_sufficient(evidence),
            queries=self.queries,
            iterations=iterations,
            stop_reason=stop,
        )


def _outlet_of(url: str, outlets: list[str]) -> str:
    return next((o for o in outlets if domain_matches(url, [o])), "")

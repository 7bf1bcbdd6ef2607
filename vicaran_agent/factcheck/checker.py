"""One claim's evidence loop: gather concurrently, judge, apply the rule, refine, adjudicate."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from ..citations import resolve_citations
from ..clients.fact_check_api import FactCheckApi
from ..clients.querido_diario import QueridoDiario
from ..clients.web_search import SearchHit
from ..config import Settings
from ..documents.follow_records import FollowResult
from ..evidence import enforce_verdict, is_sufficient
from ..formatting import one_line
from ..gazettes.outcome import GazetteOutcome
from ..i18n import Phrase, message, verdict_label, word
from ..llm import ModelClient
from ..llm_models import ModelCallError
from ..model_outputs import ClaimAssessment
from ..prompts.gazette_search import GAZETTE_JUDGE_RULES
from ..runtime import InvestigationRuntime
from ..sanitize import clean
from ..schemas import Claim, Evidence, Source, Verdict
from ..tools.analyze_source import now_iso
from ..urls import domain_matches, is_document_url, normalize_url
from .documents import DocumentEvidence, take_followed
from .gazettes import gather_gazettes
from .live_search import LiveSearch
from .pool import Candidate, EvidencePool, OwnSources, related_sources

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
    language: str  # the report's
    cap: int
    sources: list[Source]
    runtime: InvestigationRuntime
    factcheck: FactCheckApi
    outlets: list[str]
    live: LiveSearch | None = None
    documents: DocumentEvidence | None = None
    gazettes: QueridoDiario | None = None  # municipal gazettes (claims about a city's acts)
    gazettes_asked: bool = False  # the brief asks for gazettes: searched without a city too
    # The language published fact-checks are searched in (the brief's; "": any language).
    search_language: str | None = None  # None: the report's


@dataclass
class ClaimChecker:
    """Checks one claim.

    `issues`: the claim could not be checked (the stage's work is incomplete); `notes`: what a
    gatherer could not do (a search that failed or timed out) - the claim was still checked.
    """

    shared: CheckSettings
    claim: Claim
    pool: EvidencePool = field(default_factory=EvidencePool)
    queries: list[str] = field(default_factory=list)
    issues: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)  # saved with the verdict
    found_sources: list[Source] = field(default_factory=list)  # gazettes read: saved as sources
    gazette_outcome: GazetteOutcome | None = None
    emit: Callable[[str], None] | None = None  # a progress line for the journalist
    prior: list[Candidate] = field(default_factory=list)  # an earlier check's evidence (memory)
    _late_seen: set[str] = field(default_factory=set)
    _unread: list[SearchHit] = field(default_factory=list)  # found, not yet read
    _own: OwnSources = field(default_factory=OwnSources.none)
    _listed: list[str] = field(default_factory=list)  # references the model named
    _following: asyncio.Future[FollowResult] | None = None  # references being followed
    _last_round: bool = False
    _gazettes_started: bool = False

    async def run(self) -> Verdict:
        shared = self.shared
        own = [s for s in shared.sources if s.url in self.claim.source_urls]
        # A document is searched passage by passage (below), not as its digest.
        others = [
            s
            for s in shared.sources
            if s.url not in self.claim.source_urls
            and (s.origin != "document" or shared.documents is None)
        ]
        related = related_sources(self.claim.claim_text, others, RELATED_SOURCES)
        texts = await asyncio.gather(
            *(shared.runtime.texts.load(s.content_sha256) for s in own + related)
        )
        self._own = OwnSources.of(list(zip(own, texts[: len(own)], strict=True)), self.claim)
        # The claim's own pages are shown as context (never counted); related ones may count.
        for source, text in zip(own + related, texts, strict=True):
            self.pool.add(Candidate.from_source(source, text, self.claim.claim_text))
        for candidate in self.prior:  # what the same claim's earlier check rested on
            self.pool.add(candidate)
        if self.prior:
            self.reasoning.append(message("memory_prior", shared.language, count=len(self.prior)))
        queries = [one_line(q, 400) for q in self.claim.queries if q.strip()][:MAX_QUERIES]
        queries = queries or [one_line(self.claim.claim_text, 400)]
        if self._private:
            self.reasoning.append(message("kept_off_the_web", shared.language))
        iterations = 0
        while True:
            iterations += 1
            fresh = [q for q in queries if q not in self.queries]
            self._last_round = iterations >= shared.cap
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
                if self._following is not None:
                    self._following.cancel()
                return self._failed(iterations)
            evidence = self.pool.evidence(assessment)
            if is_sufficient(evidence):
                stop = "sufficient evidence"
                break
            if iterations >= shared.cap:
                stop = f"iteration cap reached ({shared.cap})"
                break
            queries = [one_line(clean(q), 400) for q in assessment.refined_queries]
            queries = [q for q in queries if q]
            queries = [q for q in queries if q not in self.queries][:MAX_QUERIES]
            self._listed = [one_line(clean(r), 200) for r in assessment.references][:MAX_QUERIES]
            if not queries and not (self._listed and shared.documents):
                stop = "no new queries to try"
                break
        if iterations < shared.cap and shared.runtime.late.pending():
            # Seed 000: done while sources are still arriving, the loop waits for them and
            # judges again with them marked new (within the round cap, for one page's time).
            await shared.runtime.late.wait_for_pending(shared.settings.vicaran_page_timeout_seconds)
            if self._take_late_arrivals():
                iterations += 1
                later = await self._judge()
                if later is not None:
                    assessment, evidence = later, self.pool.evidence(later)
                    if is_sufficient(evidence):
                        stop = "sufficient evidence"
                    elif stop == "sufficient evidence":
                        stop = "no longer sufficient"
                stop += "; a late source was judged"
        if not is_sufficient(evidence) and shared.live is not None and not self._private:
            added = await self._live_search()
            if added:
                later = await self._judge()
                if later is not None:
                    assessment, evidence = later, self.pool.evidence(later)
                stop += f"; live search added {added} source{'s' if added != 1 else ''}"
        if self._following is not None:  # leads no later round will read
            self._following.cancel()
        return self._verdict(assessment, evidence, iterations, stop)

    @property
    def _private(self) -> bool:
        """A claim only the journalist's documents make: its words stay off web services."""
        urls = self.claim.source_urls
        return (
            self.shared.documents is not None
            and self.claim.origin == "source"
            and bool(urls)
            and all(is_document_url(u) for u in urls)
            and not self.shared.settings.vicaran_search_document_claims
        )

    # --- gathering -----------------------------------------------------------------------

    async def _gather(self, queries: list[str]) -> None:
        """Fact-check databases, a general search, an outlet search and the journalist's
        documents, concurrently."""
        shared = self.shared
        documents = (
            self._timed("documents", self._documents(queries))
            if shared.documents is not None
            else asyncio.sleep(0)
        )
        if self._wants_gazettes():
            self._gazettes_started = True
            documents = asyncio.gather(documents, gather_gazettes(self))
        if not queries or self._private:
            self.queries += queries
            await documents
            return
        self.queries += queries
        language = shared.language if shared.search_language is None else shared.search_language
        search = shared.runtime.search
        reviews, general, outlets, _ = await asyncio.gather(
            self._timed("Fact Check Tools", shared.factcheck.search(queries, language=language)),
            self._timed("web search", search.search_many(queries, max_results=RESULTS_PER_SEARCH)),
            self._timed(
                "outlet search",
                # the outlets' coverage: a news search, the only kind that gives dates
                search.search_many(
                    queries,
                    max_results=RESULTS_PER_SEARCH,
                    include_domains=shared.outlets,
                    topic="news",
                ),
            ),
            documents,
        )
        if reviews is not None:
            self.notes.extend(reviews.failures)
            for review in reviews.reviews:
                candidate = Candidate.from_review(review)
                candidate.retrieved_at = now_iso()
                candidate.sha = shared.runtime.texts.put(candidate.text)
                self.pool.add(candidate)
        read = {s.url: s for s in shared.sources}  # already read: their text, no second read
        texts = shared.runtime.texts
        for outcome, outlet_search in ((outlets, True), (general, False)):
            if outcome is None:
                continue
            self.notes.extend(outcome.failures)
            for hit in outcome.hits:
                if (known := self.pool.get(hit.url)) is not None and not known.query:
                    known.query = hit.query  # found by this search too: now we know how
                if (source := read.get(normalize_url(hit.url))) is not None:
                    if known is None:
                        text = await texts.load(source.content_sha256)
                        candidate = Candidate.from_source(source, text, self.claim.claim_text)
                        candidate.query = hit.query
                        self.pool.add(candidate)
                    continue
                outlet = _outlet_of(hit.url, shared.outlets) if outlet_search else ""
                candidate = Candidate.from_url(
                    hit.url,
                    hit.title,
                    hit.snippet,
                    "web",
                    outlet,
                    query=hit.query,
                    published_at=hit.published_at,
                    published_at_source=hit.published_at_source,
                )
                candidate.retrieved_at = now_iso()
                candidate.sha = texts.put(candidate.text) if candidate.text else None
                if self.pool.add(candidate):
                    self._unread.append(hit)

    def _wants_gazettes(self) -> bool:
        """Once per claim: a claim about a Brazilian city's acts, or a brief asking for gazettes."""
        shared = self.shared
        return (
            shared.gazettes is not None
            and not self._gazettes_started
            and not self._private
            and (bool(self.claim.city.strip()) or shared.gazettes_asked)
        )

    async def _documents(self, queries: list[str]) -> None:
        """The best passages for the queries; the references they (and the model) cite.

        References are followed beside the judging: what a round's passages cite is read
        while that round is judged and joins the next round. In the last round there is no next
        one, so new leads are followed before it is judged.
        """
        documents = self.shared.documents
        assert documents is not None
        texts = self.shared.runtime.texts
        read = []
        for query, hit in await documents.search(queries) if queries else []:
            candidate = Candidate.from_passage(hit, documents.reliability_of(hit), query)
            candidate.sha, candidate.retrieved_at = texts.put(hit.text), now_iso()
            if self.pool.add(candidate):
                read.append(hit)
        if self._following is not None:
            following, self._following = self._following, None
            take_followed(self, await following)
        listed, self._listed = self._listed, []
        if not read and not listed:
            return
        seen = {c.document_id for c in self.pool.items if c.document_id} - {
            h.document_id for h in read
        }
        follow = documents.follower.follow(
            self.claim.claim_text,
            read,
            listed,
            seen_urls=[c.url for c in self.pool.items],
            seen_documents=seen,
        )
        if self._last_round:
            take_followed(self, await follow)
        else:
            self._following = asyncio.ensure_future(follow)

    async def _read_pages(self, hits: list[SearchHit]) -> None:
        """Read the most promising new pages (each URL once per investigation)."""
        by_url = {c.url: c for c in self.pool.items}
        rank = {"high": 0, "neutral": 1, "low": 2}
        chosen = sorted(
            (h for h in hits if normalize_url(h.url) in by_url),
            key=lambda h: (rank[by_url[normalize_url(h.url)].reliability], -h.score),
        )[: self.shared.settings.vicaran_pages_per_claim]
        runtime = self.shared.runtime
        pages = await asyncio.gather(*(runtime.pages.read(h.url) for h in chosen))
        for hit, page in zip(chosen, pages, strict=True):
            if page.ok:
                candidate = by_url[normalize_url(hit.url)]
                candidate.read(
                    page.text, runtime.texts.put(page.text), self.claim.claim_text, now_iso()
                )
                candidate.dated(page.published_at, page.published_at_source)
                candidate.origin = "page"

    def _take_late_arrivals(self) -> int:
        """Pages that arrived after their first read timed out join the pool, marked new;
        how many arrived since the last call."""
        texts = self.shared.runtime.texts
        taken = 0
        for page in self.shared.runtime.late.arrived():
            if page.url in self._late_seen:
                continue
            self._late_seen.add(page.url)
            taken += 1
            candidate = self.pool.get(page.url)
            if candidate is None:
                candidate = Candidate.from_page(page, "late_source")
                self.pool.add(candidate)
            # known from a snippet or not at all: now with its content
            candidate.read(page.text, texts.put(page.text), self.claim.claim_text, now_iso())
            candidate.dated(page.published_at, page.published_at_source)
            candidate.origin, candidate.new = "late_source", True
        return taken

    async def _live_search(self) -> int:
        assert self.shared.live is not None
        outcome = await self._timed(
            "live search",
            self.shared.live.search(self.claim.claim_text, language=self.shared.language),
        )
        if outcome is None:
            return 0
        self.notes.extend(outcome.failures)
        fresh = [s for s in outcome.sources if s.url not in self.pool]
        runtime = self.shared.runtime
        # The grounded answer is the model's prose: a stance needs the page's own words.
        pages = await asyncio.gather(*(runtime.pages.read(s.url) for s in fresh))
        for source, page in zip(fresh, pages, strict=True):
            candidate = Candidate.from_url(
                source.url, page.title or source.title, source.snippet, "live_search"
            )
            candidate.query = "live search: " + one_line(self.claim.claim_text, 200)
            candidate.text = ""  # until the page itself is read
            if page.ok:
                sha = runtime.texts.put(page.text)
                candidate.read(page.text, sha, self.claim.claim_text, now_iso())
                candidate.dated(page.published_at, page.published_at_source)
            elif not source.is_reachable:  # cited by Google, refused to Vicaran: said so
                reason = source.unreachable_reason or ""
                name = source.title or source.url
                self.notes.append(Phrase("live_unread", name=name, url=source.url, reason=reason))
            self.pool.add(candidate)
        return len(fresh)

    async def _timed(self, what: str, work: Awaitable[T]) -> T | None:
        """Run one gatherer within its own time budget; a failure yields nothing, recorded."""
        seconds = self.shared.settings.vicaran_gather_timeout_seconds
        language = self.shared.language
        name = word(what, language)
        try:
            return await asyncio.wait_for(work, timeout=seconds)
        except TimeoutError:
            self.notes.append(
                message("gather_timeout", language, what=name, seconds=f"{seconds:g}")
            )
        except Exception as error:  # noqa: BLE001 - one gatherer must never sink the claim
            detail = f"{type(error).__name__}: {error}"
            self.notes.append(message("gather_failed", language, what=name, error=detail))
        return None

    # --- judging ---------------------------------------------------------------------------

    async def _judge(self) -> ClaimAssessment | None:
        self.pool.mark_independence(self._own)
        instruction = self.shared.instruction
        if any(c.origin == "gazette" for c in self.pool.items):  # acts to weigh: their rules
            instruction = f"{instruction}\n{GAZETTE_JUDGE_RULES}\n"
        try:
            return await self.shared.model.generate(
                instruction=instruction,
                prompt=self.pool.prompt(self.claim, self.queries),
                schema=ClaimAssessment,
            )
        except ModelCallError as error:
            claim = one_line(self.claim.claim_text, 120)
            self.issues.append(
                message("claim_unchecked", self.shared.language, claim=claim, error=error)
            )
            return None

    def _failed(self, iterations: int) -> Verdict:
        return Verdict(
            claim_key=self.claim.key,
            claim_text=self.claim.claim_text,
            verdict="unverified",
            confidence=0.0,
            explanation=self.issues[-1]
            if self.issues
            else message("unchecked", self.shared.language),
            queries=self.queries,
            iterations=iterations,
            stop_reason="model error",
            as_of=self.shared.settings.today.isoformat(),
            reasoning=self.reasoning,
        )

    def _verdict(
        self, assessment: ClaimAssessment, evidence: list[Evidence], iterations: int, stop: str
    ) -> Verdict:
        """Code checks the model's adjudication: citations exist, the rule holds, conflicts shown."""
        explanation, cited, _ = resolve_citations(
            clean(assessment.explanation).strip(), range(1, len(evidence) + 1)
        )
        language = self.shared.language
        label, why = enforce_verdict(assessment.verdict, evidence, language)
        confidence = min(1.0, max(0.0, assessment.confidence))
        if label != "unverified" and not cited:
            label, why = "unverified", message("rule_uncited", language)
        if label != assessment.verdict:
            stated = verdict_label(assessment.verdict, language)[1]
            explanation += " " + message("downgraded", language, verdict=stated, reason=why)
            confidence = min(confidence, 0.5)
        gazettes = self.gazette_outcome
        if gazettes is not None and not gazettes.found and label == "unverified" and gazettes.log:
            explanation += " " + gazettes.log[-1]  # "No gazette found: ...", said plainly
        supports = [
            i
            for i, e in enumerate(evidence, 1)
            if e.reliability == "high" and e.stance == "supports" and e.independent
        ]
        refutes = [
            i
            for i, e in enumerate(evidence, 1)
            if e.reliability == "high" and e.stance == "refutes" and e.independent
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
            as_of=self.shared.settings.today.isoformat(),
            reasoning=self.reasoning,
        )


def _outlet_of(url: str, outlets: list[str]) -> str:
    return next((o for o in outlets if domain_matches(url, [o])), "")

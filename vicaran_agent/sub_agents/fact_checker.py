"""fact_checker: every claim in its own evidence loop, concurrently; the rule is code."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field

from google.adk.events import Event

from .. import state_keys as keys
from ..citations import resolve_citations
from ..evidence import enforce_verdict, is_sufficient
from ..formatting import data_block, one_line
from ..i18n import verdict_label
from ..llm import ModelCallError
from ..prompts.fact_checker import FACT_CHECKER_INSTRUCTION
from ..schemas import Claim, ClaimAssessment, Evidence, Source, Verdict
from ..tools.credibility import credibility_score, reliability
from ..tools.urls import domain_of, normalize_url
from ..tools.web_search import WebSearch
from ._stage import Stage, StageAgent, stream_concurrently

ITERATION_CAP = {"quick": 2, "detailed": 3}
RESULTS_PER_QUERY = 5
RELATED_SOURCES = 4
SNIPPET_CHARS = 600


@dataclass
class Candidate:
    """An evidence item before the model has judged its stance."""

    url: str
    title: str
    publisher: str
    reliability: str
    snippet: str


@dataclass
class ClaimCheck:
    """The running state of one claim's evidence loop."""

    claim: Claim
    candidates: list[Candidate] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)

    def add(self, candidate: Candidate) -> None:
        if all(c.url != candidate.url for c in self.candidates):
            self.candidates.append(candidate)

    def prompt(self) -> str:
        items = "\n\n".join(
            f"[E{i}] {c.title} - {c.publisher} (reliability: {c.reliability})\n"
            f"URL: {c.url}\n{c.snippet}"
            for i, c in enumerate(self.candidates, 1)
        )
        return f"CLAIM: {self.claim.claim_text}\n\n" + data_block(
            "EVIDENCE", items or "(no evidence found)"
        )


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w{4,}", text.lower())}


def source_candidate(source: Source) -> Candidate:
    text = source.content_summary + " " + " ".join(source.key_claims)
    return Candidate(
        url=source.url,
        title=source.title,
        publisher=source.domain,
        reliability=reliability(source.credibility_score),
        snippet=one_line(text, SNIPPET_CHARS),
    )


def seed_candidates(claim: Claim, sources: list[Source]) -> list[Candidate]:
    """The claim's own sources first, then the most related other sources already read."""
    linked = [s for s in sources if s.url in claim.source_urls]
    words = _words(claim.claim_text)
    others = sorted(
        (s for s in sources if s.url not in claim.source_urls),
        key=lambda s: len(words & _words(s.content_summary + " ".join(s.key_claims))),
        reverse=True,
    )
    related = [s for s in others if words & _words(s.content_summary)][:RELATED_SOURCES]
    return [source_candidate(s) for s in linked + related]


class FactCheckerAgent(StageAgent):
    """Checks every claim against evidence under the evidence rule."""

    async def run_stage(self, stage: Stage) -> AsyncGenerator[Event, None]:
        claims = stage.records(keys.CLAIM_RECORDS, Claim)
        if not claims:
            yield stage.finish(stage.msg("no_claims_to_verify"), {keys.VERDICT_RECORDS: []})
            return
        sources = [s for _, s in stage.usable_sources()]
        search = WebSearch(stage.settings)
        cap = ITERATION_CAP[stage.config.mode]
        numbered = {c.key: i for i, c in enumerate(claims, 1)}

        async def check(claim: Claim, emit: Callable[[str], None]) -> Verdict:
            i = numbered[claim.key]
            emit(stage.msg("verifying", i=i, n=len(claims), claim=one_line(claim.claim_text, 120)))
            verdict = await self._check(stage, search, claim, sources, cap)
            emoji, label = verdict_label(verdict.verdict, stage.language)
            emit(
                stage.msg(
                    "verdict_line",
                    emoji=emoji,
                    label=label,
                    reason=one_line(resolve_citations(verdict.explanation, ())[0], 200),
                    confidence=round(verdict.confidence * 100),
                )
            )
            return verdict

        verdicts: dict[str, Verdict] = {}
        async for text, result in stream_concurrently(
            claims, check, stage.settings.vicaran_concurrency
        ):
            if text is not None:
                yield stage.event(text)
            elif isinstance(result, Exception):
                stage.issue(f"A claim could not be checked: {result}")
            else:
                verdicts[result.claim_key] = result
        ordered = [verdicts[c.key] for c in claims if c.key in verdicts]
        yield stage.finish(
            self._markdown(stage, ordered),
            {keys.VERDICT_RECORDS: [v.model_dump(mode="json") for v in ordered]},
        )

    async def _check(
        self, stage: Stage, search: WebSearch, claim: Claim, sources: list[Source], cap: int
    ) -> Verdict:
        check = ClaimCheck(claim, seed_candidates(claim, sources))
        queries = [one_line(claim.claim_text, 400)]
        assessment: ClaimAssessment | None = None
        stop_reason = ""
        iterations = 0
        while True:
            iterations += 1
            fresh = [q for q in queries if q not in check.queries]
            check.queries += fresh
            if fresh:
                outcome = await search.search_many(fresh, max_results=RESULTS_PER_QUERY)
                for failure in outcome.failures:
                    stage.issue(failure)
                for hit in outcome.hits:
                    check.add(
                        Candidate(
                            url=normalize_url(hit.url),
                            title=hit.title,
                            publisher=domain_of(hit.url),
                            reliability=reliability(credibility_score(hit.url)),
                            snippet=one_line(hit.snippet, SNIPPET_CHARS),
                        )
                    )
            try:
                assessment = await stage.ask(
                    FACT_CHECKER_INSTRUCTION, check.prompt(), ClaimAssessment
                )
            except ModelCallError as error:
                stage.issue(f"Claim {claim.key} could not be checked: {error}")
                return Verdict(
                    claim_key=claim.key,
                    claim_text=claim.claim_text,
                    verdict="unverified",
                    confidence=0.0,
                    explanation=f"Could not be checked: {error}",
                    queries=check.queries,
                    iterations=iterations,
                    stop_reason="model error",
                )
            evidence = self._evidence(check, assessment)
            if is_sufficient(evidence):
                stop_reason = "sufficient evidence"
                break
            if iterations >= cap:
                stop_reason = f"iteration cap reached ({cap})"
                break
            queries = [one_line(q, 400) for q in assessment.refined_queries if q.strip()][:3]
            if not [q for q in queries if q not in check.queries]:
                stop_reason = "no new queries to try"
                break
        return self._verdict(claim, check, assessment, evidence, iterations, stop_reason)

    @staticmethod
    def _evidence(check: ClaimCheck, assessment: ClaimAssessment) -> list[Evidence]:
        stances = {j.number: j.stance for j in assessment.stances}
        return [
            Evidence(
                url=c.url,
                title=c.title,
                publisher=c.publisher,
                reliability=c.reliability,  # type: ignore[arg-type]
                stance=stances.get(i, "context"),
                snippet=c.snippet,
            )
            for i, c in enumerate(check.candidates, 1)
        ]

    @staticmethod
    def _verdict(
        claim: Claim,
        check: ClaimCheck,
        assessment: ClaimAssessment,
        evidence: list[Evidence],
        iterations: int,
        stop_reason: str,
    ) -> Verdict:
        explanation, cited, _removed = resolve_citations(
            assessment.explanation.strip(), range(1, len(evidence) + 1)
        )
        label, why = enforce_verdict(assessment.verdict, evidence)
        confidence = min(1.0, max(0.0, assessment.confidence))
        if label != "unverified" and not cited:
            label, why = "unverified", "the explanation cites no evidence that was found"
        if label != assessment.verdict:
            explanation += f" (Vicaran: downgraded from {assessment.verdict} - {why}.)"
            confidence = min(confidence, 0.5)
        return Verdict(
            claim_key=claim.key,
            claim_text=claim.claim_text,
            verdict=label,
            confidence=confidence,
            explanation=explanation,
            evidence=evidence,
            sufficient=is_sufficient(evidence),
            queries=check.queries,
            iterations=iterations,
            stop_reason=stop_reason,
        )

    @staticmethod
    def _markdown(stage: Stage, verdicts: list[Verdict]) -> str:
        lines = [stage.msg("facts_header"), ""]
        confidence = stage.msg("confidence")
        for i, v in enumerate(verdicts, 1):
            emoji, label = verdict_label(v.verdict, stage.language)
            lines.append(f'{i}. {emoji} **{label}** - "{v.claim_text}"')
            lines.append(f"   - {one_line(v.explanation, 300)}")
            lines.append(f"   - {confidence}: {v.confidence:.2f}")
        lines += ["", stage.msg("facts_done")]
        return "\n".join(lines)

"""fact_checker: every claim in its own evidence loop, concurrently; the rule is code."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable
from datetime import timedelta

from google.adk.events import Event

from .. import state_keys as keys
from ..citations import resolve_citations
from ..clients.fact_check_api import FactCheckApi
from ..clients.querido_diario import QueridoDiario
from ..documents.collection import Reader
from ..factcheck.checker import CheckSettings, ClaimChecker
from ..factcheck.documents import DocumentEvidence
from ..factcheck.live_search import LiveSearch, supports_live_search
from ..factcheck.outlets import outlets_for
from ..factcheck.pool import Candidate
from ..formatting import one_line
from ..i18n import verdict_label
from ..memory import EarlierCheck
from ..plan import asks_for_gazettes
from ..prompts.fact_checker import FACT_CHECKER_INSTRUCTION
from ..runtime import runtime_for
from ..schemas import Claim, Source, Verdict
from ..storage import get_repository
from ._stage import Stage, StageAgent, stream_concurrently

logger = logging.getLogger(__name__)

ITERATION_CAP = {"quick": 2, "detailed": 3}
CLAIM_IN_LINE = 80  # characters of the claim a verdict line names it by


class FactCheckerAgent(StageAgent):
    """Checks every claim against evidence under the evidence rule."""

    async def run_stage(self, stage: Stage) -> AsyncGenerator[Event, None]:
        claims = stage.records(keys.CLAIM_RECORDS, Claim)
        if not claims:
            yield stage.finish(stage.msg("no_claims_to_verify"), {keys.VERDICT_RECORDS: []})
            return
        settings, config = stage.settings, stage.config
        remembered, prior = await _remembered(stage, claims)  # the same claims, checked before
        for line in remembered:
            yield stage.event(line)
        factcheck = FactCheckApi(settings)
        if not settings.factcheck_api_key.strip():
            yield stage.event(stage.msg("factcheck_skipped", note=stage.msg("factcheck_off")))
        live = (
            LiveSearch(self.model, settings, site=stage.model.site)
            if settings.vicaran_live_search_fallback and supports_live_search(self.model)
            else None
        )
        runtime = runtime_for(config.investigation_id, settings)
        try:
            documents = await DocumentEvidence.open(
                settings,
                config.collections,
                model=stage.model,
                language=config.language,
                read_url=runtime.pages.read,
                reader=Reader(stage.ctx.session.user_id, config.investigation_id),
            )
        except Exception as error:  # the claims are still checked on the web
            logger.warning("could not open the documents of %s", config.collections, exc_info=True)
            stage.issue(
                stage.msg("documents_unavailable", error=f"{type(error).__name__}: {error}")
            )
            documents = None
        gazettes = QueridoDiario(settings) if settings.vicaran_gazettes_read else None
        shared = CheckSettings(
            settings=settings,
            model=stage.model,
            instruction=await stage.render(FACT_CHECKER_INSTRUCTION),
            language=config.language,
            search_language=config.search_language,
            cap=ITERATION_CAP[config.mode],
            sources=[s for _, s in stage.usable_sources()],
            runtime=runtime,
            factcheck=factcheck,
            outlets=outlets_for(config.search_language, settings),
            live=live,
            documents=documents,
            gazettes=gazettes,
            gazettes_asked=asks_for_gazettes(config.brief),
        )
        number = {c.key: i for i, c in enumerate(claims, 1)}

        async def check(claim: Claim, emit: Callable[[str], None]) -> Verdict:
            i = number[claim.key]
            emit(stage.msg("verifying", i=i, n=len(claims), claim=one_line(claim.claim_text, 120)))
            checker = ClaimChecker(shared, claim, emit=emit, prior=prior.get(claim.key, []))
            verdict = await checker.run()
            found_sources.extend(checker.found_sources)
            for issue in checker.issues:
                stage.issue(issue)
            for note in checker.notes:
                stage.note(note)
            emoji, label = verdict_label(verdict.verdict, stage.language)
            emit(
                stage.msg(
                    "verdict_line",
                    emoji=emoji,
                    label=label,
                    i=i,
                    n=len(claims),
                    claim=one_line(claim.claim_text, CLAIM_IN_LINE),
                    reason=one_line(resolve_citations(verdict.explanation, ())[0], 200),
                    confidence=round(verdict.confidence * 100),
                )
            )
            return verdict

        verdicts: dict[str, Verdict] = {}
        found_sources: list[Source] = []
        try:
            async for text, result in stream_concurrently(
                claims, check, settings.vicaran_claim_concurrency
            ):
                if text is not None:
                    yield stage.event(text)
                elif isinstance(result, Exception):
                    stage.issue(stage.msg("claim_crashed", error=result))
                else:
                    verdicts[result.claim_key] = result
        finally:
            if gazettes is not None:
                await gazettes.aclose()
        ordered = [verdicts[c.key] for c in claims if c.key in verdicts]
        records: dict[str, object] = {
            keys.VERDICT_RECORDS: [v.model_dump(mode="json") for v in ordered]
        }
        if found_sources:  # gazettes read: saved as sources, so the report may cite them
            sources = stage.records(keys.SOURCE_RECORDS, Source)
            known = {s.url for s in sources}
            added: dict[str, Source] = {}  # a gazette several claims read: the first reading
            for source in found_sources:
                if source.url not in known:
                    added.setdefault(source.url, source)
            records[keys.SOURCE_RECORDS] = [
                s.model_dump(mode="json") for s in sources + list(added.values())
            ]
        yield stage.finish(self._markdown(stage, ordered, number), records)

    @staticmethod
    def _markdown(stage: Stage, verdicts: list[Verdict], number: dict[str, int]) -> str:
        """The stage's summary, each claim under its number (the one its lines gave it)."""
        lines = [stage.msg("facts_header"), ""]
        confidence = stage.msg("confidence")
        for v in verdicts:
            emoji, label = verdict_label(v.verdict, stage.language)
            lines.append(f'{number[v.claim_key]}. {emoji} **{label}** - "{v.claim_text}"')
            lines.append(f"   - {one_line(v.explanation, 300)}")
            lines.append(f"   - {confidence}: {round(v.confidence * 100)}%")
        lines += ["", stage.msg("facts_done")]
        return "\n".join(lines)


async def _remembered(
    stage: Stage, claims: list[Claim]
) -> tuple[list[str], dict[str, list[Candidate]]]:
    """Earlier investigations' checks of the same claims, recorded on the claims and said (a
    progress line each, a line in the report's Notes), and the newest one's independent web
    evidence, offered again to each claim's check. (VICARAN_MEMORY_MAX_AGE_DAYS=0: off.)"""
    settings, config = stage.settings, stage.config
    if not settings.vicaran_memory_max_age_days:
        return [], {}
    since = (settings.today - timedelta(days=settings.vicaran_memory_max_age_days)).isoformat()
    repository = get_repository(settings.database_url)
    wanted = [(c.key, c.claim_text, list(c.entities)) for c in claims]
    try:
        earlier = await asyncio.to_thread(
            repository.earlier_checks, config.investigation_id, wanted, since
        )
        if earlier:  # recorded on the saved claims: their save may still be under way
            await runtime_for(config.investigation_id, settings).saves.finished("claim_extractor")
            await asyncio.to_thread(repository.remember, config.investigation_id, earlier)
        prior = {
            key: await asyncio.to_thread(repository.prior_evidence, checks[0])
            for key, checks in earlier.items()
        }
    except Exception:  # memory is a help: a store that cannot say leaves the claims as they are
        logger.warning("could not look up earlier checks", exc_info=True)
        return [], {}
    lines = []
    for number, claim in enumerate(claims, 1):
        for check in earlier.get(claim.key, []):
            said = _earlier_line(stage, check)
            lines.append(stage.msg("memory_earlier", i=number, earlier=said))
            stage.note(stage.msg("memory_note", i=number, earlier=said))
    texts = runtime_for(config.investigation_id, settings).texts
    offered = {
        key: [
            Candidate.from_earlier(
                item,
                text,
                texts.put(text) if text else None,
                stage.msg("memory_found_by", day=earlier[key][0].checked_at),
            )
            for item, text in items
        ]
        for key, items in prior.items()
    }
    return lines, offered


def _earlier_line(stage: Stage, check: EarlierCheck) -> str:
    """'on 2026-10-02 in «Dam contract»: ❌ FALSE, approved by Ana'."""
    emoji, label = verdict_label(check.verdict, stage.language)
    review = ""
    if check.review_status == "approved":
        review = stage.msg("memory_approved", reviewer=check.reviewer)
    elif check.review_status == "changed":
        review = stage.msg("memory_changed", reviewer=check.reviewer)
    return stage.msg(
        "memory_check",
        day=check.checked_at,
        title=one_line(check.title, 80),
        verdict=f"{emoji} {label}",
        review=review,
    )

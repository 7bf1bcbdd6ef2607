"""claim_extractor: one model call over the source digests; ranking, limits and links in code."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator

from google.adk.events import Event

from .. import state_keys as keys
from ..formatting import one_line, sources_block
from ..i18n import word
from ..prompts.claim_extractor import CLAIM_EXTRACTOR_INSTRUCTION
from ..schemas import Claim, ClaimDraft, Source
from ._stage import Stage, StageAgent


def _claim_key(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def consolidate(
    draft: ClaimDraft, numbered: list[tuple[int, Source]], claim_limit: int | None
) -> list[Claim]:
    """Valid, deduplicated claims linked to real sources, most important first, within limit."""
    by_number = dict(numbered)
    merged: dict[str, Claim] = {}
    for item in draft.claims:
        text = " ".join(item.claim_text.split())
        urls = [by_number[n].url for n in dict.fromkeys(item.source_numbers) if n in by_number]
        if not text or not urls:
            continue  # a claim no source makes is not the sources' claim
        importance = min(1.0, max(0.0, item.importance))
        key = _claim_key(text)
        queries = [" ".join(q.split())[:400] for q in item.queries if q.strip()]
        if key in merged:
            kept = merged[key]
            kept.source_urls = list(dict.fromkeys(kept.source_urls + urls))
            kept.queries = list(dict.fromkeys(kept.queries + queries))[:3]
            kept.importance = max(kept.importance, importance)
            continue
        merged[key] = Claim(
            key="",
            claim_text=text,
            importance=importance,
            entities=[e.strip() for e in item.entities if e.strip()],
            source_urls=urls,
            queries=queries[:3],
        )
    ranked = sorted(merged.values(), key=lambda c: c.importance, reverse=True)
    if claim_limit is not None:
        ranked = ranked[:claim_limit]
    for i, claim in enumerate(ranked, 1):
        claim.key = f"C{i}"
    return ranked


def importance_level(importance: float) -> str:
    return "HIGH" if importance >= 0.75 else "MEDIUM" if importance >= 0.4 else "LOW"


class ClaimExtractorAgent(StageAgent):
    """Extracts the checkable claims the story depends on."""

    async def run_stage(self, stage: Stage) -> AsyncGenerator[Event, None]:
        numbered = stage.usable_sources()
        if not numbered:
            stage.issue("No claims could be extracted because no source was read.")
            yield stage.finish(stage.msg("no_claims_no_sources"), {keys.CLAIM_RECORDS: []})
            return
        yield stage.event(stage.msg("extracting", count=len(numbered)))
        drafts, errors = await stage.ask_per_batch(
            CLAIM_EXTRACTOR_INSTRUCTION, numbered, sources_block, ClaimDraft
        )
        for error in errors:
            stage.issue(f"Claim extraction failed for some sources: {error}")
        if not drafts:
            reason = str(errors[0]) if errors else ""
            yield stage.finish(stage.msg("no_claims", reason=reason), {keys.CLAIM_RECORDS: []})
            return
        draft = ClaimDraft(
            claims=[c for d in drafts for c in d.claims],
            no_claims_reason=next((d.no_claims_reason for d in drafts if d.no_claims_reason), ""),
        )
        claims = consolidate(draft, numbered, stage.config.claim_limit)
        records = {keys.CLAIM_RECORDS: [c.model_dump(mode="json") for c in claims]}
        if not claims:
            why = draft.no_claims_reason.strip() or stage.msg("no_claims_default")
            stage.issue(f"The sources contain no checkable claims: {why}")
            yield stage.finish(stage.msg("no_claims", reason=why), records)
            return
        titles = {s.url: s.title or s.domain for _, s in numbered}
        lines = [stage.msg("claims_done", count=len(claims)), ""]
        for i, claim in enumerate(claims, 1):
            lines.append(
                f"{i}. **[{word(importance_level(claim.importance), stage.language)}]** "
                f'"{claim.claim_text}"'
            )
            names = ", ".join(one_line(titles[u], 60) for u in claim.source_urls)
            lines.append(f"   {stage.msg('claim_sources')}: {names}")
        lines += ["", stage.msg("claims_saved")]
        yield stage.finish("\n".join(lines), records)

"""claim_extractor: one model call over the source digests; ranking, limits and links in code."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.events import Event

from .. import state_keys as keys
from ..formatting import data_block, one_line, sources_block
from ..i18n import word
from ..llm_models import ModelCallError
from ..model_outputs import BriefClaim, BriefClaims, ClaimDraft, DraftClaim
from ..prompts.claim_extractor import BRIEF_CLAIMS_INSTRUCTION, CLAIM_EXTRACTOR_INSTRUCTION
from ..sanitize import clean
from ..schemas import Claim, Source
from ._stage import Stage, StageAgent

MAX_BRIEF_CLAIMS = 3


def _claim_key(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def _queries(queries: list[str]) -> list[str]:
    return [" ".join(clean(q).split())[:400] for q in queries if clean(q).strip()]


def _text(text: str) -> str:
    return " ".join(clean(text).split())


def _quoted(item: BriefClaim | DraftClaim) -> dict[str, Any]:
    """What the claim is about and who it quotes, as the model read them (cleaned, bounded).
    An attribution names its party: without one the claim is a fact."""
    party = _text(item.attributed_to)[:200]
    return {"kind": item.kind if party else "fact", "attributed_to": party}


def _place(item: BriefClaim | DraftClaim) -> dict[str, str]:
    """The claim's city, state and period as the model read them (cleaned, bounded)."""
    return {
        "city": _text(item.city)[:100],
        "state": _text(item.state)[:2].upper(),
        "period_start": _text(item.period_start)[:10],
        "period_end": _text(item.period_end)[:10],
    }


def consolidate(
    draft: ClaimDraft,
    numbered: list[tuple[int, Source]],
    claim_limit: int | None,
    brief: BriefClaims | None = None,
) -> list[Claim]:
    """Valid, deduplicated claims linked to real sources, most important first, within limit.

    The brief's own claims come first and are never cut by the limit; a source claim that says
    the same thing joins the brief claim (its sources are then pages the claim came from).
    """
    by_number = dict(numbered)
    merged: dict[str, Claim] = {}
    for item in (brief.claims if brief else [])[:MAX_BRIEF_CLAIMS]:
        text = _text(item.claim_text)
        if text and _claim_key(text) not in merged:
            merged[_claim_key(text)] = Claim(
                key="",
                claim_text=text,
                importance=min(1.0, max(0.0, item.importance)),
                entities=[_text(e) for e in item.entities if _text(e)],
                queries=_queries(item.queries)[:3],
                origin="brief",
                **_quoted(item),
                **_place(item),
            )
    for item in draft.claims:
        text = _text(item.claim_text)
        urls = [by_number[n].url for n in dict.fromkeys(item.source_numbers) if n in by_number]
        if not text or not urls:
            continue  # a claim no source makes is not the sources' claim
        importance = min(1.0, max(0.0, item.importance))
        key = _claim_key(text)
        queries = _queries(item.queries)
        if key in merged:
            kept = merged[key]
            kept.source_urls = list(dict.fromkeys(kept.source_urls + urls))
            kept.queries = list(dict.fromkeys(kept.queries + queries))[:3]
            if not kept.attributed_to:  # the brief named nobody; the sources may
                quoted = _quoted(item)
                kept.kind, kept.attributed_to = quoted["kind"], quoted["attributed_to"]
            if kept.origin == "source":
                kept.importance = max(kept.importance, importance)
            continue
        merged[key] = Claim(
            key="",
            claim_text=text,
            importance=importance,
            entities=[_text(e) for e in item.entities if _text(e)],
            source_urls=urls,
            queries=queries[:3],
            **_quoted(item),
            **_place(item),
        )
    from_brief = [c for c in merged.values() if c.origin == "brief"]
    ranked = sorted(
        (c for c in merged.values() if c.origin == "source"),
        key=lambda c: c.importance,
        reverse=True,
    )
    if claim_limit is not None:
        ranked = ranked[: max(0, claim_limit - len(from_brief))]
    ranked = from_brief + ranked
    for i, claim in enumerate(ranked, 1):
        claim.key = f"C{i}"
    return ranked


def importance_level(importance: float) -> str:
    return "HIGH" if importance >= 0.75 else "MEDIUM" if importance >= 0.4 else "LOW"


class ClaimExtractorAgent(StageAgent):
    """Extracts the checkable claims the story depends on."""

    async def run_stage(self, stage: Stage) -> AsyncGenerator[Event, None]:
        numbered = stage.usable_sources()
        if numbered:
            yield stage.event(stage.msg("extracting", count=len(numbered)))
        # The brief's own claims are read in the same round as the sources' claims.
        (drafts, errors), brief = await asyncio.gather(
            stage.ask_per_batch(CLAIM_EXTRACTOR_INSTRUCTION, numbered, sources_block, ClaimDraft)
            if numbered
            else _nothing(),
            self._brief_claims(stage),
        )
        for error in errors:
            stage.issue(stage.msg("claims_failed_some", error=error))
        if not numbered and not (brief and brief.claims):
            stage.issue(stage.msg("claims_no_source"))
            yield stage.finish(stage.msg("no_claims_no_sources"), {keys.CLAIM_RECORDS: []})
            return
        if numbered and not drafts and not (brief and brief.claims):
            reason = str(errors[0]) if errors else ""
            yield stage.finish(stage.msg("no_claims", reason=reason), {keys.CLAIM_RECORDS: []})
            return
        draft = ClaimDraft(
            claims=[c for d in drafts for c in d.claims],
            no_claims_reason=next((d.no_claims_reason for d in drafts if d.no_claims_reason), ""),
        )
        claims = consolidate(draft, numbered, stage.config.claim_limit, brief)
        records = {keys.CLAIM_RECORDS: [c.model_dump(mode="json") for c in claims]}
        if not claims:
            why = draft.no_claims_reason.strip() or stage.msg("no_claims_default")
            # A finding, not a failure: the stage did its work and found nothing to check.
            stage.note(stage.msg("claims_none_note", reason=why))
            yield stage.finish(stage.msg("no_claims", reason=why), records)
            return
        titles = {s.url: s.title or s.domain for _, s in numbered}
        lines = [stage.msg("claims_done", count=len(claims)), ""]
        for i, claim in enumerate(claims, 1):
            lines.append(
                f"{i}. **[{word(importance_level(claim.importance), stage.language)}]** "
                f'"{claim.claim_text}"'
            )
            if claim.attributed_to:
                key = "claim_said_by" if claim.kind == "attribution" else "claim_on_word_of"
                lines.append(f"   {stage.msg(key, party=one_line(claim.attributed_to, 100))}")
            names = [one_line(titles[u], 60) for u in claim.source_urls]
            if claim.origin == "brief":
                names.insert(0, stage.msg("your_brief"))
            lines.append(f"   {stage.msg('claim_sources')}: {', '.join(names)}")
        lines += ["", stage.msg("claims_saved")]
        yield stage.finish("\n".join(lines), records)

    @staticmethod
    async def _brief_claims(stage: Stage) -> BriefClaims | None:
        try:
            return await stage.ask(
                BRIEF_CLAIMS_INSTRUCTION, data_block("BRIEF", stage.config.brief), BriefClaims
            )
        except ModelCallError as error:
            stage.issue(stage.msg("brief_claims_failed", error=error))
            return None


async def _nothing() -> tuple[list[ClaimDraft], list[ModelCallError]]:
    return [], []

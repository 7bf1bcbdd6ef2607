"""summary_writer: the cited report, checked before it ships.

The model drafts the report's parts; code assembles the Markdown (each finding's label is the
recorded verdict), and one concurrent round checks the draft: code checks (stated verdicts,
citations, the plan's questions), a citation audit of every cited sentence against the stored
text of its source, and a quality score. Problems get one rewrite, never two; sentences still
unsupported after it are removed. Per-item problems are listed in the report; only a stage that
could not do its work makes the investigation `partial`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.events import Event

from .. import state_keys as keys
from ..citations import page_label, resolve_citations, with_pages
from ..dashboard_links import dashboard_line
from ..formatting import data_block, one_line
from ..llm import ModelClient, current_tally
from ..llm_models import ModelCallError
from ..model_outputs import ReportDraft
from ..plan import language_note, plan_questions
from ..prompts.summary_writer import (
    CITATION_AUDIT_INSTRUCTION,
    QUALITY_REVIEW_INSTRUCTION,
    REWRITE_PROBLEMS,
    SUMMARY_WRITER_INSTRUCTION,
)
from ..report_check import cleaned, without_sentences
from ..runtime import open_runtime
from ..sanitize import clean, defuse_delimiters
from ..schemas import (
    BiasAssessment,
    Claim,
    ReportQuality,
    Source,
    TimelineEvent,
    Verdict,
    published_text,
)
from ..usage import tokens_line
from ._stage import Stage, StageAgent, issues_key, notes_key
from .report_markdown import assemble, cited_pages, footer, notes_section, sources_section
from .report_review import ReportReviewer, Review

COMPLETE = "[INVESTIGATION_COMPLETE]"
# What the report prompt carries at most (the dashboard and records keep everything).
REPORT_CLAIMS = 20
REPORT_EVENTS = 30
REPORT_SOURCES = 30
STAGES_WITH_ISSUES = (
    "investigation_orchestrator",
    "source_finder",
    "claim_extractor",
    "fact_checker",
    "bias_analyzer",
    "timeline_builder",
    "summary_writer",
)


def _collect(state: dict[str, Any], key: Any, own: list[str]) -> list[str]:
    found: list[str] = []
    for stage in STAGES_WITH_ISSUES:
        items = own if stage == "summary_writer" else state.get(key(stage)) or []
        found.extend(i for i in items if i not in found)
    return found


def partial_reason(state: dict[str, Any], own: list[str]) -> str:
    """Every stage-level failure of the investigation, in stage order, as one readable text."""
    found = _collect(state, issues_key, own)
    text = " ".join(i if i.endswith(".") else i + "." for i in found)
    return text if len(text) <= 1500 else text[:1499] + "…"


def saved_links(stage: Stage) -> set[str]:
    """The addresses a report may link: the saved sources' (as found and normalized)."""
    sources = stage.records(keys.SOURCE_RECORDS, Source)
    return {s.url for s in sources if s.source_id} | {s.link for s in sources if s.source_id}


def item_notes(state: dict[str, Any], own: list[str]) -> list[str]:
    """Every per-item problem (unreadable pages, set-aside sources, removed citations)."""
    return _collect(state, notes_key, own)


class SummaryWriterAgent(StageAgent):
    """Writes the cited report, checks it and closes the investigation."""

    async def run_stage(self, stage: Stage) -> AsyncGenerator[Event, None]:
        config = stage.config
        numbered = stage.usable_sources()
        citable = {n: s for n, s in numbered if s.source_id}
        verdicts = stage.records(keys.VERDICT_RECORDS, Verdict)
        plan = stage.state.get(keys.INVESTIGATION_PLAN) or ""
        questions = [clean(q) for q in plan_questions(plan) if clean(q)]
        quality: ReportQuality | None = None
        if not numbered and not verdicts:
            body = stage.msg("report_title", title=config.title)
        else:
            yield stage.event(stage.msg("summary_progress"))
            records = self._prompt(stage, numbered, questions)
            links = saved_links(stage)
            try:
                draft: ReportDraft | None = cleaned(
                    await stage.ask(SUMMARY_WRITER_INSTRUCTION, records, ReportDraft), links
                )
            except ModelCallError as error:
                stage.issue(stage.msg("report_no_model", error=error))
                draft = None
            if draft is not None:
                reviewer = await self._reviewer(stage, numbered, citable, verdicts, questions)
                yield stage.event(stage.msg("report_checking", count=len(reviewer.cited(draft))))
                review = await reviewer.review(
                    draft, records, assemble(stage, draft, verdicts, questions)
                )
                problems = review.problems(stage.settings.vicaran_quality_threshold)
                rewrites = 0
                if problems:
                    yield stage.event(stage.msg("report_rewriting", count=len(problems)))
                    rewritten = await self._rewrite(stage, records, draft, problems)
                    if rewritten is not None:
                        draft, rewrites = cleaned(rewritten, links), 1
                        rendered = assemble(stage, draft, verdicts, questions)
                        review = await reviewer.review(draft, records, rendered)
                draft, quality = self._settle(stage, draft, review, problems, rewrites)
            body = self._body(stage, draft, numbered, citable, verdicts, questions)
        yield self._closing(stage, body, quality, numbered, verdicts)

    async def recover(self, stage: Stage, error: Exception) -> AsyncGenerator[Event, None]:
        """Raised while writing: the report is assembled from the records, without the model,
        and closes the run as usual (its status, the dashboard link and the marker)."""
        numbered = stage.usable_sources()
        citable = {n: s for n, s in numbered if s.source_id}
        verdicts = stage.records(keys.VERDICT_RECORDS, Verdict)
        plan = stage.state.get(keys.INVESTIGATION_PLAN) or ""
        questions = [clean(q) for q in plan_questions(plan) if clean(q)]
        body = self._body(stage, None, numbered, citable, verdicts, questions)
        yield self._closing(stage, body, None, numbered, verdicts)

    def _closing(
        self,
        stage: Stage,
        body: str,
        quality: ReportQuality | None,
        numbered: list[tuple[int, Source]],
        verdicts: list[Verdict],
    ) -> Event:
        """The run's last event: the report with its status, the tokens, the marker."""
        config = stage.config
        report, status, reason = self._close(stage, body, quality, numbered, verdicts)
        tally = current_tally()
        tokens = tally.tokens.as_dict() if tally is not None else None
        if tokens is not None:  # every model call of the run is made by now: the footer
            report += "\n\n" + stage.msg("report_tokens", line=tokens_line(tokens, stage.language))
        # The chat's last message links the dashboard page; the saved report is the report alone.
        link = dashboard_line(stage.settings, config.investigation_id, stage.language)
        return stage.finish(
            f"{report}\n\n{COMPLETE}",
            {
                keys.INVESTIGATION_STATUS: status,
                keys.PARTIAL_REASON: reason or None,
                keys.REPORT_QUALITY: quality.model_dump(mode="json") if quality else None,
                keys.TOKEN_USAGE: tokens,
            },
            shown=f"{report}\n\n{link}\n\n{COMPLETE}",
        )

    @staticmethod
    async def _reviewer(
        stage: Stage,
        numbered: list[tuple[int, Source]],
        citable: dict[int, Source],
        verdicts: list[Verdict],
        questions: list[str],
    ) -> ReportReviewer:
        """The report's checker. It runs on the fast model: a second model reads what the
        first wrote, and the check round costs one fast call, not a pro one."""
        runtime = open_runtime(stage.config.investigation_id)
        return ReportReviewer(
            ModelClient(stage.settings.vicaran_fast_model, stage.settings, stage.model.site),
            await stage.render(CITATION_AUDIT_INSTRUCTION),
            await stage.render(QUALITY_REVIEW_INSTRUCTION),
            numbered=numbered,
            citable=citable,
            verdicts=verdicts,
            questions=questions,
            texts=runtime.texts if runtime else None,
            language=stage.language,
        )

    @staticmethod
    async def _rewrite(
        stage: Stage, records: str, draft: ReportDraft, problems: list[str]
    ) -> ReportDraft | None:
        """One rewrite focused on the problems; None when the model could not do it.

        The problems are Vicaran's own findings, the rewrite's task: outside the data blocks
        (the sentences they quote defused, so none can open or close one). The previous draft
        is model-written prose about fetched pages: data.
        """
        listed = "\n".join(f"- {defuse_delimiters(one_line(p, 2000))}" for p in problems)
        prompt = "\n\n".join(
            [
                records,
                f"{REWRITE_PROBLEMS} (found by Vicaran's check of the previous draft):\n{listed}",
                data_block("PREVIOUS DRAFT", draft.model_dump_json(indent=1)),
            ]
        )
        try:
            return await stage.ask(SUMMARY_WRITER_INSTRUCTION, prompt, ReportDraft)
        except ModelCallError as error:
            stage.issue(stage.msg("report_no_rewrite", error=error))
            return None

    @staticmethod
    def _settle(
        stage: Stage, draft: ReportDraft, review: Review, problems: list[str], rewrites: int
    ) -> tuple[ReportDraft, ReportQuality]:
        """The final draft (unsupported sentences taken out) and what its check found."""
        for failure in review.failures:
            stage.issue(failure)
        unsupported = review.unsupported
        for sentence in unsupported:
            misstated = (sentence.part, sentence.index) in review.misstated
            key = "sentence_removed_status" if misstated else "sentence_removed"
            stage.note(stage.msg(key, text=one_line(sentence.text, 160)))
        quality = ReportQuality(
            scores=review.scores,
            overall=review.overall,
            threshold=stage.settings.vicaran_quality_threshold,
            audited=len(review.checks),
            unsupported=len(unsupported),
            removed=len(unsupported),
            statuses=review.statuses,
            rewrites=rewrites,
            problems=problems,
        )
        return without_sentences(draft, {(s.part, s.index) for s in unsupported}), quality

    def _body(
        self,
        stage: Stage,
        draft: ReportDraft | None,
        numbered: list[tuple[int, Source]],
        citable: dict[int, Source],
        verdicts: list[Verdict],
        questions: list[str],
    ) -> str:
        """The report with checked citations and its sources (all of them when degraded)."""
        degraded = draft is None
        if draft is None:
            draft = ReportDraft(title=stage.config.title, executive_summary="", findings=[])
        body = assemble(stage, draft, verdicts, questions).replace(COMPLETE, "").strip()
        body, cited, removed = resolve_citations(body, citable)
        number_of = {s.url: n for n, s in numbered}
        pages = cited_pages(verdicts, number_of)
        body = with_pages(body, {n: list(p) for n, p in pages.items()})
        if removed:
            stage.note(stage.msg("citations_removed", count=len(set(removed))))
        return body + "\n\n" + sources_section(stage, numbered, cited, degraded, pages)

    @classmethod
    def _close(
        cls,
        stage: Stage,
        body: str,
        quality: ReportQuality | None,
        numbered: list[tuple[int, Source]],
        verdicts: list[Verdict],
    ) -> tuple[str, str, str]:
        """(the report, the status, its reason): language note, notes, footer and notice added."""
        config = stage.config
        for note in language_note("report_language_note", config.search_language, config.language):
            title, _, rest = body.partition("\n")  # the note goes right under the title
            body = f"{title}\n\n{note}" + (f"\n{rest}" if rest else "")
        notes = item_notes(stage.state, stage.notes)
        if notes:
            body += "\n\n" + notes_section(stage, notes)
        if quality is not None:
            body += "\n\n---\n" + footer(stage, quality)
        reason = partial_reason(stage.state, stage.issues)
        tally = current_tally()
        if tally is not None and tally.budget_spent:  # the reason people need first
            spent = stage.msg("token_budget_spent", budget=tally.budget)
            reason = spent + (f" {reason}" if reason else "")
        decided = any(v.verdict != "unverified" for v in verdicts)
        if tally is not None and tally.all_failed and not tally.budget_spent:
            status = "failed"
            reason = stage.msg("failed_models", count=tally.failed, error=tally.last_error)
            body += "\n\n" + stage.msg("failed_notice", reason=reason)
        elif not numbered and not decided:
            status = "failed"
            reason = reason or stage.msg("failed_no_sources")
            body += "\n\n" + stage.msg("failed_notice", reason=reason)
        elif reason:
            status = "partial"
            body += "\n\n" + stage.msg("partial_notice", reason=reason)
        else:
            status = "completed"
        return body, status, reason

    # --- the Markdown -------------------------------------------------------------------------

    # --- the prompt ---------------------------------------------------------------------------

    @staticmethod
    def _prompt(stage: Stage, numbered: list[tuple[int, Source]], questions: list[str]) -> str:
        number_of = {s.url: n for n, s in numbered}
        claims = {c.key: c for c in stage.records(keys.CLAIM_RECORDS, Claim)}
        cited: set[int] = set()
        findings = []
        # The most important claims (records are ranked) - a report cannot discuss sixty.
        for v in stage.records(keys.VERDICT_RECORDS, Verdict)[:REPORT_CLAIMS]:
            claim = claims.get(v.claim_key)
            on_point = [e for e in v.evidence if e.stance != "context"]
            urls = (claim.source_urls if claim else []) + [e.source_url for e in on_point]
            refs = sorted({number_of[u] for u in urls if u in number_of})
            cited.update(refs)
            explanation = one_line(resolve_citations(v.explanation, ())[0], 300)
            quoted = ""
            if claim is not None and claim.attributed_to:
                party = one_line(claim.attributed_to, 100)
                what = "what it said or did" if claim.kind == "attribution" else "its word"
                quoted = f"\n  quoted: {party} ({what})"
            quotes = [
                f"  [{number_of[e.source_url]}{page_label([e.page] if e.page else [])}] "
                f'"{one_line(e.quote, 200)}"'
                for e in on_point
                if e.source_url in number_of and e.quote and e.independent
            ]
            findings.append(
                f"- {v.claim_key}: {v.claim_text}\n  verdict: {v.verdict} "
                f"(confidence {v.confidence:.2f}); "
                f"sources: {', '.join(f'[{n}]' for n in refs) or 'none'}{quoted}\n"
                f"  why: {explanation}"
                + ("\n  evidence:\n" + "\n".join(quotes[:3]) if quotes else "")
            )
        events = stage.records(keys.TIMELINE_RECORDS, TimelineEvent)[:REPORT_EVENTS]
        for e in events:
            cited.update(number_of[u] for u in e.source_urls if u in number_of)
        # Sources the findings cite, then the most credible others, within the budget.
        ranked = sorted(numbered, key=lambda ns: (ns[0] not in cited, -ns[1].credibility_score))
        shown = sorted(ranked[: max(REPORT_SOURCES, len(cited))], key=lambda ns: ns[0])
        index = "\n".join(
            f"[{n}] {s.title or s.url} - {s.domain} (credibility {s.credibility_score}/5"
            + (
                f", published {published_text(s.published_at, s.published_at_source)}"
                if s.published_at
                else ""
            )
            + f"): {one_line(s.content_summary, 160)}"
            for n, s in shown
        )
        parts = [data_block("SOURCES", index), data_block("FINDINGS", "\n".join(findings))]
        if questions:
            parts.append(
                data_block("QUESTIONS", "\n".join(f"Q{i}. {q}" for i, q in enumerate(questions, 1)))
            )
        bias = stage.state.get(keys.BIAS_RECORD)
        if bias:
            b = BiasAssessment.model_validate(bias)
            parts.append(
                data_block(
                    "BIAS",
                    f"overall {b.overall_bias_score}/10; coverage {b.coverage} over "
                    f"{sum(b.coverage.values())} rated sources ({b.unrated} not rated); "
                    f"recommendation: {b.recommendation}",
                )
            )
        if events:
            rows = []
            for e in events:
                refs = "".join(f"[{number_of[u]}]" for u in e.source_urls if u in number_of)
                rows.append(f"- {e.event_date}: {one_line(e.event_text, 200)} {refs}")
            parts.append(data_block("TIMELINE", "\n".join(rows)))
        return "\n\n".join(parts)

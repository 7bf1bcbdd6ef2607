"""summary_writer: the cited report; citations checked and the sources list written in code."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.events import Event

from .. import state_keys as keys
from ..citations import resolve_citations
from ..formatting import data_block, one_line
from ..i18n import verdict_label, word
from ..llm import ModelCallError
from ..prompts.summary_writer import SUMMARY_WRITER_INSTRUCTION
from ..schemas import BiasAssessment, Claim, ReportDraft, Source, TimelineEvent, Verdict
from ._stage import Stage, StageAgent, issues_key
from .bias_analyzer import score_label

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


def partial_reason(state: dict[str, Any], own: list[str]) -> str:
    """Every recorded failure of the investigation, in stage order, as one readable text."""
    found: list[str] = []
    for stage in STAGES_WITH_ISSUES:
        issues = own if stage == "summary_writer" else state.get(issues_key(stage)) or []
        found.extend(i for i in issues if i not in found)
    text = " ".join(i if i.endswith(".") else i + "." for i in found)
    return text if len(text) <= 1500 else text[:1499] + "…"


class SummaryWriterAgent(StageAgent):
    """Writes the cited report and closes the investigation."""

    async def run_stage(self, stage: Stage) -> AsyncGenerator[Event, None]:
        config = stage.config
        numbered = stage.usable_sources()
        citable = {n: s for n, s in numbered if s.source_id}
        if not numbered:
            body = f"# {config.title}"
        else:
            yield stage.event(stage.msg("summary_progress"))
            try:
                draft = await stage.ask(
                    SUMMARY_WRITER_INSTRUCTION, self._prompt(stage, numbered), ReportDraft
                )
            except ModelCallError as error:
                stage.issue(f"The report was assembled without the model: {error}")
                draft = ReportDraft(title=config.title, executive_summary="", findings=[])
            body = self._assemble(stage, draft).replace(COMPLETE, "").strip()
            body, cited, removed = resolve_citations(body, citable)
            if removed:
                stage.issue(
                    f"{len(set(removed))} citation(s) pointing to no saved source were removed"
                )
            if cited:
                lines = ["", stage.msg("sources_heading")]
                for n in cited:
                    s = citable[n]
                    lines.append(f"[{n}] {s.title or s.domain} - {s.domain} - {s.url}")
                body += "\n" + "\n".join(lines)
        reason = partial_reason(stage.state, stage.issues)
        status = "partial" if reason else "completed"
        if reason:
            body += "\n\n" + stage.msg("partial_notice", reason=reason)
        report = f"{body}\n\n{COMPLETE}"
        yield stage.finish(
            report, {keys.INVESTIGATION_STATUS: status, keys.PARTIAL_REASON: reason or None}
        )

    @staticmethod
    def _assemble(stage: Stage, draft: ReportDraft) -> str:
        """The report in Markdown; each finding carries its claim's recorded verdict."""
        language = stage.language
        claims = {c.key: c for c in stage.records(keys.CLAIM_RECORDS, Claim)}
        written = {f.claim_key.strip().upper(): f.text.strip() for f in draft.findings}
        lines = [stage.msg("report_title", title=draft.title.strip() or stage.config.title)]
        if draft.executive_summary.strip():
            lines += ["", stage.msg("report_summary"), draft.executive_summary.strip()]
        verdicts = stage.records(keys.VERDICT_RECORDS, Verdict)
        if verdicts:
            lines += ["", stage.msg("report_findings")]
            for i, v in enumerate(verdicts, 1):
                emoji, label = verdict_label(v.verdict, language)
                claim = claims.get(v.claim_key)
                text = written.get(v.claim_key) or (claim.claim_text if claim else v.claim_text)
                lines.append(f"{i}. {emoji} **{label}**: {text}")
        bias = stage.state.get(keys.BIAS_RECORD)
        if bias:
            score = bias["overall_bias_score"]
            lines += [
                "",
                stage.msg("report_bias"),
                stage.msg("bias_overall", score=score, label=word(score_label(score), language)),
            ]
            if draft.bias_assessment.strip():
                lines.append(draft.bias_assessment.strip())
        if draft.timeline.strip() and stage.records(keys.TIMELINE_RECORDS, TimelineEvent):
            lines += ["", stage.msg("report_timeline"), draft.timeline.strip()]
        recommendations = [r.strip() for r in draft.recommendations if r.strip()]
        if recommendations:
            lines += ["", stage.msg("report_recommendations")]
            lines += [f"- {r}" for r in recommendations]
        return "\n".join(lines)

    @staticmethod
    def _prompt(stage: Stage, numbered: list[tuple[int, Source]]) -> str:
        number_of = {s.url: n for n, s in numbered}
        claims = {c.key: c for c in stage.records(keys.CLAIM_RECORDS, Claim)}
        cited: set[int] = set()
        findings = []
        # The most important claims (records are ranked) - a report cannot discuss sixty.
        for v in stage.records(keys.VERDICT_RECORDS, Verdict)[:REPORT_CLAIMS]:
            claim = claims.get(v.claim_key)
            urls = (claim.source_urls if claim else []) + [
                e.url for e in v.evidence if e.stance != "context"
            ]
            refs = sorted({number_of[u] for u in urls if u in number_of})
            cited.update(refs)
            explanation = one_line(resolve_citations(v.explanation, ())[0], 300)
            findings.append(
                f"- {v.claim_key}: {v.claim_text}\n  verdict: {v.verdict} "
                f"(confidence {v.confidence:.2f}); "
                f"sources: {', '.join(f'[{n}]' for n in refs) or 'none'}\n  why: {explanation}"
            )
        events = stage.records(keys.TIMELINE_RECORDS, TimelineEvent)[:REPORT_EVENTS]
        for e in events:
            cited.update(number_of[u] for u in e.source_urls if u in number_of)
        # Sources the findings cite, then the most credible others, within the budget.
        ranked = sorted(numbered, key=lambda ns: (ns[0] not in cited, -ns[1].credibility_score))
        shown = sorted(ranked[: max(REPORT_SOURCES, len(cited))], key=lambda ns: ns[0])
        index = "\n".join(
            f"[{n}] {s.title or s.url} - {s.domain} (credibility {s.credibility_score}/5): "
            f"{one_line(s.content_summary, 160)}"
            for n, s in shown
        )
        parts = [data_block("SOURCES", index), data_block("FINDINGS", "\n".join(findings))]
        bias = stage.state.get(keys.BIAS_RECORD)
        if bias:
            b = BiasAssessment.model_validate(bias)
            parts.append(
                data_block(
                    "BIAS",
                    f"overall {b.overall_bias_score}/10; coverage {b.coverage}; "
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

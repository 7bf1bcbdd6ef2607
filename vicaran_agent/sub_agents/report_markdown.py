"""The report's Markdown: the model's draft and the records, assembled by code (each finding's
label is its recorded verdict; sources listed in citation order, linked to their snapshots)."""

from __future__ import annotations

from .. import state_keys as keys
from ..citations import page_label, with_pages
from ..export import is_sha256, snapshot_url
from ..formatting import markdown_text, one_line
from ..i18n import verdict_label, word
from ..model_outputs import ReportDraft
from ..report_check import stated_verdict
from ..schemas import Claim, ReportQuality, Source, TimelineEvent, Verdict
from ._stage import Stage
from .bias_analyzer import score_label

MAX_NOTES = 20


def cited_pages(
    verdicts: list[Verdict], number_of: dict[str, int]
) -> dict[int, dict[int, str | None]]:
    """{source number: {page: snapshot}} for the document passages the verdicts rest on."""
    pages: dict[int, dict[int, str | None]] = {}
    for verdict in verdicts:
        for e in verdict.evidence:
            number = number_of.get(e.source_url)
            if e.page is not None and e.stance != "context" and number is not None:
                pages.setdefault(number, {}).setdefault(e.page, e.content_sha256)
    return pages


def assemble(
    stage: Stage, draft: ReportDraft, verdicts: list[Verdict], questions: list[str]
) -> str:
    """The report in Markdown; each finding carries its claim's recorded verdict."""
    language = stage.language
    claims = {c.key: c for c in stage.records(keys.CLAIM_RECORDS, Claim)}
    recorded = {v.claim_key: v.verdict for v in verdicts}
    written = {}
    for finding in draft.findings:
        key = finding.claim_key.strip().upper()
        # A finding that still disagrees with its record is not printed: the claim is.
        if stated_verdict(finding) == recorded.get(key):
            written[key] = finding.text.strip()
    number_of = {s.url: n for n, s in stage.usable_sources()}
    lines = [stage.msg("report_title", title=draft.title.strip() or stage.config.title)]
    if draft.executive_summary.strip():
        lines += ["", stage.msg("report_summary"), draft.executive_summary.strip()]
    if verdicts:
        lines += ["", stage.msg("report_findings")]
        for i, v in enumerate(verdicts, 1):
            emoji, label = verdict_label(v.verdict, language)
            claim = claims.get(v.claim_key)
            text = written.get(v.claim_key) or (claim.claim_text if claim else v.claim_text)
            pages = {n: list(p) for n, p in cited_pages([v], number_of).items()}
            lines.append(f"{i}. {emoji} **{label}**: {with_pages(text, pages)}")
    if questions:
        answers = {q.number: q for q in draft.questions if q.answer.strip()}
        lines += ["", stage.msg("report_questions")]
        for number, question in enumerate(questions, 1):
            answer = answers.get(number)
            if answer is None:
                text = f"*{stage.msg('question_open')}:* {stage.msg('question_unaddressed')}"
            elif answer.status == "open":
                text = f"*{stage.msg('question_open')}:* {answer.answer.strip()}"
            else:
                text = answer.answer.strip()
            lines.append(f"- **{one_line(question, 200)}** {text}")
    bias = stage.state.get(keys.BIAS_RECORD)
    if bias:
        score = bias["overall_bias_score"]
        lines += [
            "",
            stage.msg("report_bias"),
            stage.msg("bias_overall", score=score, label=word(score_label(score), language)),
        ]
        if draft.bias_assessment.strip():
            lines += ["", draft.bias_assessment.strip()]
    if draft.timeline.strip() and stage.records(keys.TIMELINE_RECORDS, TimelineEvent):
        lines += ["", stage.msg("report_timeline"), draft.timeline.strip()]
    recommendations = [r.strip() for r in draft.recommendations if r.strip()]
    if recommendations:
        lines += ["", stage.msg("report_recommendations")]
        lines += [f"- {r}" for r in recommendations]
    return "\n".join(lines)


def sources_section(
    stage: Stage,
    numbered: list[tuple[int, Source]],
    cited: list[int],
    degraded: bool,
    pages: dict[int, dict[int, str | None]],
) -> str:
    """The cited sources (a degraded report: every source that was read) as a Markdown
    list, in citation-number order, each linked as found and to its snapshot."""
    by_number = dict(numbered)
    sources = stage.records(keys.SOURCE_RECORDS, Source)
    read = [(n, s) for n, s in enumerate(sources, 1) if s.is_reachable]
    aside = sum(not s.relevant for _, s in read)
    counts = [
        stage.msg("sources_read", count=len(read)),
        stage.msg("sources_cited", count=len(cited)),
    ]
    if aside:
        counts.append(stage.msg("sources_aside", count=aside))
    intro = ", ".join(counts) + "."
    if degraded:
        intro += " " + stage.msg("sources_all")
        listed = read
    else:
        listed = [(n, by_number[n]) for n in sorted(cited)]
    parts = [stage.msg("sources_heading"), intro]
    if listed:
        parts.append("\n".join(source_entry(stage, n, s, pages.get(n, {})) for n, s in listed))
    return "\n\n".join(parts)


def source_entry(stage: Stage, number: int, source: Source, pages: dict[int, str | None]) -> str:
    """`- [N] **Title** — Publisher — <address as found> — [snapshot](…)`: one line.

    A document has no address: its cited pages are listed, each linked to the passage read.
    """
    parts = [f"- [{number}] **{markdown_text(source.title or source.domain, 200)}**"]
    parts.append(markdown_text(source.publisher or source.domain, 100))
    iid, public = stage.config.investigation_id, stage.settings.public_url
    if source.origin == "document":
        for page, sha in sorted(pages.items()):
            label = page_label([page]).lstrip(", ")
            if iid and is_sha256(sha):
                label = f"[{label}]({snapshot_url(iid, sha, public)})"
            parts.append(label)
        return " — ".join(parts)
    link = source.link
    autolink = link.startswith(("http://", "https://")) and not any(
        c.isspace() or c in "<>" or not c.isprintable() for c in link
    )
    parts.append(f"<{link}>" if autolink else markdown_text(link, 300))
    sha, iid = source.content_sha256, stage.config.investigation_id
    if iid and is_sha256(sha):
        url = snapshot_url(iid, sha, public)
        parts.append(f"[{stage.msg('snapshot')}]({url})")
    return " — ".join(parts)


def notes_section(stage: Stage, notes: list[str]) -> str:
    lines = [stage.msg("report_notes")]
    lines += [f"- {one_line(n, 300)}" for n in notes[:MAX_NOTES]]
    if len(notes) > MAX_NOTES:
        lines.append(f"- {stage.msg('notes_more', count=len(notes) - MAX_NOTES)}")
    return "\n".join(lines)


def footer(stage: Stage, quality: ReportQuality) -> str:
    counts = {
        "audited": stage.msg("audited", count=quality.audited),
        "unsupported": quality.unsupported,
        "removed": stage.msg("removed", count=quality.removed),
        "rewrites": stage.msg("one_rewrite" if quality.rewrites else "no_rewrite"),
    }
    if quality.overall is None:
        return stage.msg("quality_footer_unscored", **counts)
    return stage.msg("quality_footer", overall=quality.overall, **quality.scores, **counts)

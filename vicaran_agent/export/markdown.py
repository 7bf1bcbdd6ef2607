"""The Markdown export: the report, an evidence appendix and every source read; every untrusted
value escaped (`safe_markdown`), only saved sources and records linked.
"""

from __future__ import annotations

from .. import safe_markdown as md
from ..read_model import EvidenceView, InvestigationView
from .links import http_href, rebased, report_markdown, saved_links
from .words import (
    REASONING_HEADING,
    attribution,
    check_heading,
    claims_by_id,
    evidence_facts,
    full_text_link,
    independence,
    is_document,
    item_title,
    one_line,
    relevance_text,
    review_text,
    said,
    sentence,
    share_percent,
    source_facts,
    sources_intro,
    stance_text,
    web_link,
)


def to_markdown(investigation: InvestigationView, *, public_url: str = "") -> str:
    """The report followed by an evidence appendix and the list of every source read.

    `public_url`: where the server is; the report's snapshot links are moved there. Every
    untrusted value is escaped (`safe_markdown`): no renderer makes markup of it, and only
    the investigation's saved sources and records are linked.
    """
    iid = investigation.id
    _ = said(investigation.language).gettext
    links = markdown_links(investigation, public_url)
    report = rebased(report_markdown(investigation.summary), iid, public_url)
    report = md.report(report, links) if report else ""
    if not report:
        title = md.inline(investigation.title) or _("Untitled investigation")
        report = f"# {title}\n\n_" + _("No report has been written yet.") + "_"
    parts = [report, "---", _evidence_md(investigation, links), _sources_md(investigation, links)]
    return "\n\n".join(parts).rstrip() + "\n"


def markdown_links(investigation: InvestigationView, public_url: str = "") -> set[str]:
    """What the Markdown export may link: the saved sources and their snapshots, and the
    addresses of the evidence records (the same the HTML export links)."""
    links = saved_links(investigation, public_url)
    for check in investigation.fact_checks:
        for item in check.evidence:
            if not is_document(item):
                links.update(u for u in (item.url, item.display_url) if u)
    return {u for u in links if http_href(u)}


def _evidence_md(investigation: InvestigationView, links: set[str]) -> str:
    language = investigation.language or "en"
    _ = said(language).gettext
    claims = claims_by_id(investigation)
    heading = "## " + _("Evidence")
    checks = investigation.fact_checks
    if not checks:
        return heading + "\n\n" + _("No claim has been checked.")
    lines = [heading, _("In each explanation, [N] cites evidence item N of that claim.")]
    for number, check in enumerate(checks, 1):
        claim = claims.get(check.claim_id)
        from_brief = claim is not None and claim.origin == "brief"
        lines.append(f"### {md.inline(check_heading(number, check, language))}")
        who = attribution(claim, language) if claim is not None else ""
        quoted = f" — {md.inline(who)}" if who else ""
        label = _("Claim (from the brief)") if from_brief else _("Claim")
        lines.append(f"**{label}:** {md.inline(check.claim_text)}{quoted}")
        if decided := review_text(check, language):
            lines.append(_label(_("Editor"), md.inline(decided)))
        facts = [_label(_("Checked on"), md.inline(check.as_of))] if check.as_of else []
        if (confidence := share_percent(check.confidence)) is not None:
            facts.append(_label(_("Confidence"), confidence))
        if facts:
            lines.append(" · ".join(facts))
        if check.explanation:
            lines.append(md.inline(check.explanation))
        items = check.evidence
        lines.append(
            "\n".join(
                _evidence_item_md(n, item, links, language) for n, item in enumerate(items, 1)
            )
            if items
            else "_" + _("No evidence was found.") + "_"
        )
        if reasoning := check.reasoning:
            steps = "\n".join(f"- {md.inline(line)}" for line in reasoning)
            lines.append(_(REASONING_HEADING) + ":\n\n" + steps)
    return "\n\n".join(lines)


def _evidence_item_md(number: int, item: EvidenceView, links: set[str], language: str) -> str:
    _ = said(language).gettext
    title = md.inline(item_title(item, language))
    publisher = md.inline(item.publisher)
    lines = [f"{number}. **{title}**" + (f" — {publisher}" if publisher else "")]
    tags = [stance_text(item, language), independence(item, language)]
    lines.append("   - " + md.inline(" · ".join(tags)))
    if item.quote:
        lines.append(_item(_("Quote"), f'"{md.inline(item.quote)}"'))
    if item.stance_note:
        lines.append(_item(_("Note"), md.inline(sentence(one_line(item.stance_note)))))
    if facts := evidence_facts(item, language):
        lines.append("   - " + md.inline(" · ".join(facts)))
    if item.query:
        lines.append(_item(_("Found by"), md.inline(item.query)))
    if link := web_link(item):
        lines.append(_item(_("Link"), md.link(link, links)))
    if item.content_sha256:
        lines.append(_item(_("Snapshot"), md.code(one_line(item.content_sha256))))
    return "\n".join(lines)


def _sources_md(investigation: InvestigationView, links: set[str]) -> str:
    language = investigation.language or "en"
    _ = said(language).gettext
    heading = "## " + _("All sources read")
    sources = investigation.sources
    if not sources:
        return heading + "\n\n" + _("No source was read.")
    intro = sources_intro(sources, language)
    entries = []
    for n, source in enumerate(sources, 1):
        title = md.inline(item_title(source, language))
        publisher = md.inline(source.publisher or source.domain)
        head = f"{n}. **{title}**" + (f" — {publisher}" if publisher else "")
        lines = [head + (f" — {md.link(link, links)}" if (link := web_link(source)) else "")]
        if relevance := relevance_text(source, language):
            lines.append(f"   - {md.inline(relevance)}")
        if facts := source_facts(source, language):
            lines.append("   - " + md.inline(" · ".join(facts)))
        if full_text := full_text_link(source):
            lines.append(_item(_("Full text"), md.link(full_text, links | {full_text})))
        if source.content_sha256:
            lines.append(_item(_("Snapshot"), md.code(one_line(source.content_sha256))))
        entries.append("\n".join(lines))
    return f"{heading}\n\n{intro}\n\n" + "\n".join(entries)


def _label(label: str, value: str) -> str:
    """`**Label:** value` (the label translated by the caller)."""
    return f"**{label}:** {value}"


def _item(label: str, value: str) -> str:
    """`   - Label: value`, a line of an item's list."""
    return f"   - {label}: {value}"

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
    sentence,
    share_percent,
    source_facts,
    sources_intro,
    web_link,
)


def to_markdown(investigation: InvestigationView, *, public_url: str = "") -> str:
    """The report followed by an evidence appendix and the list of every source read.

    `public_url`: where the server is; the report's snapshot links are moved there. Every
    untrusted value is escaped (`safe_markdown`): no renderer makes markup of it, and only
    the investigation's saved sources and records are linked.
    """
    iid = investigation.id
    links = markdown_links(investigation, public_url)
    report = rebased(report_markdown(investigation.summary), iid, public_url)
    report = md.report(report, links) if report else ""
    if not report:
        title = md.inline(investigation.title) or "Untitled investigation"
        report = f"# {title}\n\n_No report has been written yet._"
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
    claims = claims_by_id(investigation)
    lines = ["## Evidence"]
    checks = investigation.fact_checks
    if not checks:
        return "## Evidence\n\nNo claim has been checked."
    lines.append("In each explanation, [N] cites evidence item N of that claim.")
    for number, check in enumerate(checks, 1):
        claim = claims.get(check.claim_id)
        origin = " (from the brief)" if claim is not None and claim.origin == "brief" else ""
        lines.append(f"### {md.inline(check_heading(number, check, language))}")
        said = f" — {md.inline(who)}" if claim is not None and (who := attribution(claim)) else ""
        lines.append(f"**Claim{origin}:** {md.inline(check.claim_text)}{said}")
        facts = [f"**Checked on:** {md.inline(check.as_of)}"] if check.as_of else []
        if (confidence := share_percent(check.confidence)) is not None:
            facts.append(f"**Confidence:** {confidence}")
        if facts:
            lines.append(" · ".join(facts))
        if check.explanation:
            lines.append(md.inline(check.explanation))
        items = check.evidence
        lines.append(
            "\n".join(_evidence_item_md(n, item, links) for n, item in enumerate(items, 1))
            if items
            else "_No evidence was found._"
        )
        if reasoning := check.reasoning:
            steps = "\n".join(f"- {md.inline(line)}" for line in reasoning)
            lines.append(f"{REASONING_HEADING}:\n\n{steps}")
    return "\n\n".join(lines)


def _evidence_item_md(number: int, item: EvidenceView, links: set[str]) -> str:
    title = md.inline(item_title(item))
    publisher = md.inline(item.publisher)
    lines = [f"{number}. **{title}**" + (f" — {publisher}" if publisher else "")]
    tags = [f"Stance: {item.stance}", f"Reliability: {item.reliability}", independence(item)]
    lines.append("   - " + md.inline(" · ".join(tags)))
    if item.quote:
        lines.append(f'   - Quote: "{md.inline(item.quote)}"')
    if item.stance_note:
        lines.append(f"   - Note: {md.inline(sentence(one_line(item.stance_note)))}")
    if facts := evidence_facts(item):
        lines.append("   - " + md.inline(" · ".join(facts)))
    if item.query:
        lines.append(f"   - Found by: {md.inline(item.query)}")
    if link := web_link(item):
        lines.append(f"   - Link: {md.link(link, links)}")
    if item.content_sha256:
        lines.append(f"   - Snapshot: {md.code(one_line(item.content_sha256))}")
    return "\n".join(lines)


def _sources_md(investigation: InvestigationView, links: set[str]) -> str:
    sources = investigation.sources
    if not sources:
        return "## All sources read\n\nNo source was read."
    intro = sources_intro(sources)
    entries = []
    for n, source in enumerate(sources, 1):
        title = md.inline(item_title(source))
        publisher = md.inline(source.publisher or source.domain)
        head = f"{n}. **{title}**" + (f" — {publisher}" if publisher else "")
        lines = [head + (f" — {md.link(link, links)}" if (link := web_link(source)) else "")]
        if relevance := relevance_text(source):
            lines.append(f"   - {md.inline(relevance)}")
        if facts := source_facts(source):
            lines.append("   - " + md.inline(" · ".join(facts)))
        if full_text := full_text_link(source):
            lines.append(f"   - Full text: {md.link(full_text, links | {full_text})}")
        if source.content_sha256:
            lines.append(f"   - Snapshot: {md.code(one_line(source.content_sha256))}")
        entries.append("\n".join(lines))
    return "## All sources read\n\n" + intro + "\n\n" + "\n".join(entries)

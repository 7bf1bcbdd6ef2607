"""The Markdown export: the report, an evidence appendix and every source read; every untrusted
value escaped (`safe_markdown`), only saved sources and records linked.
"""

from __future__ import annotations

from typing import Any

from .. import safe_markdown as md
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


def to_markdown(investigation: dict[str, Any], *, public_url: str = "") -> str:
    """The report followed by an evidence appendix and the list of every source read.

    `public_url`: where the server is; the report's snapshot links are moved there. Every
    untrusted value is escaped (`safe_markdown`): no renderer makes markup of it, and only
    the investigation's saved sources and records are linked.
    """
    iid = str(investigation.get("id") or "")
    links = markdown_links(investigation, public_url)
    report = rebased(report_markdown(investigation.get("summary")), iid, public_url)
    report = md.report(report, links) if report else ""
    if not report:
        title = md.inline(investigation.get("title")) or "Untitled investigation"
        report = f"# {title}\n\n_No report has been written yet._"
    parts = [report, "---", _evidence_md(investigation, links), _sources_md(investigation, links)]
    return "\n\n".join(parts).rstrip() + "\n"


def markdown_links(investigation: dict[str, Any], public_url: str = "") -> set[str]:
    """What the Markdown export may link: the saved sources and their snapshots, and the
    addresses of the evidence records (the same the HTML export links)."""
    links = saved_links(investigation, public_url)
    for check in investigation.get("fact_checks") or []:
        for item in check.get("evidence") or []:
            if not is_document(item):
                links.update(u for u in (item.get("url"), item.get("display_url")) if u)
    return {u for u in links if http_href(u)}


def _evidence_md(investigation: dict[str, Any], links: set[str]) -> str:
    language = investigation.get("language") or "en"
    claims = claims_by_id(investigation)
    lines = ["## Evidence"]
    checks = investigation.get("fact_checks") or []
    if not checks:
        return "## Evidence\n\nNo claim has been checked."
    lines.append("In each explanation, [N] cites evidence item N of that claim.")
    for number, check in enumerate(checks, 1):
        claim = claims.get(check.get("claim_id"), {})
        origin = " (from the brief)" if claim.get("origin") == "brief" else ""
        lines.append(f"### {md.inline(check_heading(number, check, language))}")
        said = f" — {md.inline(who)}" if (who := attribution(claim)) else ""
        lines.append(f"**Claim{origin}:** {md.inline(check.get('claim_text'))}{said}")
        facts = [f"**Checked on:** {md.inline(check['as_of'])}"] if check.get("as_of") else []
        if (confidence := share_percent(check.get("confidence"))) is not None:
            facts.append(f"**Confidence:** {confidence}")
        if facts:
            lines.append(" · ".join(facts))
        if check.get("explanation"):
            lines.append(md.inline(check["explanation"]))
        items = check.get("evidence") or []
        lines.append(
            "\n".join(_evidence_item_md(n, item, links) for n, item in enumerate(items, 1))
            if items
            else "_No evidence was found._"
        )
        if reasoning := check.get("reasoning") or []:
            steps = "\n".join(f"- {md.inline(line)}" for line in reasoning)
            lines.append(f"{REASONING_HEADING}:\n\n{steps}")
    return "\n\n".join(lines)


def _evidence_item_md(number: int, item: dict[str, Any], links: set[str]) -> str:
    title = md.inline(item_title(item))
    publisher = md.inline(item.get("publisher"))
    lines = [f"{number}. **{title}**" + (f" — {publisher}" if publisher else "")]
    tags = [
        f"Stance: {item.get('stance')}",
        f"Reliability: {item.get('reliability')}",
        independence(item),
    ]
    lines.append("   - " + md.inline(" · ".join(tags)))
    if item.get("quote"):
        lines.append(f'   - Quote: "{md.inline(item["quote"])}"')
    if item.get("stance_note"):
        lines.append(f"   - Note: {md.inline(sentence(one_line(item['stance_note'])))}")
    if facts := evidence_facts(item):
        lines.append("   - " + md.inline(" · ".join(facts)))
    if item.get("query"):
        lines.append(f"   - Found by: {md.inline(item['query'])}")
    if link := web_link(item):
        lines.append(f"   - Link: {md.link(link, links)}")
    if item.get("content_sha256"):
        lines.append(f"   - Snapshot: {md.code(one_line(item['content_sha256']))}")
    return "\n".join(lines)


def _sources_md(investigation: dict[str, Any], links: set[str]) -> str:
    sources = investigation.get("sources") or []
    if not sources:
        return "## All sources read\n\nNo source was read."
    intro = sources_intro(sources)
    entries = []
    for n, source in enumerate(sources, 1):
        title = md.inline(item_title(source))
        publisher = md.inline(source.get("publisher") or source.get("domain"))
        head = f"{n}. **{title}**" + (f" — {publisher}" if publisher else "")
        lines = [head + (f" — {md.link(link, links)}" if (link := web_link(source)) else "")]
        if relevance := relevance_text(source):
            lines.append(f"   - {md.inline(relevance)}")
        if facts := source_facts(source):
            lines.append("   - " + md.inline(" · ".join(facts)))
        if full_text := full_text_link(source):
            lines.append(f"   - Full text: {md.link(full_text, links | {full_text})}")
        if source.get("content_sha256"):
            lines.append(f"   - Snapshot: {md.code(one_line(source['content_sha256']))}")
        entries.append("\n".join(lines))
    return "## All sources read\n\n" + intro + "\n\n" + "\n".join(entries)

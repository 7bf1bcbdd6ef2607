"""The HTML export: one standalone page (the report, the evidence appendix, every source read
and the texts Vicaran read of them), rendered from `templates/export/` (Jinja2, autoescaped)."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

from ..read_model import EvidenceView, InvestigationView, SourceView
from .links import is_sha256, is_web, report_markdown, saved_links, snapshot_links, snapshot_path
from .words import (
    REASONING_HEADING,
    attribution,
    check_heading,
    cited_items,
    claims_by_id,
    evidence_facts,
    full_text_link,
    independence,
    is_document,
    item_title,
    link_of,
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

if TYPE_CHECKING:
    import jinja2

LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})?")
SNAPSHOT_CHARS = 100_000  # of one text, in the HTML export
EXPORT_SNAPSHOT_CHARS = 2_000_000  # of all the texts one HTML export carries


def to_html(
    investigation: InvestigationView,
    *,
    public_url: str = "",
    snapshots: dict[str, str] | None = None,
) -> str:
    """A standalone HTML page: the report, the evidence appendix, every source read and the
    texts Vicaran read of them.

    Args:
        investigation: what `Repository.get_investigation` returns.
        public_url: where the dashboard is reachable; a snapshot the page does not carry is
            linked there when given.
        snapshots: {sha256: text}, e.g. `Repository.get_snapshots(id)`: each one the page cites
            gets a section (linked as `#snapshot-<sha256>`), cut to keep the file's size sane.

    Returns:
        The HTML document (inline styles, no scripts, every value escaped).
    """
    language = investigation.language or "en"
    title = one_line(investigation.title) or said(language).gettext("Untitled investigation")
    base = public_url.rstrip("/")
    iid = investigation.id
    texts = snapshots or {}
    cited = [(sha, name) for sha, name in _cited_snapshots(investigation) if sha in texts]
    carried = {sha for sha, _ in cited}

    def snapshot_href(sha: Any) -> str | None:
        """Where a snapshot is: in this page, else on the server (when its address is known)."""
        if sha in carried:
            return f"#snapshot-{sha}"
        if base and iid and is_sha256(sha) and is_web(base):
            return base + snapshot_path(iid, sha)
        return None

    # Jinja2 and markdown-it load here: the other exports (and `vicaran export`) go without them.
    from markupsafe import Markup

    from ..markdown_html import render_markdown

    report = report_markdown(investigation.summary)
    report_html = (
        render_markdown(
            report,
            allowed_links=saved_links(investigation, public_url),
            relink=snapshot_links(iid, snapshot_href),
        )
        if report
        else ""
    )
    sources = investigation.sources
    return (
        _environment(language)
        .get_template("export/report.html")
        .render(
            lang=language if LANGUAGE_TAG.fullmatch(language) else "en",
            title=title,
            report_html=Markup(report_html),
            checks=_checks(investigation),
            sources=[_source(source, language) for source in sources],
            sources_intro=sources_intro(sources, language) if sources else "",
            snapshots=_snapshots(cited, texts, language),
            snapshot_href=snapshot_href,
            reasoning_heading=said(language).gettext(REASONING_HEADING),
        )
    )


@functools.cache
def _environment(language: str) -> jinja2.Environment:
    from ..templating import environment

    return environment(translations=said(language), filters={"web": is_web})


def _cited_snapshots(investigation: InvestigationView) -> list[tuple[str, str]]:
    """(sha256, what it is the text of) for each text the export cites, once, in the order it
    first cites them: the sources, then the evidence of each check."""
    named: dict[str, str] = {}
    for item in cited_items(investigation):
        if is_sha256(sha := item.content_sha256):
            named.setdefault(sha, item_title(item, investigation.language))
    return list(named.items())


def _checks(investigation: InvestigationView) -> list[dict[str, Any]]:
    """Each checked claim as the evidence appendix shows it."""
    language = investigation.language or "en"
    _ = said(language).gettext
    claims = claims_by_id(investigation)
    shown = []
    for number, check in enumerate(investigation.fact_checks, 1):
        claim = claims.get(check.claim_id)
        facts = [_("Checked on {day}").format(day=check.as_of)] if check.as_of else []
        if (confidence := share_percent(check.confidence)) is not None:
            facts.append(_("Confidence {share}").format(share=confidence))
        from_brief = claim is not None and claim.origin == "brief"
        shown.append(
            {
                "key": check.claim_key,
                "heading": check_heading(number, check, language),
                "label": _("Claim (from the brief)") if from_brief else _("Claim"),
                "editor": review_text(check, language),
                "claim_text": one_line(check.claim_text),
                "who": attribution(claim, language) if claim else "",
                "facts": facts,
                "explanation": one_line(check.explanation),
                "evidence": [_evidence_item(item, language) for item in check.evidence],
                "reasoning": [one_line(line) for line in check.reasoning],
            }
        )
    return shown


def _evidence_item(item: EvidenceView, language: str) -> dict[str, Any]:
    return {
        "document": is_document(item),
        "title": item_title(item, language),
        "heading_link": link_of(item),
        "sha": item.content_sha256,
        "publisher": one_line(item.publisher),
        "quote": one_line(item.quote),
        "stance": stance_text(item, language),
        "independence_class": "muted" if item.independent else "dependent",
        "independence": independence(item, language),
        "note": sentence(one_line(item.stance_note)),
        "facts": evidence_facts(item, language),
        "query": one_line(item.query),
        "link": web_link(item),
    }


def _source(source: SourceView, language: str) -> dict[str, Any]:
    return {
        "title": item_title(source, language),
        "publisher": one_line(source.publisher or source.domain),
        "relevance": relevance_text(source, language),
        "set_aside": not source.relevant,
        "facts": source_facts(source, language),
        "link": web_link(source),
        "full_text": full_text_link(source),
        "sha": source.content_sha256,
    }


def _snapshots(
    cited: list[tuple[str, str]], texts: dict[str, str], language: str
) -> list[dict[str, Any]]:
    """A section per text read, each cut to `SNAPSHOT_CHARS`, all together to
    `EXPORT_SNAPSHOT_CHARS`."""
    _ = said(language).gettext
    shown_all = []
    budget, each = EXPORT_SNAPSHOT_CHARS, SNAPSHOT_CHARS
    left = budget
    for sha, name in cited:
        text = texts[sha]
        shown = text[: max(0, min(each, left))]
        left -= len(shown)
        note = ""
        if text and not shown:
            note = _(
                "This text is not copied here: the export already carries {budget} characters "
                "of texts. The JSON export has it."
            ).format(budget=f"{budget:,}")
        elif len(shown) < len(text):
            note = _(
                "The first {shown} of {length} characters; the JSON export has the whole text."
            ).format(shown=f"{len(shown):,}", length=f"{len(text):,}")
        shown_all.append(
            {"sha": sha, "name": name, "length": len(text), "note": note, "shown": shown}
        )
    return shown_all

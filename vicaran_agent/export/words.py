"""The wording every export shares (and the dashboard): how an item is named, dated and
described, in English.
"""

from __future__ import annotations

import re
from typing import Any

from ..i18n import verdict_label
from ..read_model import (
    Cited,
    ClaimView,
    EvidenceView,
    FactCheckView,
    InvestigationView,
    SourceView,
)
from ..schemas import published_text
from ..urls import is_document_url
from .links import http_href

REASONING_HEADING = "How this verdict was reached"


_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


GAZETTE_NAME = "Diário Oficial"


def link_of(item: Cited) -> str:
    """The address as found (what to link), else the normalized one."""
    return item.display_url or item.url


def share_percent(value: Any) -> str | None:
    """A 0-1 share as a whole percentage, rounded half up (as the dashboard's script rounds)."""
    try:
        return f"{int(max(0.0, min(1.0, float(value))) * 100 + 0.5)}%"
    except (TypeError, ValueError):
        return None


def one_line(text: Any) -> str:
    return " ".join(str(text or "").split())


def sentence(text: str) -> str:
    """`text` with its first letter capitalized (notes are stored lowercase)."""
    return text[:1].upper() + text[1:]


def _verdict(verdict: str, language: str) -> str:
    """The verdict as the report writes it, e.g. `✅ VERIFIED`."""
    try:
        emoji, label = verdict_label(verdict, language)
    except KeyError:
        return str(verdict).upper()
    return f"{emoji} {label}"


def independence(item: EvidenceView) -> str:
    """`Independent` (an own record says whose), or `Not independent: <why>`."""
    if item.independent:
        return OWN_RECORD if item.primary_record else "Independent"
    note = one_line(item.independence_note)
    return f"Not independent: {note}" if note else "Not independent"


OWN_RECORD = "Independent: own record of the party quoted"


def attribution(claim: ClaimView) -> str:
    """`what <party> said or did`, `on the word of <party>`, or "" when nobody is quoted."""
    party = one_line(claim.attributed_to)
    if not party:
        return ""
    if claim.kind == "attribution":
        return f"what {party} said or did"
    return f"on the word of {party}"


def is_document(item: Cited) -> bool:
    """A source or evidence item read from one of the journalist's documents (no web address)."""
    return item.origin == "document" or is_document_url(item.url)


def page_text(item: Cited) -> str:
    """`p. 4` (pages count from 1), or "" when the item names no page."""
    return f"p. {item.page}" if item.page is not None and item.page > 0 else ""


def document_label(item: Cited) -> str:
    """`📄 <title>, p. N`: how a document, or a passage of it, is named."""
    title = one_line(item.title) or one_line(item.publisher) or "Document"
    page = page_text(item)
    return f"📄 {title}, {page}" if page else f"📄 {title}"


def is_gazette(item: Cited) -> bool:
    """A source or evidence item read from an official gazette (Querido Diário)."""
    return item.origin == "gazette"


def gazette_day(item: Cited) -> str:
    """The day the gazette was published: its `gazette_date`, else its `published_at`."""
    gazette_date = item.gazette_date if isinstance(item, SourceView) else None
    text = one_line(gazette_date or item.published_at)
    day = _DAY.match(text)
    return day.group() if day else text


def gazette_label(item: Cited) -> str:
    """`📰 Diário Oficial de <city> — <date>`: how a gazette, or a passage of it, is named.

    Its title (see `schemas.gazette_title`), with the date added when the title lacks it.
    """
    title = one_line(item.title)
    day = gazette_day(item)
    if not title:
        territory = one_line(item.territory_id)
        title = f"{GAZETTE_NAME} (IBGE {territory})" if territory else GAZETTE_NAME
    if day and day not in title:
        title = f"{title} — {day}"
    return f"📰 {title}"


def gazette_facts(item: Cited) -> list[str]:
    """When and where a gazette was published: `Gazette of <date>`, `IBGE territory <id>`."""
    facts = []
    if day := gazette_day(item):
        facts.append(f"Gazette of {day}")
    if territory := one_line(item.territory_id):
        facts.append(f"IBGE territory {territory}")
    return facts


def steps_text(count: int) -> str:
    """`1 step`, `3 steps`: the length of a reasoning log."""
    return "1 step" if count == 1 else f"{count} steps"


def relevance_text(source: SourceView) -> str:
    """A source's relevance to the brief, or why it was set aside."""
    score = share_percent(source.relevance)
    reason = one_line(source.relevance_reason)
    if not source.relevant:
        text = "Set aside: off-topic" + (f" (relevance {score})" if score else "")
        return text + (f": {reason}" if reason else "")
    return f"Relevance {score}" if score else ""


def published_fact(item: Cited) -> str:
    """`Published 2024-03-02 (search service)`: the date and who states it, or that it is
    unknown (the day Vicaran read an item is never its publication date)."""
    if not item.published_at:
        return "Publication date unknown"
    return "Published " + published_text(one_line(item.published_at), item.published_at_source)


def _dates(item: Cited) -> list[str]:
    """When (and, for a gazette, where) a source or evidence item was published, and when
    Vicaran read it."""
    facts = gazette_facts(item) if is_gazette(item) else [published_fact(item)]
    if item.retrieved_at:
        facts.append(f"Retrieved {item.retrieved_at}")
    return facts


def source_facts(source: SourceView) -> list[str]:
    facts = _dates(source)
    if source.is_user_provided:
        facts.append("Provided by you")
    if not source.is_reachable:
        facts.append(f"Not reachable: {source.unreachable_reason or 'no reason given'}")
    return facts


def evidence_facts(item: EvidenceView) -> list[str]:
    facts = _dates(item)
    if item.rating:
        facts.append(f"Rated: {item.rating}")
    return facts


def sources_intro(sources: list[SourceView]) -> str:
    """How many sources were read, and how many of them were set aside."""
    set_aside = sum(1 for s in sources if not s.relevant)
    counted = f"{len(sources)} source{'s' if len(sources) != 1 else ''}"
    return counted + (f", {set_aside} set aside as off-topic." if set_aside else ".")


def claims_by_id(investigation: InvestigationView) -> dict[str, ClaimView]:
    return {claim.id: claim for claim in investigation.claims}


def check_heading(number: int, check: FactCheckView, language: str) -> str:
    """`Claim 2 · ✅ VERIFIED`: the claim's place in the list (its key is internal)."""
    return f"Claim {number} · {_verdict(check.verdict, language)}"


def item_title(item: Cited) -> str:
    """A source's or evidence item's name: its title, else its address; a document's label."""
    if is_document(item):
        return document_label(item)
    if is_gazette(item):
        return gazette_label(item)
    return one_line(item.title) or link_of(item)


def web_link(item: Cited) -> str:
    """The address to show as a link: none for a document (its doc:// is an identity)."""
    return "" if is_document(item) else link_of(item)


def full_text_link(source: SourceView) -> str:
    """A gazette's full text address (as Querido Diário gives it), when it is http(s)."""
    url = one_line(source.txt_url)
    return url if http_href(url) else ""

"""The wording every export shares (and the dashboard): how an item is named, dated and
described, in the investigation's language (the catalogs': English as written here).
"""

from __future__ import annotations

import gettext
import re
from typing import Any

from ..catalogs import N_, translations
from ..i18n import verdict_label
from ..read_model import (
    Cited,
    ClaimView,
    EvidenceView,
    FactCheckView,
    InvestigationView,
    SourceView,
)
from ..schemas import DATE_SOURCE_LABELS
from ..urls import is_document_url
from .links import http_href

REASONING_HEADING = N_("How this verdict was reached")
STANCE_LABELS = {
    "supportive": N_("Supportive"),
    "neutral": N_("Neutral"),
    "critical": N_("Critical"),
    "supports": N_("Supports"),
    "refutes": N_("Refutes"),
    "context": N_("Context"),
}
RELIABILITY_LABELS = {
    "high": N_("High reliability"),
    "neutral": N_("Neutral reliability"),
    "low": N_("Low reliability"),
}


def said(language: str) -> gettext.NullTranslations:
    """The catalog the wording of `language` comes from (English: the text as written)."""
    return translations(language or "en")


_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


GAZETTE_NAME = "Diário Oficial"


def cited_items(investigation: InvestigationView) -> list[Cited]:
    """The sources, then each check's evidence: what the report and its appendix cite."""
    items: list[Cited] = list(investigation.sources)
    for check in investigation.fact_checks:
        items.extend(check.evidence)
    return items


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


def independence(item: EvidenceView, language: str = "en") -> str:
    """`Independent` (an own record says whose), or `Not independent: <why>`."""
    _ = said(language).gettext
    if item.independent:
        return _(OWN_RECORD) if item.primary_record else _("Independent")
    note = one_line(item.independence_note)
    return _("Not independent: {note}").format(note=note) if note else _("Not independent")


OWN_RECORD = N_("Independent: own record of the party quoted")


def stance_text(item: EvidenceView, language: str = "en") -> str:
    """`Supports · High reliability`: where an evidence item stands, and how far it is trusted."""
    _ = said(language).gettext
    stance = STANCE_LABELS.get(item.stance)
    reliability = RELIABILITY_LABELS.get(item.reliability)
    return " · ".join(
        [
            _(stance) if stance else one_line(item.stance),
            _(reliability) if reliability else one_line(item.reliability),
        ]
    )


def attribution(claim: ClaimView, language: str = "en") -> str:
    """`what <party> said or did`, `on the word of <party>`, or "" when nobody is quoted."""
    _ = said(language).gettext
    party = one_line(claim.attributed_to)
    if not party:
        return ""
    if claim.kind == "attribution":
        return _("what {party} said or did").format(party=party)
    return _("on the word of {party}").format(party=party)


def is_document(item: Cited) -> bool:
    """A source or evidence item read from one of the journalist's documents (no web address)."""
    return item.origin == "document" or is_document_url(item.url)


def page_text(item: Cited) -> str:
    """`p. 4` (pages count from 1), or "" when the item names no page."""
    return f"p. {item.page}" if item.page is not None and item.page > 0 else ""


def document_label(item: Cited, language: str = "en") -> str:
    """`📄 <title>, p. N`: how a document, or a passage of it, is named."""
    title = one_line(item.title) or one_line(item.publisher) or said(language).gettext("Document")
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


def gazette_facts(item: Cited, language: str = "en") -> list[str]:
    """When and where a gazette was published: `Gazette of <date>`, `IBGE territory <id>`."""
    _ = said(language).gettext
    facts = []
    if day := gazette_day(item):
        facts.append(_("Gazette of {day}").format(day=day))
    if territory := one_line(item.territory_id):
        facts.append(_("IBGE territory {territory}").format(territory=territory))
    return facts


def steps_text(count: int, language: str = "en") -> str:
    """`1 step`, `3 steps`: the length of a reasoning log."""
    return said(language).ngettext("{count} step", "{count} steps", count).format(count=count)


def relevance_text(source: SourceView, language: str = "en") -> str:
    """A source's relevance to the brief, or why it was set aside."""
    _ = said(language).gettext
    score = share_percent(source.relevance)
    reason = one_line(source.relevance_reason)
    if not source.relevant:
        with_score = _("Set aside: off-topic (relevance {score})").format(score=score)
        text = with_score if score else _("Set aside: off-topic")
        return text + (f": {reason}" if reason else "")
    return _("Relevance {score}").format(score=score) if score else ""


def published_fact(item: Cited, language: str = "en") -> str:
    """`Published 2024-03-02 (search service)`: the date and who states it, or that it is
    unknown (the day Vicaran read an item is never its publication date)."""
    _ = said(language).gettext
    if not item.published_at:
        return _("Publication date unknown")
    day = one_line(item.published_at)
    who = DATE_SOURCE_LABELS.get(item.published_at_source or "")
    if who is None:
        return _("Published {day}").format(day=day)
    return _("Published {day} ({who})").format(day=day, who=_(who))


def _dates(item: Cited, language: str) -> list[str]:
    """When (and, for a gazette, where) a source or evidence item was published, and when
    Vicaran read it."""
    facts = gazette_facts(item, language) if is_gazette(item) else [published_fact(item, language)]
    if item.retrieved_at:
        facts.append(said(language).gettext("Retrieved {at}").format(at=item.retrieved_at))
    return facts


def source_facts(source: SourceView, language: str = "en") -> list[str]:
    _ = said(language).gettext
    facts = _dates(source, language)
    if source.is_user_provided:
        facts.append(_("Provided by you"))
    if not source.is_reachable:
        why = source.unreachable_reason or _("no reason given")
        facts.append(_("Not reachable: {reason}").format(reason=why))
    return facts


def evidence_facts(item: EvidenceView, language: str = "en") -> list[str]:
    facts = _dates(item, language)
    if item.rating:
        facts.append(said(language).gettext("Rated: {rating}").format(rating=item.rating))
    return facts


def sources_intro(sources: list[SourceView], language: str = "en") -> str:
    """How many sources were read, and how many of them were set aside."""
    words = said(language)
    set_aside = sum(1 for s in sources if not s.relevant)
    count = len(sources)
    counted = words.ngettext("{count} source", "{count} sources", count).format(count=count)
    if not set_aside:
        return counted + "."
    aside = words.ngettext(
        "{count} set aside as off-topic", "{count} set aside as off-topic", set_aside
    ).format(count=set_aside)
    return f"{counted}, {aside}."


def claims_by_id(investigation: InvestigationView) -> dict[str, ClaimView]:
    return {claim.id: claim for claim in investigation.claims}


def review_text(check: FactCheckView, language: str = "en") -> str:
    """The editor's decision beside the machine's verdict ("Changed by Ana from VERIFIED to
    MISLEADING: the signature is from 2023."), or "" while the claim is unreviewed."""
    review = check.review
    if review.status == "unreviewed":
        return ""
    _ = said(language).gettext
    day = (review.at or "")[:10]
    if review.status == "changed":
        before = _verdict(review.verdict_before or check.verdict, language)
        after = _verdict(review.verdict_after or check.verdict, language)
        text = _("Changed by {reviewer} on {day} from {before} to {after}").format(
            reviewer=review.reviewer, day=day, before=before, after=after
        )
    else:
        text = _("Approved by {reviewer} on {day}").format(reviewer=review.reviewer, day=day)
    return f"{text}: {one_line(review.note)}" if review.note else text


def check_heading(number: int, check: FactCheckView, language: str) -> str:
    """`Claim 2 · ✅ VERIFIED`: the claim's place in the list (its key is internal)."""
    claim = said(language).gettext("Claim {number}").format(number=number)
    return f"{claim} · {_verdict(check.verdict, language)}"


def item_title(item: Cited, language: str = "en") -> str:
    """A source's or evidence item's name: its title, else its address; a document's label."""
    if is_document(item):
        return document_label(item, language)
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

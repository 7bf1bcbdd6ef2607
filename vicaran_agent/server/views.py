"""The dashboard's views: an investigation (or the list of them, or one checked claim) as the
Jinja2 templates under `templates/dashboard/` render it, every value escaped.

The page is rendered here once and only here: the live refresh fetches the same page and swaps
in what changed (`static/dashboard.js`), so there is no second renderer to keep in step.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from .. import export
from ..catalogs import N_, translations
from ..config import Settings, get_settings
from ..credibility import credibility_label
from ..i18n import ENGLISH, message, report_language, word
from ..markdown_html import render_markdown
from ..read_model import (
    ClaimView,
    FactCheckView,
    InvestigationListItem,
    InvestigationView,
    SourceView,
)
from ..schemas import QUALITY_DIMENSIONS
from ..sub_agents.bias_analyzer import score_label
from ..templating import environment
from ..urls import host_of
from ..usage import tokens_line

POLL_SECONDS = 3  # as dashboard.js polls
RUNNING = ("planning", "in_progress")
STATUS_LABELS = {
    "planning": N_("Planning"),
    "in_progress": N_("In progress"),
    "completed": N_("Completed"),
    "partial": N_("Partial"),
    "failed": N_("Failed"),
    "interrupted": N_("Interrupted"),
}
VERDICT_LABELS = {
    "verified": N_("Verified"),
    "partially_true": N_("Partially true"),
    "misleading": N_("Misleading"),
    "false": N_("False"),
    "unverified": N_("Unverified"),
}
STANCES = ("supportive", "neutral", "critical")
STANCE_LABELS = export.STANCE_LABELS
RELIABILITY_LABELS = export.RELIABILITY_LABELS
MODE_NAMES = {"quick": N_("Quick"), "detailed": N_("Detailed")}
MODE_LABELS = {"quick": N_("Quick mode"), "detailed": N_("Detailed mode")}
LIST_COLUMNS = (
    (N_("Investigation"), ""),
    (N_("Status"), ""),
    (N_("Mode"), ""),
    (N_("Sources"), "n"),
    (N_("Claims"), "n"),
    (N_("Fact-checks"), "n"),
    (N_("Last update"), ""),
    (N_("Data"), ""),
)
QUALITY_LABELS = {
    "factual_accuracy": N_("Factual accuracy"),
    "citation_correctness": N_("Citation correctness"),
    "plan_coverage": N_("Plan coverage"),
    "structure": N_("Structure"),
    "relevance": N_("Relevance"),
}
DOWNLOADS = (
    ("md", "Markdown"),
    ("html", "HTML"),
    ("json", "JSON"),
    ("claimreview", "ClaimReview"),
    ("warc", "WARC"),
)
PRECISION_LABELS = {"day": N_("exact day"), "month": N_("month only"), "year": N_("year only")}
_MONTHS = (
    N_("January"),
    N_("February"),
    N_("March"),
    N_("April"),
    N_("May"),
    N_("June"),
    N_("July"),
    N_("August"),
    N_("September"),
    N_("October"),
    N_("November"),
    N_("December"),
)
_DATE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")
_CLASS_NAME = re.compile(r"[a-z_]{1,20}")


# --- what the templates are given ------------------------------------------------------------


@dataclass
class InvestigationPage:
    """One investigation with what its panels look up: source numbers, titles and names, the
    verdict and check number of each claim, the report as safe HTML."""

    inv: InvestigationView
    report_html: Markup = field(default_factory=Markup)
    numbers: dict[str, int] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    source_names: dict[str, str] = field(default_factory=dict)
    verdicts: dict[str, str] = field(default_factory=dict)
    check_numbers: dict[str, int] = field(default_factory=dict)
    timeline_skipped: str = ""

    @property
    def api(self) -> str:
        return f"/api/investigations/{quote(self.inv.id, safe='')}"

    @property
    def panels(self) -> list[tuple[str, str, int | None]]:
        inv = self.inv
        return [
            ("sources", N_("Sources"), len(inv.sources)),
            ("claims", N_("Claims"), len(inv.claims)),
            ("fact-checks", N_("Fact-checks"), len(inv.fact_checks)),
            ("bias", N_("Bias"), None),
            ("timeline", N_("Timeline"), len(inv.timeline)),
            ("summary", N_("Summary"), None),
        ]


@dataclass
class ClaimPage:
    """The report's n-th checked claim, its claim record and its ClaimReview's rating."""

    inv: InvestigationView
    check: FactCheckView
    claim: ClaimView | None
    rating: str
    numbers: dict[str, int]


def investigation_page(
    inv: InvestigationView, settings: Settings | None = None
) -> InvestigationPage:
    """What the investigation's page shows (parses the report's Markdown: CPU work)."""
    sources = inv.sources
    checks = inv.fact_checks
    return InvestigationPage(
        inv=inv,
        report_html=Markup(report_html(inv, settings or get_settings())),
        numbers=source_numbers(inv),
        titles={s.id: s.title or s.domain for s in sources},
        source_names={s.id: source_name(s, page_language(inv)) for s in sources},
        verdicts={check.claim_id: check.verdict for check in checks},
        check_numbers={check.claim_id: n for n, check in enumerate(checks, 1)},
        timeline_skipped=timeline_skipped(inv),
    )


def claim_page(inv: InvestigationView, number: int, review: dict[str, Any]) -> ClaimPage:
    check = inv.fact_checks[number - 1]
    return ClaimPage(
        inv=inv,
        check=check,
        claim=inv.claim(check.claim_id),
        rating=review["reviewRating"]["alternateName"],
        numbers=source_numbers(inv),
    )


def source_numbers(inv: InvestigationView) -> dict[str, int]:
    """Each source's number, as the report cites it ([N] is the N-th source)."""
    return {s.id: n for n, s in enumerate(inv.sources, 1)}


# --- rendering -----------------------------------------------------------------------------


def render(name: str, language: str = ENGLISH, **values: Any) -> str:
    """`templates/dashboard/<name>` with `values`, its messages in `language` (a report
    language: `page_language`)."""
    return _environment(language).get_template(f"dashboard/{name}").render(**values).rstrip("\n")


def list_body(items: list[InvestigationListItem]) -> str:
    running = any(item.status in RUNNING for item in items)
    return render("list.html", items=items, running=running)


def detail_body(inv: InvestigationView) -> str:
    return render("investigation.html", page_language(inv), view=investigation_page(inv))


def claim_body(inv: InvestigationView, number: int, review: dict[str, Any]) -> str:
    return render("claim.html", page_language(inv), view=claim_page(inv, number, review))


def not_found_body(heading: str, back_href: str, back_text: str) -> str:
    return render("not_found.html", heading=heading, back_href=back_href, back_text=back_text)


def page_language(inv: InvestigationView) -> str:
    """The language an investigation's pages are written in (its report's): a BCP 47 tag."""
    return report_language(inv.language or ENGLISH)


@functools.cache
def _environment(language: str) -> jinja2.Environment:
    said = translations(language)
    gettext = said.gettext
    return environment(
        translations=said,
        filters={
            "web": export.is_web,
            "pct": percent,
            "whole": whole,
            "score": _score,
            "stars_value": lambda score: max(1, min(5, int(score or 1))),
            "credibility": functools.partial(credibility_label, language=language),
            "is_sha256": export.is_sha256,
            "known": lambda value: str(value) if _CLASS_NAME.fullmatch(str(value)) else "unknown",
            "urlpart": lambda value: quote(str(value), safe=""),
        },
        names={
            "attribution": functools.partial(export.attribution, language=language),
            "claim_of": functools.partial(claim_of, gettext=gettext),
            "dated": functools.partial(dated, language=language),
            "document_label": functools.partial(export.document_label, language=language),
            "downloads": DOWNLOADS,
            "event_date": functools.partial(event_date, gettext=gettext),
            "gazette_label": export.gazette_label,
            "host_of": host_of,
            "independence": functools.partial(export.independence, language=language),
            "is_document": export.is_document,
            "is_gazette": export.is_gazette,
            "poll_seconds": POLL_SECONDS,
            "page_path": page_path,
            "precision_labels": PRECISION_LABELS,
            "publisher_name": publisher_name,
            "quality_dimensions": QUALITY_DIMENSIONS,
            "quality_labels": QUALITY_LABELS,
            "reasoning_heading": gettext(export.REASONING_HEADING),
            "relevance_text": functools.partial(export.relevance_text, language=language),
            "review_text": functools.partial(export.review_text, language=language),
            "running_states": RUNNING,
            "score_label": lambda score: word(score_label(score), language),
            "sentence": export.sentence,
            "snapshot_path": export.snapshot_path,
            "archive_path": export.archive_path,
            "stances": STANCES,
            "stance_labels": STANCE_LABELS,
            "reliability_labels": RELIABILITY_LABELS,
            "mode_names": MODE_NAMES,
            "mode_labels": MODE_LABELS,
            "status_labels": STATUS_LABELS,
            "steps_text": functools.partial(export.steps_text, language=language),
            "tokens_line": tokens_line,
            "verdict_labels": VERDICT_LABELS,
            "columns": LIST_COLUMNS,
        },
    )


# --- text the views show -------------------------------------------------------------------


def summary_html(
    summary: str | None,
    allowed_links: Collection[str] | None = None,
    relink: Callable[[str], str | None] | None = None,
) -> str:
    """The summary Markdown as safe HTML (citations link to `#source-N`).

    Only `allowed_links` are linked (the dashboard passes the saved sources' addresses); other
    URLs are shown as text; `relink` sends some elsewhere (see `render_markdown`). Parsing is
    CPU work: call it off the event loop.
    """
    text = export.report_markdown(summary)
    if not text:
        return ""
    return render_markdown(text, heading_offset=2, allowed_links=allowed_links, relink=relink)


def report_html(inv: InvestigationView, settings: Settings) -> str:
    """The investigation's report as the dashboard shows it: its snapshot links, written on
    whatever server, are paths on this one (so they work at whatever address it is opened)."""
    iid = inv.id
    return summary_html(
        inv.summary,
        export.saved_links(inv, settings.public_url),
        export.snapshot_links(iid, lambda sha: export.snapshot_path(iid, sha)),
    )


def page_path(investigation_id: str) -> str:
    return f"/investigations/{quote(investigation_id, safe='')}"


def percent(value: Any, scale: float = 1.0) -> float:
    """`value` × `scale`, kept within 0-100 (0 when it is not a number)."""
    try:
        return max(0.0, min(100.0, float(value) * scale))
    except (TypeError, ValueError):
        return 0.0


def whole(pct: float) -> int:
    """Rounded half up."""
    return int(pct + 0.5)


def _score(value: Any) -> str:
    return str(int(value)) if isinstance(value, int | float) else "—"


def claim_of(
    inv: InvestigationView, check: FactCheckView, gettext: Callable[[str], str] = str
) -> str:
    """ "Claim 2/5": a check named by its claim's number, as the chat's verdict lines name it."""
    numbers = {claim.id: n for n, claim in enumerate(inv.claims, 1)}
    number = numbers.get(check.claim_id)
    if not number:
        return gettext("Claim")
    return gettext("Claim %(number)s/%(count)s") % {"number": number, "count": len(inv.claims)}


def dated(item: export.Cited, language: str = ENGLISH) -> list[str]:
    """When an item was published: a gazette's date and territory, else its published date
    and who states it, or that it is unknown."""
    if export.is_gazette(item):
        return export.gazette_facts(item, language)
    return [export.published_fact(item, language)]


def source_name(source: SourceView, language: str = ENGLISH) -> str:
    """How a source is named where it is not a card: its address, or a document's or a
    gazette's label."""
    if export.is_document(source):
        return export.document_label(source, language)
    if export.is_gazette(source):
        return export.gazette_label(source)
    return source.display_url or source.url


def publisher_name(publisher: str | None, host: str) -> str:
    """The publisher when it says more than the page's host: a name, or another site; else "".

    A registrable domain the host belongs to (`example.com` for `citynews.example.com`) is not
    shown: the host is.
    """
    text = (publisher or "").strip()
    lowered, host = text.lower(), host.lower()
    if not text or lowered == host or host.endswith("." + lowered):
        return ""
    return text


def event_date(
    value: str, precision: str, gettext: Callable[[str], str] = str
) -> tuple[str, str | None]:
    """(the date as a reader would write it, a machine-readable prefix or None)."""
    match = _DATE.match(value or "")
    if not match:
        return value, None
    year, month, day = match.groups()
    if not month or precision == "year" or not 1 <= int(month) <= 12:
        return year, year
    name = gettext(_MONTHS[int(month) - 1])
    if not day or precision == "month":
        return gettext("%(month)s %(year)s") % {"month": name, "year": year}, f"{year}-{month}"
    shown = gettext("%(day)s %(month)s %(year)s") % {"day": int(day), "month": name, "year": year}
    return shown, f"{year}-{month}-{day}"


def timeline_skipped(inv: InvestigationView) -> str:
    """Why a quick investigation has no timeline, in its language."""
    return message("dashboard_timeline_skipped", inv.language or "en")

"""Exports of one investigation: Markdown, a standalone HTML page, JSON and ClaimReview.

Every export works from the investigation dict that `Repository.get_investigation` returns (and,
for JSON and HTML, the snapshots its records rest on). No protocol marker is ever exported. A
link to one of the investigation's snapshots names the server where it is now (the settings'
`public_url`), whichever server the report was written on; the HTML page carries the texts it
cites (each cut to `SNAPSHOT_CHARS`, all of them to `EXPORT_SNAPSHOT_CHARS`) and links them
inside itself, so it needs no server. Each ClaimReview names its claim's own dashboard page.
`[N]` in the report cites the N-th entry of `investigation["sources"]`; `[N]` in a fact-check's
explanation cites that check's N-th evidence item. A source or evidence item from the
journalist's documents has no web address (its `doc://` url is an identity): it is named
`📄 <title>, p. N` and linked, at most, to the snapshot of the passage Vicaran read; the JSON
export keeps the records as stored.
An official gazette (origin `gazette`) is public: it is named `📰 Diário Oficial de <city> — <date>`
(its title), linked to its public address, with its territory and its full text's address.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlsplit

from . import safe_markdown as md
from .config import Settings, get_settings
from .documents.model import is_document_url
from .formatting import json_for_html
from .i18n import verdict_label
from .sanitize import strip_markers
from .schemas import published_text

COMPLETE_MARKER = "[INVESTIGATION_COMPLETE]"
JSON_FORMAT = "vicaran-investigation"
JSON_VERSION = 1
REASONING_HEADING = "How this verdict was reached"
RATING_VALUES = {"verified": 5, "partially_true": 3, "misleading": 2, "false": 1}
_SHA256 = re.compile(r"[0-9a-f]{64}")
_LANGUAGE = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})?")
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
GAZETTE_NAME = "Diário Oficial"
SNAPSHOT_CHARS = 100_000  # of one text, in the HTML export
EXPORT_SNAPSHOT_CHARS = 2_000_000  # of all the texts one HTML export carries
_URL_LENGTH = 300  # a server address longer than this is not one Vicaran wrote
_NOT_IN_URL = frozenset("<>()[]\"'`\\")  # Markdown's delimiters around a link


@dataclass(frozen=True)
class ExportFormat:
    """How one export is named and served."""

    extension: str
    media_type: str
    label: str


FORMATS: dict[str, ExportFormat] = {
    "md": ExportFormat("md", "text/markdown; charset=utf-8", "Markdown"),
    "html": ExportFormat("html", "text/html; charset=utf-8", "HTML"),
    "json": ExportFormat("json", "application/json", "JSON"),
    "claimreview": ExportFormat("jsonld", "application/ld+json", "ClaimReview"),
}


def render(
    fmt: str,
    investigation: dict[str, Any],
    snapshots: dict[str, str] | None = None,
    *,
    settings: Settings | None = None,
    now: datetime | None = None,
) -> str:
    """The investigation exported as `fmt` (a key of `FORMATS`).

    Args:
        fmt: "md", "html", "json" or "claimreview".
        investigation: the dict `Repository.get_investigation` returns.
        snapshots: {sha256: text} of what Vicaran read (the JSON and HTML exports carry them:
            see `WITH_SNAPSHOTS`).
        settings: publisher and public URL; the process settings when omitted.
        now: the export time written into the JSON export (default: now, UTC).

    Returns:
        The export's text.

    Raises:
        ValueError: `fmt` is not a known format.
    """
    settings = settings or get_settings()
    public_url = settings.public_url
    if fmt == "md":
        return to_markdown(investigation, public_url=public_url)
    if fmt == "html":
        from .export_html import to_html  # (it builds on this module)

        return to_html(investigation, public_url=public_url, snapshots=snapshots or {})
    if fmt == "json":
        return to_json(investigation, snapshots or {}, now=now, public_url=public_url)
    if fmt == "claimreview":
        return to_claimreview(investigation, settings)
    raise ValueError(f"unknown export format {fmt!r}: use {', '.join(FORMATS)}")


WITH_SNAPSHOTS = frozenset({"json", "html"})  # the formats that carry the texts read


def filename(investigation_id: str, fmt: str) -> str:
    """The download name, e.g. `vicaran-0b7e4a4e.md`."""
    short = re.sub(r"[^A-Za-z0-9-]", "", investigation_id)[:8] or "export"
    return f"vicaran-{short}.{FORMATS[fmt].extension}"


def report_markdown(summary: str | None) -> str:
    """The report's Markdown without any protocol marker."""
    return strip_markers(summary or "").strip()


def snapshot_path(investigation_id: str, sha256: str) -> str:
    """The server path of a snapshot (the read API's)."""
    return f"/api/investigations/{quote(investigation_id, safe='')}/snapshots/{sha256}"


def snapshot_url(investigation_id: str, sha256: str, public_url: str) -> str:
    """The absolute address of a snapshot, where `vicaran serve` is reachable."""
    return public_url.rstrip("/") + snapshot_path(investigation_id, sha256)


def is_sha256(value: Any) -> bool:
    """Whether `value` names a snapshot: 64 lowercase hex digits."""
    return isinstance(value, str) and _SHA256.fullmatch(value) is not None


def snapshot_of(url: str, investigation_id: str) -> str | None:
    """The SHA-256 a link to one of the investigation's snapshots names, on whatever server
    (and under whatever path prefix) it was written; None for any other link."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or parts.query:
        return None
    prefix = snapshot_path(investigation_id, "")
    at = parts.path.rfind(prefix)
    sha = parts.path[at + len(prefix) :] if at >= 0 and investigation_id else ""
    return sha if is_sha256(sha) and not parts.fragment else None


def rebased(markdown: str, investigation_id: str, public_url: str) -> str:
    """`markdown` with each link to one of the investigation's snapshots on `public_url`.

    A report keeps the server address it was written with (a headless run assumes the default
    one, a server may since have moved): its snapshot links follow the server that exports it.
    Linear: each snapshot path is found once, its address looked for in the few hundred
    characters before it.
    """
    base = public_url.rstrip("/")
    marker = snapshot_path(investigation_id, "")
    if not (base and investigation_id and marker in markdown):
        return markdown
    out: list[str] = []
    done = 0
    at = markdown.find(marker)
    while at >= 0:
        end = at + len(marker) + 64
        window = markdown[max(done, at - _URL_LENGTH) : at]
        start = max(window.rfind("http://"), window.rfind("https://"))
        if start >= 0 and is_sha256(markdown[at + len(marker) : end]):
            start += at - len(window)
            address = markdown[start:at]
            if (
                not any(c.isspace() or c in _NOT_IN_URL for c in address)
                and not markdown[end : end + 1].isalnum()
                and snapshot_of(markdown[start:end], investigation_id)
            ):
                out.append(markdown[done:start] + base + markdown[at:end])
                done = end
        at = markdown.find(marker, max(done, at + 1))
    return "".join(out) + markdown[done:]


def snapshot_links(
    investigation_id: str, target: Callable[[str], str | None]
) -> Callable[[str], str | None]:
    """For `render_markdown(relink=...)`: a link to one of the investigation's snapshots, on
    any server, goes where `target(sha256)` says (None: the link is judged as written)."""

    def relink(url: str) -> str | None:
        sha = snapshot_of(url, investigation_id)
        return target(sha) if sha else None

    return relink


# --- shared wording --------------------------------------------------------------------------


def _link_of(item: dict[str, Any]) -> str:
    """The address as found (what to link), else the normalized one."""
    return item.get("display_url") or item.get("url") or ""


def _percent(value: Any) -> str | None:
    """A 0-1 share as a whole percentage, rounded half up (as the dashboard's script rounds)."""
    try:
        return f"{int(max(0.0, min(1.0, float(value))) * 100 + 0.5)}%"
    except (TypeError, ValueError):
        return None


def _one_line(text: Any) -> str:
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


def independence(item: dict[str, Any]) -> str:
    """`Independent` (an own record says whose), or `Not independent: <why>`."""
    if item.get("independent", True) is not False:
        return OWN_RECORD if item.get("primary_record") else "Independent"
    note = _one_line(item.get("independence_note"))
    return f"Not independent: {note}" if note else "Not independent"


OWN_RECORD = "Independent: own record of the party quoted"


def attribution(claim: dict[str, Any]) -> str:
    """`what <party> said or did`, `on the word of <party>`, or "" when nobody is quoted."""
    party = _one_line(claim.get("attributed_to"))
    if not party:
        return ""
    if claim.get("kind") == "attribution":
        return f"what {party} said or did"
    return f"on the word of {party}"


def is_document(item: dict[str, Any]) -> bool:
    """A source or evidence item read from one of the journalist's documents (no web address)."""
    return item.get("origin") == "document" or is_document_url(str(item.get("url") or ""))


def page_text(item: dict[str, Any]) -> str:
    """`p. 4` (pages count from 1), or "" when the item names no page."""
    page = item.get("page")
    return f"p. {page}" if isinstance(page, int) and not isinstance(page, bool) and page > 0 else ""


def document_label(item: dict[str, Any]) -> str:
    """`📄 <title>, p. N`: how a document, or a passage of it, is named."""
    title = _one_line(item.get("title")) or _one_line(item.get("publisher")) or "Document"
    page = page_text(item)
    return f"📄 {title}, {page}" if page else f"📄 {title}"


def is_gazette(item: dict[str, Any]) -> bool:
    """A source or evidence item read from an official gazette (Querido Diário)."""
    return item.get("origin") == "gazette"


def gazette_day(item: dict[str, Any]) -> str:
    """The day the gazette was published: its `gazette_date`, else its `published_at`."""
    text = _one_line(item.get("gazette_date") or item.get("published_at"))
    day = _DAY.match(text)
    return day.group() if day else text


def gazette_label(item: dict[str, Any]) -> str:
    """`📰 Diário Oficial de <city> — <date>`: how a gazette, or a passage of it, is named.

    Its title (see `schemas.gazette_title`), with the date added when the title lacks it.
    """
    title = _one_line(item.get("title"))
    day = gazette_day(item)
    if not title:
        territory = _one_line(item.get("territory_id"))
        title = f"{GAZETTE_NAME} (IBGE {territory})" if territory else GAZETTE_NAME
    if day and day not in title:
        title = f"{title} — {day}"
    return f"📰 {title}"


def gazette_facts(item: dict[str, Any]) -> list[str]:
    """When and where a gazette was published: `Gazette of <date>`, `IBGE territory <id>`."""
    facts = []
    if day := gazette_day(item):
        facts.append(f"Gazette of {day}")
    if territory := _one_line(item.get("territory_id")):
        facts.append(f"IBGE territory {territory}")
    return facts


def steps_text(count: int) -> str:
    """`1 step`, `3 steps`: the length of a reasoning log."""
    return "1 step" if count == 1 else f"{count} steps"


def relevance_text(source: dict[str, Any]) -> str:
    """A source's relevance to the brief, or why it was set aside."""
    score = _percent(source.get("relevance"))
    reason = _one_line(source.get("relevance_reason"))
    if source.get("relevant", True) is False:
        text = "Set aside: off-topic" + (f" (relevance {score})" if score else "")
        return text + (f": {reason}" if reason else "")
    return f"Relevance {score}" if score else ""


def published_fact(item: dict[str, Any]) -> str:
    """`Published 2024-03-02 (search service)`: the date and who states it, or that it is
    unknown (the day Vicaran read an item is never its publication date)."""
    if not item.get("published_at"):
        return "Publication date unknown"
    return "Published " + published_text(
        _one_line(item["published_at"]), item.get("published_at_source")
    )


def _dates(item: dict[str, Any]) -> list[str]:
    """When (and, for a gazette, where) a source or evidence item was published, and when
    Vicaran read it."""
    facts = gazette_facts(item) if is_gazette(item) else [published_fact(item)]
    if item.get("retrieved_at"):
        facts.append(f"Retrieved {item['retrieved_at']}")
    return facts


def _source_facts(source: dict[str, Any]) -> list[str]:
    facts = _dates(source)
    if source.get("is_user_provided"):
        facts.append("Provided by you")
    if source.get("is_reachable") is False:
        facts.append(f"Not reachable: {source.get('unreachable_reason') or 'no reason given'}")
    return facts


def _evidence_facts(item: dict[str, Any]) -> list[str]:
    facts = _dates(item)
    if item.get("rating"):
        facts.append(f"Rated: {item['rating']}")
    return facts


def _sources_intro(sources: list[dict[str, Any]]) -> str:
    """How many sources were read, and how many of them were set aside."""
    set_aside = sum(1 for s in sources if s.get("relevant", True) is False)
    counted = f"{len(sources)} source{'s' if len(sources) != 1 else ''}"
    return counted + (f", {set_aside} set aside as off-topic." if set_aside else ".")


def _claims_by_id(investigation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {claim["id"]: claim for claim in investigation.get("claims") or []}


def _check_heading(number: int, check: dict[str, Any], language: str) -> str:
    """`Claim 2 · ✅ VERIFIED`: the claim's place in the list (its key is internal)."""
    return f"Claim {number} · {_verdict(check.get('verdict', ''), language)}"


# --- Markdown --------------------------------------------------------------------------------


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
    return {u for u in links if _href(u)}


def _evidence_md(investigation: dict[str, Any], links: set[str]) -> str:
    language = investigation.get("language") or "en"
    claims = _claims_by_id(investigation)
    lines = ["## Evidence"]
    checks = investigation.get("fact_checks") or []
    if not checks:
        return "## Evidence\n\nNo claim has been checked."
    lines.append("In each explanation, [N] cites evidence item N of that claim.")
    for number, check in enumerate(checks, 1):
        claim = claims.get(check.get("claim_id"), {})
        origin = " (from the brief)" if claim.get("origin") == "brief" else ""
        lines.append(f"### {md.inline(_check_heading(number, check, language))}")
        said = f" — {md.inline(who)}" if (who := attribution(claim)) else ""
        lines.append(f"**Claim{origin}:** {md.inline(check.get('claim_text'))}{said}")
        facts = [f"**Checked on:** {md.inline(check['as_of'])}"] if check.get("as_of") else []
        if (confidence := _percent(check.get("confidence"))) is not None:
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


def _title(item: dict[str, Any]) -> str:
    """A source's or evidence item's name: its title, else its address; a document's label."""
    if is_document(item):
        return document_label(item)
    if is_gazette(item):
        return gazette_label(item)
    return _one_line(item.get("title")) or _link_of(item)


def _web_link(item: dict[str, Any]) -> str:
    """The address to show as a link: none for a document (its doc:// is an identity)."""
    return "" if is_document(item) else _link_of(item)


def _full_text_link(source: dict[str, Any]) -> str:
    """A gazette's full text address (as Querido Diário gives it), when it is http(s)."""
    url = _one_line(source.get("txt_url"))
    return url if _href(url) else ""


def _evidence_item_md(number: int, item: dict[str, Any], links: set[str]) -> str:
    title = md.inline(_title(item))
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
        lines.append(f"   - Note: {md.inline(sentence(_one_line(item['stance_note'])))}")
    if facts := _evidence_facts(item):
        lines.append("   - " + md.inline(" · ".join(facts)))
    if item.get("query"):
        lines.append(f"   - Found by: {md.inline(item['query'])}")
    if link := _web_link(item):
        lines.append(f"   - Link: {md.link(link, links)}")
    if item.get("content_sha256"):
        lines.append(f"   - Snapshot: {md.code(_one_line(item['content_sha256']))}")
    return "\n".join(lines)


def _sources_md(investigation: dict[str, Any], links: set[str]) -> str:
    sources = investigation.get("sources") or []
    if not sources:
        return "## All sources read\n\nNo source was read."
    intro = _sources_intro(sources)
    entries = []
    for n, source in enumerate(sources, 1):
        title = md.inline(_title(source))
        publisher = md.inline(source.get("publisher") or source.get("domain"))
        head = f"{n}. **{title}**" + (f" — {publisher}" if publisher else "")
        lines = [head + (f" — {md.link(link, links)}" if (link := _web_link(source)) else "")]
        if relevance := relevance_text(source):
            lines.append(f"   - {md.inline(relevance)}")
        if facts := _source_facts(source):
            lines.append("   - " + md.inline(" · ".join(facts)))
        if full_text := _full_text_link(source):
            lines.append(f"   - Full text: {md.link(full_text, links | {full_text})}")
        if source.get("content_sha256"):
            lines.append(f"   - Snapshot: {md.code(_one_line(source['content_sha256']))}")
        entries.append("\n".join(lines))
    return "## All sources read\n\n" + intro + "\n\n" + "\n".join(entries)


# --- HTML ------------------------------------------------------------------------------------


def saved_links(investigation: dict[str, Any], public_url: str | None = None) -> set[str]:
    """The only addresses a report may link: the investigation's saved sources (normalized and
    as found) and their snapshots (under `public_url`, default the configured one)."""
    base = get_settings().public_url if public_url is None else public_url
    iid = str(investigation.get("id") or "")
    links: set[str] = set()
    for source in investigation.get("sources") or []:
        links.update(u for u in (source.get("url"), source.get("display_url")) if u)
        if base and iid and is_sha256(sha := source.get("content_sha256")):
            links.add(snapshot_url(iid, sha, base))
    return links


def _href(url: str) -> str | None:
    """`url` when it is http(s); else None."""
    return url if url and urlsplit(url).scheme.lower() in ("http", "https") else None


# --- JSON ------------------------------------------------------------------------------------


def to_json(
    investigation: dict[str, Any],
    snapshots: dict[str, str],
    *,
    now: datetime | None = None,
    public_url: str = "",
) -> str:
    """Every record (quality included) and the texts Vicaran read, pretty-printed.

    Args:
        investigation: the dict `Repository.get_investigation` returns.
        snapshots: {sha256: text}, e.g. `Repository.get_snapshots(id)`.
        now: the export time (default: now, UTC).
        public_url: where the server is; the report's snapshot links are moved there.

    Returns:
        `{"format", "version", "exported_at", "investigation", "snapshots"}` as JSON text.
    """
    record = dict(investigation)
    if record.get("summary") is not None:
        iid = str(record.get("id") or "")
        record["summary"] = rebased(report_markdown(record["summary"]), iid, public_url)
    exported_at = (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
    document = {
        "format": JSON_FORMAT,
        "version": JSON_VERSION,
        "exported_at": exported_at,
        "investigation": record,
        "snapshots": dict(sorted(snapshots.items())),
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


# --- ClaimReview (schema.org JSON-LD) --------------------------------------------------------


def to_claimreview(investigation: dict[str, Any], settings: Settings | None = None) -> str:
    """`claim_reviews` as a pretty-printed JSON array."""
    reviews = claim_reviews(investigation, settings)
    return json_for_html(reviews, indent=2) + "\n"


def claim_reviews(
    investigation: dict[str, Any], settings: Settings | None = None
) -> list[dict[str, Any]]:
    """One schema.org ClaimReview per fact-check, each naming the page that carries it.

    Google's fact-check guidance: one ClaimReview per page, on the page its `url` names, with
    the review (at least its summary and verdict) shown there; that page is the claim's
    (`GET /investigations/{id}/claims/{n}`, n its place in the report).

    Args:
        investigation: the dict `Repository.get_investigation` returns.
        settings: the publisher's name and URL and the dashboard's public URL.

    Returns:
        ClaimReview JSON-LD objects, in the order of the fact-checks.
    """
    settings = settings or get_settings()
    language = investigation.get("language") or "en"
    claims = _claims_by_id(investigation)
    # A document is private and has no web address: never an appearance.
    links = {
        source["id"]: _link_of(source)
        for source in investigation.get("sources") or []
        if not is_document(source)
    }
    iid = str(investigation.get("id") or "")
    fallback = (investigation.get("completed_at") or investigation.get("updated_at") or "")[:10]
    author: dict[str, Any] = {"@type": "Organization", "name": settings.vicaran_publisher_name}
    if settings.vicaran_publisher_url:
        author["url"] = settings.vicaran_publisher_url
    reviews = []
    for number, check in enumerate(investigation.get("fact_checks") or [], 1):
        claim = claims.get(check.get("claim_id"), {})
        appearance = [
            {"@type": "CreativeWork", "url": links[source_id]}
            for source_id in claim.get("source_ids") or []
            if links.get(source_id)
        ]
        item: dict[str, Any] = {"@type": "Claim"}
        if appearance:
            item["appearance"] = appearance
        review: dict[str, Any] = {
            "@context": "https://schema.org",
            "@type": "ClaimReview",
            "url": settings.claim_url(iid, number),
            "claimReviewed": check.get("claim_text") or claim.get("claim_text") or "",
            "author": dict(author),
            "reviewRating": review_rating(check.get("verdict", ""), language),
            "itemReviewed": item,
            "inLanguage": language,
        }
        if published := (check.get("as_of") or fallback)[:10]:
            review["datePublished"] = published
        reviews.append(review)
    return reviews


def review_rating(verdict: str, language: str) -> dict[str, Any]:
    """The schema.org Rating for a verdict; `unverified` (no rating) has no `ratingValue`."""
    rating: dict[str, Any] = {"@type": "Rating"}
    if verdict in RATING_VALUES:
        rating["ratingValue"] = RATING_VALUES[verdict]
    try:
        name = verdict_label(verdict, language)[1].capitalize()
    except KeyError:
        name = str(verdict).replace("_", " ").capitalize()
    rating.update({"bestRating": 5, "worstRating": 1, "alternateName": name})
    return rating

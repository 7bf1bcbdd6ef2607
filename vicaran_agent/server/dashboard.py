"""The read API and the investigation dashboard.

`GET /api/investigations[/{id}]` return JSON, `/api/investigations/{id}/snapshots/{sha256}` a
text Vicaran read and `/api/investigations/{id}/export?format=...` a download;
`GET /investigations/{id}/claims/{n}` is the page of the report's n-th checked claim, carrying its
ClaimReview (JSON-LD) and nothing of the others;
`GET /investigations[/{id}]` return server-rendered HTML (every value escaped) that
`static/dashboard.js` turns into tabs and refreshes every 3 s while an investigation runs: the
page of one while it runs, the list while any runs (it mirrors the renderers here; without JS
the list reloads itself instead). With `VICARAN_DASHBOARD_TOKEN` set, every request must present
the token: `access.AccessMiddleware` enforces it on the whole server (and turns a one-time
`?token=` into a cookie); the routes here check it again (Bearer header or that cookie), so the
router is never open when it is mounted without the middleware. The page frame, its headers and
the "Access token needed" page are `pages`' (Jinja2 templates).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Collection
from html import escape
from typing import Any
from urllib.parse import quote, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from .. import export
from ..config import Settings, get_settings
from ..formatting import json_for_html
from ..i18n import message
from ..schemas import QUALITY_DIMENSIONS
from ..storage import get_repository
from ..sub_agents.bias_analyzer import score_label
from ..tools.credibility import credibility_label
from ..tools.urls import host_of
from ..usage import tokens_line
from . import access, pages
from .markdown import render_markdown
from .pages import STATIC_DIR, STATIC_PREFIX

COOKIE_NAME = access.COOKIE_NAME
COMPLETE_MARKER = export.COMPLETE_MARKER
_STATIC_TYPES = {"dashboard.css": "text/css", "dashboard.js": "text/javascript"}
POLL_SECONDS = 3  # as dashboard.js polls
LIVE_TEXT = f"Live: refreshing every {POLL_SECONDS} s"
STATUS_LABELS = {
    "planning": "Planning",
    "in_progress": "In progress",
    "completed": "Completed",
    "partial": "Partial",
    "failed": "Failed",
    "interrupted": "Interrupted",
}
VERDICT_LABELS = {
    "verified": "Verified",
    "partially_true": "Partially true",
    "misleading": "Misleading",
    "false": "False",
    "unverified": "Unverified",
}
STANCES = ("supportive", "neutral", "critical")
LIST_COLUMNS = (
    ("Investigation", ""),
    ("Status", ""),
    ("Mode", ""),
    ("Sources", "n"),
    ("Claims", "n"),
    ("Fact-checks", "n"),
    ("Last update", ""),
    ("Data", ""),
)
RUNNING = ("planning", "in_progress")
QUALITY_LABELS = {
    "factual_accuracy": "Factual accuracy",
    "citation_correctness": "Citation correctness",
    "plan_coverage": "Plan coverage",
    "structure": "Structure",
    "relevance": "Relevance",
}
_DOWNLOADS = (
    ("md", "Markdown"),
    ("html", "HTML"),
    ("json", "JSON"),
    ("claimreview", "ClaimReview"),
)
_SNAPSHOT_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
}
SCALE_TEXT = "on a scale from 0 (balanced) to 10 (one-sided)"
_PRECISION = {"day": "exact day", "month": "month only", "year": "year only"}
_MONTHS = "January February March April May June July August September October November December"
_DATE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")
CLAIM_PAGE_TITLE = "This claim's own page, with its ClaimReview"

Handler = Callable[[Request], Awaitable[Response]]


def dashboard_router() -> APIRouter:
    """The read API, the dashboard pages and their two static files."""
    router = APIRouter()
    routes: list[tuple[str, Handler, bool]] = [
        ("/api/investigations", _api_list, False),
        ("/api/investigations/{investigation_id}", _api_one, False),
        ("/api/investigations/{investigation_id}/snapshots/{sha256}", _api_snapshot, False),
        ("/api/investigations/{investigation_id}/export", _api_export, False),
        ("/investigations", _page_list, True),
        ("/investigations/{investigation_id}", _page_one, True),
        ("/investigations/{investigation_id}/claims/{number}", _page_claim, True),
    ]
    for path, handler, page in routes:
        router.add_api_route(
            path, _guarded(handler, page=page), methods=["GET"], include_in_schema=not page
        )
    router.add_api_route(
        STATIC_PREFIX + "/{name}", _static, methods=["GET"], include_in_schema=False
    )
    return router


# --- access --------------------------------------------------------------------------------


def _guarded(handler: Handler, *, page: bool) -> Handler:
    """`handler` behind the dashboard token (when one is set): Bearer header or cookie.

    The middleware has already checked the request (and redirected a `?token=` away); this
    keeps the router closed where it is mounted without it. A refusal is the "Access token
    needed" page for pages, 401 JSON for the API.
    """

    async def endpoint(request: Request) -> Response:
        token = access.configured_token()
        if token and access.credential(request.headers, b"", token) is None:
            return access.refusal(page)
        return await handler(request)

    endpoint.__name__ = handler.__name__.lstrip("_")
    return endpoint


# --- endpoints -----------------------------------------------------------------------------


async def _investigations() -> list[dict[str, Any]]:
    url = get_settings().database_url
    return await asyncio.to_thread(lambda: get_repository(url).list_investigations())


async def _investigation(investigation_id: str) -> dict[str, Any] | None:
    url = get_settings().database_url
    return await asyncio.to_thread(lambda: get_repository(url).get_investigation(investigation_id))


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status, headers={"Cache-Control": "no-store"})


async def _api_list(request: Request) -> Response:
    return _json(await _investigations())


async def _api_one(request: Request) -> Response:
    investigation = await _investigation(request.path_params["investigation_id"])
    if investigation is None:
        return _json({"success": False, "error": "investigation not found"}, 404)
    rendered = await asyncio.to_thread(_report_html, investigation, get_settings())
    return _json({**investigation, "summary_html": rendered})


async def _api_snapshot(request: Request) -> Response:
    """The stored text one of the investigation's records rests on (its SHA-256 is its name)."""
    investigation_id = request.path_params["investigation_id"]
    sha256 = request.path_params["sha256"]
    text = None
    if export.is_sha256(sha256):
        url = get_settings().database_url
        text = await asyncio.to_thread(
            lambda: get_repository(url).get_snapshot(investigation_id, sha256)
        )
    if text is None:
        return _json({"success": False, "error": "snapshot not found"}, 404)
    return Response(text, media_type="text/plain; charset=utf-8", headers=_SNAPSHOT_HEADERS)


async def _api_export(request: Request) -> Response:
    """The investigation as a download: `?format=md|html|json|claimreview`."""
    fmt = request.query_params.get("format", "")
    if fmt not in export.FORMATS:
        error = f"unknown export format {fmt!r}: use md, html, json or claimreview"
        return _json({"success": False, "error": error}, 400)
    investigation_id = request.path_params["investigation_id"]
    url = get_settings().database_url

    def load() -> tuple[dict[str, Any], dict[str, str]] | None:
        repository = get_repository(url)
        investigation = repository.get_investigation(investigation_id)
        if investigation is None:
            return None
        texts = fmt in export.WITH_SNAPSHOTS
        return investigation, repository.get_snapshots(investigation_id) if texts else {}

    loaded = await asyncio.to_thread(load)
    if loaded is None:
        return _json({"success": False, "error": "investigation not found"}, 404)
    text = await asyncio.to_thread(export.render, fmt, *loaded, settings=get_settings())
    name = export.filename(loaded[0]["id"], fmt)
    headers = {
        "Content-Disposition": f'attachment; filename="{name}"',
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
    }
    if fmt == "html":
        headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    return Response(text, media_type=export.FORMATS[fmt].media_type, headers=headers)


async def _page_list(request: Request) -> Response:
    items = await _investigations()
    running = any(item["status"] in RUNNING for item in items)
    # Without JS the page reloads itself while a run goes on; with JS the script polls instead.
    refresh = f'<noscript><meta http-equiv="refresh" content="{POLL_SECONDS}"></noscript>'
    return pages.page("Investigations", _list_body(items, running), head=refresh if running else "")


async def _page_one(request: Request) -> Response:
    investigation = await _investigation(request.path_params["investigation_id"])
    if investigation is None:
        body = (
            '<main class="wrap narrow"><h1>Investigation not found</h1>'
            '<p><a href="/investigations">See all investigations</a></p></main>'
        )
        return pages.page("Not found", body, status=404)
    body = await asyncio.to_thread(_detail_body, investigation)  # the summary's Markdown
    return pages.page(investigation["title"] or "Investigation", body)


async def _page_claim(request: Request) -> Response:
    """The report's n-th checked claim: its verdict and evidence, and its ClaimReview alone."""
    investigation = await _investigation(request.path_params["investigation_id"])
    checks = investigation["fact_checks"] if investigation else []
    number = claim_number(request.path_params["number"], len(checks))
    if investigation is None or number is None:
        back = (
            f'<a href="{escape(_page_path(investigation["id"]))}">Back to the investigation</a>'
            if investigation
            else '<a href="/investigations">See all investigations</a>'
        )
        body = f'<main class="wrap narrow"><h1>Claim not found</h1><p>{back}</p></main>'
        return pages.page("Not found", body, status=404)
    review = export.claim_reviews(investigation, get_settings())[number - 1]
    head = (
        f'<link rel="canonical" href="{escape(review["url"])}">\n'
        f'<script type="application/ld+json">{json_for_html(review)}</script>'
    )
    check = checks[number - 1]
    return pages.page(check["claim_text"], _claim_body(investigation, number, review), head=head)


def claim_number(text: str, count: int) -> int | None:
    """`text` as a claim's place in the report (1 to `count`, written plainly), else None."""
    if not (text.isascii() and text.isdigit()) or text.startswith("0") or len(text) > 6:
        return None
    number = int(text)
    return number if 1 <= number <= count else None


async def _static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in _STATIC_TYPES:
        return Response("not found", 404, media_type="text/plain")
    return FileResponse(
        STATIC_DIR / name,
        media_type=_STATIC_TYPES[name],
        headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
    )


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


def _report_html(inv: dict[str, Any], settings: Settings) -> str:
    """The investigation's report as the dashboard shows it: its snapshot links, written on
    whatever server, are paths on this one (so they work at whatever address it is opened)."""
    iid = inv["id"]
    return summary_html(
        inv.get("summary"),
        export.saved_links(inv, settings.public_url),
        export.snapshot_links(iid, lambda sha: export.snapshot_path(iid, sha)),
    )


# --- HTML ----------------------------------------------------------------------------------


def _badge(kind: str, value: str, labels: dict[str, str]) -> str:
    known = value if value in labels else "unknown"
    label = labels.get(value) or value or "Unknown"
    return f'<span class="badge {kind}-{known}">{escape(label)}</span>'


def _time(iso: str | None) -> str:
    if not iso:
        return "—"
    shown = iso[:16].replace("T", " ") + " UTC"
    return f'<time datetime="{escape(iso)}">{escape(shown)}</time>'


def _href(url: str | None) -> str | None:
    """The url, escaped for an attribute, when it is http(s); else None."""
    return escape(url) if url and urlsplit(url).scheme.lower() in ("http", "https") else None


def _link(url: str | None, text: str) -> str:
    href = _href(url)
    if href is None:
        return escape(text)
    return f'<a href="{href}" target="_blank" rel="noopener noreferrer">{escape(text)}</a>'


def _pct(value: Any, scale: float = 1.0) -> float:
    try:
        return max(0.0, min(100.0, float(value) * scale))
    except (TypeError, ValueError):
        return 0.0


def _whole(pct: float) -> int:
    """Rounded half up, as the page's script rounds."""
    return int(pct + 0.5)


def _bar(pct: float, kind: str = "") -> str:
    return (
        f'<span class="bar" aria-hidden="true"><span class="bar-fill {kind}" '
        f'style="width:{pct:.1f}%"></span></span>'
    )


def _class(name: str) -> str:
    return f' class="{name}"' if name else ""


def _list_row(item: dict[str, Any]) -> str:
    """One investigation's row; each cell names its column (narrow screens show cards)."""
    iid = escape(quote(item["id"], safe=""))
    cells = (
        f'<a href="/investigations/{iid}">{escape(item["title"] or "Untitled")}</a>',
        _badge("status", item["status"], STATUS_LABELS),
        escape(str(item["mode"]).capitalize()),
        str(int(item["source_count"])),
        str(int(item["claim_count"])),
        str(int(item["fact_check_count"])),
        _time(item["updated_at"]),
        f'<a href="/api/investigations/{iid}">JSON</a>',
    )
    return (
        f'<tr data-id="{escape(item["id"])}">'
        + "".join(
            f'<td data-label="{label}"{_class(kind)}>{cell}</td>'
            for (label, kind), cell in zip(LIST_COLUMNS, cells, strict=True)
        )
        + "</tr>"
    )


def _list_body(items: list[dict[str, Any]], running: bool) -> str:
    if not items:
        rows = '<p class="empty">No investigations yet.</p>'
    else:
        head = "".join(
            f'<th scope="col"{_class(kind)}>{label}</th>' for label, kind in LIST_COLUMNS
        )
        body = "".join(_list_row(item) for item in items)
        rows = (
            '<div class="table-wrap"><table class="list investigations">'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
        )
    return (
        '<main class="wrap" id="investigations" data-api="/api/investigations" '
        f'data-running="{"true" if running else "false"}"><h1>Investigations</h1>'
        f'<p id="list-live" class="live" aria-live="polite">{LIVE_TEXT if running else ""}</p>'
        f"{rows}</main>"
    )


def _detail_body(inv: dict[str, Any]) -> str:
    numbers = {source["id"]: n for n, source in enumerate(inv["sources"], 1)}
    titles = {source["id"]: source["title"] or source["domain"] for source in inv["sources"]}

    def refs(ids: list[str]) -> str:
        links = [
            f'<a href="#source-{numbers[i]}" class="cite" title="{escape(titles[i])}">'
            f"[{numbers[i]}]</a>"
            for i in ids
            if i in numbers
        ]
        return f'<p class="refs">Sources: {" ".join(links)}</p>' if links else ""

    panels = [
        ("sources", "Sources", len(inv["sources"]), _sources(inv)),
        ("claims", "Claims", len(inv["claims"]), _claims(inv, refs)),
        ("fact-checks", "Fact-checks", len(inv["fact_checks"]), _checks(inv, refs)),
        ("bias", "Bias", None, _bias(inv, numbers)),
        ("timeline", "Timeline", len(inv["timeline"]), _timeline(inv, refs)),
        ("summary", "Summary", None, _summary(inv)),
    ]
    tabs = "".join(
        f'<a class="tab" id="tab-{key}" href="#{key}" data-panel="{key}">{label}'
        + (f' <span class="count" data-count="{key}">{count}</span>' if count is not None else "")
        + "</a>"
        for key, label, count, _ in panels
    )
    sections = "".join(
        f'<section class="panel" id="{key}" aria-labelledby="heading-{key}">'
        f'<h2 class="panel-title" id="heading-{key}">{label}</h2>'
        f'<div class="panel-body" data-body="{key}">{content}</div></section>'
        for key, label, _, content in panels
    )
    api = f"/api/investigations/{quote(inv['id'], safe='')}"
    return (
        f'<main class="wrap" id="investigation" data-api="{escape(api)}" '
        f'data-status="{escape(inv["status"])}" '
        f'data-timeline-skipped="{escape(_timeline_skipped(inv))}">'
        f'<div class="inv-head">{_head(inv)}</div>'
        f'<nav class="tabs" aria-label="Investigation sections">{tabs}</nav>'
        f"{sections}</main>"
    )


def _head(inv: dict[str, Any]) -> str:
    running = inv["status"] in RUNNING
    notice = ""
    if inv["status"] == "partial" and inv.get("partial_reason"):
        notice = f'<p class="notice">Partial: {escape(inv["partial_reason"])}</p>'
    elif inv["status"] == "failed" and inv.get("error"):
        notice = f'<p class="notice notice-failed">Failed: {escape(inv["error"])}</p>'
    api = f"/api/investigations/{quote(inv['id'], safe='')}"
    downloads = " ".join(
        f'<a href="{escape(api)}/export?format={fmt}" download>{label}</a>'
        for fmt, label in _DOWNLOADS
    )
    return (
        f'<h1 id="inv-title">{escape(inv["title"] or "Untitled investigation")}</h1>'
        '<p class="inv-meta">'
        f'<span id="inv-status" aria-live="polite">{_badge("status", inv["status"], STATUS_LABELS)}</span>'
        f'<span id="inv-mode">{escape(str(inv["mode"]).capitalize())} mode</span>'
        f'<span>Last update <span id="inv-updated">{_time(inv["updated_at"])}</span></span>'
        f'<span id="inv-live" class="live" aria-live="polite">'
        f"{LIVE_TEXT if running else ''}</span></p>"
        f'<p class="downloads">Download: {downloads}</p>'
        f'<p id="inv-brief" class="brief">{escape(inv.get("brief") or "")}</p>'
        f'<div id="inv-notice">{notice}</div>'
    )


def _empty(text: str) -> str:
    return f'<p class="empty">{escape(text)}</p>'


def _stars(score: Any) -> str:
    value = max(1, min(5, int(score or 1)))
    label = f"Credibility {value} of 5: {credibility_label(value)}"
    return (
        f'<span class="stars" role="img" aria-label="{label}" title="{label}">'
        f'{"★" * value}<span class="stars-off">{"★" * (5 - value)}</span></span>'
    )


def _snapshot(investigation_id: str, sha256: Any) -> str:
    """A small link to the text Vicaran read, when it was stored; else ""."""
    if not export.is_sha256(sha256):
        return ""
    href = escape(export.snapshot_path(investigation_id, sha256))
    return (
        f' <a class="snap" href="{href}" target="_blank" rel="noopener noreferrer" '
        'title="The text Vicaran read">snapshot</a>'
    )


def _document_link(investigation_id: str, item: dict[str, Any]) -> str:
    """`📄 <title>, p. N`, linked to the passage Vicaran read when it was stored.

    A document has no web address: its `doc://` identity is never shown or linked.
    """
    label = escape(export.document_label(item))
    sha = item.get("content_sha256")
    if not export.is_sha256(sha):
        return label
    href = escape(export.snapshot_path(investigation_id, sha))
    return (
        f'<a class="doc" href="{href}" target="_blank" rel="noopener noreferrer" '
        f'title="The passage Vicaran read">{label}</a>'
    )


def _full_text(source: dict[str, Any]) -> str:
    """A small link to a gazette's full text as Querido Diário gives it, when it is http(s)."""
    href = _href(source.get("txt_url"))
    if href is None:
        return ""
    return (
        f' <a class="snap" href="{href}" target="_blank" rel="noopener noreferrer" '
        'title="The gazette\'s full text, as Querido Diário gives it">full text</a>'
    )


def _dated(item: dict[str, Any]) -> list[str]:
    """When an item was published: a gazette's date and territory, else its published date
    and who states it, or that it is unknown."""
    if export.is_gazette(item):
        return export.gazette_facts(item)
    return [export.published_fact(item)]


def _source_name(source: dict[str, Any]) -> str:
    """How a source is named where it is not a card: its address, or a document's or a
    gazette's label."""
    if export.is_document(source):
        return export.document_label(source)
    if export.is_gazette(source):
        return export.gazette_label(source)
    return source.get("display_url") or source["url"]


def _day(iso: str) -> str:
    """The date part of an ISO timestamp, as a <time>."""
    return f'<time datetime="{escape(iso)}">{escape(iso[:10])}</time>'


def _sources(inv: dict[str, Any]) -> str:
    if not inv["sources"]:
        return _empty("No sources yet.")
    items = []
    for n, s in enumerate(inv["sources"], 1):
        link = s.get("display_url") or s["url"]
        document = export.is_document(s)
        host = "" if document else s["domain"] or host_of(link)
        name = (s.get("publisher") or s["domain"]) if document else ""
        name = name or publisher_name(s.get("publisher"), host)
        aside = s.get("relevant") is False
        meta = [_stars(s["credibility_score"])]
        if name:
            meta.append(f'<span class="publisher">{escape(name)}</span>')
        if not document:
            meta.append(f'<span class="domain">{escape(host)}</span>')
        meta.extend(f"<span>{escape(fact)}</span>" for fact in _dated(s))
        if s.get("retrieved_at"):
            meta.append(f"<span>Retrieved {_day(s['retrieved_at'])}</span>")
        if s.get("is_user_provided"):
            meta.append('<span class="tag">Provided by you</span>')
        relevance = export.relevance_text(s)
        if relevance and not aside:
            meta.append(f"<span>{escape(relevance)}</span>")
        if s.get("is_reachable") is not False:
            reach = '<p class="reach reach-ok">Read successfully</p>'
        else:
            reason = s.get("unreachable_reason") or "no reason given"
            reach = f'<p class="reach reach-bad">Not reachable: {escape(reason)}</p>'
        summary = s.get("content_summary") or ""
        if document:
            title, snapshot = _document_link(inv["id"], s), ""
        elif export.is_gazette(s):
            title = _link(link, export.gazette_label(s))
            snapshot = _snapshot(inv["id"], s.get("content_sha256")) + _full_text(s)
        else:
            title = _link(link, s["title"] or link)
            snapshot = _snapshot(inv["id"], s.get("content_sha256"))
        items.append(
            f'<li class="card source{" set-aside" if aside else ""}" id="source-{n}">'
            f'<div class="card-head"><span class="num">{n}</span><h3 class="card-title">'
            f'{title}</h3>{snapshot}</div><p class="meta">{"".join(meta)}</p>'
            + (f'<p class="aside-note">{escape(relevance)}</p>' if aside else "")
            + (f'<p class="text">{escape(summary)}</p>' if summary else "")
            + f"{reach}</li>"
        )
    aside_count = sum(1 for s in inv["sources"] if s.get("relevant") is False)
    note = (
        f'<p class="panel-note">{aside_count} of {len(inv["sources"])} sources set aside as '
        "off-topic: saved, but not used for claims, bias or the timeline.</p>"
        if aside_count
        else ""
    )
    return f'{note}<ol class="cards">{"".join(items)}</ol>'


def _claims(inv: dict[str, Any], refs: Callable[[list[str]], str]) -> str:
    if not inv["claims"]:
        return _empty("No claims yet.")
    verdicts = {check["claim_id"]: check["verdict"] for check in inv["fact_checks"]}
    numbers = {check["claim_id"]: n for n, check in enumerate(inv["fact_checks"], 1)}
    items = []
    for claim in inv["claims"]:
        importance = _pct(claim["importance"], 100)
        verdict = verdicts.get(claim["id"])
        number = numbers.get(claim["id"])
        items.append(
            f'<li class="card claim" id="claim-{escape(claim["key"])}"><div class="card-head">'
            f'<span class="num">{escape(claim["key"])}</span>'
            f'<h3 class="card-title">{escape(claim["claim_text"])}</h3>'
            f"{_claim_page_link(inv['id'], number) if number else ''}</div>"
            f'<p class="meta"><span class="metric">Importance {_bar(importance)} '
            f"{_whole(importance)}%</span>"
            + (_badge("verdict", verdict, VERDICT_LABELS) if verdict else "")
            + ('<span class="tag">From your brief</span>' if claim.get("origin") == "brief" else "")
            + _quoted(claim)
            + f"</p>{refs(claim['source_ids'])}</li>"
        )
    return f'<ol class="cards">{"".join(items)}</ol>'


def claim_of(inv: dict[str, Any], check: dict[str, Any]) -> str:
    """ "Claim 2/5": a check named by its claim's number, as the chat's verdict lines name it."""
    numbers = {claim["id"]: n for n, claim in enumerate(inv["claims"], 1)}
    number = numbers.get(check["claim_id"])
    return f"Claim {number}/{len(inv['claims'])}" if number else "Claim"


def _checks(inv: dict[str, Any], refs: Callable[[list[str]], str]) -> str:
    if not inv["fact_checks"]:
        return _empty("No fact-checks yet.")
    items = []
    for number, check in enumerate(inv["fact_checks"], 1):
        confidence = _pct(check["confidence"], 100)
        evidence = "".join(_evidence(item, inv["id"]) for item in check["evidence"])
        checked = f"<span>Checked on {escape(check['as_of'])}</span>" if check.get("as_of") else ""
        items.append(
            f'<li class="card check"><div class="card-head">'
            f'<span class="num">{claim_of(inv, check)}</span>'
            f"{_badge('verdict', check['verdict'], VERDICT_LABELS)}"
            f'<h3 class="card-title">{escape(check["claim_text"])}</h3>'
            f"{_claim_page_link(inv['id'], number)}</div>"
            f'<p class="meta"><span class="metric">Confidence {_bar(confidence)} '
            f"{_whole(confidence)}%</span>{checked}</p>"
            f'<p class="text">{escape(check["explanation"] or "")}</p>'
            + (evidence and f'<h4 class="sub">Evidence</h4><ol class="evidence">{evidence}</ol>')
            + _reasoning(check.get("reasoning") or [])
            + f"{refs(check['source_ids'])}</li>"
        )
    return f'<ol class="cards">{"".join(items)}</ol>'


def _page_path(investigation_id: str) -> str:
    return f"/investigations/{quote(investigation_id, safe='')}"


def _claim_page_link(investigation_id: str, number: int) -> str:
    """A small link from a claim's card to its own page."""
    href = escape(f"{_page_path(investigation_id)}/claims/{number}")
    return f' <a class="snap" href="{href}" title="{CLAIM_PAGE_TITLE}">claim page</a>'


def _claim_body(inv: dict[str, Any], number: int, review: dict[str, Any]) -> str:
    """One checked claim: its verdict (as its ClaimReview names it), evidence and sources."""
    check = inv["fact_checks"][number - 1]
    claim = next((c for c in inv["claims"] if c["id"] == check["claim_id"]), {})
    numbers = {source["id"]: n for n, source in enumerate(inv["sources"], 1)}
    page = _page_path(inv["id"])
    rating = review["reviewRating"]["alternateName"]
    confidence = _pct(check["confidence"], 100)
    meta = [claim_of(inv, check)]
    if check.get("as_of"):
        meta.append(f"Checked on {escape(check['as_of'])}")
    if claim.get("origin") == "brief":
        meta.append('<span class="tag">From the brief</span>')
    if quoted := _quoted(claim):
        meta.append(quoted)
    evidence = "".join(_evidence(item, inv["id"]) for item in check["evidence"])
    found = [
        f'<a href="{escape(page)}#source-{numbers[i]}" class="cite">[{numbers[i]}]</a>'
        for i in claim.get("source_ids") or []
        if i in numbers
    ]
    return (
        '<main class="wrap claim-page" id="claim">'
        f'<p class="crumbs"><a href="{escape(page)}">'
        f"{escape(inv['title'] or 'Untitled investigation')}</a></p>"
        f'<p class="inv-meta">{" · ".join(meta)}</p>'
        f"<h1>{escape(check['claim_text'])}</h1>"
        f'<div class="card check"><div class="card-head">'
        f"{_badge('verdict', check['verdict'], {check['verdict']: rating})}</div>"
        f'<p class="meta"><span class="metric">Confidence {_bar(confidence)} '
        f"{_whole(confidence)}%</span></p>"
        f'<p class="text">{escape(check["explanation"] or "")}</p>'
        + (evidence and f'<h2 class="sub">Evidence</h2><ol class="evidence">{evidence}</ol>')
        + _reasoning(check.get("reasoning") or [])
        + (f'<p class="refs">Found in: {" ".join(found)}</p>' if found else "")
        + "</div></main>"
    )


def _quoted(claim: dict[str, Any]) -> str:
    """A tag saying who the claim quotes (what they said or did, or whose word it rests on)."""
    said = export.attribution(claim)
    return f'<span class="tag">{escape(said[:1].upper() + said[1:])}</span>' if said else ""


def _reasoning(lines: list[str]) -> str:
    """The verdict's reasoning log, folded: the references followed, the search rounds."""
    if not lines:
        return ""
    steps = "".join(f"<li>{escape(str(line))}</li>" for line in lines)
    return (
        '<details class="reasoning">'
        f"<summary>{export.REASONING_HEADING}: {export.steps_text(len(lines))}</summary>"
        f'<ol class="reasoning-log">{steps}</ol></details>'
    )


def _evidence(item: dict[str, Any], investigation_id: str) -> str:
    link = item.get("display_url") or item["url"]
    document = export.is_document(item)
    independent = item.get("independent") is not False
    tags = [
        f'<span class="tag stance-{_known(item["stance"])}">'
        f"{escape(str(item['stance']).capitalize())}</span>",
        f'<span class="tag rel-{_known(item["reliability"])}">'
        f"{escape(str(item['reliability']).capitalize())} reliability</span>",
        f'<span class="tag {"ind-yes" if independent else "ind-no"}">'
        f"{escape(export.independence(item))}</span>",
    ]
    if item["rating"]:
        tags.append(f'<span class="tag">Rated: {escape(item["rating"])}</span>')
    if document:
        publisher = item["publisher"]
        heading = _document_link(investigation_id, item)
    else:
        publisher = publisher_name(item["publisher"], host_of(link)) or host_of(link)
        name = export.gazette_label(item) if export.is_gazette(item) else item["title"] or link
        heading = _link(link, name) + _snapshot(investigation_id, item.get("content_sha256"))
    quote_ = item.get("quote") or ""
    snippet = item["snippet"]
    facts = [escape(fact) for fact in _dated(item)]
    if item.get("query"):
        facts.append(f"found by: {escape(item['query'])}")
    return (
        f"<li>{heading}"
        + (f' <span class="muted">{escape(publisher)}</span>' if publisher else "")
        + f'<span class="tags">{"".join(tags)}</span>'
        + (f'<blockquote class="quote">{escape(quote_)}</blockquote>' if quote_ else "")
        + (
            f'<p class="note">{escape(export.sentence(item["stance_note"]))}</p>'
            if item.get("stance_note")
            else ""
        )
        + (f'<p class="snippet">{escape(snippet)}</p>' if snippet and not quote_ else "")
        + (f'<p class="evidence-meta">{" · ".join(facts)}</p>' if facts else "")
        + "</li>"
    )


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


def _known(value: Any) -> str:
    """A value safe to use in a class name."""
    text = str(value)
    return text if re.fullmatch(r"[a-z_]{1,20}", text) else "unknown"


def _sources_count(count: int) -> str:
    return f"{count} source" if count == 1 else f"{count} sources"


def _bias(inv: dict[str, Any], numbers: dict[str, int]) -> str:
    bias = inv.get("bias")
    if not bias:
        if inv["status"] in RUNNING:
            return _empty("No bias assessment yet.")
        return _empty("No source could be rated, so there is no bias score.")
    score = float(bias["overall_bias_score"])
    coverage = "".join(
        f'<div class="bar-row"><span class="bar-label">{stance.capitalize()}</span>'
        f"{_bar(_pct(bias['coverage_pct'].get(stance)), f'stance-{stance}')}"
        f'<span class="bar-value">{_whole(_pct(bias["coverage_pct"].get(stance)))}% · '
        f"{_sources_count(int(bias['coverage'].get(stance, 0)))}</span></div>"
        for stance in STANCES
    )
    unrated = int(bias.get("unrated") or 0)
    rated = sum(int(bias["coverage"].get(stance, 0)) for stance in STANCES)
    over = f" over {rated} rated sources ({unrated} not rated)" if unrated > 0 else ""
    html = (
        '<div class="bias-grid"><div class="stat">'
        '<p class="stat-label">Overall bias score</p>'
        f'<p class="stat-value">{score:.1f}<span> / 10</span></p>'
        f'<p class="stat-note">{escape(score_label(score))} bias, {SCALE_TEXT}</p>'
        f"{_bar(_pct(score, 10), 'scale')}"
        '<p class="scale-ends" aria-hidden="true"><span>0</span><span>10</span></p></div>'
        f'<figure class="coverage"><figcaption>Coverage balance{over}</figcaption>'
        f"{coverage}</figure></div>"
    )
    if bias.get("recommendation"):
        html += f'<p class="recommendation">{escape(bias["recommendation"])}</p>'
    if inv["mode"] == "detailed" and bias.get("per_source"):
        links = {s["id"]: _source_name(s) for s in inv["sources"]}
        rows = "".join(
            "<tr><td>"
            + (
                f'<a href="#source-{numbers[row["source_id"]]}" class="cite">'
                f"[{numbers[row['source_id']]}]</a> "
                if row.get("source_id") in numbers
                else ""
            )
            + f"{escape(links.get(row.get('source_id')) or row['url'])}</td>"
            f"<td>{escape(str(row.get('stance') or 'neutral').capitalize())}</td>"
            f'<td class="score">{_bar(_pct(row["bias_score"], 10))} '
            f"{_pct(row['bias_score'], 10) / 10:.1f}</td>"
            f"<td>{escape(', '.join(row.get('indicators') or []))}</td></tr>"
            for row in bias["per_source"]
        )
        html += (
            '<h3 class="sub">Per source</h3><div class="table-wrap"><table class="list">'
            '<thead><tr><th scope="col">Source</th><th scope="col">Stance</th>'
            '<th scope="col">Bias score</th><th scope="col">Indicators</th></tr></thead>'
            f"<tbody>{rows}</tbody></table></div>"
        )
    return html


def event_date(value: str, precision: str) -> tuple[str, str | None]:
    """(the date as a reader would write it, a machine-readable prefix or None)."""
    match = _DATE.match(value or "")
    if not match:
        return value, None
    year, month, day = match.groups()
    months = _MONTHS.split()
    if not month or precision == "year" or not 1 <= int(month) <= 12:
        return year, year
    if not day or precision == "month":
        return f"{months[int(month) - 1]} {year}", f"{year}-{month}"
    return f"{int(day)} {months[int(month) - 1]} {year}", f"{year}-{month}-{day}"


def _timeline_skipped(inv: dict[str, Any]) -> str:
    """Why a quick investigation has no timeline, in its language."""
    return message("dashboard_timeline_skipped", inv.get("language") or "en")


def _timeline(inv: dict[str, Any], refs: Callable[[list[str]], str]) -> str:
    if not inv["timeline"]:
        return _empty(_timeline_skipped(inv) if inv["mode"] == "quick" else "No events yet.")
    items = []
    for item in inv["timeline"]:
        shown, machine = event_date(item["event_date"], item["date_precision"])
        when = (
            f'<time datetime="{escape(machine)}">{escape(shown)}</time>'
            if machine
            else escape(shown)
        )
        precision = _PRECISION.get(item["date_precision"], item["date_precision"])
        items.append(
            f'<li class="event"><p class="event-date">{when} '
            f'<span class="tag">{escape(precision)}</span></p>'
            f'<p class="text">{escape(item["event_text"])}</p>{refs(item["source_ids"])}</li>'
        )
    return f'<ol class="timeline">{"".join(items)}</ol>'


def _summary(inv: dict[str, Any]) -> str:
    rendered = _report_html(inv, get_settings())
    if not rendered:
        body = _empty("The summary is written when the investigation finishes.")
    else:
        body = f'<div class="prose">{rendered}</div>'
    return body + _quality(inv.get("quality")) + _tokens(inv.get("tokens"))


def _score(value: Any) -> str:
    return str(int(value)) if isinstance(value, int | float) else "—"


def _quality(quality: dict[str, Any] | None) -> str:
    """The "Report check" box: scores, the citation audit, the rewrite and the problems."""
    if not quality:
        return ""
    scores = quality.get("scores") or {}
    rows = "".join(
        f'<div class="bar-row"><span class="bar-label">{QUALITY_LABELS[key]}</span>'
        f"{_bar(_pct(scores.get(key)))}"
        f'<span class="bar-value">{_score(scores.get(key))}</span></div>'
        for key in QUALITY_DIMENSIONS
    )
    overall = quality.get("overall")
    note = (
        f"Rewrite threshold {_score(quality.get('threshold'))}"
        if isinstance(overall, int | float)
        else "The quality check could not run."
    )
    rewritten = "Rewritten once" if quality.get("rewrites") else "Not rewritten"
    audit = (
        f"{_score(quality.get('audited') or 0)} cited sentences checked against their sources"
        f" · {_score(quality.get('unsupported') or 0)} unsupported"
        f" · {_score(quality.get('removed') or 0)} removed · {rewritten}"
    )
    problems = "".join(f"<li>{escape(str(p))}</li>" for p in quality.get("problems") or [])
    return (
        '<section class="quality" aria-labelledby="quality-title">'
        '<h3 class="sub" id="quality-title">Report check</h3><div class="bias-grid">'
        '<div class="stat"><p class="stat-label">Overall quality</p>'
        f'<p class="stat-value">{_score(overall)}<span> / 100</span></p>'
        f'<p class="stat-note">{note}</p></div>'
        f'<div class="coverage">{rows}</div></div><p class="audit">{audit}</p>'
        + (
            f'<h4 class="sub">Problems found</h4><ul class="problems">{problems}</ul>'
            if problems
            else ""
        )
        + "</section>"
    )


def _tokens(tokens: dict[str, Any] | None) -> str:
    """The "Model use" box: the run's tokens and estimated cost, per stage."""
    if not tokens:
        return ""
    rows = "".join(
        f'<tr><th scope="row">{escape(stage.replace("_", " "))}</th>'
        f"<td>{int(use.get('input') or 0):,}</td><td>{int(use.get('output') or 0):,}</td>"
        f"<td>{int(use.get('cached') or 0):,}</td><td>${float(use.get('cost_usd') or 0):.4f}</td></tr>"
        for stage, use in (tokens.get("per_stage") or {}).items()
    )
    return (
        '<section class="tokens" aria-labelledby="tokens-title">'
        '<h3 class="sub" id="tokens-title">Model use</h3>'
        f'<p class="audit">{escape(tokens_line(tokens))} (estimated)</p>'
        '<table class="tokens-table"><thead><tr><th scope="col">Stage</th>'
        '<th scope="col">Input</th><th scope="col">Output</th><th scope="col">Cached</th>'
        f'<th scope="col">Cost (USD)</th></tr></thead><tbody>{rows}</tbody></table></section>'
    )

"""The read API and the investigation dashboard.

`GET /api/investigations[/{id}]` return JSON, `/api/investigations/{id}/snapshots/{sha256}` a
text Vicaran read, `/api/investigations/{id}/archives/{n}` one page as it was read (WARC) and
`/api/investigations/{id}/export?format=...` a download;
`GET /investigations/{id}/claims/{n}` is the page of the report's n-th checked claim, carrying its
ClaimReview (JSON-LD) and nothing of the others;
`GET /investigations[/{id}]` return HTML rendered by `views` from Jinja2 templates (every value
escaped) that `static/dashboard.js` turns into tabs and refreshes every 3 s while an
investigation runs, by fetching the same page again and swapping in what changed: the page of
one while it runs, the list while any runs (without JS the list reloads itself instead).
With `VICARAN_DASHBOARD_TOKEN` set, every request must present the token:
`access.AccessMiddleware` enforces it on the whole server (and turns a one-time `?token=` into a
cookie); the routes here check it again (Bearer header or that cookie), so the
router is never open when it is mounted without the middleware. The page frame, its headers and
the "Access token needed" page are `pages`' (Jinja2 templates).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from markupsafe import Markup

from .. import export
from ..config import get_settings
from ..formatting import json_for_html
from ..read_model import InvestigationListItem, InvestigationView
from ..storage import Repository, get_repository
from ..storage.reads import AmbiguousIdError
from . import access, pages, views
from .pages import STATIC_DIR, STATIC_PREFIX

COOKIE_NAME = access.COOKIE_NAME
COMPLETE_MARKER = export.COMPLETE_MARKER
_STATIC_TYPES = {"dashboard.css": "text/css", "dashboard.js": "text/javascript"}
_SNAPSHOT_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
}
Handler = Callable[[Request], Awaitable[Response]]


def dashboard_router() -> APIRouter:
    """The read API, the dashboard pages and their two static files."""
    router = APIRouter()
    routes: list[tuple[str, Handler, bool]] = [
        ("/api/investigations", _api_list, False),
        ("/api/investigations/{investigation_id}", _api_one, False),
        ("/api/investigations/{investigation_id}/snapshots/{sha256}", _api_snapshot, False),
        ("/api/investigations/{investigation_id}/archives/{archive_id}", _api_archive, False),
        ("/api/investigations/{investigation_id}/export", _api_export, False),
        ("/investigations", _page_list, True),
        ("/investigations/{investigation_id}", _page_one, True),
        ("/investigations/{investigation_id}/claims/{number}", _page_claim, True),
    ]
    for path, handler, page in routes:
        router.add_api_route(
            path, guarded(handler, page=page), methods=["GET"], include_in_schema=not page
        )
    router.add_api_route(
        STATIC_PREFIX + "/{name}", _static, methods=["GET"], include_in_schema=False
    )
    return router


# --- access --------------------------------------------------------------------------------


def guarded(handler: Handler, *, page: bool) -> Handler:
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


async def _investigations() -> list[InvestigationListItem]:
    url = get_settings().database_url
    return await asyncio.to_thread(lambda: get_repository(url).list_investigations())


async def _investigation(investigation_id: str) -> InvestigationView | str:
    """The investigation `investigation_id` (or a unique short id) names, else why not."""
    url = get_settings().database_url
    try:
        found = await asyncio.to_thread(
            lambda: get_repository(url).get_investigation(investigation_id)
        )
    except AmbiguousIdError as error:  # a short id several ids start with: say which
        return str(error)
    return found if found is not None else "investigation not found"


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status, headers={"Cache-Control": "no-store"})


async def _api_list(request: Request) -> Response:
    return _json([item.model_dump(mode="json") for item in await _investigations()])


async def _api_one(request: Request) -> Response:
    investigation = await _investigation(request.path_params["investigation_id"])
    if isinstance(investigation, str):
        return _json({"success": False, "error": investigation}, 404)
    rendered = await asyncio.to_thread(views.report_html, investigation, get_settings())
    return _json({**investigation.model_dump(mode="json"), "summary_html": rendered})


async def _api_snapshot(request: Request) -> Response:
    """The stored text one of the investigation's records rests on (its SHA-256 is its name)."""
    investigation_id = request.path_params["investigation_id"]
    sha256 = request.path_params["sha256"]
    text = None
    if export.is_sha256(sha256):
        url = get_settings().database_url

        def load() -> str | None:
            repository = get_repository(url)
            full_id = _full_id(repository, investigation_id)
            return None if full_id is None else repository.get_snapshot(full_id, sha256)

        text = await asyncio.to_thread(load)
    if text is None:
        return _json({"success": False, "error": "snapshot not found"}, 404)
    return Response(text, media_type="text/plain; charset=utf-8", headers=_SNAPSHOT_HEADERS)


async def _api_archive(request: Request) -> Response:
    """One page as Vicaran read it: its WARC records (request, response, what it stands for)."""
    investigation_id = request.path_params["investigation_id"]
    number = request.path_params["archive_id"]
    url = get_settings().database_url

    def load() -> tuple[str, bytes] | None:
        repository = get_repository(url)
        full_id = _full_id(repository, investigation_id)
        if full_id is None or not number.isdigit() or len(number) > 12:
            return None
        records = repository.get_captures(full_id, [int(number)]).get(int(number))
        return None if records is None else (full_id, records)

    loaded = await asyncio.to_thread(load)
    if loaded is None:
        return _json({"success": False, "error": "archived copy not found"}, 404)
    full_id, records = loaded
    name = f"vicaran-{full_id[:8]}-page-{number}.warc.gz"
    return Response(records, media_type=export.FORMATS["warc"].media_type, headers=_download(name))


def _full_id(repository: Repository, investigation_id: str) -> str | None:
    """The investigation an id or a unique short id names; None when it names none, or several
    (the records under it are then not found, as for an unknown id)."""
    try:
        return repository.resolve_id(investigation_id)
    except AmbiguousIdError:
        return None


def _download(name: str) -> dict[str, str]:
    return {
        "Content-Disposition": f'attachment; filename="{name}"',
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
    }


async def _api_export(request: Request) -> Response:
    """The investigation as a download: `?format=md|html|json|claimreview|warc`."""
    fmt = request.query_params.get("format", "")
    if fmt not in export.FORMATS:
        error = f"unknown export format {fmt!r}: use md, html, json, claimreview or warc"
        return _json({"success": False, "error": error}, 400)
    investigation_id = request.path_params["investigation_id"]
    url = get_settings().database_url

    def load() -> tuple[str, bytes] | None:
        repository = get_repository(url)
        try:
            investigation = repository.get_investigation(investigation_id)
        except AmbiguousIdError:
            return None
        if investigation is None:
            return None
        if fmt in export.BINARY:
            return investigation.id, export.web_archive(repository, investigation)
        texts = fmt in export.WITH_SNAPSHOTS
        snapshots = repository.get_snapshots(investigation.id) if texts else {}
        text = export.render(fmt, investigation, snapshots, settings=get_settings())
        return investigation.id, text.encode("utf-8")

    loaded = await asyncio.to_thread(load)
    if loaded is None:
        return _json({"success": False, "error": "investigation not found"}, 404)
    full_id, data = loaded
    headers = _download(export.filename(full_id, fmt))
    if fmt == "html":
        headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    return Response(data, media_type=export.FORMATS[fmt].media_type, headers=headers)


async def _page_list(request: Request) -> Response:
    items = await _investigations()
    running = any(item.status in views.RUNNING for item in items)
    # Without JS the page reloads itself while a run goes on; with JS the script polls instead.
    body = views.list_body(items)
    if pages.wants_fragment(request.headers):
        return pages.fragment(body)
    refresh = views.render("refresh.html", seconds=views.POLL_SECONDS) if running else ""
    return pages.page("Investigations", body, head=refresh)


async def _page_one(request: Request) -> Response:
    investigation = await _investigation(request.path_params["investigation_id"])
    if isinstance(investigation, str):
        body = views.not_found_body(
            "Investigation not found", "/investigations", "See all investigations"
        )
        return pages.page("Not found", body, status=404)
    body = await asyncio.to_thread(views.detail_body, investigation)  # the summary's Markdown
    if pages.wants_fragment(request.headers):
        return pages.fragment(body)
    lang = views.page_language(investigation)
    return pages.page(investigation.title or "Investigation", body, lang=lang)


async def _page_claim(request: Request) -> Response:
    """The report's n-th checked claim: its verdict and evidence, and its ClaimReview alone."""
    found = await _investigation(request.path_params["investigation_id"])
    investigation = None if isinstance(found, str) else found
    checks = investigation.fact_checks if investigation else []
    number = claim_number(request.path_params["number"], len(checks))
    if investigation is None or number is None:
        if investigation:
            back = (views.page_path(investigation.id), "Back to the investigation")
        else:
            back = ("/investigations", "See all investigations")
        return pages.page("Not found", views.not_found_body("Claim not found", *back), status=404)
    review = export.claim_reviews(investigation, get_settings())[number - 1]
    head = views.render("claim_head.html", review=review, review_json=Markup(json_for_html(review)))
    check = checks[number - 1]
    body = views.claim_body(investigation, number, review)
    lang = views.page_language(investigation)
    return pages.page(check.claim_text, body, head=head, lang=lang)


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

"""The editors' desk over HTTP: a decision on a checked claim, and the audit log.

    POST /api/investigations/{id}/claims/{n}/review   {"action", "verdict"?, "note"?, "reviewer"}
    GET  /api/investigations/{id}/audit

`n` is the claim's 1-based place in the report. Behind the same token and Host check as every
route; a write authenticated by the dashboard's cookie must come from the dashboard's own origin.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from ..config import get_settings
from ..storage import get_repository
from ..storage.base import UnknownInvestigationError
from ..storage.reads import AmbiguousIdError
from ..storage.reviews import ReviewRefused, UnknownClaimError
from . import access
from .dashboard import claim_number, guarded

MAX_BODY = 16_384


def reviews_router() -> APIRouter:
    router = APIRouter()
    router.add_api_route(
        "/api/investigations/{investigation_id}/claims/{number}/review",
        _review,
        methods=["POST"],
    )
    router.add_api_route(
        "/api/investigations/{investigation_id}/audit", guarded(_audit, page=False), methods=["GET"]
    )
    return router


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status, headers={"Cache-Control": "no-store"})


def _error(message: str, status: int) -> JSONResponse:
    return _json({"success": False, "error": message}, status)


async def _review(request: Request) -> Response:
    token = access.configured_token()
    how = access.credential(request.headers, b"", token) if token else None
    if token and how is None:
        return access.refusal(False)
    if how != "header" and not _same_origin(request):
        return _error("a review from another site is refused: post it from the dashboard", 403)
    if "json" not in request.headers.get("content-type", ""):
        return _error("send the review as JSON (Content-Type: application/json)", 415)
    body = await request.body()
    try:
        data = json.loads(body[:MAX_BODY]) if len(body) <= MAX_BODY else None
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        return _error(f"the body must be a JSON object of at most {MAX_BODY:,} bytes", 400)
    url = get_settings().database_url
    repository = get_repository(url)
    given = request.path_params["investigation_id"]
    try:
        investigation_id = await asyncio.to_thread(repository.resolve_id, given)
    except AmbiguousIdError as error:
        return _error(str(error), 404)
    if investigation_id is None:
        return _error("investigation not found", 404)
    number = claim_number(request.path_params["number"], 10**6)
    if number is None:
        return _error("claim not found", 404)
    fields = {k: data.get(k) for k in ("action", "reviewer", "verdict", "note")}
    if not all(isinstance(v, str) or v is None for v in fields.values()):
        return _error("action, reviewer, verdict and note are strings", 400)
    try:
        entry = await asyncio.to_thread(
            repository.add_review,
            investigation_id,
            number,
            action=fields["action"] or "",
            reviewer=fields["reviewer"] or "",
            verdict=fields["verdict"],
            note=fields["note"] or "",
        )
    except ReviewRefused as error:
        return _error(str(error), 400)
    except (UnknownClaimError, UnknownInvestigationError):
        return _error("claim not found", 404)
    return _json({"success": True, "entry": entry.model_dump(mode="json")}, 201)


async def _audit(request: Request) -> Response:
    repository = get_repository(get_settings().database_url)
    given = request.path_params["investigation_id"]
    try:
        investigation_id = await asyncio.to_thread(repository.resolve_id, given)
    except AmbiguousIdError as error:
        return _error(str(error), 404)
    entries = (
        await asyncio.to_thread(repository.audit, investigation_id) if investigation_id else None
    )
    if entries is None:
        return _error("investigation not found", 404)
    return _json([entry.model_dump(mode="json") for entry in entries])


def _same_origin(request: Request) -> bool:
    """A browser's write comes from the page's own origin (`Origin`, else `Referer`); a client
    that sends neither is not a browser on another site."""
    origin = request.headers.get("origin") or request.headers.get("referer")
    if not origin:
        return True
    host = request.headers.get("host", "")
    try:
        return urlsplit(origin).netloc.lower() == host.lower()
    except ValueError:
        return False

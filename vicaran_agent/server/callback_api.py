"""POST /api/agent-callback: the callback API contract, served (docs/callback-api.md).

Every request is authenticated (`X-Agent-Secret`, constant time), validated per type and
written into Vicaran's own embedded store. An `Idempotency-Key` makes retries safe: the
first 2xx answer is stored and replayed. The key is claimed by inserting its row (the primary
key) before writing, so of concurrent requests with one key, on any number of replicas, one
writes and the others wait for its stored answer; a failed request releases its claim.

Validation is strict: a body over `VICARAN_CALLBACK_MAX_BODY_BYTES` is 413 (Content-Length
checked first, the body read with a cap), JSON nested deeper than `MAX_JSON_DEPTH` is 400
(checked before parsing), values must have their JSON type (no `"5"` for 5, no `"yes"` for
true) and texts have the length limits `callback_data` sets (the models, one per type, are
there; the writes are `callback_writes`). `INVESTIGATION_STARTED` cannot reopen an
investigation that has finished (409).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import re
import uuid
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import (
    ValidationError,
)

from ..config import Settings, get_settings
from ..storage.repository import (
    IDEMPOTENCY_PENDING,
    Repository,
    get_repository,
)
from .callback_data import DATA_MODELS, NOT_FOUND, CallbackError
from .callback_writes import Writer

logger = logging.getLogger(__name__)


CALLBACK_PATH = "/api/agent-callback"


SECRET_HEADER = "X-Agent-Secret"


IDEMPOTENCY_HEADER = "Idempotency-Key"


IDEMPOTENCY_KEY_MAX_CHARS = 255  # the store's key column


UNAUTHORIZED = "Unauthorized"


KEY_REUSED = "Idempotency-Key reused with a different request"


KEY_BUSY = "a request with this Idempotency-Key is still being processed: retry later"


# A replay waits this long for the original request (on any replica) to store its answer.
IDEMPOTENCY_WAIT_SECONDS = 30.0


IDEMPOTENCY_POLL_SECONDS = 0.05


# A claim without an answer this old belongs to a process that died: it is taken over.
IDEMPOTENCY_STALE_SECONDS = 120.0


INTERNAL = "internal error"


MAX_JSON_DEPTH = 32  # objects and arrays inside each other; the contract needs 5


def _reply(status_code: int, body: dict[str, Any]) -> JSONResponse:
    return JSONResponse(status_code=status_code, content=body)


def _failure(message: str) -> dict[str, Any]:
    return {"success": False, "error": message}


def _describe(type_: str, error: ValidationError) -> str:
    """`invalid data for TYPE: data.field: message; ...` (first few problems)."""
    problems = []
    for item in error.errors()[:5]:
        where = ".".join(str(part) for part in ("data", *item["loc"]))
        problems.append(f"{where}: {item['msg']}")
    more = len(error.errors()) - len(problems)
    if more > 0:
        problems.append(f"and {more} more")
    return f"invalid data for {type_}: " + "; ".join(problems)


def _authorized(settings: Settings, presented: str | None) -> bool:
    expected = settings.agent_secret.strip()
    if not expected:
        logger.warning(
            "callback refused: AGENT_SECRET must be set for the callback API to accept writes"
        )
        return False
    if presented is None:
        return False
    return hmac.compare_digest(presented.strip().encode(), expected.encode())


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_JSON_STRUCTURE = re.compile(r'[\[\]{}"\\]')  # one character class: linear time


def json_too_deep(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether arrays and objects in `text` nest deeper than `limit` (strings skipped).

    One pass over the structural characters, before any parsing: a body nested thousands deep
    would otherwise exhaust the parser's recursion.
    """
    depth = 0
    in_string = False
    escaped_at = -1
    for match in _JSON_STRUCTURE.finditer(text):
        at = match.start()
        char = text[at]
        if in_string:
            if at == escaped_at:
                continue
            if char == "\\":
                escaped_at = at + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _parse_envelope(raw: bytes) -> tuple[str, str, dict[str, Any]]:
    """(type, canonical investigation id, data) or a 400 CallbackError."""
    try:
        text = raw.decode(json.detect_encoding(raw), "surrogatepass")  # as json.loads does
        if json_too_deep(text):
            raise CallbackError(400, f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
        body = json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise CallbackError(400, f"malformed JSON body: {exc}") from None
    except RecursionError:  # not reachable within MAX_JSON_DEPTH; never a 500 all the same
        raise CallbackError(400, f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    if not isinstance(body, dict):
        raise CallbackError(400, "the body must be a JSON object with type, investigation_id, data")
    type_ = body.get("type")
    if not isinstance(type_, str) or not type_:
        hint = " (not 'callback_type')" if "callback_type" in body else ""
        raise CallbackError(400, f"field 'type' is required and must be a string{hint}")
    if type_ not in DATA_MODELS:
        raise CallbackError(
            400, f"unknown type {type_!r}; expected one of: {', '.join(DATA_MODELS)}"
        )
    investigation_id = body.get("investigation_id")
    try:
        if not isinstance(investigation_id, str):
            raise ValueError
        canonical = str(uuid.UUID(investigation_id.strip()))
    except ValueError:
        raise CallbackError(400, "field 'investigation_id' must be a UUID string") from None
    data = body.get("data")
    if not isinstance(data, dict):
        raise CallbackError(400, "field 'data' is required and must be a JSON object")
    return type_, canonical, data


def request_hash(type_: str, investigation_id: str, data: dict[str, Any]) -> str:
    """sha256 of the canonical request (sorted keys), for Idempotency-Key comparisons."""
    canonical = json.dumps(
        {"type": type_, "investigation_id": investigation_id, "data": data}, sort_keys=True
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


async def _claim_key(repo: Repository, key: str, digest: str) -> tuple[int, dict[str, Any]] | None:
    """None when this request now owns `key`; else the original answer (or a refusal).

    Waits (bounded) while another request, on any replica, is writing for the same key.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + IDEMPOTENCY_WAIT_SECONDS
    while True:
        held = await asyncio.to_thread(
            repo.claim_idempotent, key, digest, IDEMPOTENCY_STALE_SECONDS
        )
        if held is None:
            return None
        stored_hash, status_code, body = held
        if stored_hash != digest:
            raise CallbackError(409, KEY_REUSED)
        if status_code != IDEMPOTENCY_PENDING:
            return status_code, body
        if loop.time() > deadline:
            raise CallbackError(503, KEY_BUSY)
        await asyncio.sleep(IDEMPOTENCY_POLL_SECONDS)


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, or a 413 CallbackError past `limit` bytes (never read past it)."""
    too_large = CallbackError(
        413, f"request body too large: at most {limit} bytes (VICARAN_CALLBACK_MAX_BODY_BYTES)"
    )
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.strip().isdigit():
            raise CallbackError(400, "invalid Content-Length header")
        if int(declared) > limit:
            raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_large
    return bytes(body)


def callback_router() -> APIRouter:
    """The router serving `POST /api/agent-callback`."""
    router = APIRouter()

    async def handle(request: Request, settings: Settings) -> tuple[int, dict[str, Any]]:
        """(status, body) of one accepted callback; raises CallbackError for refusals."""
        if not _authorized(settings, request.headers.get(SECRET_HEADER)):
            raise CallbackError(401, UNAUTHORIZED)
        raw = await read_body(request, settings.vicaran_callback_max_body_bytes)
        type_, investigation_id, raw_data = await asyncio.to_thread(_parse_envelope, raw)
        request.state.callback = (type_, investigation_id)
        key = request.headers.get(IDEMPOTENCY_HEADER)
        if key is not None and not 0 < len(key.strip()) <= IDEMPOTENCY_KEY_MAX_CHARS:
            raise CallbackError(
                400, f"{IDEMPOTENCY_HEADER} must be 1 to {IDEMPOTENCY_KEY_MAX_CHARS} characters"
            )
        key = key.strip() if key is not None else None
        try:
            data = DATA_MODELS[type_].model_validate(raw_data, strict=True)
        except ValidationError as exc:
            raise CallbackError(400, _describe(type_, exc)) from None

        repo = get_repository(settings.database_url)
        digest = request_hash(type_, investigation_id, raw_data)
        if key is not None:
            seen = await _claim_key(repo, key, digest)
            if seen is not None:
                return seen
        try:
            # A finished investigation is never reopened: the store refuses it atomically.
            if type_ != "INVESTIGATION_STARTED":
                status = await asyncio.to_thread(repo.get_status, investigation_id)
                if status is None:
                    raise CallbackError(404, NOT_FOUND)
            writer = Writer(repo, investigation_id)
            body = await writer.handler(type_)(data)
        except BaseException:
            if key is not None:  # only a success is kept: a retry with this key may proceed
                repo.release_idempotent(key)  # sync: also runs when this task is cancelled
            raise
        if key is not None:
            try:
                await asyncio.to_thread(repo.put_idempotent, key, digest, 200, body)
            except Exception:  # logged (so not blind): the record is saved, answer success
                logger.exception("could not store the reply for Idempotency-Key %r", key)
        return 200, body

    @router.post(CALLBACK_PATH)
    async def agent_callback(request: Request) -> JSONResponse:
        """Authenticate, validate and save one record of the callback API contract."""
        settings = get_settings()
        try:
            status_code, body = await handle(request, settings)
        except CallbackError as refusal:
            status_code, body = refusal.status_code, _failure(refusal.message)
        except Exception:  # logged (so not blind): any other failure is a 500, no stack trace
            logger.exception("callback failed")
            status_code, body = 500, _failure(INTERNAL)
        if settings.debug_mode:
            type_, investigation_id = getattr(request.state, "callback", (None, None))
            logger.info(
                "callback %s investigation=%s -> %s %s",
                type_,
                investigation_id,
                status_code,
                json.dumps(body, sort_keys=True),
            )
        return _reply(status_code, body)

    return router

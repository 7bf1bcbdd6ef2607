"""No request body past VICARAN_MAX_REQUEST_BYTES is read: 413 first.

ADK's `/run` and `/run_sse` (and every other route that takes a body) parse the whole body before
anything looks at it: an 80 MB message of base64 attachments once cost the server 660 MB. This
middleware sits in front of them, for every HTTP request but `POST /api/agent-callback` (which
has its own VICARAN_CALLBACK_MAX_BODY_BYTES):

- a `Content-Length` over the limit is answered 413 at once, and nothing of the body is read
  (the server's HTTP layer never delivers more than a declared length);
- a body without one (chunked) is counted as it is read; past the limit the 413 is sent, the
  route is told the client left, and whatever the route answers after that is dropped.

The answer is JSON, `{"success": false, "error": <one sentence>}` (in Portuguese when the
client's Accept-Language asks for it), and the connection is closed.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..config import get_settings
from ..i18n import ENGLISH, PORTUGUESE, message
from .access import CALLBACK_PATH

TOO_LARGE = 413


def refusal(limit: int, document: int, accept_language: str) -> JSONResponse:
    """The 413 answer: one sentence that says the limit and how to stay within it."""
    language = PORTUGUESE if accept_language.strip().lower().startswith("pt") else ENGLISH
    sentence = message("request_too_large", language, limit=f"{limit:,}", document=f"{document:,}")
    return JSONResponse(
        {"success": False, "error": sentence},
        TOO_LARGE,
        headers={"Connection": "close", "Cache-Control": "no-store"},
    )


def declared_length(headers: Headers) -> int | None:
    """The Content-Length the client declared (None without one; the HTTP server has already
    refused a malformed one)."""
    value = headers.get("content-length")
    if value is None or not value.strip().isdigit():
        return None
    return int(value)


class BodyLimitMiddleware:
    """413 for a request body over VICARAN_MAX_REQUEST_BYTES, before it is read."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or (
            _path(scope) == CALLBACK_PATH and scope.get("method") == "POST"
        ):
            await self.app(scope, receive, send)
            return
        settings = get_settings()
        limit = settings.max_request_bytes
        headers = Headers(scope=scope)
        answer = refusal(
            limit, settings.vicaran_document_max_bytes, headers.get("accept-language", "")
        )
        length = declared_length(headers)
        if length is not None:
            if length > limit:
                await answer(scope, receive, send)
                return
            await self.app(scope, receive, send)  # never more than declared reaches the app
            return

        received = 0
        refused = False
        started = False

        async def counted() -> Message:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message_ = await receive()
            if message_["type"] == "http.request":
                received += len(message_.get("body", b""))
                if received > limit:
                    refused = True
                    if not started:
                        await answer(scope, receive, send)
                    return {"type": "http.disconnect"}
            return message_

        async def guarded(message_: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 is the answer: whatever the route says after it is dropped
            if message_["type"] == "http.response.start":
                started = True
            await send(message_)

        try:
            await self.app(scope, counted, guarded)
        except Exception:
            if not refused:
                raise
            # The route failed on the body it was not given: the 413 has answered it.


def _path(scope: Scope) -> str:
    """The request's path below the app's root path."""
    path: str = scope.get("path", "")
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path

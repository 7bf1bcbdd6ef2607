"""One access rule for everything `vicaran serve` answers on its port.

`AccessMiddleware` wraps the whole app (ADK's dev UI and API, the callback API, the read API
and the dashboard), for `http` and `websocket` requests alike, before any route runs:

1. Host check (DNS rebinding of the server itself): the Host header, without its port, must be
   one of `VICARAN_ALLOWED_HOSTS` (default: 127.0.0.1, localhost, ::1 and the bound host; `*`
   turns the check off, e.g. behind a proxy that checks it). Otherwise 421 with a one-line
   message (a websocket is closed with code 1008).
2. With `VICARAN_DASHBOARD_TOKEN` set, every request must present the token, except
   `POST /api/agent-callback` (it takes `X-Agent-Secret`) and `GET /healthz`: an
   `Authorization: Bearer <token>` header, or the cookie set from a one-time `?token=<token>`.
   A GET or HEAD with a valid `?token=` is answered with 303 to the same address without it,
   setting the cookie (HttpOnly, SameSite=Strict, a value derived from the token, not the token);
   other methods and websockets are let through with the token removed from the query.
   Refused: 401, the "Access token needed" page for pages, JSON for the APIs (a websocket is
   closed with code 1008).

`?token=` values never reach the logs: `redact_token_logs()` puts a filter on uvicorn's access
and error loggers that replaces them with `[redacted]`.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
from typing import Any
from urllib.parse import quote, unquote_plus

from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..config import Settings, get_settings
from .pages import token_page

COOKIE_NAME = "vicaran_dashboard"
TOKEN_PARAM = "token"
HEALTH_PATH = "/healthz"
CALLBACK_PATH = "/api/agent-callback"
DEFAULT_HOSTS = ("127.0.0.1", "localhost", "::1")
UNAUTHORIZED = "Unauthorized"
POLICY_VIOLATION = 1008  # websocket close code
_LOGGERS = ("uvicorn.access", "uvicorn.error")
_TOKEN_IN_URL = re.compile(r"([?&;]token=)[^&;#\s\"']*", re.IGNORECASE)
_PAGE_PREFIXES = ("/investigations", "/dev-ui")


# --- the token -----------------------------------------------------------------------------


def configured_token(settings: Settings | None = None) -> str:
    """The dashboard token, "" when none is set (then everything is open)."""
    return (settings or get_settings()).vicaran_dashboard_token.strip()


def same(presented: str | None, expected: str) -> bool:
    """Constant-time comparison."""
    return presented is not None and hmac.compare_digest(presented.encode(), expected.encode())


def cookie_value(token: str) -> str:
    """The cookie holds a value derived from the token, not the token itself."""
    return hmac.new(token.encode(), b"vicaran-dashboard-cookie", hashlib.sha256).hexdigest()


def query_token(query_string: bytes) -> str | None:
    """The value of the first `token=` parameter (its name exactly so, not percent-encoded)."""
    for part in query_string.split(b"&"):
        name, equals, value = part.partition(b"=")
        if name == TOKEN_PARAM.encode() and equals:
            return unquote_plus(value.decode("latin-1"))
    return None


def without_token(query_string: bytes) -> bytes:
    """The query string with every `token` parameter removed, the rest kept as sent."""
    name = TOKEN_PARAM.encode()
    kept = [p for p in query_string.split(b"&") if p and p.partition(b"=")[0] != name]
    return b"&".join(kept)


def credential(headers: Headers, query_string: bytes, token: str) -> str | None:
    """How the request proved it knows the token ("header", "cookie", "query"), or None."""
    if same(query_token(query_string), token):  # first: the token must leave the address
        return "query"
    scheme, _, value = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and same(value.strip(), token):
        return "header"
    cookies = cookie_parser(headers.get("cookie", ""))
    if same(cookies.get(COOKIE_NAME), cookie_value(token)):
        return "cookie"
    return None


def cookie_header(token: str, *, secure: bool) -> tuple[bytes, bytes]:
    """The `Set-Cookie` header that stands for the token from now on."""
    response = Response()
    response.set_cookie(
        COOKIE_NAME, cookie_value(token), httponly=True, samesite="strict", secure=secure, path="/"
    )
    return next((k, v) for k, v in response.raw_headers if k == b"set-cookie")


def refusal(page: bool) -> Response:
    """401: the "Access token needed" page for a page, JSON for an API."""
    headers = {"WWW-Authenticate": "Bearer", "Cache-Control": "no-store"}
    if not page:
        return JSONResponse({"success": False, "error": UNAUTHORIZED}, 401, headers=headers)
    return token_page(headers)


def wants_page(path: str, headers: Headers) -> bool:
    """Whether a refusal should be a page (a browser navigation) rather than JSON."""
    if path == "/" or path.startswith(_PAGE_PREFIXES):
        return True
    return "text/html" in headers.get("accept", "").lower()


# --- the host ------------------------------------------------------------------------------


def host_name(value: str | None) -> str | None:
    """The host of a Host header value, lowercase, without port, brackets or final dot."""
    if not value or not value.strip():
        return None
    value = value.strip().lower()
    if value.startswith("["):  # [::1]:8000
        end = value.find("]")
        host = value[1:end] if end != -1 else value[1:]
    elif value.count(":") == 1:  # name:port
        host = value.partition(":")[0]
    else:  # a name, or a bare IPv6 address
        host = value
    return host.rstrip(".") or None


def allowed_hosts(settings: Settings, bound_host: str) -> frozenset[str] | None:
    """The Host values answered; None means any (`VICARAN_ALLOWED_HOSTS=*`)."""
    configured = [host_name(h) for h in settings.allowed_hosts]
    if "*" in settings.allowed_hosts:
        return None
    if any(configured):
        return frozenset(h for h in configured if h)
    return frozenset(h for h in (*DEFAULT_HOSTS, host_name(bound_host)) if h)


def _misdirected(host: str | None) -> Response:
    shown = "no Host header" if host is None else f"host {host[:100]!r}"
    message = (
        f"421 Misdirected Request: this server does not answer for {shown}; "
        "add it to VICARAN_ALLOWED_HOSTS\n"
    )
    return PlainTextResponse(
        message, 421, headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}
    )


# --- the middleware ------------------------------------------------------------------------


class AccessMiddleware:
    """The host check and the token, in front of every route (see the module docstring)."""

    def __init__(self, app: ASGIApp, *, bound_host: str = "127.0.0.1") -> None:
        self.app = app
        self.bound_host = bound_host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        settings = get_settings()
        headers = Headers(scope=scope)
        websocket = scope["type"] == "websocket"
        allowed = allowed_hosts(settings, self.bound_host)
        host = host_name(headers.get("host"))
        if allowed is not None and host not in allowed:
            if websocket:
                await _close(send, "Host not allowed")
            else:
                await _misdirected(host)(scope, receive, send)
            return
        path = _route_path(scope)
        method = scope.get("method", "")
        if not websocket and (
            (path == HEALTH_PATH and method in ("GET", "HEAD"))
            or (path == CALLBACK_PATH and method == "POST")
        ):
            await self.app(scope, receive, send)
            return
        token = configured_token(settings)
        if not token:
            await self.app(scope, receive, send)
            return
        query = scope.get("query_string", b"")
        via = credential(headers, query, token)
        if via is None:
            if websocket:
                await _close(send, UNAUTHORIZED)
            else:
                await refusal(wants_page(path, headers))(scope, receive, send)
            return
        if via != "query":
            await self.app(scope, receive, send)
            return
        # A one-time ?token=: it becomes a cookie and leaves the address.
        rest = without_token(query)
        cookie = cookie_header(token, secure=scope.get("scheme") in ("https", "wss"))
        if not websocket and method in ("GET", "HEAD"):
            location = _local_path(scope) + ("?" + rest.decode("latin-1") if rest else "")
            response = RedirectResponse(
                location,
                303,
                headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"},
            )
            response.raw_headers.append(cookie)
            await response(scope, receive, send)
            return
        inner = {**scope, "query_string": rest}
        if websocket:
            await self.app(inner, receive, send)
            return

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), cookie]}
            await send(message)

        await self.app(inner, receive, send_with_cookie)


async def _close(send: Send, reason: str) -> None:
    """Refuse a websocket before accepting it (the server answers the handshake with 403)."""
    await send({"type": "websocket.close", "code": POLICY_VIOLATION, "reason": reason})


def _route_path(scope: Scope) -> str:
    path: str = scope.get("path", "")
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def _local_path(scope: Scope) -> str:
    """The request's path as sent, always a path on this server (never `//host/...`)."""
    raw: Any = scope.get("raw_path")
    path = raw.decode("latin-1") if isinstance(raw, bytes) else quote(scope.get("path", "/"))
    return "/" + path.lstrip("/\\")


# --- the logs ------------------------------------------------------------------------------


class RedactTokens(logging.Filter):
    """Replaces `token=` values in a log record (uvicorn logs the request line with its query)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {
                k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()
            }
        return True


def redact(text: str) -> str:
    """`text` with the value of every `token=` query parameter replaced by `[redacted]`."""
    if "token=" not in text.lower():
        return text
    return _TOKEN_IN_URL.sub(r"\1[redacted]", text)


def redact_token_logs() -> None:
    """Install `RedactTokens` on uvicorn's access and error loggers (once)."""
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())

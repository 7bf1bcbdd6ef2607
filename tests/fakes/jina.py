"""A loopback fake of Jina Reader (`GET /{target}` and `POST /`), per external-apis.md §2.

    pages = {"https://news.example/a": Page("Headline", "# Headline\\n\\nBody ...")}
    with FakeJinaReader(pages) as reader:
        httpx.get(f"{reader.url}/https%3A%2F%2Fnews.example%2Fa")  # -> text/plain Reader format

The target is taken from the request as jina-ai/reader `src/api/crawler.ts` takes it (2026-05):
the path and query of the request URL, dot segments resolved (WHATWG URL), URI-decoded ONCE
(`tryDecodeURIComponent`: a malformed escape leaves the whole string as is), the leading `/`
dropped, a repeated protocol fixed (`_attemptURLFix`) and the result parsed as a URL. So an
address appended raw loses its own escapes (`a%26b` reaches the site as `a&b`) and one
percent-encoded whole arrives intact. `POST /` takes `{"url": ...}` as given.

`Published Time` is what `src/services/snapshot-formatter.ts` prints: Readability's
`publishedTime` (JSON-LD `datePublished`, else the `article:published_time` or
`parsely-pub-date` meta tag), else the `article:published_time` meta tag, else the target
server's `Last-Modified` header, each exactly as written. A page with no date metadata gets its
server's Last-Modified (the time of the read unless `Page.last_modified` says otherwise), so a
page "published today" is what a client that trusts that line sees. The JSON envelope's
`data.metadata` holds the page's `<meta name|property content>` tags, as Reader collects them.

Unknown targets answer 422 "No content available", loopback/private targets 451 (the real
Reader refuses them; `refuse_private=False` lets it "read" pages configured for a FakeWeb
URL). `fail(target, kind)` injects an error status, "captcha"/"binary" garbage (HTTP 200) or
"hang", for one target (or every target with target=None), optionally N times. Injected
failures take precedence over everything but URL validation.

`GET /` without a target answers Reader's index (`CrawlerHost.getIndex`, jina-ai/reader
src/api/crawler.ts): `[Usage 1] https://r.jina.ai/YOUR_URL` and the other lines; with a key, the
hosted service checks it first (401 for a wrong one) and adds `[Authenticated as]` and
`[Balance left]` (the SaaS code of commit 988413d). A key whose `balance` is spent gets 402
`InsufficientBalanceError` for every read.
"""

from __future__ import annotations

import ipaddress
import json
import time
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from tests.fakes.server import FailureQueue, FakeServer, RecordedRequest, Response

READ_TIME = "at read time"  # Page.last_modified: the server's clock when the page is read


@dataclass
class Page:
    """What Reader extracted from one target URL, and what the page and its server said."""

    title: str
    content: str  # Markdown
    published_time: str | None = None  # the page's <meta property="article:published_time">
    warning: str | list[str] | None = None
    description: str = ""
    metadata: dict[str, str | list[str]] = field(default_factory=dict)  # other <meta> tags
    json_ld_published: str | None = None  # JSON-LD datePublished (Readability reads it first)
    last_modified: str | None = READ_TIME  # the target server's Last-Modified header

    @property
    def meta_tags(self) -> dict[str, str | list[str]]:
        """`data.metadata`: the page's meta tags by name or property."""
        tags = dict(self.metadata)
        if self.published_time:
            tags["article:published_time"] = self.published_time
        return tags

    def reader_published_time(self) -> str | None:
        """snapshot-formatter.ts: `parsed.publishedTime || metadata['article:published_time']
        || lastModified`, Readability's being JSON-LD, then article:published_time, then
        parsely-pub-date."""
        tags = self.meta_tags
        readability = (
            self.json_ld_published
            or _first(tags.get("article:published_time"))
            or _first(tags.get("parsely-pub-date"))
        )
        last_modified = self.last_modified
        if last_modified == READ_TIME:
            last_modified = formatdate(time.time(), usegmt=True)
        return readability or _first(tags.get("article:published_time")) or last_modified

    @property
    def warnings(self) -> list[str]:
        if not self.warning:
            return []
        return [self.warning] if isinstance(self.warning, str) else list(self.warning)


# name, status (first three digits = HTTP code), default message
_ERRORS: dict[int, tuple[str, int, str]] = {
    400: ("ParamValidationError", 40001, "Invalid URL or protocol."),
    401: (
        "AuthenticationFailedError",
        40102,
        "Invalid API key, please get a new one from https://jina.ai",
    ),
    402: (
        "InsufficientBalanceError",
        40203,
        "Account balance not enough to run this query, please recharge.",
    ),
    422: ("AssertionFailureError", 42206, "No content available for URL {url}"),
    429: ("RateLimitTriggeredError", 42903, "Per IP rate limit exceeded (20 RPM)."),
    451: (
        "SecurityCompromiseError",
        45102,
        "Suspicious action: Request to localhost or private network is not allowed: {url}",
    ),
    500: ("InternalServerError", 50000, "Internal server error."),
    503: ("ServiceCrashedError", 50302, "Service crashed, please try again later."),
}

CAPTCHA_PAGE = Page(
    title="Attention Required! | Cloudflare",
    content=(
        "# Sorry, you have been blocked\n\n"
        "## You are unable to access this website\n\n"
        "Please enable cookies. This website is using a security service to protect itself "
        "from online attacks. Please complete the security check (CAPTCHA) to continue.\n\n"
        "Cloudflare Ray ID: 8c2f1a2b3c4d5e6f • Performance & security by Cloudflare"
    ),
    warning="This page maybe requiring CAPTCHA, please make sure you are authorized to access "
    "this page.",
)

BINARY_JUNK = bytes(range(256)).decode("latin-1") * 8


@dataclass
class _Failure:
    target: str | None
    kind: int | str  # HTTP status, "captcha", "binary" or "hang"
    remaining: int | None
    retry_after: str
    message: str | None


class FakeJinaReader(FakeServer):
    """Fake Jina Reader serving `pages` ({target URL: Page})."""

    def __init__(
        self,
        pages: dict[str, Page] | None = None,
        *,
        api_key: str | None = None,
        require_key: bool = False,
        refuse_private: bool = True,
        balance: int = 10_000_000,
        latency: float = 0.0,
        clock: Any = None,
    ) -> None:
        super().__init__(latency=latency, clock=clock)
        self.pages: dict[str, Page] = dict(pages or {})
        self.balance = balance  # tokens left on a presented key
        self.api_key = api_key  # when set, any other presented key gets 401 40102
        self.require_key = require_key  # when True, a missing key gets 401 40103
        # The real Reader answers 451 for loopback/private targets; tests that want it to
        # "read" a FakeWeb page on 127.0.0.1 turn this off.
        self.refuse_private = refuse_private
        self._failures: FailureQueue[_Failure] = FailureQueue()

    def fail(
        self,
        target: str | None,
        kind: int | str,
        *,
        times: int | None = None,
        retry_after: int | str = 1,
        message: str | None = None,
    ) -> None:
        """Inject a failure for `target` (None: every target); `retry_after` for 429."""
        if not isinstance(kind, int) and kind not in ("captcha", "garbage", "binary", "hang"):
            raise ValueError(f"unknown failure kind {kind!r}")
        self._failures.add(_Failure(target, kind, times, str(retry_after), message))

    def clear_failures(self) -> None:
        self._failures.clear()

    def targets(self) -> list[str]:
        """The target URLs requested so far, in order."""
        return [t for t in (_target_of(r) for r in self.requests) if t]

    def _take_failure(self, target: str) -> _Failure | None:
        return self._failures.take(lambda f: f.target is None or f.target == target)

    # --- the API -------------------------------------------------------------------------

    def handle(self, request: RecordedRequest) -> Response:
        accept = request.header("accept")
        auth = request.header("authorization")
        if auth is not None and self.api_key is not None and auth != f"Bearer {self.api_key}":
            return _error(401, accept)
        if auth is None and self.require_key:
            return _error(
                401,
                accept,
                name="AuthenticationRequiredError",
                status=40103,
                message="Authentication is required to use this endpoint. Please provide a "
                "valid API key via Authorization header.",
            )
        if request.method not in ("GET", "POST"):
            return _error(400, accept, message=f"Method {request.method} is not supported.")
        target = _target_of(request)
        if target is None:
            if request.method == "POST":
                return _error(400, accept, message="Missing required parameter: url")
            return self._index(accept, keyed=auth is not None)
        if auth is not None and self.balance <= 0:
            return _error(402, accept)
        try:
            split = urlsplit(target)
            host = split.hostname
        except ValueError:
            return _error(400, accept, message=f"Invalid URL: {target}")
        if split.scheme not in ("http", "https") or not host:
            return _error(400, accept, message=f"Invalid protocol or URL: {target}")
        # Injected failures come first: a rate limit or an outage precedes any crawling.
        failure = self._take_failure(target)
        if failure is not None:
            if failure.kind == "hang":
                return Response(hang=True)
            if failure.kind in ("captcha", "garbage"):
                return _success(target, CAPTCHA_PAGE, accept, request)
            if failure.kind == "binary":
                return _success(target, Page(title="", content=BINARY_JUNK), accept, request)
            return _error(
                int(failure.kind),
                accept,
                url=target,
                message=failure.message,
                retry_after=failure.retry_after,
            )
        if self.refuse_private and _is_private(host):
            return _error(451, accept, url=target)
        page = self.pages.get(target)
        if page is None:
            return _error(422, accept, url=target)
        return _success(target, page, accept, request)

    def _index(self, accept: str | None, *, keyed: bool) -> Response:
        """Reader's index: its usage lines, and the account's when a key was presented."""
        fields: dict[str, Any] = {
            "usage1": "https://r.jina.ai/YOUR_URL",
            "usage2": "https://s.jina.ai/YOUR_SEARCH_QUERY",
            "homepage": "https://jina.ai/reader",
            "sourceCode": "https://github.com/jina-ai/reader",
        }
        if keyed:
            fields |= {"authenticatedAs": "user-test (Test Newsroom)", "balanceLeft": self.balance}
        if _wants_json(accept):
            return Response.json(200, fields)
        lines = [f"[{INDEX_LABELS[name]}] {value}" for name, value in fields.items()]
        if keyed:  # `indexObject[''] = undefined` prints an empty line before the account
            lines.insert(4, "")
        return Response.text(200, "\n".join(lines) + "\n")


# lodash's `upperFirst(lowerCase(key))`, as the index prints its keys
INDEX_LABELS = {
    "usage1": "Usage 1",
    "usage2": "Usage 2",
    "homepage": "Homepage",
    "sourceCode": "Source code",
    "authenticatedAs": "Authenticated as",
    "balanceLeft": "Balance left",
}


def _first(value: str | list[str] | None) -> str | None:
    if isinstance(value, list):
        return value[0] if value else None
    return value or None


def _target_of(request: RecordedRequest) -> str | None:
    if request.method == "POST":
        body = request.json if isinstance(request.json, dict) else {}
        url = str(body.get("url") or "").strip()
    else:
        path, _, query = request.raw_path.partition("?")
        # ctx.URL.pathname + ctx.URL.search (an empty query is no search), decoded once
        origin_path = _decode_uri_component(
            _dot_segments_removed(path) + (f"?{query}" if query else "")
        )
        url = origin_path[1:].strip()
    url = _fix_protocol(url)
    return _href(url) if url else None


def _decode_uri_component(text: str) -> str:
    """JavaScript's decodeURIComponent, or `text` unchanged where it would throw (a `%` not
    followed by two hex digits, or escapes that are not UTF-8), as tryDecodeURIComponent."""
    if "%" not in text:
        return text
    out = bytearray()
    i = 0
    while i < len(text):
        char = text[i]
        if char == "%":
            pair = text[i + 1 : i + 3]
            if len(pair) != 2 or any(c not in "0123456789abcdefABCDEF" for c in pair):
                return text
            out.append(int(pair, 16))
            i += 3
        else:
            out += char.encode("utf-8")
            i += 1
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return text


def _dot_segments_removed(path: str) -> str:
    """A WHATWG URL path: `\\` is `/`, `.`/`..` segments (also as `%2e`) resolved."""
    segments: list[str] = []
    parts = path.replace("\\", "/").split("/")[1:]
    for index, segment in enumerate(parts):
        last = index == len(parts) - 1
        dots = segment.lower().replace("%2e", ".")
        if dots == "..":
            if segments:
                segments.pop()
            if last:
                segments.append("")
        elif dots == ".":
            if last:
                segments.append("")
        else:
            segments.append(segment)
    return "/" + "/".join(segments)


def _fix_protocol(url: str) -> str:
    """crawler.ts's `redundantProtocolRegexp`: `https://https://x` and `view-source:https://x`
    become `https://x`."""
    lowered = url.lower()
    while True:
        for prefix in ("view-source:", "https:/", "http:/"):
            if lowered.startswith(prefix):
                rest = url[len(prefix) :].lstrip("/")
                if rest.lower().startswith(("http:/", "https:/", "view-source:")):
                    url, lowered = rest, rest.lower()
                    break
        else:
            break
    return url


def _href(url: str) -> str:
    """`new URL(url).href` for the http(s) addresses tests use: lower-case scheme and host,
    no default port, `/` for an empty path; anything else as given."""
    try:
        parts = urlsplit(url)
        if parts.scheme.lower() in ("http", "https") and not parts.netloc:
            parts = urlsplit(f"{parts.scheme}://{url.split(':', 1)[1].lstrip('/')}")  # https:/x
        host = parts.hostname
        port = parts.port
    except ValueError:
        return url
    if parts.scheme.lower() not in ("http", "https") or not host:
        return url
    default = {"http": 80, "https": 443}[parts.scheme.lower()]
    netloc = host if ":" not in host else f"[{host}]"
    if port is not None and port != default:
        netloc += f":{port}"
    if "@" in parts.netloc:
        netloc = parts.netloc.rpartition("@")[0] + "@" + netloc
    return urlunsplit(
        (parts.scheme.lower(), netloc, parts.path or "/", parts.query, parts.fragment)
    )


def _is_private(host: str) -> bool:
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return not address.is_global


def _accepts(accept: str | None, media: str) -> bool:
    """Koa-like `ctx.accepts(media)`: a missing header accepts everything."""
    if not accept:
        return True
    kind, _, _sub = media.partition("/")
    for item in accept.split(","):
        parts = [p.strip() for p in item.split(";")]
        q = 1.0
        for param in parts[1:]:
            if param.startswith("q="):
                try:
                    q = float(param[2:])
                except ValueError:
                    q = 0.0
        if q <= 0:
            continue
        rng = parts[0].lower()
        if rng in ("*/*", f"{kind}/*", media):
            return True
    return False


def _wants_json(accept: str | None) -> bool:
    if _accepts(accept, "text/plain"):
        return False
    return _accepts(accept, "application/json") or _accepts(accept, "text/json")


def tokens_of(text: str) -> int:
    return max(1, len(text.split()))


def text_representation(url: str, page: Page) -> str:
    """Reader's `textRepresentation` for the default (content/markdown) format."""
    extra: list[str] = []
    if published := page.reader_published_time():
        extra.append(f"Published Time: {published}")
    if page.warnings:  # one mixin: its lines are not separated by blank lines
        extra.append("\n".join(f"Warning: {w}" for w in page.warnings))
    text = f"Title: {page.title}\n\nURL Source: {url}\n"
    if extra:
        text += "\n" + "\n\n".join(extra) + "\n"
    return text + f"\nMarkdown Content:\n{page.content}\n"


def _success(url: str, page: Page, accept: str | None, request: RecordedRequest) -> Response:
    fmt = (request.header("x-return-format") or request.header("x-respond-with") or "").lower()
    raw = fmt in ("text", "html")
    if _wants_json(accept):
        data: dict[str, Any] = {"title": page.title, "description": page.description, "url": url}
        data[fmt if raw else "content"] = page.content
        if published := page.reader_published_time():
            data["publishedTime"] = published
        data["metadata"] = page.meta_tags
        data["external"] = {}
        if page.warnings:
            data["warning"] = "\n".join(page.warnings)
        tokens = tokens_of(page.content)
        data["usage"] = {"tokens": tokens}
        envelope = {
            "code": 200,
            "status": 20000,
            "data": data,
            "meta": {"usage": {"tokens": tokens}},
        }
        return Response.json(200, envelope)
    text = page.content if raw else text_representation(url, page)
    return Response.text(200, text, headers={"X-Usage-Tokens": str(tokens_of(text))})


def _error(
    code: int,
    accept: str | None,
    *,
    url: str = "",
    name: str | None = None,
    status: int | None = None,
    message: str | None = None,
    retry_after: str = "1",
) -> Response:
    default_name, default_status, default_message = _ERRORS.get(
        code, ("ApplicationError", code * 100, "Request failed.")
    )
    name = name or default_name
    message = (message or default_message).format(url=url)
    headers: dict[str, str] = {}
    body: dict[str, Any] = {
        "data": None,
        "code": code,
        "name": name,
        "status": status or default_status,
        "message": message,
        "readableMessage": f"{name}: {message}",
    }
    if code == 429:
        headers["Retry-After"] = retry_after
        if retry_after.isdigit():
            body["retryAfter"] = int(retry_after)
        else:
            body["retryAfterDate"] = retry_after
    if _accepts(accept, "application/json"):
        return Response(
            code, {"Content-Type": "application/json", **headers}, json.dumps(body).encode()
        )
    return Response.text(code, f"{name}: {message}\n", headers=headers)


def http_date(seconds_from_now: float, now: float | None = None) -> str:
    """An HTTP-date (for a Retry-After given as a date), from `now` (epoch seconds) or the
    machine's time."""
    return formatdate((time.time() if now is None else now) + seconds_from_now, usegmt=True)

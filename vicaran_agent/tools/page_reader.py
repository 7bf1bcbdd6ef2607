"""Read one web page: Jina Reader first, then a guarded direct fetch. Never raises.

What is read is `fetchable_url(url)`: dot segments and backslashes resolved as browsers do, so
the page read is the page rated and deduplicated (`normalize_url` parses the same way). Reader
URI-decodes the path it is asked for once (jina-ai/reader `crawler.ts`), so the address goes to
it percent-encoded whole: `a%26b`, `%2F`, `%3D` and `%23` reach the site as written.

A page's date is the one its own metadata states (`content.publication_date`): through Reader,
its JSON answer's `metadata` (the page's meta tags); directly, the HTML's meta tags and JSON-LD.
Reader's `Published Time`/`publishedTime` alone is not a date: for a page with no date metadata
it is the server's Last-Modified (`snapshot-formatter.ts`), which may be the day it was read.

The direct fetch resolves the host once, refuses non-public addresses and connects to exactly
the address it checked, on the URL and on every redirect hop (SSRF guard, `http.pinned_client`).
Both paths read at most `vicaran_max_page_bytes` of DECODED body (gzip bombs stop there): a page
cut there is read from its start, Reader's JSON envelope cut there is no answer, and is refused
(then the page is fetched directly). Direct fetches accept only HTML or text.

Page text is untrusted: it is parsed with lxml/trafilatura and linear hand-written scanners (no
backtracking regex), in the parse pool's worker processes (`parsing.run_parser`), never on the
event loop: a page that stalls or exhausts its parser costs that page. The read's clocks stop
while a page waits for and runs in the pool, which gives a page's parse a limit of its own
(VICARAN_PAGE_TIMEOUT_SECONDS from when a worker takes it).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import contextvars
import json
import logging
import re
import string
import unicodedata
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import httpcore
import httpx

from ..clock import SYSTEM_CLOCK, Clock
from ..config import Settings
from ..schemas import DateSource
from .content import blocked_reason, clip_text, publication_date, read_html
from .http import (
    ACCEPT_ENCODING,
    MAX_REDIRECTS,
    AnswerTooLarge,
    BodyDecodeError,
    RedirectError,
    async_client,
    guarded_get,
    read_answer,
    read_capped,
)
from .parsing import WorkerFailed, run_parser
from .ratelimit import RateLimiter, limiter
from .retry import backoff_delay, parse_retry_after
from .safety import UnreachableURLError, UnsafeURLError
from .urls import fetchable_url

logger = logging.getLogger(__name__)

TEXT_LIMIT = 5000
BACKOFF_BASE_SECONDS = 0.5
BACKOFF_MAX_SECONDS = 8.0
USER_AGENT = "Mozilla/5.0 (compatible; Vicaran/0.1; investigation assistant for journalists)"
DIRECT_ACCEPT = "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.1"
HTML_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "application/xml", "text/xml")
JINA_ACCEPT = "application/json"  # the envelope (with the page's meta tags), not the text
_JINA_FIELDS = frozenset({"Title", "URL Source", "Published Time", "Warning", "Number of Pages"})
_TARGET_ERROR = "target url returned error "
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)  # keeps positions
# One character class, no quantifier: each search is a linear scan for the next stop.
_DESTINATION_STOP = re.compile(r"[()\n]")
_CHARSET_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_.:-")
# Text codecs whose decoders are quadratic in the input (punycode inserts char by char).
_REFUSED_CODECS = frozenset({"punycode", "idna"})
ERROR_BODY_LIMIT = 64 * 1024  # an error answer's message is in its first bytes
# The time limits of the read in progress, stopped while its page is in the parse pool.
_CLOCKS: contextvars.ContextVar[tuple[asyncio.Timeout, ...]] = contextvars.ContextVar(
    "page_read_clocks", default=()
)


@dataclass
class PageResult:
    """A page's readable text (`ok`), or why it could not be read (`error`, one line)."""

    url: str
    ok: bool
    title: str = ""
    text: str = ""
    published_at: str | None = None  # the page's own metadata's publication date, if any
    published_at_source: DateSource | None = None
    via: str = ""  # "jina" | "direct" | ""
    error: str | None = None
    timed_out: bool = False  # a step timed out: worth one more try later


class _Failed(Exception):
    """A step failed; `reason` is the human-readable part after "Jina Reader:"/"direct fetch:"."""

    def __init__(self, reason: str, *, retry: bool = False, retry_after: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.retry = retry
        self.retry_after = retry_after


@dataclass
class _Page:
    title: str
    text: str
    published_at: str | None


class PageReader:
    """Reads pages for Vicaran over one shared `httpx.AsyncClient` (call `aclose()`)."""

    def __init__(
        self,
        settings: Settings,
        *,
        backoff_base: float = BACKOFF_BASE_SECONDS,
        backoff_max: float = BACKOFF_MAX_SECONDS,
        transport: httpx.AsyncBaseTransport | None = None,
        dialer: httpcore.AsyncNetworkBackend | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        """`transport` carries the Jina Reader requests (tests); `dialer` opens the sockets of
        direct fetches, always to the checked addresses (tests fence or route them); `clock`
        times the backoff and the request budget (tests move it)."""
        self.settings = settings
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.clock = clock
        self._transport = transport
        self._dialer = dialer
        self._http: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def timeout(self) -> float:
        return self.settings.vicaran_page_timeout_seconds

    @property
    def overall_timeout(self) -> float:
        """The bound for one whole `read`: Jina (with retries) then the direct fetch."""
        return 3 * self.timeout

    async def aclose(self) -> None:
        if self._http is not None:
            http, self._http = self._http, None
            try:
                await http.aclose()
            except Exception:  # a client from a closed event loop
                logger.debug("closing the page reader's HTTP client failed", exc_info=True)

    async def __aenter__(self) -> PageReader:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def read(self, url: str) -> PageResult:
        """The page at `url`, via Jina Reader or a direct fetch; failures come back as values."""
        url = (url or "").strip()
        result = PageResult(url=url, ok=False)
        if not url:
            result.error = "no URL given"
            return result
        target = fetchable_url(url) if _is_web_url(url) else ""
        if not _is_web_url(target):
            result.error = f"not a web address (an http or https URL is needed): {_short(url)}"
            return result
        steps: dict[str, str] = {}
        # Waiting for Jina's request budget is not reading: it happens before the clock starts.
        await self._jina_budget().acquire()
        try:
            async with asyncio.timeout(self.overall_timeout) as clock:
                token = _CLOCKS.set((clock,))
                try:
                    page, via = await self._read(target, steps)
                finally:
                    _CLOCKS.reset(token)
        except TimeoutError:
            phase = "direct fetch" if "Jina Reader" in steps else "Jina Reader"
            steps[phase] = f"timed out (the whole read is capped at {self.overall_timeout:g} s)"
            result.error = _one_line(steps)
            result.timed_out = True
            return result
        except Exception as exc:  # never raise into the pipeline
            logger.warning("reading %s failed unexpectedly", url, exc_info=True)
            steps["unexpected error"] = f"{type(exc).__name__}: {exc}"
            result.error = _one_line(steps)
            return result
        if page is None:
            result.error = _one_line(steps)
            result.timed_out = any("timed out" in step for step in steps.values())
            return result
        result.ok = True
        result.title = page.title
        result.text = clip_text(page.text, TEXT_LIMIT)
        result.published_at = page.published_at
        result.published_at_source = "metadata" if page.published_at else None
        result.via = via
        return result

    async def _read(self, url: str, steps: dict[str, str]) -> tuple[_Page | None, str]:
        try:
            async with asyncio.timeout(2 * self.timeout) as clock:
                token = _CLOCKS.set((*_CLOCKS.get(), clock))
                try:
                    return await self._jina(url), "jina"
                finally:
                    _CLOCKS.reset(token)
        except _Failed as failure:
            steps["Jina Reader"] = failure.reason
        except TimeoutError:
            steps["Jina Reader"] = f"timed out after {2 * self.timeout:g} s"
        logger.info("Jina Reader could not read %s (%s); fetching directly", url, steps)
        try:
            return await self._direct(url), "direct"
        except _Failed as failure:
            steps["direct fetch"] = failure.reason
        return None, ""

    # --- Jina Reader -----------------------------------------------------------------------

    async def _jina(self, url: str) -> _Page:
        retries = self.settings.vicaran_max_retries
        attempt = 0
        while True:
            try:
                return await self._jina_once(url)
            except _Failed as failure:
                if not failure.retry:
                    raise
                if attempt >= retries:
                    tried = f" (still failing after {retries} retries)" if retries else ""
                    raise _Failed(failure.reason + tried) from failure
                attempt += 1
                await self.clock.sleep(self._backoff(attempt - 1, failure.retry_after))
                await self._jina_budget().acquire()  # (the first try's slot is taken in read())

    def _jina_budget(self) -> RateLimiter:
        return limiter(
            "jina",
            self.settings.jina_rpm,
            self.settings.vicaran_rate_window_seconds,
            clock=self.clock,
        )

    async def _jina_once(self, url: str) -> _Page:
        base = self.settings.jina_reader_base_url.rstrip("/")
        headers = {"Accept": JINA_ACCEPT}
        if self.settings.jina_api_key.strip():
            headers["Authorization"] = f"Bearer {self.settings.jina_api_key.strip()}"
        try:
            async with (
                asyncio.timeout(self.timeout),
                self._client().stream("GET", jina_address(base, url), headers=headers) as response,
            ):
                if response.status_code == 200 and _is_json(response):
                    body = await self._answer(response)  # a cut envelope is no answer
                else:
                    body = await self._body(response)
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise _Failed(f"timed out after {self.timeout:g} s", retry=True) from exc
        except httpx.TransportError as exc:
            raise _Failed(f"could not reach {base} ({type(exc).__name__})", retry=True) from exc
        status = response.status_code
        if status != 200:
            wait = parse_retry_after(response.headers.get("retry-after"), self.clock)
            raise _jina_error(status, body, wait, self.backoff_max)
        return await self._parse(
            _page_from_jina, body, response.charset_encoding, response.headers.get("content-type")
        )

    # --- direct fetch ----------------------------------------------------------------------

    async def _direct(self, url: str) -> _Page:
        try:
            async with guarded_get(
                url,
                allow_private=self.settings.vicaran_fetch_allow_private,
                hop_seconds=self.timeout,
                headers={"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING},
                accept=DIRECT_ACCEPT,
                dialer=self._dialer,
                next_url=lambda joined: fetchable_url(joined) or joined,
            ) as (current, response):
                if response.status_code != 200:
                    raise _Failed(f"the site answered HTTP {response.status_code}")
                content_type = response.headers.get("content-type", "").lower()
                media = content_type.split(";", 1)[0].strip()
                if media and media not in HTML_TYPES:
                    raise _Failed(f"not a web page ({media})")
                body = await self._body(response)
                charset = response.charset_encoding
        except (UnsafeURLError, UnreachableURLError) as exc:
            raise _Failed(str(exc)) from exc
        except RedirectError as exc:
            if exc.status is not None:
                raise _Failed(f"redirect ({exc.status}) without a Location") from exc
            raise _Failed(f"too many redirects (more than {MAX_REDIRECTS})") from exc
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise _Failed(f"timed out after {self.timeout:g} s") from exc
        except httpx.TransportError as exc:
            raise _Failed(f"connection failed ({type(exc).__name__})") from exc
        return await self._parse(_page_from_html, body, charset, media, current)

    # --- helpers ---------------------------------------------------------------------------

    def _client(self) -> httpx.AsyncClient:
        """The Jina Reader client (a configured service, not an untrusted address)."""
        loop = asyncio.get_running_loop()
        if self._http is None or self._loop is not loop or self._http.is_closed:
            self._http = async_client(
                headers={"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING},
                timeout=httpx.Timeout(self.timeout),
                follow_redirects=False,
                transport=self._transport,
            )
            self._loop = loop
        return self._http

    async def _body(self, response: httpx.Response) -> bytes:
        """At most `vicaran_max_page_bytes` of the decoded body."""
        limit = self.settings.vicaran_max_page_bytes
        try:
            body, cut = await read_capped(response, limit)
        except BodyDecodeError as exc:
            raise _Failed(str(exc)) from exc
        if cut:
            logger.info("%s is larger than %d bytes; reading only the start", response.url, limit)
        return body

    async def _answer(self, response: httpx.Response) -> bytes:
        """Reader's JSON envelope, whole: at most `vicaran_max_page_bytes`, else refused."""
        limit = self.settings.vicaran_max_page_bytes
        try:
            return await read_answer(response, limit)
        except AnswerTooLarge as exc:
            raise _Failed(
                f"answer larger than {limit:,} bytes (VICARAN_MAX_PAGE_BYTES), set aside unread"
            ) from exc
        except BodyDecodeError as exc:
            raise _Failed(str(exc)) from exc

    async def _parse(self, parser: Any, *args: Any) -> _Page:
        """`parser(*args)` in the parse pool: a worker process, never the event loop. The
        read's clocks stop meanwhile (the pool has its own limit)."""
        loop = asyncio.get_running_loop()
        paused = [(clock, clock.when()) for clock in _CLOCKS.get()]
        stopped_at = loop.time()
        for clock, _ in paused:
            with contextlib.suppress(RuntimeError):  # already expiring: the wait is cancelled
                clock.reschedule(None)
        try:
            page: _Page = await run_parser(
                parser, *args, settings=self.settings, seconds=self.timeout
            )
        except WorkerFailed as failed:
            raise _Failed(_parser_failure(failed)) from None
        finally:
            now = loop.time()
            for clock, when in paused:
                if when is not None:
                    with contextlib.suppress(RuntimeError):
                        clock.reschedule(now + max(0.0, when - stopped_at))
        return page

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        return backoff_delay(attempt, retry_after, base=self.backoff_base, cap=self.backoff_max)


def _parser_failure(failed: WorkerFailed) -> str:
    """Why a page's parser stopped, on one line (a damaged or hostile page)."""
    what = {
        "timeout": f"took longer than {failed.seconds:.0f} s",
        "memory": "needed more memory than a parser may use",
        "crashed": "stopped",
    }.get(failed.why, "could not be started")
    return f"the page's parser {what} (a damaged page, or one built to stall a reader)"


def jina_address(base: str, url: str) -> str:
    """Reader's address for `url`: percent-encoded whole, since Reader decodes it once."""
    return f"{base.rstrip('/')}/{quote(url, safe='')}"


def _jina_error(status: int, body: bytes, wait: float | None, cap: float) -> _Failed:
    message = ""
    head = body[:ERROR_BODY_LIMIT]
    try:
        payload = json.loads(head)
        if isinstance(payload, dict):
            message = str(payload.get("message") or payload.get("readableMessage") or "")
    except (ValueError, RecursionError):
        message = head.decode("utf-8", errors="replace").strip()
    message = _short(message)
    if status == 429:
        return _Failed(
            "rate limited (429): set JINA_API_KEY in .env for higher limits",
            retry=True,
            retry_after=None if wait is None else min(wait, cap),
        )
    if status >= 500:
        return _Failed(f"server error (HTTP {status})", retry=True)
    reasons = {
        400: f"rejected the URL (400: {message or 'bad request'})",
        401: "rejected the API key (401): set a valid JINA_API_KEY in .env, or remove it",
        402: "account balance exhausted (402): recharge at https://jina.ai or remove JINA_API_KEY",
        403: "forbidden (403)",
        422: "no content available (422)",
        451: "refused the URL (451: blocked site or private address)",
    }
    return _Failed(
        reasons.get(status, f"answered HTTP {status}" + (f": {message}" if message else ""))
    )


def _is_json(response: httpx.Response) -> bool:
    return "json" in response.headers.get("content-type", "").lower()


def _decode(body: bytes, charset: str | None) -> str:
    """`body` as text in `charset` (UTF-8 when unknown, unusable or slow to decode)."""
    encoding = "utf-8"
    if charset:
        try:
            if codecs.lookup(charset).name not in _REFUSED_CODECS:
                encoding = charset
        except (LookupError, ValueError):  # unknown, or a malformed name
            pass
    try:
        return body.decode(encoding, errors="replace")
    except (LookupError, ValueError):  # a codec that is not a text encoding
        return body.decode("utf-8", errors="replace")


def _page_from_jina(body: bytes, charset: str | None, content_type: str | None) -> _Page:
    """A Reader answer (text or JSON) as a readable page, clipped; raises _Failed. CPU work."""
    text = _decode(body, charset)
    if "json" in (content_type or ""):
        page, warnings = _parse_jina_json(text)
    else:
        page, warnings = _parse_jina_text(text)
    for warning in warnings:
        if (answered := _target_error(warning)) is not None:
            raise _Failed(f"the site answered {answered}")
        if "captcha" in warning.lower():
            raise _Failed("blocked page: captcha")
    return _readable(page)


def _target_error(warning: str) -> str | None:
    """The status in Reader's "Target URL returned error 404: Not Found" ("404 Not Found")."""
    lowered = warning.translate(_ASCII_LOWER)
    start = lowered.find(_TARGET_ERROR)
    while start >= 0:
        at = start + len(_TARGET_ERROR)
        code = warning[at : at + 3]  # (no slice of the rest per occurrence: that is quadratic)
        if len(code) == 3 and code.isdigit():
            detail = warning[at + 4 :].strip() if warning[at + 3 : at + 4] == ":" else ""
            return f"{code} {detail}" if detail else code
        start = lowered.find(_TARGET_ERROR, start + 1)
    return None


def _parse_jina_text(text: str) -> tuple[_Page, list[str]]:
    """Reader's text format: header lines, then "Markdown Content:" and the body."""
    head, marker, content = text.partition("Markdown Content:\n")
    if not marker:
        head, content = "", text
    fields: dict[str, str] = {}
    warnings: list[str] = []
    for line in head.splitlines():
        name, colon, value = line.partition(":")
        if not colon or name not in _JINA_FIELDS:
            continue
        value = value.strip()
        if name == "Warning":
            warnings.append(value)
        else:
            fields.setdefault(name, value)
    # A bare Published Time line may be the server's Last-Modified: the text has no metadata
    # to say otherwise, so the date is unknown.
    page = _Page(title=fields.get("Title", ""), text=_plain_markdown(content), published_at=None)
    return page, warnings


def _parse_jina_json(text: str) -> tuple[_Page, list[str]]:
    try:
        payload: Any = json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: absurdly deep nesting
        raise _Failed("unreadable JSON answer") from exc
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, dict):
        raise _Failed("answer without data")
    warning = str(data.get("warning") or "")
    page = _Page(
        title=str(data.get("title") or ""),
        text=_plain_markdown(str(data.get("content") or data.get("text") or "")),
        # the page's meta tags decide; `publishedTime` agrees with them or is Last-Modified
        published_at=publication_date(_meta_pairs(data.get("metadata"))),
    )
    return page, [w for w in warning.splitlines() if w.strip()]


def _meta_pairs(metadata: Any) -> list[tuple[str, str]]:
    """Reader's `metadata` ({name or property: content, or a list of them}) as pairs."""
    if not isinstance(metadata, dict):
        return []
    pairs: list[tuple[str, str]] = []
    for name, value in metadata.items():
        for content in value if isinstance(value, list) else [value]:
            if isinstance(name, str) and isinstance(content, str):
                pairs.append((name, content))
    return pairs


def _plain_markdown(markdown: str) -> str:
    """Markdown with images dropped and links reduced to their text (saves the text budget).

    Two linear passes of `_strip_links` (images first, so `[![alt](src)](href)` goes too).
    """
    return _strip_links(_strip_links(markdown, images=True), images=False).strip()


def _strip_links(text: str, *, images: bool) -> str:
    """`![alt](dest)` removed (images=True), or `[label](dest)` replaced by its label.

    A hand-written single left-to-right pass, linear in `text` whatever it holds: each `](` is
    looked at once; its label is searched backwards no further than the previous `](` (a label
    holds no `]`); a destination is scanned forwards from where the last scan stopped. The
    destination allows one level of parentheses (`Foo_(bar)`) and no line break; one that never
    closes is kept as text, together with anything inside it.
    """
    out: list[str] = []
    emitted = 0  # text[:emitted] is decided
    floor = 0  # a label starts at or after this
    search = 0
    while (close := text.find("](", search)) >= 0:
        opening = text.rfind("[", max(floor, emitted), close)
        floor = search = close + 2
        if opening < 0 or text.find("]", opening + 1, close) >= 0:
            continue  # no `[` since the previous `](`, or a `]` in the label: not a link
        is_image = opening > 0 and text[opening - 1] == "!"
        if is_image != images:
            continue  # the other pass's business
        closed, stop = _destination_end(text, close + 2)
        if not closed:
            search = max(search, stop)
            continue
        out.append(text[emitted : opening - 1 if images else opening])
        if not images:
            out.append(text[opening + 1 : close])
        emitted = floor = search = stop + 1
    out.append(text[emitted:])
    return "".join(out)


def _destination_end(text: str, start: int) -> tuple[bool, int]:
    """(True, index of the `)` closing a destination that starts at `start`), or (False,
    where it stopped being one: a line break, a second level of parentheses, the end)."""
    nested = False
    position = start
    while (stop := _DESTINATION_STOP.search(text, position)) is not None:
        index = stop.start()
        char = text[index]
        if char == ")":
            if not nested:
                return True, index
            nested = False
        elif char == "(" and not nested:
            nested = True
        else:
            return False, index
        position = index + 1
    return False, len(text)


def _meta_charset(head: bytes) -> str | None:
    """The charset named by a `<meta ... charset=...>` tag in `head`; linear, no regex."""
    for piece in head.split(b"<")[1:]:
        if piece[:4].lower() != b"meta":
            continue
        tag = piece.split(b">", 1)[0].lower()
        at = tag.find(b"charset=")
        if at < 0:
            continue
        value = tag[at + len(b"charset=") :].lstrip(b"\"' ")[:40]
        end = next((i for i, byte in enumerate(value) if byte not in _CHARSET_CHARS), len(value))
        if end:
            return value[:end].decode("ascii")
    return None


def _extract(body: bytes, charset: str | None, media: str, url: str) -> _Page:
    document = _decode(body, charset or _meta_charset(body[:4096]))
    if media == "text/plain":
        return _Page(title="", text=document.strip(), published_at=None)
    title, text, published = read_html(document, url)
    return _Page(title=title, text=text, published_at=published)


def _page_from_html(body: bytes, charset: str | None, media: str, url: str) -> _Page:
    """A direct fetch's body as a readable page, clipped; raises _Failed. CPU work."""
    return _readable(_extract(body, charset, media, url))


def _readable(page: _Page) -> _Page:
    """`page` if it reads as a page (raises _Failed if not), its text clipped to the budget."""
    _check_readable(page)
    page.text = clip_text(page.text, TEXT_LIMIT)
    return page


def _check_readable(page: _Page) -> None:
    if _looks_binary(page.text):
        raise _Failed("binary content, not a readable page")
    reason = blocked_reason(page.text)
    if reason:
        raise _Failed(reason)


def _looks_binary(text: str) -> bool:
    sample = text[:4000]
    if not sample:
        return False
    odd = sum(
        1
        for c in sample
        if c == "\ufffd" or (unicodedata.category(c) in ("Cc", "Co", "Cn") and c not in "\n\r\t")
    )
    return odd / len(sample) > 0.05


def _is_web_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
        return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
    except ValueError:
        return False


def _one_line(steps: dict[str, str]) -> str:
    return "; ".join(f"{name}: {reason}" for name, reason in steps.items())


def _short(text: str, limit: int = 120) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"

"""Read one web page: Jina Reader first, then a guarded direct fetch. Never raises.

The direct fetch refuses non-public addresses on the URL and on every redirect hop (SSRF guard),
reads at most `vicaran_max_page_bytes`, accepts only HTML or text, and extracts readable text.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import unicodedata
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx
import trafilatura

from ..config import Settings
from .content import blocked_reason, clip_text, extract_readable, published_date
from .http import async_client
from .ratelimit import RateLimiter, limiter
from .retry import backoff_delay, parse_retry_after
from .safety import UnreachableURLError, UnsafeURLError, ensure_public_url

logger = logging.getLogger(__name__)

TEXT_LIMIT = 5000
MAX_REDIRECTS = 5
BACKOFF_BASE_SECONDS = 0.5
BACKOFF_MAX_SECONDS = 8.0
USER_AGENT = "Mozilla/5.0 (compatible; Vicaran/0.1; investigation assistant for journalists)"
DIRECT_ACCEPT = "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.1"
HTML_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "application/xml", "text/xml")
REDIRECTS = frozenset({301, 302, 303, 307, 308})

_JINA_HEADER = re.compile(r"^(Title|URL Source|Published Time|Warning|Number of Pages): ?(.*)$")
_TARGET_ERROR = re.compile(r"Target URL returned error (\d{3})(?::\s*(.*))?", re.IGNORECASE)
_MD_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_MD_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)")
_META_CHARSET = re.compile(rb"<meta[^>]+charset=[\"']?([A-Za-z0-9_.:-]+)", re.IGNORECASE)


@dataclass
class PageResult:
    """A page's readable text (`ok`), or why it could not be read (`error`, one line)."""

    url: str
    ok: bool
    title: str = ""
    text: str = ""
    published_at: str | None = None
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
    ) -> None:
        self.settings = settings
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self._transport = transport
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
        if not _is_web_url(url):
            result.error = f"not a web address (an http or https URL is needed): {_short(url)}"
            return result
        steps: dict[str, str] = {}
        # Waiting for Jina's request budget is not reading: it happens before the clock starts.
        await self._jina_budget().acquire()
        try:
            async with asyncio.timeout(self.overall_timeout):
                page, via = await self._read(url, steps)
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
        result.via = via
        return result

    async def _read(self, url: str, steps: dict[str, str]) -> tuple[_Page | None, str]:
        try:
            async with asyncio.timeout(2 * self.timeout):
                return await self._jina(url), "jina"
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
                await asyncio.sleep(self._backoff(attempt - 1, failure.retry_after))
                await self._jina_budget().acquire()  # (the first try's slot is taken in read())

    def _jina_budget(self) -> RateLimiter:
        return limiter("jina", self.settings.jina_rpm, self.settings.vicaran_rate_window_seconds)

    async def _jina_once(self, url: str) -> _Page:
        base = self.settings.jina_reader_base_url.rstrip("/")
        headers = {}
        if self.settings.jina_api_key.strip():
            headers["Authorization"] = f"Bearer {self.settings.jina_api_key.strip()}"
        target = url.split("#", 1)[0]
        try:
            async with (
                asyncio.timeout(self.timeout),
                self._client().stream("GET", f"{base}/{target}", headers=headers) as response,
            ):
                body = await _read_capped(response, self.settings.vicaran_max_page_bytes)
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise _Failed(f"timed out after {self.timeout:g} s", retry=True) from exc
        except httpx.TransportError as exc:
            raise _Failed(f"could not reach {base} ({type(exc).__name__})", retry=True) from exc
        status = response.status_code
        if status != 200:
            raise _jina_error(status, body, response.headers.get("retry-after"), self.backoff_max)
        text = body.decode(response.charset_encoding or "utf-8", errors="replace")
        if "json" in response.headers.get("content-type", ""):
            page, warnings = _parse_jina_json(text)
        else:
            page, warnings = _parse_jina_text(text)
        for warning in warnings:
            if match := _TARGET_ERROR.search(warning):
                detail = f" {match.group(2).strip()}" if match.group(2) else ""
                raise _Failed(f"the site answered {match.group(1)}{detail}")
            if "captcha" in warning.lower():
                raise _Failed("blocked page: captcha")
        _check_readable(page)
        return page

    # --- direct fetch ----------------------------------------------------------------------

    async def _direct(self, url: str) -> _Page:
        current = url.split("#", 1)[0]
        for _hop in range(MAX_REDIRECTS + 1):
            try:
                await ensure_public_url(
                    current, allow_private=self.settings.vicaran_fetch_allow_private
                )
            except (UnsafeURLError, UnreachableURLError) as exc:
                raise _Failed(str(exc)) from exc
            try:
                async with (
                    asyncio.timeout(self.timeout),
                    self._client().stream(
                        "GET", current, headers={"Accept": DIRECT_ACCEPT}
                    ) as response,
                ):
                    if response.status_code in REDIRECTS:
                        location = response.headers.get("location", "").strip()
                        if not location:
                            raise _Failed(f"redirect ({response.status_code}) without a Location")
                        current = urljoin(str(response.url), location).split("#", 1)[0]
                        continue
                    if response.status_code != 200:
                        raise _Failed(f"the site answered HTTP {response.status_code}")
                    content_type = response.headers.get("content-type", "").lower()
                    media = content_type.split(";", 1)[0].strip()
                    if media and media not in HTML_TYPES:
                        raise _Failed(f"not a web page ({media})")
                    body = await _read_capped(response, self.settings.vicaran_max_page_bytes)
                    charset = response.charset_encoding
            except (TimeoutError, httpx.TimeoutException) as exc:
                raise _Failed(f"timed out after {self.timeout:g} s") from exc
            except httpx.TransportError as exc:
                raise _Failed(f"connection failed ({type(exc).__name__})") from exc
            page = await asyncio.to_thread(_extract, body, charset, media, current)
            _check_readable(page)
            return page
        raise _Failed(f"too many redirects (more than {MAX_REDIRECTS})")

    # --- helpers ---------------------------------------------------------------------------

    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._http is None or self._loop is not loop or self._http.is_closed:
            self._http = async_client(
                headers={"User-Agent": USER_AGENT},
                timeout=httpx.Timeout(self.timeout),
                follow_redirects=False,
                transport=self._transport,
            )
            self._loop = loop
        return self._http

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        return backoff_delay(attempt, retry_after, base=self.backoff_base, cap=self.backoff_max)


async def _read_capped(response: httpx.Response, limit: int) -> bytes:
    """At most `limit` bytes of the body; stops reading (and drops the rest) past it."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= limit:
            logger.info("%s is larger than %d bytes; reading only the start", response.url, limit)
            break
    return b"".join(chunks)[:limit]


def _jina_error(status: int, body: bytes, retry_after_header: str | None, cap: float) -> _Failed:
    message = ""
    try:
        payload = json.loads(body)
        if isinstance(payload, dict):
            message = str(payload.get("message") or payload.get("readableMessage") or "")
    except ValueError:
        message = body.decode("utf-8", errors="replace").strip()
    message = _short(message)
    if status == 429:
        wait = parse_retry_after(retry_after_header)
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


def _parse_jina_text(text: str) -> tuple[_Page, list[str]]:
    """Reader's text format: header lines, then "Markdown Content:" and the body."""
    head, marker, content = text.partition("Markdown Content:\n")
    if not marker:
        head, content = "", text
    fields: dict[str, str] = {}
    warnings: list[str] = []
    for line in head.splitlines():
        match = _JINA_HEADER.match(line)
        if not match:
            continue
        name, value = match.group(1), match.group(2).strip()
        if name == "Warning":
            warnings.append(value)
        else:
            fields.setdefault(name, value)
    page = _Page(
        title=fields.get("Title", ""),
        text=_plain_markdown(content),
        published_at=published_date(fields.get("Published Time")),
    )
    return page, warnings


def _parse_jina_json(text: str) -> tuple[_Page, list[str]]:
    try:
        payload: Any = json.loads(text)
    except ValueError as exc:
        raise _Failed("unreadable JSON answer") from exc
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, dict):
        raise _Failed("answer without data")
    warning = str(data.get("warning") or "")
    page = _Page(
        title=str(data.get("title") or ""),
        text=_plain_markdown(str(data.get("content") or data.get("text") or "")),
        published_at=published_date(data.get("publishedTime")),
    )
    return page, [w for w in warning.splitlines() if w.strip()]


def _plain_markdown(markdown: str) -> str:
    """Markdown with images dropped and links reduced to their text (saves the text budget)."""
    text = _MD_IMAGE.sub("", markdown)
    return _MD_LINK.sub(lambda m: m.group(1), text).strip()


def _extract(body: bytes, charset: str | None, media: str, url: str) -> _Page:
    encoding = charset
    if not encoding:
        match = _META_CHARSET.search(body[:4096])
        encoding = match.group(1).decode("ascii") if match else "utf-8"
    try:
        document = body.decode(encoding, errors="replace")
    except LookupError:
        document = body.decode("utf-8", errors="replace")
    if media == "text/plain":
        return _Page(title="", text=document.strip(), published_at=None)
    title, text = extract_readable(document, url)
    return _Page(title=title, text=text, published_at=_html_date(document, url))


def _html_date(document: str, url: str) -> str | None:
    try:
        metadata = trafilatura.extract_metadata(document, default_url=url or None)
    except Exception:  # trafilatura/lxml can fail on hostile HTML
        logger.debug("no publication date found in %s", url, exc_info=True)
        return None
    return published_date(metadata.date) if metadata is not None and metadata.date else None


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

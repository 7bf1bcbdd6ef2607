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
import contextlib
import contextvars
import json
import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import httpcore
import httpx

from ..archive import Exchange, PageArchive
from ..clock import SYSTEM_CLOCK, Clock
from ..config import Settings
from ..schemas import DateSource
from ..urls import fetchable_url
from ..workers.parsing import WorkerFailed, run_parser
from .content import clip_text
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
from .page_text import (
    TEXT_LIMIT,
    Failed,
    Page,
    is_json,
    page_from_html,
    page_from_jina,
    status_kind,
)
from .ratelimit import RateLimiter, limiter
from .retry import backoff_delay, parse_retry_after
from .safety import UnreachableURLError, UnsafeURLError

logger = logging.getLogger(__name__)


BACKOFF_BASE_SECONDS = 0.5


BACKOFF_MAX_SECONDS = 8.0


USER_AGENT = "Mozilla/5.0 (compatible; Vicaran/0.1; investigation assistant for journalists)"


DIRECT_ACCEPT = "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.1"


HTML_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "application/xml", "text/xml")


JINA_ACCEPT = "application/json"  # the envelope (with the page's meta tags), not the text


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
    error: str | None = None  # every step's technical reason, for the record's details
    timed_out: bool = False  # a step timed out: worth one more try later
    kind: str = ""  # why, for a journalist (page_text.UNREAD_KINDS); "" when read


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
        archive: PageArchive | None = None,
    ) -> None:
        """`transport` carries the Jina Reader requests (tests); `dialer` opens the sockets of
        direct fetches, always to the checked addresses (tests fence or route them); `clock`
        times the backoff and the request budget (tests move it); `archive` keeps each page
        read as WARC records (its investigation's web archive)."""
        self.settings = settings
        self.archive = archive
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
        if self.archive is not None:
            await self.archive.flush()
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
            result.error, result.kind = "no URL given", "other"
            return result
        target = fetchable_url(url) if _is_web_url(url) else ""
        if not _is_web_url(target):
            result.error = f"not a web address (an http or https URL is needed): {_short(url)}"
            result.kind = "other"
            return result
        steps: dict[str, str] = {}
        kinds: dict[str, str] = {}  # each step's `Failed.kind`
        # Waiting for Jina's request budget is not reading: it happens before the clock starts.
        await self._jina_budget().acquire()
        try:
            async with asyncio.timeout(self.overall_timeout) as clock:
                token = _CLOCKS.set((clock,))
                try:
                    page, via, exchange = await self._read(target, steps, kinds)
                finally:
                    _CLOCKS.reset(token)
        except TimeoutError:
            phase = "direct fetch" if "Jina Reader" in steps else "Jina Reader"
            steps[phase] = f"timed out (the whole read is capped at {self.overall_timeout:g} s)"
            result.error = _one_line(steps)
            result.timed_out = True
            result.kind = "slow"
            return result
        except Exception as exc:  # never raise into the pipeline
            logger.warning("reading %s failed unexpectedly", url, exc_info=True)
            steps["unexpected error"] = f"{type(exc).__name__}: {exc}"
            result.error, result.kind = _one_line(steps), "other"
            return result
        if page is None:
            result.error = _one_line(steps)
            result.timed_out = any("timed out" in step for step in steps.values())
            result.kind = _telling(kinds)
            return result
        result.ok = True
        result.title = page.title
        result.text = clip_text(page.text, TEXT_LIMIT)
        result.published_at = page.published_at
        result.published_at_source = "metadata" if page.published_at else None
        result.via = via
        if self.archive is not None and exchange is not None:
            self.archive.keep(url, exchange, via)
        return result

    async def _read(
        self, url: str, steps: dict[str, str], kinds: dict[str, str]
    ) -> tuple[Page | None, str, Exchange | None]:
        try:
            async with asyncio.timeout(2 * self.timeout) as clock:
                token = _CLOCKS.set((*_CLOCKS.get(), clock))
                try:
                    page, exchange = await self._jina(url)
                    return page, "jina", exchange
                finally:
                    _CLOCKS.reset(token)
        except Failed as failure:
            steps["Jina Reader"], kinds["Jina Reader"] = failure.reason, failure.kind
        except TimeoutError:
            steps["Jina Reader"] = f"timed out after {2 * self.timeout:g} s"
            kinds["Jina Reader"] = "slow"
        logger.info("Jina Reader could not read %s (%s); fetching directly", url, steps)
        try:
            page, exchange = await self._direct(url)
            return page, "direct", exchange
        except Failed as failure:
            steps["direct fetch"], kinds["direct fetch"] = failure.reason, failure.kind
        return None, "", None

    # --- Jina Reader -----------------------------------------------------------------------

    async def _jina(self, url: str) -> tuple[Page, Exchange]:
        retries = self.settings.vicaran_max_retries
        attempt = 0
        while True:
            try:
                return await self._jina_once(url)
            except Failed as failure:
                if not failure.retry:
                    raise
                if attempt >= retries:
                    tried = f" (still failing after {retries} retries)" if retries else ""
                    raise Failed(failure.reason + tried, kind=failure.kind) from failure
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

    async def _jina_once(self, url: str) -> tuple[Page, Exchange]:
        base = self.settings.jina_reader_base_url.rstrip("/")
        headers = {"Accept": JINA_ACCEPT}
        if self.settings.jina_api_key.strip():
            headers["Authorization"] = f"Bearer {self.settings.jina_api_key.strip()}"
        try:
            async with (
                asyncio.timeout(self.timeout),
                self._client().stream("GET", jina_address(base, url), headers=headers) as response,
            ):
                cut = False
                if response.status_code == 200 and is_json(response):
                    body = await self._answer(response)  # a cut envelope is no answer
                else:
                    body, cut = await self._body(response)
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise Failed(f"timed out after {self.timeout:g} s", retry=True, kind="slow") from exc
        except httpx.TransportError as exc:
            raise Failed(f"could not reach {base} ({type(exc).__name__})", retry=True) from exc
        status = response.status_code
        if status != 200:
            wait = parse_retry_after(response.headers.get("retry-after"), self.clock)
            raise _jina_error(status, body, wait, self.backoff_max)
        page = await self._parse(
            page_from_jina, body, response.charset_encoding, response.headers.get("content-type")
        )
        return page, Exchange.of(response, body, cut)

    # --- direct fetch ----------------------------------------------------------------------

    async def _direct(self, url: str) -> tuple[Page, Exchange]:
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
                if (status := response.status_code) != 200:
                    raise Failed(f"the site answered HTTP {status}", kind=status_kind(status))
                content_type = response.headers.get("content-type", "").lower()
                media = content_type.split(";", 1)[0].strip()
                if media and media not in HTML_TYPES:
                    raise Failed(f"not a web page ({media})", kind="not_a_page")
                body, cut = await self._body(response)
                charset = response.charset_encoding
                exchange = Exchange.of(response, body, cut)
        except UnsafeURLError as exc:
            raise Failed(str(exc), kind="private") from exc
        except UnreachableURLError as exc:
            raise Failed(str(exc), kind="no_site") from exc
        except RedirectError as exc:
            if exc.status is not None:
                raise Failed(
                    f"redirect ({exc.status}) without a Location", kind="redirects"
                ) from exc
            raise Failed(
                f"too many redirects (more than {MAX_REDIRECTS})", kind="redirects"
            ) from exc
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise Failed(f"timed out after {self.timeout:g} s", kind="slow") from exc
        except httpx.TransportError as exc:
            raise Failed(f"connection failed ({type(exc).__name__})", kind="no_connection") from exc
        return await self._parse(page_from_html, body, charset, media, current), exchange

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

    async def _body(self, response: httpx.Response) -> tuple[bytes, bool]:
        """At most `vicaran_max_page_bytes` of the decoded body, and whether it was cut."""
        limit = self.settings.vicaran_max_page_bytes
        try:
            body, cut = await read_capped(response, limit)
        except BodyDecodeError as exc:
            raise Failed(str(exc)) from exc
        if cut:
            logger.info("%s is larger than %d bytes; reading only the start", response.url, limit)
        return body, cut

    async def _answer(self, response: httpx.Response) -> bytes:
        """Reader's JSON envelope, whole: at most `vicaran_max_page_bytes`, else refused."""
        limit = self.settings.vicaran_max_page_bytes
        try:
            return await read_answer(response, limit)
        except AnswerTooLarge as exc:
            raise Failed(
                f"answer larger than {limit:,} bytes (VICARAN_MAX_PAGE_BYTES), set aside unread",
                kind="not_a_page",
            ) from exc
        except BodyDecodeError as exc:
            raise Failed(str(exc)) from exc

    async def _parse(self, parser: Any, *args: Any) -> Page:
        """`parser(*args)` in the parse pool: a worker process, never the event loop. The
        read's clocks stop meanwhile (the pool has its own limit)."""
        loop = asyncio.get_running_loop()
        paused = [(clock, clock.when()) for clock in _CLOCKS.get()]
        stopped_at = loop.time()
        for clock, _ in paused:
            with contextlib.suppress(RuntimeError):  # already expiring: the wait is cancelled
                clock.reschedule(None)
        try:
            page: Page = await run_parser(
                parser, *args, settings=self.settings, seconds=self.timeout
            )
        except WorkerFailed as failed:
            raise Failed(_parser_failure(failed), kind="damaged") from None
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


def _jina_error(status: int, body: bytes, wait: float | None, cap: float) -> Failed:
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
        return Failed(
            "rate limited (429): set JINA_API_KEY in .env for higher limits",
            retry=True,
            retry_after=None if wait is None else min(wait, cap),
        )
    if status >= 500:
        return Failed(f"server error (HTTP {status})", retry=True, kind="server_error")
    reasons = {
        400: f"rejected the URL (400: {message or 'bad request'})",
        401: "rejected the API key (401): set a valid JINA_API_KEY in .env, or remove it",
        402: "account balance exhausted (402): recharge at https://jina.ai or remove JINA_API_KEY",
        403: "forbidden (403)",
        422: "no content available (422)",
        451: "refused the URL (451: blocked site or private address)",
    }
    kinds = {403: "refused", 422: "empty", 451: "refused"}
    return Failed(
        reasons.get(status, f"answered HTTP {status}" + (f": {message}" if message else "")),
        kind=kinds.get(status, "other"),
    )


def _is_web_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
        return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
    except ValueError:
        return False


def _telling(kinds: dict[str, str]) -> str:
    """The kind that tells a journalist most: the site's own answer (the direct fetch's) over
    the reading service's, unless the direct fetch says nothing more."""
    direct, reader = kinds.get("direct fetch", "other"), kinds.get("Jina Reader", "other")
    return direct if direct != "other" or reader == "other" else reader


def _one_line(steps: dict[str, str]) -> str:
    return "; ".join(f"{name}: {reason}" for name, reason in steps.items())


def _short(text: str, limit: int = 120) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"

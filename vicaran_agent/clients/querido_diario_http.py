"""Every request Vicaran sends to Querido Diário, API and gazette texts: the request budget,
retries, timeouts, redirects hop by hop and what each failure says (contract and limits:
`clients/querido_diario.py`). `QueridoDiario` adds what is asked of the API on top.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Self
from urllib.parse import urlsplit

import httpcore
import httpx

from ..clock import SYSTEM_CLOCK, Clock
from ..config import Settings
from ..i18n import Phrase
from .gazette_data import shortened, validation_detail
from .http import (
    ACCEPT_ENCODING,
    MAX_REDIRECTS,
    AnswerTooLarge,
    BodyDecodeError,
    LoopBound,
    RedirectError,
    guarded_get,
    read_answer,
    read_capped,
)
from .ratelimit import RateLimiter, limiter
from .retry import PermanentError, TransientError, backoff_delay, parse_retry_after, retried
from .safety import UnreachableURLError, UnsafeURLError

logger = logging.getLogger(__name__)


SERVICE = "Querido Diário"

SETTING = "QUERIDO_DIARIO_BASE_URL"

BUDGET = "querido_diario"  # the request budget's name (clients.ratelimit)

GAZETTES_PATH = "/gazettes"  # never with a trailing slash: that answers 307

CITIES_PATH = "/cities"

BACKOFF_BASE_SECONDS = 0.5

BACKOFF_MAX_SECONDS = 8.0

USER_AGENT = "Vicaran/0.1 (investigation assistant for journalists)"

# An answer is read up to its limit, then refused (`http.read_answer`): a page of 30 gazettes
# with 3 excerpts of 500 characters is about 100 KB (MAX_SIZE of them, 400 KB); the whole city
# list about 2 MB.
GAZETTES_MAX_BYTES = 2_000_000

CITIES_MAX_BYTES = 10_000_000

ERROR_MAX_BYTES = 64_000  # an error answer: its detail is all Vicaran reads

_NOT_TEXT = ("application/pdf", "application/zip", "application/octet-stream+zip")

_NOT_TEXT_PREFIXES = ("image/", "audio/", "video/", "font/")


class _RedirectLoop(Exception):
    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.url = url


class TextFailure(Exception):
    def __init__(self, reason: str, *, retry: bool = False, retry_after: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.retry = retry
        self.retry_after = retry_after


def _answer_limit(path: str) -> int:
    """How much of an answer at `path` is read before it is refused."""
    return CITIES_MAX_BYTES if path == CITIES_PATH else GAZETTES_MAX_BYTES


def _origin(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of `url`, the scheme's default port filled in; None if malformed."""
    try:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        port = parts.port or {"http": 80, "https": 443}.get(scheme)
        return scheme, (parts.hostname or "").rstrip(".").lower(), port
    except ValueError:
        return None


class QueridoDiarioHttp:
    """Retries, timeouts and the request budget of the rest of Vicaran, for one settings object."""

    def __init__(
        self,
        settings: Settings,
        *,
        backoff_base: float = BACKOFF_BASE_SECONDS,
        backoff_max: float = BACKOFF_MAX_SECONDS,
        dialer: httpcore.AsyncNetworkBackend | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        """`dialer` opens the sockets, always to the checked addresses (tests fence or route
        them); `clock` times the waits between tries and the request budget (tests move it)."""
        self.settings = settings
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.clock = clock
        self.requests = 0  # HTTP requests sent (retries and texts included): for the bench
        self._dialer = dialer
        self._bound = LoopBound(settings.vicaran_concurrency)

    @property
    def base_url(self) -> str:
        return self.settings.querido_diario_base_url.strip().rstrip("/")

    async def _get_json(
        self, path: str, params: list[tuple[str, str]], query: str
    ) -> dict[str, Any] | str:
        """The JSON object at `path`, retried on 429/5xx/timeouts; or a failure line."""

        async def call() -> dict[str, Any]:
            async with self._bound.slot():
                return await self._attempt(path, params, query)

        return await retried(
            call,
            retries=self.settings.vicaran_max_retries,
            backoff=self._backoff,
            service="Querido Diário",
            unexpected="gazettes_unexpected",
            clock=self.clock,
        )

    async def _attempt(
        self, path: str, params: list[tuple[str, str]], query: str
    ) -> dict[str, Any]:
        """One GET of the API, redirects followed hop by hop (each checked, each a request of
        the budget); the JSON object it answered, else TransientError/PermanentError."""
        timeout = self.settings.vicaran_querido_diario_timeout_seconds
        url = str(httpx.URL(self.base_url + path, params=params))
        seen = {url}

        def hop(location: str) -> str:  # a Location already visited: a loop, said as one
            if location in seen:
                raise _RedirectLoop(location)
            seen.add(location)
            return location

        try:
            async with guarded_get(
                url,
                allow_private=self.settings.vicaran_fetch_allow_private,
                hop_seconds=timeout,
                headers={"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING},
                accept="application/json",
                dialer=self._dialer,
                before_hop=self._spend,
                next_url=hop,
                trusted=self._is_api,
            ) as (_, response):
                status = response.status_code
                if status == 200:
                    body = await read_answer(response, _answer_limit(path))
                else:
                    body, _ = await read_capped(response, ERROR_MAX_BYTES)
        except AnswerTooLarge as exc:
            phrase = Phrase(
                "answer_too_large",
                service=SERVICE,
                limit=f"{exc.limit:,}",
                setting=SETTING,
                url=self.base_url,
            )
            raise PermanentError(phrase) from exc
        except _RedirectLoop as exc:
            raise PermanentError(Phrase("gazettes_redirect_loop", url=shortened(exc.url))) from exc
        except RedirectError as exc:
            if exc.status is not None:  # a redirect that names no Location
                raise PermanentError.answered_http(
                    SERVICE, exc.status, SETTING, self.base_url
                ) from exc
            phrase = Phrase("gazettes_redirects", count=MAX_REDIRECTS, url=self.base_url)
            raise PermanentError(phrase) from exc
        except UnsafeURLError as exc:
            raise PermanentError(Phrase("gazettes_refused", reason=str(exc))) from exc
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise TransientError(
                Phrase("search_timed_out", service=SERVICE, seconds=f"{timeout:g}"),
                Phrase("advice_gazettes_timeout"),
            ) from exc
        except (UnreachableURLError, httpx.TransportError) as exc:
            raise TransientError.unreachable(SERVICE, self.base_url, SETTING, exc) from exc
        except BodyDecodeError as exc:
            raise PermanentError(Phrase("gazettes_not_json", url=self.base_url)) from exc
        if status != 200:
            raise self._error(status, response.headers, body, query)
        try:
            parsed = json.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            raise PermanentError(Phrase("gazettes_not_json", url=self.base_url)) from exc
        if not isinstance(parsed, dict):
            raise PermanentError(Phrase("gazettes_not_json", url=self.base_url))
        return parsed

    def _error(self, status: int, headers: httpx.Headers, body: bytes, query: str) -> Exception:
        retry_after = parse_retry_after(headers.get("retry-after"), self.clock)
        longest = self.settings.vicaran_querido_diario_timeout_seconds
        if status == 429 and retry_after is not None and retry_after > longest:
            return PermanentError(
                Phrase("gazettes_rate_wait", seconds=f"{retry_after:g}", longest=f"{longest:g}")
            )
        if status == 429:
            if retry_after is not None:  # the whole process waits: the limit is per client
                self._budget().hold(retry_after)
            return TransientError(
                Phrase("gazettes_rate_limited"), Phrase("advice_gazettes_rate"), retry_after
            )
        if status >= 500:
            return TransientError(
                Phrase("server_error", service=SERVICE, status=status),
                Phrase("advice_try_later"),
                retry_after,
            )
        if status == 422:
            detail = validation_detail(body) or f"HTTP {status}"
            return PermanentError(
                Phrase("gazettes_rejected", query=shortened(query, 80), detail=detail)
            )
        return PermanentError.answered_http(SERVICE, status, SETTING, self.base_url)

    async def _spend(self) -> None:
        """Every request this module sends (each redirect hop too) is one of the budget's."""
        await self._budget().acquire()
        self.requests += 1

    def _is_api(self, url: str) -> bool:
        """`url` is on the configured API's own origin (the operator's choice: it may be a
        private address); anywhere a redirect leads otherwise is checked like any page."""
        origin = _origin(url)
        return origin is not None and origin == _origin(self.base_url)

    async def _fetch_text(self, url: str, limit: int) -> tuple[bytes, bool]:
        """(at most `limit` bytes of the body, whether it was cut), hop by hop, each checked."""
        timeout = self.settings.vicaran_page_timeout_seconds

        try:
            async with guarded_get(
                url,
                allow_private=self.settings.vicaran_fetch_allow_private,
                hop_seconds=timeout,
                headers={"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING},
                accept="text/plain",
                dialer=self._dialer,
                before_hop=self._spend,
            ) as (_, response):
                status = response.status_code
                if status != 200:
                    raise TextFailure(
                        Phrase("gazette_text_status", status=status),
                        retry=status == 429 or status >= 500,
                        retry_after=parse_retry_after(
                            response.headers.get("retry-after"), self.clock
                        ),
                    )
                media = response.headers.get("content-type", "").split(";")[0].strip()
                if media.lower() in _NOT_TEXT or media.lower().startswith(_NOT_TEXT_PREFIXES):
                    raise TextFailure(Phrase("gazette_text_not_text", media=media))
                return await read_capped(response, limit)
        except (UnsafeURLError, UnreachableURLError) as exc:
            raise TextFailure(str(exc)) from exc
        except RedirectError as exc:
            if exc.status is not None:
                raise TextFailure(Phrase("gazette_text_status", status=exc.status)) from exc
            raise TextFailure(Phrase("gazette_text_redirects", count=MAX_REDIRECTS)) from exc
        except (TimeoutError, httpx.TimeoutException) as exc:
            reason = Phrase("gazette_text_timeout", seconds=f"{timeout:g}")
            raise TextFailure(reason, retry=True) from exc
        except httpx.TransportError as exc:
            reason = Phrase("gazette_text_unreachable", error=type(exc).__name__)
            raise TextFailure(reason, retry=True) from exc
        except BodyDecodeError as exc:
            raise TextFailure(str(exc)) from exc

    def _budget(self) -> RateLimiter:
        settings = self.settings
        return limiter(
            BUDGET,
            settings.vicaran_querido_diario_rpm,
            settings.vicaran_rate_window_seconds,
            settings.vicaran_querido_diario_burst,
            clock=self.clock,
        )

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        """Exponential backoff, or the server's Retry-After when longer, past the backoff cap but
        never longer than a request may take (an API 429 asking more is reported, not waited)."""
        delay = backoff_delay(attempt, None, base=self.backoff_base, cap=self.backoff_max)
        if retry_after is None:
            return delay
        return max(delay, min(retry_after, self.settings.vicaran_querido_diario_timeout_seconds))

    async def aclose(self) -> None:
        """Nothing to release (connections live only for one call)."""
        return None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

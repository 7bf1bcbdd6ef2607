"""Querido Diário (Brazilian municipal gazettes): search, city lookup and full texts.

Contract: docs/services.md, "Querido Diário". Production API: https://api.queridodiario.org.br
(since 2026-07; api.queridodiario.ok.org.br is retired). No authentication.

- Rate: the API sits behind Traefik's `api-rate-limit` (okfn-brasil/querido-diario-deployment):
  a token bucket of 50 per client refilled at 25 a minute; a request it cannot serve within
  0.5 s gets 429 with `Retry-After`. Every request this module sends (each redirect hop, retries
  and gazette texts included, though the files host is not behind that limit) takes a slot of
  the process-wide `querido_diario` budget: at most VICARAN_QUERIDO_DIARIO_RPM (25) in any 60 s
  and VICARAN_QUERIDO_DIARIO_BURST at once (`tools.ratelimit`). Kept to 25 in any minute, the
  client never empties Traefik's bucket (its deficit stays at most 25 of 50). A 429 is waited
  out for its `Retry-After` (past the backoff cap), and the budget holds every other request of
  the process as long; one longer than a request may take is reported instead.
- Time: each request has VICARAN_QUERIDO_DIARIO_TIMEOUT_SECONDS (45): a term's first query
  takes 20-36 s on the real service (its search engine is cold), a repeat well under a second.
- Redirects are followed hop by hop through `http.guarded_get`: each hop's host is resolved,
  checked and dialled at the checked address, within the timeout; the configured address may be
  private (the operator chose it), anywhere it redirects to is checked like any page. A loop or
  more than `http.MAX_REDIRECTS` hops is one failure line.
- `search` sends one GET /gazettes per querystring, concurrently, each with `size`,
  `excerpt_size=500`, `number_of_excerpts=3` and `sort_by=relevance`, `territory_ids` repeated
  (a comma-joined value would be ONE id to the API) and dates as YYYY-MM-DD; it merges the answers,
  de-duplicated by `txt_url` (else `url`), each gazette keeping the querystrings that found it.
- `resolve_city` matches names client-side, accents and case ignored (the API's `city_name` filter
  is a substring match on the accented name: "sao paulo" finds nothing), over the full city list,
  fetched once per process.
- `read_text` fetches a gazette's text as the API gives it, through the SSRF guard and the size
  cap of every page Vicaran reads (`safety.resolve_url`, `http.pinned_client`, `http.read_capped`).
- An API answer is read up to GAZETTES_MAX_BYTES (the city list: CITIES_MAX_BYTES), then refused
  with one line (`http.read_answer`); of a /gazettes page no more gazettes and excerpts are kept
  than were asked for.

Nothing here raises into its callers: failures come back as one-line Phrases (or None).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

from ..clock import SYSTEM_CLOCK, Clock
from ..config import Settings
from ..i18n import Phrase
from .gazette_data import (
    EXCERPT_SIZE,
    MAX_SIZE,
    NUMBER_OF_EXCERPTS,
    City,
    CityResolution,
    Gazette,
    GazetteSearch,
    GazetteText,
    cities_of,
    city_key,
    clean_querystrings,
    clean_territory_ids,
    close_cities,
    gazettes_of,
    iso_date,
    resolved_phrase,
    shortened,
    split_state,
    text_of,
    unreadable_phrase,
    validation_detail,
)
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


BUDGET = "querido_diario"  # the request budget's name (tools.ratelimit)


GAZETTES_PATH = "/gazettes"  # never with a trailing slash: that answers 307


CITIES_PATH = "/cities"


SORT_BY = "relevance"


CACHE_SIZE = 256


BYTES_PER_CHAR = 4  # UTF-8: `max_chars` characters never take more bytes than this many times


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


class _TextFailure(Exception):
    def __init__(self, reason: str, *, retry: bool = False, retry_after: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.retry = retry
        self.retry_after = retry_after


# Process-wide: the city list of each base URL, fetched once (one fetch at a time).
_CITY_LISTS: dict[str, tuple[City, ...]] = {}


_CITY_FETCH = LoopBound(1)


def clear_city_cache() -> None:
    """Forget every city list (tests; a long-lived process never needs to)."""
    _CITY_LISTS.clear()


class QueridoDiario:
    """A small client: retries, timeouts and the request budget of the rest of Vicaran."""

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
        self._cache: dict[tuple[Any, ...], tuple[int, list[Gazette]]] = {}

    @property
    def base_url(self) -> str:
        return self.settings.querido_diario_base_url.strip().rstrip("/")

    # --- /gazettes -------------------------------------------------------------------------

    async def search(
        self,
        querystrings: Sequence[str],
        *,
        territory_ids: Sequence[str] = (),
        published_since: str | date | None = None,
        published_until: str | date | None = None,
        size: int = 30,
    ) -> GazetteSearch:
        """Every querystring searched concurrently (one page of `size` each); never raises."""
        outcome = GazetteSearch()
        queries = clean_querystrings(querystrings)
        if not queries:
            return outcome
        try:
            since = iso_date(published_since, "published_since")
            until = iso_date(published_until, "published_until")
        except ValueError as bad:
            outcome.failures.append(bad.args[0])
            return outcome
        if since and until and since > until:
            outcome.failures.append(Phrase("gazettes_dates_reversed", since=since, until=until))
            return outcome
        params: list[tuple[str, str]] = [
            ("size", str(max(1, min(int(size), MAX_SIZE)))),
            ("excerpt_size", str(EXCERPT_SIZE)),
            ("number_of_excerpts", str(NUMBER_OF_EXCERPTS)),
            ("sort_by", SORT_BY),
        ]
        params += [("territory_ids", t) for t in clean_territory_ids(territory_ids)]
        params += [("published_since", since)] if since else []
        params += [("published_until", until)] if until else []
        results = await self._search_many(queries, params)
        merged: dict[str, Gazette] = {}
        for query, result in zip(queries, results, strict=True):
            if isinstance(result, str):
                if result not in outcome.failures:
                    outcome.failures.append(result)
                continue
            total, gazettes = result
            outcome.totals[query] = total
            for gazette in gazettes:
                known = merged.get(gazette.key)
                if known is None:
                    merged[gazette.key] = replace(gazette, queries=(query,))
                elif query not in known.queries:
                    excerpts = tuple(dict.fromkeys(known.excerpts + gazette.excerpts))
                    merged[gazette.key] = replace(
                        known, queries=(*known.queries, query), excerpts=excerpts
                    )
        outcome.gazettes = list(merged.values())
        return outcome

    async def _search_many(
        self, queries: list[str], params: list[tuple[str, str]]
    ) -> list[tuple[int, list[Gazette]] | str]:
        keys = [(query, *params) for query in queries]
        results: dict[int, tuple[int, list[Gazette]] | str] = {
            i: self._cache[key] for i, key in enumerate(keys) if key in self._cache
        }
        missing = [i for i in range(len(queries)) if i not in results]
        if missing:
            fresh = await asyncio.gather(*(self._search_one(queries[i], params) for i in missing))
            for i, result in zip(missing, fresh, strict=True):
                results[i] = result
                if not isinstance(result, str):
                    self._remember(keys[i], result)
        return [results[i] for i in range(len(queries))]

    def _remember(self, key: tuple[Any, ...], result: tuple[int, list[Gazette]]) -> None:
        if len(self._cache) >= CACHE_SIZE:
            self._cache.pop(next(iter(self._cache)))
        self._cache[key] = result

    async def _search_one(
        self, query: str, params: list[tuple[str, str]]
    ) -> tuple[int, list[Gazette]] | str:
        body = await self._get_json(GAZETTES_PATH, [("querystring", query), *params], query)
        if isinstance(body, str):
            return body
        asked = next((int(v) for k, v in params if k == "size"), MAX_SIZE)
        return gazettes_of(body, asked)

    # --- /cities ---------------------------------------------------------------------------

    async def resolve_city(self, name: str, state_code: str | None = None) -> CityResolution:
        """The city `name` (accents and case ignored) names, settled by `state_code` (or a
        "/RS" in the name) among homonyms; else None, with candidates and a note. Never raises."""
        wanted, state_in_name = split_state(" ".join(str(name or "").split()))
        state = (state_code or state_in_name or "").strip().upper()
        if not wanted:
            return CityResolution(None)
        cities = await self._city_list()
        if isinstance(cities, str):
            note = Phrase("cities_failed", name=wanted, what=cities)
            return CityResolution(None, note=note, failure=cities)
        key = city_key(wanted)
        same = [city for city in cities if city_key(city.name) == key]
        if not same:
            close = close_cities(key, cities)
            if close:
                names = ", ".join(f"{c.name} ({c.state_code})" for c in close)
                note = Phrase("city_unknown_close", name=wanted, names=names)
            else:
                note = Phrase("city_unknown", name=wanted)
            return CityResolution(None, note=note, close=close)
        if state:
            in_state = [city for city in same if city.state_code == state]
            if len(in_state) == 1:
                return CityResolution(in_state[0], note=resolved_phrase(in_state[0]))
            if not in_state:
                states = ", ".join(sorted({c.state_code for c in same}))
                note = Phrase("city_not_in_state", name=same[0].name, state=state, states=states)
                return CityResolution(None, candidates=tuple(same), note=note)
            same = in_state
        if len(same) == 1:
            return CityResolution(same[0], note=resolved_phrase(same[0]))
        states = ", ".join(c.state_code for c in same)
        note = Phrase("city_homonyms", count=len(same), name=same[0].name, states=states)
        return CityResolution(None, candidates=tuple(same), note=note)

    async def _city_list(self) -> tuple[City, ...] | str:
        base = self.base_url
        if (cached := _CITY_LISTS.get(base)) is not None:
            return cached
        async with _CITY_FETCH.slot():
            if (cached := _CITY_LISTS.get(base)) is not None:
                return cached
            body = await self._get_json(CITIES_PATH, [], "")
            if isinstance(body, str):
                return body
            cities = cities_of(body)
            _CITY_LISTS[base] = cities
            return cities

    # --- requests to the API ---------------------------------------------------------------

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

    # --- gazette texts ---------------------------------------------------------------------

    async def read_text(self, txt_url: str, max_chars: int = 80_000) -> str | None:
        """The gazette's text, cut at `max_chars` characters; None when it cannot be read."""
        return (await self.read(txt_url, max_chars)).text

    async def read(self, txt_url: str, max_chars: int = 80_000) -> GazetteText:
        """`read_text` with why it failed and whether the text was cut. Never raises."""
        url = (txt_url or "").strip()
        max_chars = max(1, int(max_chars))
        if not _is_web_url(url):
            return GazetteText(
                url, None, failure=unreadable_phrase(url, Phrase("gazette_text_not_web"))
            )
        limit = min(self.settings.vicaran_max_page_bytes, BYTES_PER_CHAR * max_chars)
        retries = self.settings.vicaran_max_retries
        attempt = 0
        while True:
            try:
                body, cut = await self._fetch_text(url, limit)
                return text_of(url, body, cut, max_chars)
            except _TextFailure as failure:
                if not failure.retry or attempt >= retries:
                    return GazetteText(url, None, failure=unreadable_phrase(url, failure.reason))
                delay = self._backoff(attempt, failure.retry_after)
                attempt += 1
                await self.clock.sleep(delay)
            except Exception as exc:  # never raise into the loop (logged)
                logger.warning("reading gazette text %s failed unexpectedly", url, exc_info=True)
                return GazetteText(url, None, failure=unreadable_phrase(url, type(exc).__name__))

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
                    raise _TextFailure(
                        Phrase("gazette_text_status", status=status),
                        retry=status == 429 or status >= 500,
                        retry_after=parse_retry_after(
                            response.headers.get("retry-after"), self.clock
                        ),
                    )
                media = response.headers.get("content-type", "").split(";")[0].strip()
                if media.lower() in _NOT_TEXT or media.lower().startswith(_NOT_TEXT_PREFIXES):
                    raise _TextFailure(Phrase("gazette_text_not_text", media=media))
                return await read_capped(response, limit)
        except (UnsafeURLError, UnreachableURLError) as exc:
            raise _TextFailure(str(exc)) from exc
        except RedirectError as exc:
            if exc.status is not None:
                raise _TextFailure(Phrase("gazette_text_status", status=exc.status)) from exc
            raise _TextFailure(Phrase("gazette_text_redirects", count=MAX_REDIRECTS)) from exc
        except (TimeoutError, httpx.TimeoutException) as exc:
            reason = Phrase("gazette_text_timeout", seconds=f"{timeout:g}")
            raise _TextFailure(reason, retry=True) from exc
        except httpx.TransportError as exc:
            reason = Phrase("gazette_text_unreachable", error=type(exc).__name__)
            raise _TextFailure(reason, retry=True) from exc
        except BodyDecodeError as exc:
            raise _TextFailure(str(exc)) from exc

    # --- helpers ---------------------------------------------------------------------------

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

    async def __aenter__(self) -> QueridoDiario:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


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


def _is_web_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
        return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
    except ValueError:
        return False

"""Web search through Tavily: many queries at once, bounded, retried, deduplicated, filtered.

`WebSearch.search_many` never raises: failures come back as one-line, human-readable reasons
that say what to do. An answer is read up to ANSWER_MAX_BYTES (decoded) through the client the
SDK drives (`http.capped_client`), then refused. It does not trust Tavily's own domain filter
(it leaks) and enforces the include/exclude lists itself.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import httpx
from tavily import (
    AsyncTavilyClient,
    BadRequestError,
    InvalidAPIKeyError,
    UsageLimitExceededError,
)
from tavily.errors import ForbiddenError
from tavily.errors import TimeoutError as TavilyTimeoutError

from ..clock import SYSTEM_CLOCK, Clock
from ..config import Settings
from ..i18n import Phrase
from ..schemas import DateSource
from ..urls import domain_matches, normalize_url
from .content import published_date
from .http import AnswerTooLarge, LoopBound, capped_client
from .ratelimit import limiter
from .retry import PermanentError, TransientError, backoff_delay, parse_retry_after

logger = logging.getLogger(__name__)

MAX_QUERY_CHARS = 400  # Tavily rejects longer queries
MAX_RESULTS_LIMIT = 20  # Tavily's documented maximum for max_results
# An answer is read up to this, then refused: 20 results of snippets are tens of KB; even with
# raw page content (never asked for here) 20 pages are a few MB.
ANSWER_MAX_BYTES = 5_000_000
BACKOFF_BASE_SECONDS = 0.5
BACKOFF_MAX_SECONDS = 8.0
CACHE_SIZE = 256
# A news search names its window: without `days` Tavily keeps only the last 3 days of news.
NEWS_DAYS = 3650
USER_AGENT = "Vicaran/0.1 (investigation assistant for journalists)"

KEY_MISSING = Phrase("search_key_missing")


@dataclass(frozen=True)
class SearchHit:
    """One search result; `published_at` is YYYY-MM-DD or None.

    `url` is the address as the search engine gave it (fetchable as is). `normalize_url(url)`
    is the key results are deduplicated by; it is not always fetchable (it drops `www.`).
    `published_at` is Tavily's `published_date`, which only a news search gives.
    """

    url: str
    title: str
    snippet: str
    published_at: str | None
    score: float
    query: str

    @property
    def published_at_source(self) -> DateSource | None:
        return "search" if self.published_at else None


@dataclass
class SearchOutcome:
    """What `search_many` found, what failed (one line each, deduplicated) and what it asked."""

    hits: list[SearchHit] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)


@dataclass
class _Seen:
    """Filled by the httpx response hook during one attempt (the SDK hides status and headers)."""

    clock: Clock
    status: int | None = None
    retry_after: float | None = None


_ATTEMPT: ContextVar[_Seen | None] = ContextVar("vicaran_tavily_attempt", default=None)


async def _on_response(response: httpx.Response) -> None:
    seen = _ATTEMPT.get()
    if seen is not None:
        seen.status = response.status_code
        seen.retry_after = parse_retry_after(response.headers.get("retry-after"), seen.clock)


def clean_queries(queries: list[str]) -> list[str]:
    """Stripped, single-spaced, capped at 400 characters, empty and duplicate ones dropped."""
    cleaned: list[str] = []
    seen: set[str] = set()
    for query in queries:
        query = cap_query(" ".join(str(query or "").split()))
        key = query.casefold()
        if query and key not in seen:
            seen.add(key)
            cleaned.append(query)
    return cleaned


def cap_query(query: str, limit: int = MAX_QUERY_CHARS) -> str:
    """`query` cut to at most `limit` characters, on a word boundary when there is one."""
    if len(query) <= limit:
        return query
    cut = query[:limit]
    if not query[limit].isspace():
        boundary = cut.rfind(" ")
        if boundary > limit // 2:
            cut = cut[:boundary]
    return cut.rstrip()


class WebSearch:
    """Tavily search for Vicaran. Safe to share; each `search_many` uses its own connection pool."""

    def __init__(
        self,
        settings: Settings,
        *,
        backoff_base: float = BACKOFF_BASE_SECONDS,
        backoff_max: float = BACKOFF_MAX_SECONDS,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        """`clock` times the backoff and the request budget (tests move it)."""
        self.settings = settings
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.clock = clock
        self._cache: dict[tuple[Any, ...], list[SearchHit]] = {}
        self._bound = LoopBound(settings.vicaran_concurrency)

    async def aclose(self) -> None:
        """Nothing to release (connections live only for one `search_many` call)."""

    async def __aenter__(self) -> WebSearch:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def search_many(
        self,
        queries: list[str],
        *,
        max_results: int = 10,
        include_domains: list[str] | None = None,
        exclude_domains: list[str] | None = None,
        topic: str = "general",
    ) -> SearchOutcome:
        """Run `queries` concurrently; hits deduplicated by URL, filtered, best score first.

        Only a `topic="news"` search gives publication dates (and reaches back NEWS_DAYS).
        """
        cleaned = clean_queries(queries)
        outcome = SearchOutcome(queries=cleaned)
        results: dict[str, list[SearchHit] | str] = {}
        async for query, result in self.search_each(
            cleaned,
            max_results=max_results,
            include_domains=include_domains,
            exclude_domains=exclude_domains,
            topic=topic,
        ):
            results[query] = result
        best: dict[str, SearchHit] = {}
        for query in cleaned:  # the queries' order, not the answers': the same merge every run
            result = results[query]
            if isinstance(result, str):
                if result not in outcome.failures:
                    outcome.failures.append(result)
                continue
            for hit in result:
                key = normalize_url(hit.url)
                if key not in best or hit.score > best[key].score:
                    best[key] = hit
        outcome.hits = sorted(best.values(), key=lambda h: h.score, reverse=True)
        return outcome

    async def search_each(
        self,
        queries: list[str],
        *,
        max_results: int = 10,
        include_domains: list[str] | None = None,
        exclude_domains: list[str] | None = None,
        topic: str = "general",
    ) -> AsyncIterator[tuple[str, list[SearchHit] | str]]:
        """Each cleaned query with its filtered hits (or why it failed), as each answers.

        The queries are sent concurrently; remembered answers come first. Never raises.
        """
        cleaned = clean_queries(queries)
        if not cleaned:
            return
        if not self.settings.tavily_api_key.strip():
            for query in cleaned:
                yield query, KEY_MISSING
            return
        include = _merge(include_domains, self.settings.include_domains)
        exclude = _merge(exclude_domains, self.settings.exclude_domains)
        max_results = max(0, min(int(max_results), MAX_RESULTS_LIMIT))
        options: dict[str, Any] = {"max_results": max_results, "topic": topic}
        if topic == "news":
            options["days"] = NEWS_DAYS
        if include:
            options["include_domains"] = include
        if exclude:
            options["exclude_domains"] = exclude
        options_key = (max_results, topic, tuple(include), tuple(exclude))

        def kept(hits: list[SearchHit]) -> list[SearchHit]:
            return [
                hit
                for hit in hits
                if not (include and not domain_matches(hit.url, include))
                and not (exclude and domain_matches(hit.url, exclude))
            ]

        pending = []
        for query in cleaned:
            cached = self._cache.get((query.casefold(), *options_key))
            if cached is None:
                pending.append(query)
            else:
                yield query, kept(cached)
        if not pending:
            return
        fatal: list[str] = []  # an account-level failure stops the queries not yet sent
        async with self._http_client() as http:
            client = AsyncTavilyClient(
                api_key=self.settings.tavily_api_key,
                api_base_url=self.settings.tavily_base_url,
                client=http,
            )

            async def one(query: str) -> tuple[str, list[SearchHit] | str]:
                return query, await self._search_one(client, query, options, fatal)

            tasks = [asyncio.ensure_future(one(query)) for query in pending]
            try:
                for answered in asyncio.as_completed(tasks):
                    query, result = await answered
                    if isinstance(result, str):
                        yield query, result
                        continue
                    self._remember((query.casefold(), *options_key), result)
                    yield query, kept(result)
            finally:  # a caller that stops listening stops the searches still out
                for task in tasks:
                    task.cancel()

    # --- one query -------------------------------------------------------------------------

    async def _search_one(
        self, client: AsyncTavilyClient, query: str, options: dict[str, Any], fatal: list[str]
    ) -> list[SearchHit] | str:
        """The hits for one query, or a failure message."""
        retries = self.settings.vicaran_max_retries
        attempt = 0
        while True:
            try:
                async with self._bound.slot():
                    if fatal:
                        return fatal[0]
                    body = await self._attempt(client, query, options)
                return _hits(body, query)
            except PermanentError as failure:
                if failure.fatal and not fatal:
                    fatal.append(failure.message)
                return failure.message
            except TransientError as failure:
                if attempt >= retries:
                    return failure.final_message(retries)
                delay = self._backoff(attempt, failure.retry_after)
                logger.info("Tavily: %s; retry in %.2f s", failure.what, delay)
                attempt += 1
                await self.clock.sleep(delay)

    async def _attempt(
        self, client: AsyncTavilyClient, query: str, options: dict[str, Any]
    ) -> dict[str, Any]:
        timeout = self.settings.vicaran_search_timeout_seconds
        await limiter(
            "tavily",
            self.settings.vicaran_tavily_rpm,
            self.settings.vicaran_rate_window_seconds,
            clock=self.clock,
        ).acquire()
        seen = _Seen(self.clock)
        token = _ATTEMPT.set(seen)
        try:
            async with asyncio.timeout(timeout):
                body = await client.search(query, timeout=timeout, **options)
        except (TavilyTimeoutError, TimeoutError, httpx.TimeoutException) as exc:
            raise TransientError(
                Phrase("search_timed_out", service="Tavily", seconds=f"{timeout:g}"),
                Phrase("advice_timeout"),
            ) from exc
        except UsageLimitExceededError as exc:
            raise TransientError(
                Phrase("tavily_rate_limited"), Phrase("advice_rate_limited"), seen.retry_after
            ) from exc
        except InvalidAPIKeyError as exc:
            raise PermanentError(Phrase("tavily_key_rejected"), fatal=True) from exc
        except BadRequestError as exc:
            raise PermanentError(
                Phrase("tavily_bad_query", query=_short(query), detail=_detail(exc))
            ) from exc
        except ForbiddenError as exc:
            raise PermanentError(_forbidden_message(seen.status, exc), fatal=True) from exc
        except httpx.HTTPStatusError as exc:
            status = exc.response.status_code
            if status >= 500:
                raise TransientError(
                    Phrase("server_error", service="Tavily", status=status),
                    Phrase("advice_try_later"),
                ) from exc
            url = self.settings.tavily_base_url
            raise PermanentError.answered_http("Tavily", status, "TAVILY_BASE_URL", url) from exc
        except httpx.TransportError as exc:
            url = self.settings.tavily_base_url
            raise TransientError.unreachable("Tavily", url, "TAVILY_BASE_URL", exc) from exc
        except AnswerTooLarge as exc:
            raise PermanentError(
                Phrase(
                    "answer_too_large",
                    service="Tavily",
                    limit=f"{exc.limit:,}",
                    setting="TAVILY_BASE_URL",
                    url=self.settings.tavily_base_url,
                )
            ) from exc
        except Exception as exc:  # the SDK and JSON decoding can fail in odd ways
            logger.warning("Tavily search failed", exc_info=True)
            raise PermanentError(
                Phrase("tavily_unexpected", error=type(exc).__name__, detail=_short(str(exc)))
            ) from exc
        finally:
            _ATTEMPT.reset(token)
        if not isinstance(body, dict):
            raise PermanentError(Phrase("not_json", service="Tavily"))
        return body

    # --- helpers ---------------------------------------------------------------------------

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        return backoff_delay(attempt, retry_after, base=self.backoff_base, cap=self.backoff_max)

    def _http_client(self) -> httpx.AsyncClient:
        """The client the SDK drives: whatever it reads of an answer is capped."""
        return capped_client(
            ANSWER_MAX_BYTES,
            base_url=self.settings.tavily_base_url,
            headers={"User-Agent": USER_AGENT},
            event_hooks={"response": [_on_response]},
            limits=httpx.Limits(max_connections=max(1, self.settings.vicaran_concurrency)),
        )

    def _remember(self, key: tuple[Any, ...], hits: list[SearchHit]) -> None:
        self._cache.pop(key, None)
        self._cache[key] = hits
        while len(self._cache) > CACHE_SIZE:
            self._cache.pop(next(iter(self._cache)))


def _merge(*lists: list[str] | None) -> list[str]:
    merged: list[str] = []
    for items in lists:
        for item in items or []:
            item = item.strip().lower()
            if item and item not in merged:
                merged.append(item)
    return merged


def _hits(body: dict[str, Any], query: str) -> list[SearchHit]:
    hits: list[SearchHit] = []
    for result in body.get("results") or []:
        if not isinstance(result, dict) or not isinstance(result.get("url"), str):
            continue
        url = result["url"].strip()
        if not url.lower().startswith(("http://", "https://")) or not normalize_url(url):
            continue
        try:
            score = float(result.get("score") or 0.0)
        except (TypeError, ValueError):
            score = 0.0
        hits.append(
            SearchHit(
                url=url,
                title=" ".join(str(result.get("title") or "").split()),
                snippet=" ".join(str(result.get("content") or "").split()),
                published_at=published_date(result.get("published_date")),
                score=score,
                query=query,
            )
        )
    return hits


def _forbidden_message(status: int | None, exc: Exception) -> Phrase:
    if status == 432:
        return Phrase("tavily_credits")
    if status == 433:
        return Phrase("tavily_payg")
    return Phrase("tavily_forbidden", detail=_detail(exc))


def _detail(exc: Exception) -> str:
    return _short(str(exc)) or "no reason given"


_SPACE = re.compile(r"\s+")


def _short(text: str, limit: int = 120) -> str:
    text = _SPACE.sub(" ", text or "").strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"

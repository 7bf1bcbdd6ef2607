"""Querido Diário (Brazilian municipal gazettes): search, city lookup and full texts.

Contract: docs/services.md, "Querido Diário". Production API: https://api.queridodiario.org.br
(since 2026-07; api.queridodiario.ok.org.br is retired). No authentication.

- Rate: the API sits behind Traefik's `api-rate-limit` (okfn-brasil/querido-diario-deployment):
  a token bucket of 50 per client refilled at 25 a minute; a request it cannot serve within
  0.5 s gets 429 with `Retry-After`. Every request this module sends (each redirect hop, retries
  and gazette texts included, though the files host is not behind that limit) takes a slot of
  the process-wide `querido_diario` budget: at most VICARAN_QUERIDO_DIARIO_RPM (25) in any 60 s
  and VICARAN_QUERIDO_DIARIO_BURST at once (`clients.ratelimit`). Kept to 25 in any minute, the
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
import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from typing import Any
from urllib.parse import urlsplit

import httpcore

from .. import services
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
    split_state,
    text_of,
    unreadable_phrase,
)
from .http import LoopBound
from .querido_diario_http import (
    BACKOFF_BASE_SECONDS,
    BACKOFF_MAX_SECONDS,
    CITIES_PATH,
    GAZETTES_PATH,
    QueridoDiarioHttp,
    TextFailure,
)

logger = logging.getLogger(__name__)
SORT_BY = "relevance"
CACHE_SIZE = 256
BYTES_PER_CHAR = 4  # UTF-8: `max_chars` characters never take more bytes than this many times


# One fetch of the city list at a time (the lists themselves: services.current().city_lists).
_CITY_FETCH = LoopBound(1)


class QueridoDiario(QueridoDiarioHttp):
    """A small client of the API: gazette search, city lookup and gazette texts."""

    def __init__(
        self,
        settings: Settings,
        *,
        backoff_base: float = BACKOFF_BASE_SECONDS,
        backoff_max: float = BACKOFF_MAX_SECONDS,
        dialer: httpcore.AsyncNetworkBackend | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        super().__init__(
            settings, backoff_base=backoff_base, backoff_max=backoff_max, dialer=dialer, clock=clock
        )
        self._cache: dict[tuple[Any, ...], tuple[int, list[Gazette]]] = {}

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
        city_lists = services.current().city_lists  # fetched once per process
        if (cached := city_lists.get(base)) is not None:
            return cached
        async with _CITY_FETCH.slot():
            if (cached := city_lists.get(base)) is not None:
                return cached
            body = await self._get_json(CITIES_PATH, [], "")
            if isinstance(body, str):
                return body
            cities = cities_of(body)
            city_lists[base] = cities
            return cities

    # --- requests to the API ---------------------------------------------------------------

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
            except TextFailure as failure:
                if not failure.retry or attempt >= retries:
                    return GazetteText(url, None, failure=unreadable_phrase(url, failure.reason))
                delay = self._backoff(attempt, failure.retry_after)
                attempt += 1
                await self.clock.sleep(delay)
            except Exception as exc:  # never raise into the loop (logged)
                logger.warning("reading gazette text %s failed unexpectedly", url, exc_info=True)
                return GazetteText(url, None, failure=unreadable_phrase(url, type(exc).__name__))

    # --- helpers ---------------------------------------------------------------------------


def _is_web_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
        return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
    except ValueError:
        return False
